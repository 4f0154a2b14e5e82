import type { ConfigMap, ConfigMapList, Secret, SecretList, ServiceAccount, ServiceAccountList } from "@skiff/api-types";
import type { z } from "zod";
import { localObjectReferenceSchema, objectReferenceSchema } from "./core.js";
import { kindEnvelope, kindListOf } from "./meta.js";
import { bool, byteMap, listOf, objectOf, str, stringMap } from "./primitives.js";

/*
 * core/v1 ConfigMap, Secret and ServiceAccount in their 1.23 shapes. `binaryData` and Secret
 * `data` are Go `map[string][]byte`: base64 text on the wire, checked as Go decodes it.
 */

/** core/v1 ConfigMap. */
export const configMapSchema = objectOf<ConfigMap>()("ConfigMap", {
  ...kindEnvelope(),
  data: stringMap().exactOptional(),
  binaryData: byteMap().exactOptional(),
  immutable: bool().exactOptional(),
}) satisfies z.ZodType<ConfigMap>;

/** core/v1 ConfigMapList. */
export const configMapListSchema = kindListOf<ConfigMapList>()("ConfigMapList", configMapSchema) satisfies z.ZodType<ConfigMapList>;

/** core/v1 Secret (`stringData` is write-only: merged into `data` by defaulting). */
export const secretSchema = objectOf<Secret>()("Secret", {
  ...kindEnvelope(),
  data: byteMap().exactOptional(),
  stringData: stringMap().exactOptional(),
  type: str().exactOptional(),
  immutable: bool().exactOptional(),
}) satisfies z.ZodType<Secret>;

/** core/v1 SecretList. */
export const secretListSchema = kindListOf<SecretList>()("SecretList", secretSchema) satisfies z.ZodType<SecretList>;

/** core/v1 ServiceAccount. */
export const serviceAccountSchema = objectOf<ServiceAccount>()("ServiceAccount", {
  ...kindEnvelope(),
  secrets: listOf(objectReferenceSchema).exactOptional(),
  imagePullSecrets: listOf(localObjectReferenceSchema).exactOptional(),
  automountServiceAccountToken: bool().exactOptional(),
}) satisfies z.ZodType<ServiceAccount>;

/** core/v1 ServiceAccountList. */
export const serviceAccountListSchema = kindListOf<ServiceAccountList>()("ServiceAccountList", serviceAccountSchema) satisfies z.ZodType<ServiceAccountList>;
