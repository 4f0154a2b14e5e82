/**
 * The pod resources API (gate NodeAgentPodResources, on by default): a gRPC server on
 * `<root-dir>/pod-resources/kubelet.sock` answering `v1.PodResourcesLister` (`List`,
 * `GetAllocatableResources` behind NodeAgentPodResourcesGetAllocatable) and
 * `v1alpha1.PodResourcesLister` (`List`), so node monitoring agents see which exclusive CPUs,
 * devices and memory each container holds, as on a 1.23 kubelet.
 *
 * Devices: from the device manager (gate DevicePlugins), else empty. Memory: the
 * memory blocks come from the memory manager when one is given, else none (policy `None`).
 *
 * @see pkg/kubelet/apis/podresources/server_v1.go, server_v1alpha1.go, and
 *   staging/src/k8s.io/kubelet/pkg/apis/podresources/v1/api.proto in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/kubelet.go (ListenAndServePodResources: `<pod-resources dir>/kubelet.sock`)
 */
import * as grpc from "@grpc/grpc-js";
import { bindUnixSocket } from "../internal/grpc-unix.js";
import { fromJSON } from "@grpc/proto-loader";
import type { Pod } from "@skiff/api-types";
import { rmSync } from "node:fs";
import { join } from "node:path";

/** `TopologyInfo`: the NUMA nodes a resource is on. */
export interface TopologyInfo {
  readonly nodes: readonly { readonly ID: number }[];
}

/** `ContainerMemory`: a block of memory (`memory` or `hugepages-<size>`) of `size` bytes. */
export interface ContainerMemory {
  readonly memoryType: string;
  /** Bytes. */
  readonly size: number;
  readonly topology?: TopologyInfo;
}

/** `ContainerDevices`: the device IDs of one resource, with their NUMA nodes when known. */
export interface ContainerDevices {
  readonly resourceName: string;
  readonly deviceIds: readonly string[];
  readonly topology?: TopologyInfo;
}

function devicesMessage(d: ContainerDevices): object {
  return { resourceName: d.resourceName, deviceIds: [...d.deviceIds], ...(d.topology ? { topology: { nodes: d.topology.nodes.map((n) => ({ ID: n.ID })) } } : {}) };
}

/** Where the server reads what it reports. */
export interface PodResourcesProviders {
  /** The pods the agent runs (its pod manager's pods). */
  pods(): readonly Pod[];
  /** The exclusive CPUs of a container (CPU manager `static`), sorted; empty when it shares the pool. */
  cpus(podUID: string, containerName: string): readonly number[];
  /** The CPUs pods may be given: every online CPU but the reserved ones under `static`, none under `none`. */
  allocatableCPUs(): readonly number[];
  /** The devices of a container per resource (device manager, gate DevicePlugins); empty when absent. */
  devices?(podUID: string, containerName: string): readonly ContainerDevices[];
  /** The healthy devices per resource; empty when absent. */
  allocatableDevices?(): readonly ContainerDevices[];
  /** The memory blocks of a container (memory manager `Static`); empty otherwise. */
  memory?(podUID: string, containerName: string): readonly ContainerMemory[];
  /** The memory the memory manager can hand out, per NUMA node; empty otherwise. */
  allocatableMemory?(): readonly ContainerMemory[];
}

/** Options of {@link startPodResourcesServer}. */
export interface PodResourcesServerOptions {
  /** The socket path: `<root-dir>/pod-resources/kubelet.sock`. An existing file there is removed first. */
  readonly socketPath: string;
  readonly providers: PodResourcesProviders;
  /** Gate NodeAgentPodResourcesGetAllocatable: false answers `GetAllocatableResources` with 1.23's error. */
  readonly getAllocatableEnabled: boolean;
}

/** The running server. */
export interface PodResourcesServer {
  readonly socketPath: string;
  /** Stops serving and removes the socket. */
  close(): Promise<void>;
}

/** The socket file name under the pod-resources directory (`podresources.Socket + ".sock"`). */
export const podResourcesSocketName = "kubelet.sock";

/** The socket path under `rootDir`. */
export function podResourcesSocketPath(rootDir: string): string {
  return join(rootDir, "pod-resources", podResourcesSocketName);
}

const repeated = (type: string, id: number) => ({ rule: "repeated", type, id });
const method = (requestType: string, responseType: string) => ({ requestType, responseType, comment: "" });

/**
 * v1 and v1alpha1 of the API as protobuf.js JSON: field numbers and types as api.proto, names in
 * their camelCase JSON form (`cpu_ids` → `cpuIds`; the wire format carries only the numbers).
 */
const descriptor: Parameters<typeof fromJSON>[0] = {
  nested: {
    v1: {
      nested: {
        PodResourcesLister: {
          methods: {
            List: method("ListPodResourcesRequest", "ListPodResourcesResponse"),
            GetAllocatableResources: method("AllocatableResourcesRequest", "AllocatableResourcesResponse"),
          },
        },
        AllocatableResourcesRequest: { fields: {} },
        AllocatableResourcesResponse: { fields: { devices: repeated("ContainerDevices", 1), cpuIds: repeated("int64", 2), memory: repeated("ContainerMemory", 3) } },
        ListPodResourcesRequest: { fields: {} },
        ListPodResourcesResponse: { fields: { podResources: repeated("PodResources", 1) } },
        PodResources: { fields: { name: { type: "string", id: 1 }, namespace: { type: "string", id: 2 }, containers: repeated("ContainerResources", 3) } },
        ContainerResources: { fields: { name: { type: "string", id: 1 }, devices: repeated("ContainerDevices", 2), cpuIds: repeated("int64", 3), memory: repeated("ContainerMemory", 4) } },
        ContainerMemory: { fields: { memoryType: { type: "string", id: 1 }, size: { type: "uint64", id: 2 }, topology: { type: "TopologyInfo", id: 3 } } },
        ContainerDevices: { fields: { resourceName: { type: "string", id: 1 }, deviceIds: repeated("string", 2), topology: { type: "TopologyInfo", id: 3 } } },
        TopologyInfo: { fields: { nodes: repeated("NUMANode", 1) } },
        NUMANode: { fields: { ID: { type: "int64", id: 1 } } },
      },
    },
    v1alpha1: {
      nested: {
        PodResourcesLister: { methods: { List: method("ListPodResourcesRequest", "ListPodResourcesResponse") } },
        ListPodResourcesRequest: { fields: {} },
        ListPodResourcesResponse: { fields: { podResources: repeated("PodResources", 1) } },
        PodResources: { fields: { name: { type: "string", id: 1 }, namespace: { type: "string", id: 2 }, containers: repeated("ContainerResources", 3) } },
        ContainerResources: { fields: { name: { type: "string", id: 1 }, devices: repeated("ContainerDevices", 2) } },
        ContainerDevices: { fields: { resourceName: { type: "string", id: 1 }, deviceIds: repeated("string", 2) } },
      },
    },
  },
};

type ServiceDefs = { v1: { PodResourcesLister: grpc.ServiceClientConstructor }; v1alpha1: { PodResourcesLister: grpc.ServiceClientConstructor } };

let loaded: ServiceDefs | undefined;

/**
 * The grpc-js service constructors of both API versions (camelCase fields, int64 as numbers);
 * `.service` is what a server registers, the constructor is a client.
 */
export function loadPodResourcesAPI(): ServiceDefs {
  loaded ??= grpc.loadPackageDefinition(fromJSON(descriptor, { longs: Number, defaults: true, arrays: true })) as unknown as ServiceDefs;
  return loaded;
}

/** v1 `List`: every pod with its containers' exclusive CPUs, devices and memory. */
function listV1(p: PodResourcesProviders): object {
  return {
    podResources: p.pods().map((pod) => {
      const uid = pod.metadata?.uid ?? "";
      return {
        name: pod.metadata?.name ?? "",
        namespace: pod.metadata?.namespace ?? "",
        containers: (pod.spec?.containers ?? []).map((c) => ({
          name: c.name,
          devices: (p.devices?.(uid, c.name) ?? []).map(devicesMessage),
          cpuIds: [...p.cpus(uid, c.name)],
          memory: (p.memory?.(uid, c.name) ?? []).map(memoryMessage),
        })),
      };
    }),
  };
}

function memoryMessage(m: ContainerMemory): object {
  return { memoryType: m.memoryType, size: m.size, ...(m.topology ? { topology: { nodes: m.topology.nodes.map((n) => ({ ID: n.ID })) } } : {}) };
}

/**
 * Starts the pod resources gRPC server on `socketPath` (removing a stale socket first, as 1.23's
 * `util.CreateListener`). Throws the bind error (a missing directory, no permission).
 */
export async function startPodResourcesServer(o: PodResourcesServerOptions): Promise<PodResourcesServer> {
  const api = loadPodResourcesAPI();
  const server = new grpc.Server();
  const p = o.providers;
  server.addService(api.v1.PodResourcesLister.service, {
    List: (_call: unknown, cb: grpc.sendUnaryData<object>) => cb(null, listV1(p)),
    GetAllocatableResources: (_call: unknown, cb: grpc.sendUnaryData<object>) => {
      if (!o.getAllocatableEnabled) {
        cb({ code: grpc.status.UNKNOWN, details: "Pod Resources API GetAllocatableResources disabled" }, null);
        return;
      }
      cb(null, { devices: (p.allocatableDevices?.() ?? []).map(devicesMessage), cpuIds: [...p.allocatableCPUs()], memory: (p.allocatableMemory?.() ?? []).map(memoryMessage) });
    },
  });
  server.addService(api.v1alpha1.PodResourcesLister.service, {
    List: (_call: unknown, cb: grpc.sendUnaryData<object>) =>
      cb(null, {
        podResources: p.pods().map((pod) => ({
          name: pod.metadata?.name ?? "",
          namespace: pod.metadata?.namespace ?? "",
          containers: (pod.spec?.containers ?? []).map((c) => ({ name: c.name, devices: (p.devices?.(pod.metadata?.uid ?? "", c.name) ?? []).map((d) => ({ resourceName: d.resourceName, deviceIds: [...d.deviceIds] })) })),
        })),
      }),
  });
  rmSync(o.socketPath, { force: true });
  await bindUnixSocket(server, o.socketPath, "the pod resources socket");
  return {
    socketPath: o.socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => {
          rmSync(o.socketPath, { force: true });
          resolve();
        });
      }),
  };
}
