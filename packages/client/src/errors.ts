/**
 * Errors of the client that are not API errors (those are apimachinery's `StatusError`).
 */

/**
 * Why a request failed without an API answer: `NetworkError` (connection refused, reset, TLS
 * failure...), `DecodeError` (a 2xx body that is not JSON, a broken watch stream), `Aborted`
 * (the caller's signal or `stop()`), `MissingNamespace` (a namespaced call without a namespace),
 * `Unauthenticated` (the client's token source gave no token).
 */
export type ClientErrorCode = "NetworkError" | "DecodeError" | "Aborted" | "MissingNamespace" | "Unauthenticated";

/** A request failed without an API error; the underlying error is the `cause`. */
export class ClientError extends Error {
  override readonly name = "ClientError";
  constructor(
    readonly code: ClientErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Whether `x` is a {@link ClientError} (checks `name` and `code`, so it survives duplicate package copies). */
export function isClientError(x: unknown): x is ClientError {
  return x instanceof ClientError || (x instanceof Error && x.name === "ClientError" && typeof (x as { code?: unknown }).code === "string");
}
