/**
 * The one error type every patch function throws.
 *
 * Mapping to HTTP (what the apiserver should answer), following Kubernetes 1.23
 * `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go`:
 *
 * - `BadRequest` (400): the patch document is malformed — a JSON Patch that is not an array of
 *   objects, a merge patch body that is not JSON, strategic-merge directives with bad values
 *   (`$patch`, `$retainKeys`, `$setElementOrder/...`, `$deleteFromPrimitiveList/...`).
 * - `Invalid` (422): a well-formed patch that cannot be applied to this object — a failed JSON
 *   Patch `test`, a path that does not exist, a merge-key element missing its key, lists of lists.
 * - `RequestEntityTooLarge` (413): a JSON Patch with more than 10000 operations.
 *
 * Kubernetes answers some of the "cannot be applied" strategic-merge failures with a bare 500;
 * they are 422 here. Kubernetes also replaces the message of a JSON Patch 422 with "the server
 * rejected our request due to an error in our request"; `message` here keeps the specific cause
 * and the apiserver decides what to show.
 */

import { statusReasonCodes } from "./status-errors.js";

/** Why a patch failed; a Kubernetes `StatusReason`. */
export type PatchErrorReason = "BadRequest" | "Invalid" | "RequestEntityTooLarge";

/**
 * A patch could not be decoded or applied. `reason` and `code` say how to answer (see the module
 * comment); `message` says what went wrong.
 */
export class PatchError extends Error {
  override readonly name = "PatchError";
  /** HTTP status code matching `reason`. */
  readonly code: number;

  constructor(
    readonly reason: PatchErrorReason,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.code = statusReasonCodes[reason];
  }
}

/** Whether `x` is a {@link PatchError} (also from another copy of this package). */
export function isPatchError(x: unknown): x is PatchError {
  if (x instanceof PatchError) return true;
  return typeof x === "object" && x !== null && (x as { name?: unknown }).name === "PatchError" && typeof (x as { reason?: unknown }).reason === "string";
}
