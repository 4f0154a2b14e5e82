import type { Pod } from "@skiff/api-types";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startTestDevicePlugin, type TestDevicePlugin } from "../../../test/device-plugin-helpers.js";
import { DeviceManager, endpointStopGracePeriodMs, isExtendedResourceName } from "./manager.js";

const res = "example.com/foo";
const dev = (ID: string, health = "Healthy") => ({ ID, health });

function pod(uid: string, containers: { name: string; n?: number }[], init: { name: string; n?: number }[] = []): Pod {
  const c = (x: { name: string; n?: number }) => ({ name: x.name, image: "busybox", ...(x.n !== undefined ? { resources: { limits: { [res]: String(x.n) } } } : {}) });
  return { metadata: { uid, name: uid, namespace: "default" }, spec: { containers: containers.map(c), initContainers: init.map(c) } } as Pod;
}

async function until<T>(f: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("DeviceManager (a test device plugin over real gRPC; no real hardware here)", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.reverse()) await c();
    cleanups.length = 0;
  });

  async function setUp(devices = [dev("dev-a"), dev("dev-b")], opts: { preStartRequired?: boolean; clock?: () => number } = {}): Promise<{ m: DeviceManager; plugin: TestDevicePlugin; root: string }> {
    const root = mkdtempSync(join(tmpdir(), "hdp-dm-"));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const m = await DeviceManager.start({ rootDir: root, log: () => {}, ...(opts.clock ? { clock: opts.clock } : {}) });
    cleanups.push(() => m.stop());
    const plugin = await startTestDevicePlugin({ dir: m.socketDir, endpoint: "foo.sock", resourceName: res, devices, options: { preStartRequired: opts.preStartRequired === true } });
    cleanups.push(() => plugin.stop());
    await plugin.register();
    await until(() => (m.getCapacity().capacity[res] === devices.length ? true : undefined), "the devices");
    return { m, plugin, root };
  }

  it("serves kubelet.sock in <root-dir>/device-plugins and reports capacity (all) and allocatable (healthy)", async () => {
    const { m } = await setUp([dev("dev-a"), dev("dev-b"), dev("dev-c", "Unhealthy")]);
    expect(m.socketPath.endsWith("/device-plugins/kubelet.sock")).toBe(true);
    expect(existsSync(m.socketPath)).toBe(true);
    expect(m.getCapacity()).toEqual({ capacity: { [res]: 3 }, allocatable: { [res]: 2 }, removed: [] });
    expect(m.allocatableDevices()).toEqual([{ resourceName: res, deviceIds: ["dev-a", "dev-b"] }]);
  });

  it("refuses to start when the registration socket's path is longer than a unix socket path can be (it would be bound truncated)", async () => {
    const root = mkdtempSync(join(tmpdir(), "hdp-dm-"));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const deep = join(root, "r".repeat(100));
    await expect(DeviceManager.start({ rootDir: deep, log: () => {} })).rejects.toThrow(/is \d+ bytes long, more than the 107 a unix socket path can have: use a shorter --root-dir/);
  });

  it("refuses a bad version, a non-extended resource name and an endpoint outside the directory with 1.23's messages", async () => {
    const { plugin } = await setUp();
    await expect(plugin.register({ version: "v1alpha" })).rejects.toThrow('requested API version "v1alpha" is not supported by kubelet. Supported version is ["v1beta1"]');
    await expect(plugin.register({ resourceName: "cpu" })).rejects.toThrow('the ResourceName "cpu" is invalid');
    await expect(plugin.register({ resourceName: "kubernetes.io/foo" })).rejects.toThrow('the ResourceName "kubernetes.io/foo" is invalid');
    await expect(plugin.register({ endpoint: "../x.sock" })).rejects.toThrow("is not a socket in");
  });

  it("follows ListAndWatch updates; a plugin that goes away keeps capacity with 0 allocatable until the grace period, then 0", async () => {
    let now = 1_000_000;
    const { m, plugin } = await setUp(undefined, { clock: () => now });
    plugin.setDevices([dev("dev-a"), dev("dev-b", "Unhealthy")]);
    await until(() => (m.getCapacity().allocatable[res] === 1 ? true : undefined), "the update");
    await plugin.stop();
    await until(() => (m.getCapacity().allocatable[res] === 0 ? true : undefined), "the plugin's end");
    expect(m.getCapacity().capacity[res]).toBe(2);
    now += endpointStopGracePeriodMs + 1;
    expect(m.getCapacity()).toEqual({ capacity: {}, allocatable: {}, removed: [res] });
    // Still 0 in node status at the next update (1.23's Node keeps the 0 it wrote)...
    expect(m.getCapacity().removed).toEqual([res]);
    // ...until the plugin registers again.
    const again = await startTestDevicePlugin({ dir: m.socketDir, endpoint: "foo2.sock", resourceName: res, devices: [dev("dev-z")] });
    cleanups.push(() => again.stop());
    await again.register();
    await until(() => (m.getCapacity().capacity[res] === 1 ? true : undefined), "the new registration");
    expect(m.getCapacity().removed).toEqual([]);
  });

  it("admits within the healthy free devices, rejects beyond with UnexpectedAdmissionError, releases on removal", async () => {
    const { m, plugin } = await setUp(undefined, { preStartRequired: true });
    const p1 = pod("p1", [{ name: "c", n: 1 }]);
    expect(m.admitPod(p1, [])).toEqual({ admit: true });
    expect(m.containerDevices("p1", "c")).toEqual([{ resourceName: res, deviceIds: ["dev-a"] }]);
    expect(m.admitPod(pod("p2", [{ name: "c", n: 2 }]), [p1])).toEqual({
      admit: false,
      reason: "UnexpectedAdmissionError",
      message: "Allocate failed due to requested number of devices unavailable for example.com/foo. Requested: 2, Available: 1, which is unexpected",
    });
    const opts = await m.runContainerOptions(p1, p1.spec!.containers[0]!);
    expect(opts?.envs).toEqual([{ key: "FOO_DEVICES", value: "dev-a" }]);
    expect(opts?.mounts).toEqual([{ containerPath: "/dev-foo", hostPath: "/tmp", readonly: true }]);
    expect(opts?.annotations).toEqual({ "example.com/foo-devices": "dev-a" });
    expect(plugin.allocations).toEqual([["dev-a"]]);
    expect(plugin.preStarts).toEqual([["dev-a"]]);
    // A restart: no second Allocate, PreStartContainer again (as 1.23, before every start).
    await m.runContainerOptions(p1, p1.spec!.containers[0]!);
    expect(plugin.allocations).toHaveLength(1);
    expect(plugin.preStarts).toHaveLength(2);
    m.removePod("p1");
    expect(m.admitPod(pod("p3", [{ name: "c", n: 2 }]), [])).toEqual({ admit: true });
    // Pods without device limits, or limits of other resources, are not the device manager's.
    expect(m.admitPod(pod("p4", [{ name: "c" }]), [])).toEqual({ admit: true });
  });

  it("makes the Allocate calls of admission (allocatePending); a plugin's failure is 1.23's rejection and releases the devices", async () => {
    const { m, plugin } = await setUp();
    const p = pod("p", [{ name: "a", n: 1 }], [{ name: "i", n: 1 }]);
    expect(m.admitPod(p, [])).toEqual({ admit: true });
    expect(await m.allocatePending(p)).toBeUndefined();
    // The init container's device is reused by the app container: one call each, same device.
    expect(plugin.allocations).toEqual([["dev-a"], ["dev-a"]]);
    expect(await m.allocatePending(p)).toBeUndefined();
    expect(plugin.allocations).toHaveLength(2);
    const failing = await startTestDevicePlugin({ dir: m.socketDir, endpoint: "bar.sock", resourceName: "example.com/bar", devices: [dev("b0")], failAllocate: "no luck" });
    cleanups.push(() => failing.stop());
    await failing.register();
    await until(() => (m.getCapacity().capacity["example.com/bar"] === 1 ? true : undefined), "bar");
    const q = { metadata: { uid: "q" }, spec: { containers: [{ name: "c", image: "busybox", resources: { limits: { "example.com/bar": "1" } } }] } } as Pod;
    expect(m.admitPod(q, [p])).toEqual({ admit: true });
    expect(await m.allocatePending(q)).toBe("Allocate failed due to rpc error: code = Unknown desc = no luck, which is unexpected");
    expect(m.containerDevices("q", "c")).toEqual([]);
  });

  it("gives the resource fit the healthy devices, at least those allocated (sanitizeNodeAllocatable)", async () => {
    const { m, plugin } = await setUp();
    expect(m.admissionAllocatable()).toEqual(new Map([[res, 2n]]));
    m.admitPod(pod("p", [{ name: "c", n: 2 }]), []);
    plugin.setDevices([dev("dev-a", "Unhealthy"), dev("dev-b", "Unhealthy")]);
    await until(() => (m.getCapacity().allocatable[res] === 0 ? true : undefined), "unhealthy");
    expect(m.admissionAllocatable()).toEqual(new Map([[res, 2n]]));
  });

  it("lets app containers reuse the init containers' devices", async () => {
    const { m } = await setUp();
    const p = pod("p", [{ name: "a", n: 2 }], [{ name: "i", n: 2 }]);
    expect(m.admitPod(p, [])).toEqual({ admit: true });
    expect(m.containerDevices("p", "i")[0]?.deviceIds).toEqual(["dev-a", "dev-b"]);
    expect(m.containerDevices("p", "a")[0]?.deviceIds).toEqual(["dev-a", "dev-b"]);
  });

  it("forgets the allocations of pods no longer active at the next admission", async () => {
    const { m } = await setUp();
    expect(m.admitPod(pod("old", [{ name: "c", n: 2 }]), [])).toEqual({ admit: true });
    expect(m.admitPod(pod("new", [{ name: "c", n: 2 }]), [])).toEqual({ admit: true });
    expect(m.containerDevices("old", "c")).toEqual([]);
  });

  it("keeps other pods' allocations while the pod sources are not all ready (a restart re-admitting its pods)", async () => {
    const { m } = await setUp();
    expect(m.admitPod(pod("a", [{ name: "c", n: 1 }]), [], false)).toEqual({ admit: true });
    expect(m.admitPod(pod("b", [{ name: "c", n: 1 }]), [], false)).toEqual({ admit: true });
    expect(m.containerDevices("a", "c")).toEqual([{ resourceName: res, deviceIds: ["dev-a"] }]);
    expect(m.containerDevices("b", "c")).toEqual([{ resourceName: res, deviceIds: ["dev-b"] }]);
    // Re-admitting a pod that already holds its devices needs no free device.
    expect(m.admitPod(pod("a", [{ name: "c", n: 1 }]), [], false)).toEqual({ admit: true });
  });

  it("checkpoints allocations (1.23's JSON shape) and restores them at start-up", async () => {
    const { m, root } = await setUp();
    const p = pod("p", [{ name: "c", n: 1 }]);
    m.admitPod(p, []);
    await m.runContainerOptions(p, p.spec!.containers[0]!);
    const file = join(root, "device-plugins", "kubelet_internal_checkpoint");
    const cp = JSON.parse(readFileSync(file, "utf8")) as { Data: { PodDeviceEntries: Record<string, unknown>[]; RegisteredDevices: Record<string, string[]> }; Checksum: number };
    expect(cp.Data.PodDeviceEntries).toEqual([{ PodUID: "p", ContainerName: "c", ResourceName: res, DeviceIDs: { "-1": ["dev-a"] }, AllocResp: expect.any(String) }]);
    expect(cp.Data.RegisteredDevices).toEqual({ [res]: ["dev-a", "dev-b"] });
    expect(typeof cp.Checksum).toBe("number");
    await m.stop();
    const again = await DeviceManager.start({ rootDir: root, log: () => {} });
    cleanups.push(() => again.stop());
    expect(again.containerDevices("p", "c")).toEqual([{ resourceName: res, deviceIds: ["dev-a"] }]);
    // The plugin has not registered again: the resource is known with no devices.
    expect(again.getCapacity()).toEqual({ capacity: { [res]: 0 }, allocatable: { [res]: 0 }, removed: [] });
    // The kept response serves a restart without the plugin.
    expect((await again.runContainerOptions(p, p.spec!.containers[0]!))?.envs).toEqual([{ key: "FOO_DEVICES", value: "dev-a" }]);
  });

  it("ignores a corrupt checkpoint (logged), as 1.23", async () => {
    const root = mkdtempSync(join(tmpdir(), "hdp-dm-"));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const logs: string[] = [];
    await DeviceManager.start({ rootDir: root, log: () => {} }).then((m) => m.stop());
    writeFileSync(join(root, "device-plugins", "kubelet_internal_checkpoint"), '{"Data":{"PodDeviceEntries":[],"RegisteredDevices":{}},"Checksum":1}');
    const m = await DeviceManager.start({ rootDir: root, log: (l) => logs.push(l) });
    cleanups.push(() => m.stop());
    expect(logs.some((l) => l.includes("checkpoint is corrupted"))).toBe(true);
  });
});

describe("isExtendedResourceName", () => {
  it("is 1.23's IsExtendedResourceName", () => {
    expect(isExtendedResourceName("example.com/foo")).toBe(true);
    expect(isExtendedResourceName("nvidia.com/gpu")).toBe(true);
    expect(isExtendedResourceName("cpu")).toBe(false);
    expect(isExtendedResourceName("kubernetes.io/foo")).toBe(false);
    expect(isExtendedResourceName("x.kubernetes.io/foo")).toBe(false);
    expect(isExtendedResourceName("notkubernetes.io/foo")).toBe(false);
    expect(isExtendedResourceName("requests.example.com/foo")).toBe(false);
    expect(isExtendedResourceName("example.com/a/b")).toBe(false);
    expect(isExtendedResourceName("Example.com/foo")).toBe(false);
  });
});
