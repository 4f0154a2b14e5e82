/**
 * Storage errors: layer 1 of the three error layers (STYLE.md §6). They name a storage key and a
 * revision and carry no HTTP knowledge; the registry turns them into API errors
 * (`KeyExists` → 409 AlreadyExists, `KeyNotFound` → 404, `Conflict` and `InvalidObj` → 409 Conflict,
 * `ResourceVersionExpired` → 410 Gone `Expired`, `TooLargeResourceVersion` → 504 Timeout with
 * `retryAfterSeconds`, `InvalidError` → 400/422, `Unreachable` → 503/500, `Internal` → 500).
 *
 * @see staging/src/k8s.io/apiserver/pkg/storage/errors.go
 */

/**
 * The stable codes of {@link StorageError}.
 *
 * - `KeyNotFound`: the key has no live object (get, delete, guaranteedUpdate without ignoreNotFound).
 * - `KeyExists`: create of a key that already holds a live object.
 * - `Conflict`: a compare-and-swap lost against a concurrent write and could not be retried.
 * - `InvalidObj`: the object cannot be stored as asked: a failed precondition (uid or
 *   resourceVersion), a resourceVersion set on create, a value that is not a JSON object.
 *   Kubernetes 1.23 reports failed preconditions with this code and the registry answers 409.
 * - `Unreachable`: the backend cannot be used (closed, locked by another process, I/O failure),
 *   or a write's outcome is unknown (etcd: it may or may not have been applied, and reading the
 *   key back could not tell before the deadline).
 * - `ResourceVersionExpired`: the requested revision is older than the compaction horizon.
 * - `TooLargeResourceVersion`: the requested revision is newer than the newest one stored;
 *   `retryAfterSeconds` is 1 as in Kubernetes.
 * - `InvalidError`: the request itself is malformed (unparsable resourceVersion, a continue
 *   position outside the listed prefix, Exact without a revision...).
 * - `Internal`: the backend answered that it applied nothing and cannot now (SQLite: the disk is
 *   full, the file or its folder is read-only, a write I/O error; etcd: `database space exceeded`).
 *   Unlike `Unreachable`, the outcome is known, so a write is not retried; the registry answers
 *   500 with the backend's own words, as kube-apiserver passes etcd's through.
 */
export const StorageErrorCode = {
  KeyNotFound: "KeyNotFound",
  KeyExists: "KeyExists",
  Conflict: "Conflict",
  InvalidObj: "InvalidObj",
  Unreachable: "Unreachable",
  ResourceVersionExpired: "ResourceVersionExpired",
  TooLargeResourceVersion: "TooLargeResourceVersion",
  InvalidError: "InvalidError",
  Internal: "Internal",
} as const;

/** One of the {@link StorageErrorCode} values. */
export type StorageErrorCode = (typeof StorageErrorCode)[keyof typeof StorageErrorCode];

/** Kubernetes' integer code and text for the codes it has (`errCodeToMessage`). */
const kubernetesCode: Partial<Record<StorageErrorCode, readonly [number, string]>> = {
  KeyNotFound: [1, "key not found"],
  KeyExists: [2, "key exists"],
  Conflict: [3, "resource version conflicts"],
  InvalidObj: [4, "invalid object"],
  Unreachable: [5, "server unreachable"],
};

/** Fields of a {@link StorageError} besides its code. */
export interface StorageErrorInit {
  /** The storage key concerned; `""` when the error is not about one key. */
  readonly key?: string;
  /** The revision concerned (the requested one for Expired/TooLarge); 0 when none. */
  readonly revision?: number;
  /** Extra text, Kubernetes' `AdditionalErrorMsg` (e.g. `Precondition failed: ...`). */
  readonly detail?: string;
  /** Newest stored revision, for `TooLargeResourceVersion`. */
  readonly currentRevision?: number;
  /** Compaction horizon, for `ResourceVersionExpired`. */
  readonly compactedRevision?: number;
  /** Seconds after which a retry may succeed (`TooLargeResourceVersion`: 1). */
  readonly retryAfterSeconds?: number;
  /** The underlying error, when this one wraps another. */
  readonly cause?: unknown;
}

/**
 * The one error class storage throws. `code` is stable; `message` follows Kubernetes' wording:
 * for the codes Kubernetes' StorageError has it is
 * `StorageError: invalid object, Code: 4, Key: /registry/jobs/ns/a, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ...`;
 * Expired reads `too old resource version: 5 (9)`; TooLarge reads
 * `Too large resource version: 12, current: 9`.
 *
 * Check with {@link isStorageError} rather than `instanceof`: it survives duplicate package copies.
 *
 * @see staging/src/k8s.io/apiserver/pkg/storage/errors.go `StorageError`
 */
export class StorageError extends Error {
  override readonly name = "StorageError";
  readonly code: StorageErrorCode;
  readonly key: string;
  readonly revision: number;
  readonly detail: string;
  declare readonly currentRevision?: number;
  declare readonly compactedRevision?: number;
  declare readonly retryAfterSeconds?: number;

  constructor(code: StorageErrorCode, init: StorageErrorInit = {}) {
    super(formatMessage(code, init), init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.key = init.key ?? "";
    this.revision = init.revision ?? 0;
    this.detail = init.detail ?? "";
    // Optional fields exist only when set (exactOptionalPropertyTypes).
    const self = this as { -readonly [K in keyof StorageError]: StorageError[K] };
    if (init.currentRevision !== undefined) self.currentRevision = init.currentRevision;
    if (init.compactedRevision !== undefined) self.compactedRevision = init.compactedRevision;
    if (init.retryAfterSeconds !== undefined) self.retryAfterSeconds = init.retryAfterSeconds;
  }
}

function formatMessage(code: StorageErrorCode, init: StorageErrorInit): string {
  const k8s = kubernetesCode[code];
  if (k8s) {
    const extra = init.detail ? init.detail : "<nil>";
    return `StorageError: ${k8s[1]}, Code: ${k8s[0]}, Key: ${init.key ?? ""}, ResourceVersion: ${init.revision ?? 0}, AdditionalErrorMsg: ${extra}`;
  }
  if (code === "ResourceVersionExpired") {
    return init.detail || `too old resource version: ${init.revision ?? 0} (${init.compactedRevision ?? 0})`;
  }
  if (code === "TooLargeResourceVersion") {
    return `Too large resource version: ${init.revision ?? 0}, current: ${init.currentRevision ?? 0}`;
  }
  return init.detail || code;
}

/**
 * True when `value` is a {@link StorageError}, optionally with the given code. Checks `name` and
 * `code`, not the prototype, so errors from another copy of this package are recognised.
 *
 * @example
 * try { await storage.create(key, obj) } catch (e) { if (isStorageError(e, "KeyExists")) ... }
 */
export function isStorageError(value: unknown, code?: StorageErrorCode): value is StorageError {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { name?: unknown; code?: unknown };
  if (v.name !== "StorageError" || typeof v.code !== "string" || !(v.code in StorageErrorCode)) return false;
  return code === undefined || v.code === code;
}
