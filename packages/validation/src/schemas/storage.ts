import type {
  CSIDriver,
  CSIDriverList,
  CSIDriverSpec,
  CSINode,
  CSINodeDriver,
  CSINodeList,
  CSINodeSpec,
  TokenRequest,
  VolumeNodeResources,
} from "@skiff/api-types";
import type { z } from "zod";
import { kindEnvelope, kindListOf } from "./meta.js";
import { bool, int32, int64, listOf, objectOf, openEnum, str, stringList } from "./primitives.js";

type Def<T> = NonNullable<T>;

/** `storage.example.io/v1` TokenRequest. */
export const tokenRequestSchema = objectOf<TokenRequest>()("TokenRequest", {
  audience: str(),
  expirationSeconds: int64().exactOptional(),
}) satisfies z.ZodType<TokenRequest>;

/** `storage.example.io/v1` CSIDriverSpec. */
export const csiDriverSpecSchema = objectOf<CSIDriverSpec>()("CSIDriverSpec", {
  attachRequired: bool().exactOptional(),
  podInfoOnMount: bool().exactOptional(),
  volumeLifecycleModes: stringList().exactOptional(),
  storageCapacity: bool().exactOptional(),
  fsGroupPolicy: openEnum<Def<CSIDriverSpec["fsGroupPolicy"]>>().exactOptional(),
  tokenRequests: listOf(tokenRequestSchema).exactOptional(),
  requiresRepublish: bool().exactOptional(),
}) satisfies z.ZodType<CSIDriverSpec>;

/** `storage.example.io/v1` CSIDriver. */
export const csiDriverSchema = objectOf<CSIDriver>()("CSIDriver", {
  ...kindEnvelope(),
  spec: csiDriverSpecSchema,
}) satisfies z.ZodType<CSIDriver>;

/** `storage.example.io/v1` CSIDriverList. */
export const csiDriverListSchema = kindListOf<CSIDriverList>()("CSIDriverList", csiDriverSchema) satisfies z.ZodType<CSIDriverList>;

/** `storage.example.io/v1` VolumeNodeResources. */
export const volumeNodeResourcesSchema = objectOf<VolumeNodeResources>()("VolumeNodeResources", {
  count: int32().exactOptional(),
}) satisfies z.ZodType<VolumeNodeResources>;

/** `storage.example.io/v1` CSINodeDriver. */
export const csiNodeDriverSchema = objectOf<CSINodeDriver>()("CSINodeDriver", {
  name: str(),
  nodeID: str(),
  topologyKeys: stringList().exactOptional(),
  allocatable: volumeNodeResourcesSchema.exactOptional(),
}) satisfies z.ZodType<CSINodeDriver>;

/** `storage.example.io/v1` CSINodeSpec. */
export const csiNodeSpecSchema = objectOf<CSINodeSpec>()("CSINodeSpec", {
  drivers: listOf(csiNodeDriverSchema),
}) satisfies z.ZodType<CSINodeSpec>;

/** `storage.example.io/v1` CSINode. */
export const csiNodeSchema = objectOf<CSINode>()("CSINode", {
  ...kindEnvelope(),
  spec: csiNodeSpecSchema,
}) satisfies z.ZodType<CSINode>;

/** `storage.example.io/v1` CSINodeList. */
export const csiNodeListSchema = kindListOf<CSINodeList>()("CSINodeList", csiNodeSchema) satisfies z.ZodType<CSINodeList>;
