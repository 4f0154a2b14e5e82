// Device plugins end to end (gate DevicePlugins): the REAL apiserver process, the node agent
// in-process (API-server mode) on the project's process CRI server, and a TEST device plugin — a
// small real gRPC server in this process implementing v1beta1.DevicePlugin (no real hardware
// exists here) — registering `example.com/foo` with 2 devices on <root-dir>/device-plugins/kubelet.sock.
import { startAPIModeAgent, textSink } from "./api-mode-agent.js";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Node, Pod } from "@skiff/api-types";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { apiCall, startAPIServer, writeAdminKubeconfig, type APIServerProcess } from "./cluster-helpers.js";
import { startTestDevicePlugin, type TestDevicePlugin } from "./device-plugin-helpers.js";
import { waitFor } from "./pods-helpers.js";
import { loadPodResourcesAPI } from "../src/podresources/index.js";
import * as grpc from "@grpc/grpc-js";

const run = promisify(execFile);
const nodeName = "node-dp";
const resource = "example.com/foo";
const configText = "apiVersion: nodeagent.config.example.io/v1beta1\nkind: NodeAgentConfiguration\nauthentication:\n  anonymous: {enabled: true}\n  webhook: {enabled: false}\nauthorization: {mode: AlwaysAllow}\n";

describe("device plugins (API-server mode, process runtime, a test device plugin)", () => {
  let dir: string;
  let rootDir: string;
  let api: APIServerProcess;
  let kubeconfig: string;
  let cri: ProcessRuntime;
  let plugin: TestDevicePlugin | undefined;
  const stop = new AbortController();
  let agentDone: Promise<number>;
  const agentErr = textSink();

  const getPod = async (name: string): Promise<Pod | undefined> => {
    const r = await apiCall(api, "GET", `/api/v1/namespaces/default/pods/${name}`);
    return r.status === 200 ? (r.json() as Pod) : undefined;
  };
  const getNode = async () => (await apiCall(api, "GET", `/api/v1/nodes/${nodeName}`)).json() as Node;
  const createPod = async (name: string, count: number) => {
    const r = await apiCall(api, "POST", "/api/v1/namespaces/default/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace: "default" },
      spec: { nodeName, terminationGracePeriodSeconds: 1, restartPolicy: "Never", containers: [{ name: "main", image: "busybox", command: ["sh", "-c", 'echo "devices=$FOO_DEVICES expanded=$(FOO_DEVICES)"'], resources: { limits: { [resource]: String(count) } } }] },
    });
    expect(r.status, r.body).toBe(201);
  };
  const phase = (name: string, want: string) => waitFor(`${name} ${want}`, async () => ((await getPod(name))?.status?.phase === want ? ((await getPod(name)) as Pod) : undefined), 90_000);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-dp-"));
    rootDir = join(dir, "root");
    api = await startAPIServer(dir);
    kubeconfig = await writeAdminKubeconfig(api);
    cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state") });
    const configFile = join(dir, "config.yaml");
    writeFileSync(configFile, configText);
    agentDone = (
      await startAPIModeAgent({ kubeconfig, nodeName, rootDir, certDir: join(dir, "agent-pki"), endpoint: cri.endpoint, args: ["--node-status-update-frequency=1s", `--config=${configFile}`, "-v=4"], stderr: agentErr, stopSignal: stop.signal })
    ).done;
  }, 120_000);

  afterAll(async () => {
    await plugin?.stop();
    stop.abort();
    await agentDone?.catch(() => 1);
    await cri?.stop();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("serves the registration socket; a registered plugin's 2 devices are the Node's capacity and allocatable", async () => {
    const socketDir = join(rootDir, "device-plugins");
    expect(existsSync(join(socketDir, "kubelet.sock"))).toBe(true);
    plugin = await startTestDevicePlugin({ dir: socketDir, endpoint: "foo.sock", resourceName: resource, devices: [{ ID: "foo-0", health: "Healthy" }, { ID: "foo-1", health: "Healthy" }] });
    await plugin.register();
    const node = await waitFor("capacity example.com/foo", async () => {
      const n = await getNode();
      return n.status?.capacity?.[resource] === "2" ? n : undefined;
    }, 30_000);
    expect(node.status?.allocatable?.[resource]).toBe("2");
  }, 60_000);

  it("runs a pod requesting 1 device with the plugin's env var in its container", async () => {
    await createPod("one-foo", 1);
    await phase("one-foo", "Succeeded");
    const { stdout } = await run("kubectl", ["--kubeconfig", kubeconfig, "logs", "one-foo"], { timeout: 60_000 });
    // The plugin's env is in the container and in `$(VAR)` expansion of its command, as 1.23.
    expect(stdout).toBe("devices=foo-0 expanded=foo-0\n");
    expect(plugin?.allocations).toEqual([["foo-0"]]);
    // The allocation is checkpointed in 1.23's shape (the pod finished: released again).
    const cp = JSON.parse(readFileSync(join(rootDir, "device-plugins", "kubelet_internal_checkpoint"), "utf8")) as { Data: { RegisteredDevices: Record<string, string[]> } };
    expect(cp.Data.RegisteredDevices).toEqual({ [resource]: ["foo-0", "foo-1"] });
  }, 120_000);

  it("rejects a pod requesting 3 devices with UnexpectedAdmissionError", async () => {
    await createPod("three-foo", 3);
    const p = await phase("three-foo", "Failed");
    expect(p.status?.reason).toBe("UnexpectedAdmissionError");
    expect(p.status?.message).toBe("Pod Allocate failed due to requested number of devices unavailable for example.com/foo. Requested: 3, Available: 2, which is unexpected");
  }, 120_000);

  it("rejects a pod whose plugin fails Allocate (1.23 calls it during admission) with UnexpectedAdmissionError", async () => {
    const bar = await startTestDevicePlugin({ dir: join(rootDir, "device-plugins"), endpoint: "bar.sock", resourceName: "example.com/bar", devices: [{ ID: "bar-0", health: "Healthy" }], failAllocate: "bar is broken" });
    try {
      await bar.register();
      await waitFor("capacity example.com/bar", async () => ((await getNode()).status?.capacity?.["example.com/bar"] === "1" ? true : undefined), 30_000);
      const r = await apiCall(api, "POST", "/api/v1/namespaces/default/pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "bar-pod", namespace: "default" },
        spec: { nodeName, terminationGracePeriodSeconds: 1, restartPolicy: "Never", containers: [{ name: "main", image: "busybox", command: ["true"], resources: { limits: { "example.com/bar": "1" } } }] },
      });
      expect(r.status, r.body).toBe(201);
      const p = await phase("bar-pod", "Failed");
      expect(p.status?.reason).toBe("UnexpectedAdmissionError");
      expect(p.status?.message).toBe("Pod Allocate failed due to rpc error: code = Unknown desc = bar is broken, which is unexpected");
      expect(p.status?.containerStatuses ?? []).toEqual([]);
    } finally {
      await bar.stop();
    }
  }, 120_000);

  it("reports a running pod's devices and the allocatable devices through the pod resources API", async () => {
    const r = await apiCall(api, "POST", "/api/v1/namespaces/default/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "holder", namespace: "default" },
      spec: { nodeName, terminationGracePeriodSeconds: 1, containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"], resources: { limits: { [resource]: "1" } } }] },
    });
    expect(r.status, r.body).toBe(201);
    await phase("holder", "Running");
    const Lister = loadPodResourcesAPI().v1.PodResourcesLister;
    const client = new Lister(`unix://${join(rootDir, "pod-resources", "kubelet.sock")}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & Record<"List" | "GetAllocatableResources", (req: object, cb: (err: Error | null, res: unknown) => void) => void>;
    const call = (m: "List" | "GetAllocatableResources") => new Promise<unknown>((resolve, reject) => client[m]({}, (err, res) => (err ? reject(err) : resolve(res))));
    try {
      const list = (await call("List")) as { podResources: { name: string; containers: { name: string; devices: unknown[] }[] }[] };
      const holder = list.podResources.find((p) => p.name === "holder");
      expect(holder?.containers[0]?.devices).toEqual([{ resourceName: resource, deviceIds: ["foo-0"], topology: null }]);
      const alloc = (await call("GetAllocatableResources")) as { devices: unknown[] };
      expect(alloc.devices).toEqual([{ resourceName: resource, deviceIds: ["foo-0", "foo-1"], topology: null }]);
    } finally {
      client.close();
    }
    expect((await apiCall(api, "DELETE", "/api/v1/namespaces/default/pods/holder")).status).toBe(200);
  }, 120_000);

  it("keeps the capacity with 0 allocatable once the plugin goes away (within 1.23's 5 min grace period)", async () => {
    await plugin?.stop();
    plugin = undefined;
    const node = await waitFor("allocatable 0", async () => {
      const n = await getNode();
      return n.status?.allocatable?.[resource] === "0" ? n : undefined;
    }, 30_000);
    expect(node.status?.capacity?.[resource]).toBe("2");
  }, 60_000);

  it("serves no registration socket with the gate off (1.23's stub manager)", async () => {
    const offStop = new AbortController();
    const offRoot = join(dir, "root-off");
    const { done } = await startAPIModeAgent({ kubeconfig, nodeName: "node-dp-off", rootDir: offRoot, certDir: join(dir, "agent-pki-off"), endpoint: cri.endpoint, args: ["--feature-gates=DevicePlugins=false", `--config=${join(dir, "config.yaml")}`], stopSignal: offStop.signal });
    try {
      expect(existsSync(join(offRoot, "pod-resources", "kubelet.sock"))).toBe(true);
      expect(existsSync(join(offRoot, "device-plugins", "kubelet.sock"))).toBe(false);
    } finally {
      offStop.abort();
      await done.catch(() => 1);
    }
  }, 60_000);
});
