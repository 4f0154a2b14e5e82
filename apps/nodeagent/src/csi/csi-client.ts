import type { Client } from "@grpc/grpc-js";
import { loadCSIProtos } from "@skiff/csi-api";
import { callUnary, newClient } from "./internal/proto.js";

/** `pluginregistration.PluginInfo` as decoded (camelCase, defaults filled in). */
export interface PluginInfo {
  /** `CSIPlugin` or `DevicePlugin`. */
  readonly type: string;
  readonly name: string;
  /** The socket to use afterwards; `""` means the registration socket. */
  readonly endpoint: string;
  readonly supportedVersions: readonly string[];
}

/** `csi.v1.NodeGetInfoResponse` as decoded. */
export interface NodeGetInfoResponse {
  readonly nodeId: string;
  /** 0 = no limit. */
  readonly maxVolumesPerNode: number;
  /** Absent when the driver has no topology. */
  readonly accessibleTopology: { readonly segments: Readonly<Record<string, string>> } | null;
}

/** `csi.v1.GetPluginInfoResponse` as decoded. */
export interface GetPluginInfoResponse {
  readonly name: string;
  readonly vendorVersion: string;
  readonly manifest: Readonly<Record<string, string>>;
}

/** `csi.v1.VolumeCapability` (mount access only: the agent publishes filesystem volumes). */
export interface VolumeCapability {
  readonly mount: { readonly fsType: string; readonly mountFlags: readonly string[]; readonly volumeMountGroup?: string };
  readonly accessMode: { readonly mode: "SINGLE_NODE_WRITER" | "SINGLE_NODE_READER_ONLY" | "SINGLE_NODE_MULTI_WRITER" };
}

/** `csi.v1.NodePublishVolumeRequest` (the fields the agent sets). */
export interface NodePublishVolumeRequest {
  readonly volumeId: string;
  readonly targetPath: string;
  readonly volumeCapability: VolumeCapability;
  readonly readonly: boolean;
  readonly volumeContext: Readonly<Record<string, string>>;
  readonly publishContext?: Readonly<Record<string, string>>;
  readonly secrets?: Readonly<Record<string, string>>;
}

/** The Identity and Node calls of a CSI v1 driver the agent uses; every call has a deadline. */
export interface CsiClient {
  getPluginInfo(): Promise<GetPluginInfoResponse>;
  /** `Probe`: `ready` is true when the driver leaves it unset. */
  probe(): Promise<{ readonly ready: boolean }>;
  nodeGetInfo(): Promise<NodeGetInfoResponse>;
  /** The node RPC capabilities (`STAGE_UNSTAGE_VOLUME`, ...). */
  nodeGetCapabilities(): Promise<string[]>;
  nodePublishVolume(req: NodePublishVolumeRequest): Promise<void>;
  nodeUnpublishVolume(volumeId: string, targetPath: string): Promise<void>;
  /** Closes the channel. */
  close(): void;
}

/** The plugin-registration calls the agent makes on a registration socket. */
export interface RegistrationClient {
  getInfo(): Promise<PluginInfo>;
  notifyRegistrationStatus(registered: boolean, error: string): Promise<void>;
  close(): void;
}

/**
 * Opens a CSI v1 client on `endpoint` (`unix:///path` or a socket path). The channel connects
 * lazily; each call fails with the gRPC error (code `UNAVAILABLE` when nothing listens).
 *
 * @param timeoutMs deadline of each call, in ms. @defaultValue 10_000 (csiTimeout in 1.23's csi_plugin.go is 2 min; shorter here to fail fast)
 * @see pkg/volume/csi/csi_client.go in kubernetes/kubernetes v1.23
 * @example
 * ```ts
 * const csi = createCsiClient("/var/lib/nodeagent/plugins/fake/csi.sock");
 * const info = await csi.nodeGetInfo();
 * csi.close();
 * ```
 */
export function createCsiClient(endpoint: string, timeoutMs = 10_000): CsiClient {
  const protos = loadCSIProtos();
  const identity: Client = newClient(protos.Identity, endpoint);
  const node: Client = newClient(protos.Node, endpoint);
  return {
    getPluginInfo: () => callUnary<GetPluginInfoResponse>(identity, "GetPluginInfo", {}, timeoutMs),
    async probe() {
      const r = await callUnary<{ ready: { value: boolean } | null }>(identity, "Probe", {}, timeoutMs);
      return { ready: r.ready === null ? true : r.ready.value };
    },
    nodeGetInfo: () => callUnary<NodeGetInfoResponse>(node, "NodeGetInfo", {}, timeoutMs),
    async nodeGetCapabilities() {
      const r = await callUnary<{ capabilities: Array<{ rpc?: { type: string } | null }> }>(node, "NodeGetCapabilities", {}, timeoutMs);
      return r.capabilities.flatMap((c) => (c.rpc ? [c.rpc.type] : []));
    },
    async nodePublishVolume(req) {
      await callUnary(node, "NodePublishVolume", req, timeoutMs);
    },
    async nodeUnpublishVolume(volumeId, targetPath) {
      await callUnary(node, "NodeUnpublishVolume", { volumeId, targetPath }, timeoutMs);
    },
    close() {
      identity.close();
      node.close();
    },
  };
}

/**
 * Opens a plugin-registration client on a socket found under `plugins_registry/`.
 *
 * @param timeoutMs deadline of each call, in ms. @defaultValue 1_000 (the GetInfo deadline of 1.23)
 * @see pkg/kubelet/pluginmanager/operationexecutor/operation_generator.go in kubernetes/kubernetes v1.23
 */
export function createRegistrationClient(socketPath: string, timeoutMs = 1_000): RegistrationClient {
  const client = newClient(loadCSIProtos().Registration, socketPath);
  return {
    getInfo: () => callUnary<PluginInfo>(client, "GetInfo", {}, timeoutMs),
    async notifyRegistrationStatus(registered, error) {
      await callUnary(client, "NotifyRegistrationStatus", { pluginRegistered: registered, error }, timeoutMs);
    },
    close: () => client.close(),
  };
}
