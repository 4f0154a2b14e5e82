import { StorageError } from "../errors.js";

/** How an etcd failure maps onto the storage contract. */
export type EtcdFailure = "compacted" | "future" | "tooLarge" | "noSpace" | "other";

/** Classifies an error from the etcd3 client by etcd's error text (stable across etcd 3.x). */
export function classifyEtcdError(error: unknown): EtcdFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (message.includes("required revision has been compacted")) return "compacted";
  if (message.includes("required revision is a future revision")) return "future";
  if (message.includes("request is too large")) return "tooLarge";
  // The NOSPACE alarm: etcd refuses writes before proposing or applying them.
  if (message.includes("database space exceeded")) return "noSpace";
  return "other";
}

/**
 * The StorageError for an etcd failure: `InvalidObj` for a request over etcd's size limit,
 * `Internal` (nothing applied, etcd's words) for `database space exceeded`, else `Unreachable`
 * (the backend cannot serve the call, or a write's outcome is unknown).
 */
export function unreachableError(error: unknown, key = ""): StorageError {
  if (error instanceof StorageError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const failure = classifyEtcdError(error);
  if (failure === "tooLarge") {
    return new StorageError("InvalidObj", { key, detail: `etcd: ${message}`, cause: error });
  }
  if (failure === "noSpace") {
    return new StorageError("Internal", { key, detail: `etcd: ${message}`, cause: error });
  }
  return new StorageError("Unreachable", { key, detail: `etcd: ${message}`, cause: error });
}
