import * as grpc from "@grpc/grpc-js";
import type { Pod } from "@skiff/api-types";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadPodResourcesAPI, podResourcesSocketPath, startPodResourcesServer } from "./server.js";
import type { PodResourcesProviders, PodResourcesServer } from "./server.js";

const pods: Pod[] = [
  { metadata: { name: "g", namespace: "ns", uid: "u-g" }, spec: { containers: [{ name: "main", image: "busybox" }, { name: "side", image: "busybox" }] } },
  { metadata: { name: "b", namespace: "default", uid: "u-b" }, spec: { containers: [{ name: "c", image: "busybox" }] } },
];

const providers: PodResourcesProviders = {
  pods: () => pods,
  cpus: (uid, name) => (uid === "u-g" && name === "main" ? [2, 3] : []),
  allocatableCPUs: () => [1, 2, 3],
  memory: (uid, name) => (uid === "u-g" && name === "main" ? [{ memoryType: "memory", size: 67108864, topology: { nodes: [{ ID: 0 }] } }] : []),
};

let dir: string | undefined;
let server: PodResourcesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function start(getAllocatableEnabled = true): Promise<{ v1: grpc.Client; v1alpha1: grpc.Client }> {
  dir = mkdtempSync(join(tmpdir(), "skiff-podresources-"));
  const socketPath = podResourcesSocketPath(dir);
  mkdirSync(join(dir, "pod-resources"));
  writeFileSync(socketPath, "stale"); // a stale socket file is replaced, as util.CreateListener
  server = await startPodResourcesServer({ socketPath, providers, getAllocatableEnabled });
  expect(statSync(socketPath).isSocket()).toBe(true);
  const api = loadPodResourcesAPI();
  return { v1: new api.v1.PodResourcesLister(`unix://${socketPath}`, grpc.credentials.createInsecure()), v1alpha1: new api.v1alpha1.PodResourcesLister(`unix://${socketPath}`, grpc.credentials.createInsecure()) };
}

function call<R>(client: grpc.Client, method: string): Promise<R> {
  return new Promise((resolve, reject) => {
    (client as unknown as Record<string, (req: object, cb: (e: grpc.ServiceError | null, r: R) => void) => void>)[method]?.call(client, {}, (e, r) => (e ? reject(e) : resolve(r)));
  });
}

describe("pod resources API (pkg/kubelet/apis/podresources)", () => {
  it("v1 List reports each pod's containers with their exclusive CPUs and memory blocks, devices empty", async () => {
    const { v1 } = await start();
    const r = await call<{ podResources: unknown[] }>(v1, "List");
    expect(r.podResources).toEqual([
      {
        name: "g",
        namespace: "ns",
        containers: [
          { name: "main", devices: [], cpuIds: [2, 3], memory: [{ memoryType: "memory", size: 67108864, topology: { nodes: [{ ID: 0 }] } }] },
          { name: "side", devices: [], cpuIds: [], memory: [] },
        ],
      },
      { name: "b", namespace: "default", containers: [{ name: "c", devices: [], cpuIds: [], memory: [] }] },
    ]);
    v1.close();
  });

  it("v1 GetAllocatableResources reports the allocatable CPUs; with its gate off it fails with 1.23's error", async () => {
    const { v1 } = await start();
    expect(await call(v1, "GetAllocatableResources")).toEqual({ devices: [], cpuIds: [1, 2, 3], memory: [] });
    v1.close();
    await server?.close();
    server = undefined;
    rmSync(dir ?? "", { recursive: true, force: true });
    const off = await start(false);
    await expect(call(off.v1, "GetAllocatableResources")).rejects.toMatchObject({ code: grpc.status.UNKNOWN, details: "Pod Resources API GetAllocatableResources disabled" });
    off.v1.close();
  });

  it("v1alpha1 List reports pods and containers with devices only", async () => {
    const { v1alpha1 } = await start();
    const r = await call<{ podResources: unknown[] }>(v1alpha1, "List");
    expect(r.podResources[0]).toEqual({ name: "g", namespace: "ns", containers: [{ name: "main", devices: [] }, { name: "side", devices: [] }] });
    v1alpha1.close();
  });

  it("reports the device manager's devices per container and the allocatable devices (v1 and v1alpha1)", async () => {
    const withDevices: PodResourcesProviders = {
      ...providers,
      devices: (uid, name) => (uid === "u-g" && name === "main" ? [{ resourceName: "example.com/foo", deviceIds: ["d0"] }] : []),
      allocatableDevices: () => [{ resourceName: "example.com/foo", deviceIds: ["d0", "d1"] }],
    };
    dir = mkdtempSync(join(tmpdir(), "skiff-podresources-"));
    const socketPath = podResourcesSocketPath(dir);
    mkdirSync(join(dir, "pod-resources"));
    server = await startPodResourcesServer({ socketPath, providers: withDevices, getAllocatableEnabled: true });
    const api = loadPodResourcesAPI();
    const v1 = new api.v1.PodResourcesLister(`unix://${socketPath}`, grpc.credentials.createInsecure());
    const v1alpha1 = new api.v1alpha1.PodResourcesLister(`unix://${socketPath}`, grpc.credentials.createInsecure());
    const r = await call<{ podResources: { containers: { devices: unknown[] }[] }[] }>(v1, "List");
    expect(r.podResources[0]?.containers[0]?.devices).toEqual([{ resourceName: "example.com/foo", deviceIds: ["d0"], topology: null }]);
    expect(await call(v1, "GetAllocatableResources")).toMatchObject({ devices: [{ resourceName: "example.com/foo", deviceIds: ["d0", "d1"], topology: null }] });
    const a = await call<{ podResources: { containers: { devices: unknown[] }[] }[] }>(v1alpha1, "List");
    expect(a.podResources[0]?.containers[0]?.devices).toEqual([{ resourceName: "example.com/foo", deviceIds: ["d0"] }]);
    v1.close();
    v1alpha1.close();
  });

  it("encodes as api.proto on the wire: field numbers, packed int64 cpu_ids", () => {
    const def = loadPodResourcesAPI().v1.PodResourcesLister.service.List;
    const bytes = def?.responseSerialize({ podResources: [{ name: "p", namespace: "n", containers: [{ name: "c", devices: [], cpuIds: [2, 3], memory: [] }] }] });
    // ListPodResourcesResponse.pod_resources (1) { name (1) "p", namespace (2) "n", containers (3) { name (1) "c", cpu_ids (3) packed [2, 3] } }
    expect([...(bytes ?? [])]).toEqual([0x0a, 0x0f, 0x0a, 0x01, 0x70, 0x12, 0x01, 0x6e, 0x1a, 0x07, 0x0a, 0x01, 0x63, 0x1a, 0x02, 0x02, 0x03]);
  });

  it("close() removes the socket", async () => {
    await start();
    const socket = server?.socketPath ?? "";
    await server?.close();
    server = undefined;
    expect(() => statSync(socket)).toThrow();
  });
});
