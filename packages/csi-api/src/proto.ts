import { loadPackageDefinition, type ServiceClientConstructor } from "@grpc/grpc-js";
import { loadSync, type Options } from "@grpc/proto-loader";
import { csiProtoFile, findProtoDir, registrationProtoFile } from "./internal/proto-dir.js";

/**
 * How messages decode: camelCase fields, int64 as JS numbers (the only int64 used,
 * `max_volumes_per_node`, is small), enums as names, defaults filled in, oneofs reported by name.
 */
const loaderOptions: Options = { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true };

/**
 * grpc-js constructors of the three services: `new Identity(target, credentials)` is a client,
 * `Identity.service` the definition a server passes to `server.addService`.
 */
export interface CSIProtos {
  /** `csi.v1.Identity`: GetPluginInfo, GetPluginCapabilities, Probe. */
  readonly Identity: ServiceClientConstructor;
  /** `csi.v1.Node`: NodePublishVolume, NodeUnpublishVolume, NodeGetCapabilities, NodeGetInfo. */
  readonly Node: ServiceClientConstructor;
  /** `pluginregistration.Registration`: GetInfo, NotifyRegistrationStatus. */
  readonly Registration: ServiceClientConstructor;
}

let cached: CSIProtos | undefined;

/**
 * Loads the package's `proto/csi/v1/csi.proto` and `proto/pluginregistration/v1/api.proto` (once
 * per process; later calls return the same object) and returns the service constructors.
 *
 * @throws Error when the proto files are missing from the installed package.
 * @see https://github.com/container-storage-interface/spec/blob/v1.5.0/csi.proto
 * @see staging/src/k8s.io/kubelet/pkg/apis/pluginregistration/v1/api.proto
 * @example
 * ```ts
 * const { Identity, Node, Registration } = loadCSIProtos();
 * const identity = new Identity("unix:///var/lib/nodeagent/plugins/csi.sock", grpc.credentials.createInsecure());
 * server.addService(Node.service, nodeHandlers);
 * ```
 */
export function loadCSIProtos(): CSIProtos {
  if (cached) return cached;
  const includeDirs = [findProtoDir()];
  const csi = loadPackageDefinition(loadSync(csiProtoFile, { ...loaderOptions, includeDirs })) as unknown as { csi: { v1: { Identity: ServiceClientConstructor; Node: ServiceClientConstructor } } };
  const reg = loadPackageDefinition(loadSync(registrationProtoFile, { ...loaderOptions, includeDirs })) as unknown as { pluginregistration: { Registration: ServiceClientConstructor } };
  cached = { Identity: csi.csi.v1.Identity, Node: csi.csi.v1.Node, Registration: reg.pluginregistration.Registration };
  return cached;
}
