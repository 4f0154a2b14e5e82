import { StorageError } from "../errors.js";

/** How an etcd failure maps onto the storage contract. */
export type EtcdFailure = "compacted" | "future" | "tooLarge" | "other";

/** Classifies an error from the etcd3 client by etcd's error text (stable across etcd 3.x). */
export function classifyEtcdError(error: unknown): EtcdFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (message.includes("required revision has been compacted")) return "compacted";
  if (message.includes("required revision is a future revision")) return "future";
  if (message.includes("request is too large")) return "tooLarge";
  return "other";
}

/** Any other etcd failure: the backend cannot serve the call (Kubernetes answers 500/503). */
export function unreachableError(error: unknown, key = ""): StorageError {
  if (error instanceof StorageError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (classifyEtcdError(error) === "tooLarge") {
    return new StorageError("InvalidObj", { key, detail: `etcd: ${message}`, cause: error });
  }
  return new StorageError("Unreachable", { key, detail: `etcd: ${message}`, cause: error });
}
