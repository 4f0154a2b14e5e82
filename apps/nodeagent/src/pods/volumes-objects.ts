import type { KeyToPath } from "@skiff/api-types";
import type { FileProjection } from "./atomic-writer.js";
import type { ConfigMapObject, SecretObject } from "./pod-objects.js";

/**
 * A configMap/secret/projected volume that cannot be built: a listed key is missing
 * (`InvalidPayload`), there is no API client (`NoClient`), or a source is not supported
 * (`Unsupported`: projected serviceAccountToken). Messages are 1.23's where it has one.
 */
export class VolumePayloadError extends Error {
  override readonly name = "VolumePayloadError";
  constructor(
    message: string,
    readonly reason: "InvalidPayload" | "NoClient" | "Unsupported" = "InvalidPayload",
  ) {
    super(message);
  }
}

function fromBase64(v: string): Buffer {
  return Buffer.from(v, "base64");
}

function build(entries: ReadonlyMap<string, Uint8Array | string>, items: readonly KeyToPath[] | undefined, defaultMode: number, optional: boolean, missing: (key: string) => string): Map<string, FileProjection> {
  const payload = new Map<string, FileProjection>();
  if (!items || items.length === 0) {
    for (const [k, data] of entries) payload.set(k, { data, mode: defaultMode });
    return payload;
  }
  for (const it of items) {
    const data = entries.get(it.key);
    if (data === undefined) {
      if (optional) continue;
      throw new VolumePayloadError(missing(it.key));
    }
    payload.set(it.path, { data, mode: it.mode ?? defaultMode });
  }
  return payload;
}

/**
 * The files of a configMap volume or projection: every `data` and `binaryData` key (base64-decoded)
 * with `defaultMode`, or only `items` (key → path, per-item `mode`). A listed key that is missing
 * is skipped when `optional`, else an error. Pure; `cm` may be an empty object (optional, absent).
 * @throws VolumePayloadError `configmap references non-existent config key: <key>`.
 * @see pkg/volume/configmap/configmap.go (MakePayload) in kubernetes/kubernetes v1.23
 */
export function configMapPayload(items: readonly KeyToPath[] | undefined, cm: ConfigMapObject, defaultMode: number, optional: boolean): Map<string, FileProjection> {
  const entries = new Map<string, Uint8Array | string>(Object.entries(cm.data ?? {}));
  for (const [k, v] of Object.entries(cm.binaryData ?? {})) if (!entries.has(k)) entries.set(k, fromBase64(v));
  return build(entries, items, defaultMode, optional, (k) => `configmap references non-existent config key: ${k}`);
}

/**
 * The files of a secret volume or projection: every `data` key (base64-decoded) with `defaultMode`,
 * or only `items`. A listed key that is missing is skipped when `optional`, else an error. Pure.
 * @throws VolumePayloadError `references non-existent secret key: <key>`.
 * @see pkg/volume/secret/secret.go (MakePayload) in kubernetes/kubernetes v1.23
 */
export function secretPayload(items: readonly KeyToPath[] | undefined, secret: SecretObject, defaultMode: number, optional: boolean): Map<string, FileProjection> {
  const entries = new Map<string, Uint8Array | string>(Object.entries(secret.data ?? {}).map(([k, v]) => [k, fromBase64(v)]));
  return build(entries, items, defaultMode, optional, (k) => `references non-existent secret key: ${k}`);
}

/**
 * An error list as Kubernetes' aggregate error prints it: one message alone, several as
 * `[a, b]` (repeated messages once). Pure.
 * @see staging/src/k8s.io/apimachinery/pkg/util/errors/errors.go (aggregate.Error) in kubernetes/kubernetes v1.23
 */
export function formatAggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? "") : `[${unique.join(", ")}]`;
}
