/**
 * core/v1 ConfigMap, Secret and ServiceAccount: validation, and the Secret's defaulting
 * (`type` Opaque, `stringData` merged into `data`), in Kubernetes 1.23's rules and words.
 * Map keys are visited in sorted order (Go's map order is random), so causes come out stably.
 *
 * @see pkg/apis/core/validation/validation.go (ValidateConfigMap, ValidateSecret,
 *   ValidateServiceAccount and their updates) in kubernetes/kubernetes v1.23
 */
import {
  BasicAuthPasswordKey,
  BasicAuthUsernameKey,
  DockerConfigJsonKey,
  DockerConfigKey,
  SSHAuthPrivateKey,
  SecretType,
  ServiceAccountNameAnnotation,
  TLSCertKey,
  TLSPrivateKeyKey,
} from "@skiff/api-types";
import type { ConfigMap, Secret, ServiceAccount } from "@skiff/api-types";
import { fieldPath, type FieldError } from "@skiff/apimachinery";
import { goUnmarshalMapError } from "../internal/go-json.js";
import { nameIsDNSSubdomain } from "../meta/names.js";
import { field, fieldImmutableErrorMsg } from "../meta/internal/field.js";
import { base64DecodedLength } from "../schemas/primitives.js";
import { validateCoreObjectMeta, validateCoreObjectMetaUpdate } from "./core-meta.js";
import { isConfigMapKey } from "./env.js";

/**
 * The most bytes the values of a Secret's `data` (or a ConfigMap's `data` and `binaryData`)
 * may hold together: 1 MiB.
 * @see staging/src/k8s.io/api/core/v1/types.go (MaxSecretSize)
 */
export const maxSecretSizeBytes = 1024 * 1024;

/** 1.23's Forbidden detail for a change to a field of an immutable ConfigMap or Secret. */
export const immutableWhenSetMessage = "field is immutable when `immutable` is set";

const sortedKeys = (m: Readonly<Record<string, unknown>> | undefined): string[] => Object.keys(m ?? {}).sort();

function sameMap(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ka = sortedKeys(a);
  const kb = sortedKeys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a?.[k] === b?.[k]);
}

/**
 * Validates a ConfigMap for create. Never throws; does not mutate.
 *
 * - `metadata`: namespaced core object meta, the name a DNS-1123 subdomain;
 * - every key of `data` and `binaryData` an `IsConfigMapKey` (`data[k]: Invalid value: "k": a
 *   valid config key must consist of ...`), a `data` key also in `binaryData` is `Invalid value:
 *   "k": duplicate of key present in binaryData`;
 * - the UTF-8 bytes of `data` values plus the decoded bytes of `binaryData` at most
 *   {@link maxSecretSizeBytes}, else one error at the empty path: `Too long: must have at most
 *   1048576 bytes`.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateConfigMap` (kubernetes/kubernetes v1.23)
 * @example
 * validateConfigMap({ metadata: { name: "x", namespace: "default" }, data: { a: "b" } }) // []
 */
export function validateConfigMap(cm: ConfigMap): FieldError[] {
  const errs = validateCoreObjectMeta(cm.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  let total = 0;
  for (const key of sortedKeys(cm.data)) {
    for (const msg of isConfigMapKey(key)) errs.push(field.invalid(fieldPath("data").key(key), key, msg));
    if (cm.binaryData !== undefined && Object.prototype.hasOwnProperty.call(cm.binaryData, key)) {
      errs.push(field.invalid(fieldPath("data").key(key), key, "duplicate of key present in binaryData"));
    }
    total += Buffer.byteLength(cm.data?.[key] ?? "", "utf8");
  }
  for (const key of sortedKeys(cm.binaryData)) {
    for (const msg of isConfigMapKey(key)) errs.push(field.invalid(fieldPath("binaryData").key(key), key, msg));
    total += base64DecodedLength(cm.binaryData?.[key] ?? "");
  }
  // 1.23 passes the empty path: the error is about the whole object.
  if (total > maxSecretSizeBytes) errs.push(field.tooLong("", maxSecretSizeBytes));
  return errs;
}

/**
 * Validates an update of a ConfigMap: the object-meta update rules; when the old ConfigMap is
 * immutable, `immutable`, `data` and `binaryData` may not change (`Forbidden: field is immutable
 * when \`immutable\` is set`); then the create rules on the new object. Never throws; does not
 * mutate.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateConfigMapUpdate` (kubernetes/kubernetes v1.23)
 */
export function validateConfigMapUpdate(cm: ConfigMap, old: ConfigMap): FieldError[] {
  const errs = validateCoreObjectMetaUpdate(cm.metadata, old.metadata);
  if (old.immutable === true) {
    if (cm.immutable !== true) errs.push(field.forbidden("immutable", immutableWhenSetMessage));
    if (!sameMap(cm.data, old.data)) errs.push(field.forbidden("data", immutableWhenSetMessage));
    if (!sameMap(cm.binaryData, old.binaryData)) errs.push(field.forbidden("binaryData", immutableWhenSetMessage));
  }
  errs.push(...validateConfigMap(cm));
  return errs;
}

const redacted = "<secret contents redacted>";

function decoded(secret: Secret, key: string): Buffer | undefined {
  const v = secret.data?.[key];
  return v === undefined ? undefined : Buffer.from(v, "base64");
}

const has = (secret: Secret, key: string) => secret.data !== undefined && Object.prototype.hasOwnProperty.call(secret.data, key);

/**
 * Validates a Secret for create (after {@link setSecretDefaults}). Never throws; does not
 * mutate; never puts a value of `data` into an error (the JSON checks show
 * `"<secret contents redacted>"`).
 *
 * - `metadata`: namespaced core object meta, the name a DNS-1123 subdomain;
 * - every key of `data` an `IsConfigMapKey`; the decoded values together at most
 *   {@link maxSecretSizeBytes} (`data: Too long: must have at most 1048576 bytes`);
 * - by `type`: `kubernetes.io/service-account-token` needs the annotation
 *   `metadata.annotations[kubernetes.io/service-account.name]`; `kubernetes.io/dockercfg` needs
 *   `data[.dockercfg]` and `kubernetes.io/dockerconfigjson` `data[.dockerconfigjson]`, each a JSON
 *   object (else `Invalid value: "<secret contents redacted>": <Go's JSON error>`);
 *   `kubernetes.io/basic-auth` needs `username` or `password` and `kubernetes.io/ssh-auth` a
 *   non-empty `ssh-privatekey` (1.23 reports these at the literal paths `data[%s][username]`,
 *   `data[%s][password]`, `data[%s][ssh-privatekey]`); `kubernetes.io/tls` needs `data[tls.crt]`
 *   and `data[tls.key]`; Opaque, `bootstrap.kubernetes.io/token` and unknown types need nothing.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateSecret` (kubernetes/kubernetes v1.23)
 */
export function validateSecret(secret: Secret): FieldError[] {
  const errs = validateCoreObjectMeta(secret.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const dataPath = fieldPath("data");
  let total = 0;
  for (const key of sortedKeys(secret.data)) {
    for (const msg of isConfigMapKey(key)) errs.push(field.invalid(dataPath.key(key), key, msg));
    total += base64DecodedLength(secret.data?.[key] ?? "");
  }
  if (total > maxSecretSizeBytes) errs.push(field.tooLong(dataPath, maxSecretSizeBytes));
  // 1.23 builds these two types' paths from the literal "data[%s]".
  const literalDataPath = fieldPath("data[%s]");
  switch (secret.type ?? "") {
    case SecretType.ServiceAccountToken:
      if ((secret.metadata?.annotations?.[ServiceAccountNameAnnotation] ?? "") === "") {
        errs.push(field.required(fieldPath("metadata", "annotations").key(ServiceAccountNameAnnotation)));
      }
      break;
    case SecretType.Dockercfg:
    case SecretType.DockerConfigJson: {
      const key = secret.type === SecretType.Dockercfg ? DockerConfigKey : DockerConfigJsonKey;
      const bytes = decoded(secret, key);
      if (bytes === undefined) {
        errs.push(field.required(dataPath.key(key)));
        break;
      }
      const jsonError = goUnmarshalMapError(bytes);
      if (jsonError !== undefined) errs.push(field.invalid(dataPath.key(key), redacted, jsonError));
      break;
    }
    case SecretType.BasicAuth:
      if (!has(secret, BasicAuthUsernameKey) && !has(secret, BasicAuthPasswordKey)) {
        errs.push(field.required(literalDataPath.key(BasicAuthUsernameKey)));
        errs.push(field.required(literalDataPath.key(BasicAuthPasswordKey)));
      }
      break;
    case SecretType.SSHAuth:
      if ((decoded(secret, SSHAuthPrivateKey)?.length ?? 0) === 0) errs.push(field.required(literalDataPath.key(SSHAuthPrivateKey)));
      break;
    case SecretType.TLS:
      if (!has(secret, TLSCertKey)) errs.push(field.required(dataPath.key(TLSCertKey)));
      if (!has(secret, TLSPrivateKeyKey)) errs.push(field.required(dataPath.key(TLSPrivateKeyKey)));
      break;
    default:
      break;
  }
  return errs;
}

/**
 * Validates an update of a Secret: the object-meta update rules; `type` unchanged (`type:
 * Invalid value: "X": field is immutable`); when the old Secret is immutable, `immutable` and
 * `data` may not change (`Forbidden: field is immutable when \`immutable\` is set`); then the
 * create rules on the new object. Never throws; does not mutate.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateSecretUpdate` (kubernetes/kubernetes v1.23)
 */
export function validateSecretUpdate(secret: Secret, old: Secret): FieldError[] {
  const errs = validateCoreObjectMetaUpdate(secret.metadata, old.metadata);
  if ((secret.type ?? "") !== (old.type ?? "")) errs.push(field.invalid("type", secret.type ?? "", fieldImmutableErrorMsg));
  if (old.immutable === true) {
    if (secret.immutable !== true) errs.push(field.forbidden("immutable", immutableWhenSetMessage));
    if (!sameMap(secret.data, old.data)) errs.push(field.forbidden("data", immutableWhenSetMessage));
  }
  errs.push(...validateSecret(secret));
  return errs;
}

/**
 * Applies a Secret's decode-time defaults, mutating it: `stringData` is merged into `data`
 * (each value base64-encoded, overwriting a `data` value of the same key) and removed, as 1.23's
 * conversion does, so it is never stored nor returned; an empty `type` becomes `Opaque`.
 * Idempotent; never throws.
 *
 * @see pkg/apis/core/v1/conversion.go (Convert_v1_Secret_To_core_Secret), pkg/apis/core/v1/defaults.go (SetDefaults_Secret)
 */
export function setSecretDefaults(secret: Secret): void {
  const stringData = secret.stringData;
  if (stringData !== undefined) {
    if (Object.keys(stringData).length > 0) {
      const data: Record<string, string> = { ...secret.data };
      for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(v, "utf8").toString("base64");
      secret.data = data;
    }
    delete secret.stringData;
  }
  if ((secret.type ?? "") === "") secret.type = SecretType.Opaque;
}

/**
 * Validates a ServiceAccount for create: namespaced core object meta, the name a DNS-1123
 * subdomain (1.23 checks nothing else). Never throws; does not mutate.
 * @see pkg/apis/core/validation/validation.go `ValidateServiceAccount` (kubernetes/kubernetes v1.23)
 */
export function validateServiceAccount(sa: ServiceAccount): FieldError[] {
  return validateCoreObjectMeta(sa.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
}

/**
 * Validates an update of a ServiceAccount: the object-meta update rules, then the create rules.
 * Never throws; does not mutate.
 * @see pkg/apis/core/validation/validation.go `ValidateServiceAccountUpdate` (kubernetes/kubernetes v1.23)
 */
export function validateServiceAccountUpdate(sa: ServiceAccount, old: ServiceAccount): FieldError[] {
  return [...validateCoreObjectMetaUpdate(sa.metadata, old.metadata), ...validateServiceAccount(sa)];
}
