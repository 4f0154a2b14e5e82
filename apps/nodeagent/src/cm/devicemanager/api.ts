/**
 * The device plugin API `v1beta1` (`Registration` served by the node agent, `DevicePlugin` served
 * by each plugin) as protobuf.js JSON for grpc-js: field numbers and types as api.proto, names in
 * their camelCase JSON form (the wire carries only the numbers).
 *
 * @see staging/src/k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1/api.proto and constants.go in kubernetes/kubernetes v1.23
 */
import * as grpc from "@grpc/grpc-js";
import { fromJSON } from "@grpc/proto-loader";

/** The API version plugins register with (`pluginapi.Version`). */
export const devicePluginVersion = "v1beta1";
/** `pluginapi.SupportedVersions`. */
export const supportedVersions: readonly string[] = [devicePluginVersion];
/** `pluginapi.Healthy` (any other health, `Unhealthy` in 1.23, counts as unhealthy). */
export const healthy = "Healthy";
/** The registration socket's file name in the device-plugins directory (`pluginapi.KubeletSocket`). */
export const kubeletSocketName = "kubelet.sock";
/** The checkpoint's file name in the device-plugins directory (`kubeletDeviceManagerCheckpoint`). */
export const checkpointName = "kubelet_internal_checkpoint";

/** `DevicePluginOptions`. */
export interface DevicePluginOptions {
  readonly preStartRequired?: boolean;
  readonly getPreferredAllocationAvailable?: boolean;
}

/** `RegisterRequest`. */
export interface RegisterRequest {
  readonly version: string;
  /** The plugin's socket file name, relative to the device-plugins directory. */
  readonly endpoint: string;
  readonly resourceName: string;
  readonly options?: DevicePluginOptions | null;
}

/** `Device`: an ID, its health (`Healthy`/`Unhealthy`) and NUMA nodes. */
export interface Device {
  readonly ID: string;
  readonly health: string;
  readonly topology?: { readonly nodes: readonly { readonly ID: number }[] } | null;
}

/** `Mount` of a `ContainerAllocateResponse`. */
export interface PluginMount {
  readonly containerPath: string;
  readonly hostPath: string;
  readonly readOnly: boolean;
}

/** `DeviceSpec` of a `ContainerAllocateResponse`. */
export interface PluginDeviceSpec {
  readonly containerPath: string;
  readonly hostPath: string;
  readonly permissions: string;
}

/** `ContainerAllocateResponse`: what the plugin wants in the container. */
export interface ContainerAllocateResponse {
  readonly envs: Readonly<Record<string, string>>;
  readonly mounts: readonly PluginMount[];
  readonly devices: readonly PluginDeviceSpec[];
  readonly annotations: Readonly<Record<string, string>>;
}

const repeated = (type: string, id: number) => ({ rule: "repeated", type, id });
const field = (type: string, id: number) => ({ type, id });
const map = (id: number) => ({ keyType: "string", type: "string", id });
const method = (requestType: string, responseType: string, responseStream = false) => ({ requestType, responseType, comment: "", ...(responseStream ? { responseStream: true } : {}) });

const descriptor: Parameters<typeof fromJSON>[0] = {
  nested: {
    v1beta1: {
      nested: {
        Registration: { methods: { Register: method("RegisterRequest", "Empty") } },
        DevicePlugin: {
          methods: {
            GetDevicePluginOptions: method("Empty", "DevicePluginOptions"),
            ListAndWatch: method("Empty", "ListAndWatchResponse", true),
            GetPreferredAllocation: method("PreferredAllocationRequest", "PreferredAllocationResponse"),
            Allocate: method("AllocateRequest", "AllocateResponse"),
            PreStartContainer: method("PreStartContainerRequest", "PreStartContainerResponse"),
          },
        },
        DevicePluginOptions: { fields: { preStartRequired: field("bool", 1), getPreferredAllocationAvailable: field("bool", 2) } },
        RegisterRequest: { fields: { version: field("string", 1), endpoint: field("string", 2), resourceName: field("string", 3), options: field("DevicePluginOptions", 4) } },
        Empty: { fields: {} },
        ListAndWatchResponse: { fields: { devices: repeated("Device", 1) } },
        TopologyInfo: { fields: { nodes: repeated("NUMANode", 1) } },
        NUMANode: { fields: { ID: field("int64", 1) } },
        Device: { fields: { ID: field("string", 1), health: field("string", 2), topology: field("TopologyInfo", 3) } },
        PreStartContainerRequest: { fields: { devicesIDs: repeated("string", 1) } },
        PreStartContainerResponse: { fields: {} },
        PreferredAllocationRequest: { fields: { containerRequests: repeated("ContainerPreferredAllocationRequest", 1) } },
        ContainerPreferredAllocationRequest: { fields: { availableDeviceIDs: repeated("string", 1), mustIncludeDeviceIDs: repeated("string", 2), allocationSize: field("int32", 3) } },
        PreferredAllocationResponse: { fields: { containerResponses: repeated("ContainerPreferredAllocationResponse", 1) } },
        ContainerPreferredAllocationResponse: { fields: { deviceIDs: repeated("string", 1) } },
        AllocateRequest: { fields: { containerRequests: repeated("ContainerAllocateRequest", 1) } },
        ContainerAllocateRequest: { fields: { devicesIDs: repeated("string", 1) } },
        AllocateResponse: { fields: { containerResponses: repeated("ContainerAllocateResponse", 1) } },
        ContainerAllocateResponse: { fields: { envs: map(1), mounts: repeated("Mount", 2), devices: repeated("DeviceSpec", 3), annotations: map(4) } },
        Mount: { fields: { containerPath: field("string", 1), hostPath: field("string", 2), readOnly: field("bool", 3) } },
        DeviceSpec: { fields: { containerPath: field("string", 1), hostPath: field("string", 2), permissions: field("string", 3) } },
      },
    },
  },
};

/** The grpc-js constructors of both services; `.service` is what a server registers. */
export interface DevicePluginAPI {
  readonly Registration: grpc.ServiceClientConstructor;
  readonly DevicePlugin: grpc.ServiceClientConstructor;
}

let loaded: DevicePluginAPI | undefined;

/** Loads the API (camelCase fields, int64 as numbers, defaults filled in). */
export function loadDevicePluginAPI(): DevicePluginAPI {
  loaded ??= (grpc.loadPackageDefinition(fromJSON(descriptor, { longs: Number, defaults: true, arrays: true, objects: true })) as unknown as { v1beta1: DevicePluginAPI }).v1beta1;
  return loaded;
}

/**
 * A `ContainerAllocateResponse` as protobuf bytes (what 1.23's checkpoint keeps in `AllocResp`),
 * made by serialising an `AllocateResponse` holding it and dropping the outer field's tag and length.
 */
export function encodeContainerAllocateResponse(r: ContainerAllocateResponse): Buffer {
  const outer = loadDevicePluginAPI().DevicePlugin.service.Allocate!.responseSerialize({ containerResponses: [r] });
  let i = 1; // tag 0x0a
  while ((outer[i] ?? 0) & 0x80) i++;
  return outer.subarray(i + 1);
}

/** Decodes {@link encodeContainerAllocateResponse}'s bytes. @throws Error on malformed bytes. */
export function decodeContainerAllocateResponse(bytes: Buffer): ContainerAllocateResponse {
  const len: number[] = [];
  let n = bytes.length;
  do {
    len.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  const outer = Buffer.concat([Buffer.from([0x0a, ...len]), bytes]);
  const r = loadDevicePluginAPI().DevicePlugin.service.Allocate!.responseDeserialize(outer) as { containerResponses: ContainerAllocateResponse[] };
  const c = r.containerResponses[0];
  if (!c) throw new Error("empty allocation response");
  return c;
}
