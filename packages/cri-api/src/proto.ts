import type { ImageServiceDefinition } from "./generated/runtime/v1/ImageService.js";
import type { RuntimeServiceDefinition } from "./generated/runtime/v1/RuntimeService.js";
import { loadGrpcObject } from "./internal/package-definition.js";

/** The grpc-js service definitions of CRI runtime.v1, for `server.addService`. */
export interface RuntimeProto {
  /** `runtime.v1.RuntimeService`. */
  RuntimeService: RuntimeServiceDefinition;
  /** `runtime.v1.ImageService`. */
  ImageService: ImageServiceDefinition;
}

/**
 * Loads the package's `proto/runtime/v1/api.proto` (once per process) and returns the service
 * definitions a CRI server registers. Messages decode with the conversions the generated types
 * describe: camelCase fields, int64 as decimal strings, enums as names, defaults filled in.
 *
 * @throws Error when the proto file is missing from the installed package.
 * @see staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto
 * @example
 * ```ts
 * const { RuntimeService, ImageService } = loadRuntimeProto();
 * server.addService(RuntimeService, runtimeHandlers);
 * server.addService(ImageService, imageHandlers);
 * ```
 */
export function loadRuntimeProto(): RuntimeProto {
  const v1 = loadGrpcObject().runtime.v1;
  return { RuntimeService: v1.RuntimeService.service, ImageService: v1.ImageService.service };
}
