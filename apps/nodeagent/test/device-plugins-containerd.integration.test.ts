// Device plugin allocations reaching a real container: containerd + runc set up by
// tools/containerd/setup.sh, the pod runtime with the device manager, and a TEST device plugin (a
// small real gRPC server in this process implementing v1beta1.DevicePlugin; no real hardware exists
// here) whose Allocate answer maps /dev/null in as /dev/foo0, mounts a host directory and sets an
// env var. With CI=true it must run; elsewhere it is skipped (with the reason) when setup fails.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { DeviceManager } from "../src/cm/devicemanager/index.js";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { startTestDevicePlugin, type TestDevicePlugin } from "./device-plugin-helpers.js";
import { findPod, readAll, waitFor } from "./pods-helpers.js";

const nodeName = "node-dpc";
const setup = setUpContainerd({ prefix: "skiff-dpc-", suite: "device plugins containerd suite" });

let pods: PodRuntime | undefined;
let dm: DeviceManager | undefined;
let plugin: TestDevicePlugin | undefined;
afterAll(async () => {
  await pods?.stop();
  await plugin?.stop();
  await dm?.stop();
  tearDownContainerd(setup);
}, 60_000);

describe.skipIf(setup.endpoint === undefined)("device plugins on containerd", () => {
  it("creates the container with the plugin's device node, mount and env", async () => {
    const rootDir = join(setup.dir, "agent");
    const hostDir = join(setup.dir, "foo-host");
    mkdirSync(hostDir, { recursive: true });
    writeFileSync(join(hostDir, "marker"), "from the plugin\n");
    dm = await DeviceManager.start({ rootDir, log: () => {} });
    plugin = await startTestDevicePlugin({
      dir: dm.socketDir,
      endpoint: "foo.sock",
      resourceName: "example.com/foo",
      devices: [{ ID: "foo-0", health: "Healthy" }],
      allocate: (ids) => ({
        envs: { FOO_DEVICES: ids.join(",") },
        mounts: [{ containerPath: "/dev-foo", hostPath: hostDir, readOnly: true }],
        devices: [{ containerPath: "/dev/foo0", hostPath: "/dev/null", permissions: "rw" }],
        annotations: {},
      }),
    });
    await plugin.register();
    const manager = dm;
    await waitFor("the plugin's device", () => (manager.getCapacity().allocatable["example.com/foo"] === 1 ? true : undefined));
    const manifests = join(setup.dir, "manifests");
    mkdirSync(manifests, { recursive: true });
    writeFileSync(
      join(manifests, "foo.json"),
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "foo" },
        spec: {
          restartPolicy: "Never",
          containers: [{ name: "main", image: "busybox:1.36", command: ["sh", "-c", 'echo "env=$FOO_DEVICES"; cat /dev-foo/marker; [ -c /dev/foo0 ] && echo "chardev"; echo x > /dev/foo0 && echo "writable"'], resources: { limits: { "example.com/foo": "1" } } }],
        },
      }),
    );
    pods = createPodRuntime({
      nodeName,
      rootDir,
      podLogsDir: join(setup.dir, "pod-logs"),
      containerRuntimeEndpoint: setup.endpoint ?? "",
      runtimeRequestTimeoutMs: 60_000,
      staticPodPath: manifests,
      fileCheckFrequencyMs: 500,
      relistPeriodMs: 300,
      devices: manager,
    });
    await pods.start();
    const done = await waitFor("foo Succeeded", () => {
      const p = findPod(pods?.listPods() ?? [], "foo");
      return p?.status?.phase === "Succeeded" || p?.status?.phase === "Failed" ? p : undefined;
    }, 90_000);
    const logs = await readAll(await pods.containerLogs("default", `foo-${nodeName}`, "main", {}));
    expect(logs).toBe("env=foo-0\nfrom the plugin\nchardev\nwritable\n");
    expect(done.status?.phase).toBe("Succeeded");
    expect(plugin.allocations).toEqual([["foo-0"]]);
  }, 120_000);
});
