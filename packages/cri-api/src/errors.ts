import { status as GrpcStatus } from "@grpc/grpc-js";

/**
 * The name of a gRPC status code as Go's `codes.Code.String()` spells it, which is also how
 * runtimes print it (`rpc error: code = NotFound desc = ...`).
 *
 * @see staging/src/k8s.io/cri-api/pkg/errors/errors.go (the kubelet checks `codes.NotFound`)
 */
export type CRIErrorCode =
  | "OK"
  | "Canceled"
  | "Unknown"
  | "InvalidArgument"
  | "DeadlineExceeded"
  | "NotFound"
  | "AlreadyExists"
  | "PermissionDenied"
  | "ResourceExhausted"
  | "FailedPrecondition"
  | "Aborted"
  | "OutOfRange"
  | "Unimplemented"
  | "Internal"
  | "Unavailable"
  | "DataLoss"
  | "Unauthenticated";

// Typed by the grpc-js enum, so a status added there fails compilation until it is named here.
const codeNames: Record<GrpcStatus, CRIErrorCode> = {
  [GrpcStatus.OK]: "OK",
  [GrpcStatus.CANCELLED]: "Canceled",
  [GrpcStatus.UNKNOWN]: "Unknown",
  [GrpcStatus.INVALID_ARGUMENT]: "InvalidArgument",
  [GrpcStatus.DEADLINE_EXCEEDED]: "DeadlineExceeded",
  [GrpcStatus.NOT_FOUND]: "NotFound",
  [GrpcStatus.ALREADY_EXISTS]: "AlreadyExists",
  [GrpcStatus.PERMISSION_DENIED]: "PermissionDenied",
  [GrpcStatus.RESOURCE_EXHAUSTED]: "ResourceExhausted",
  [GrpcStatus.FAILED_PRECONDITION]: "FailedPrecondition",
  [GrpcStatus.ABORTED]: "Aborted",
  [GrpcStatus.OUT_OF_RANGE]: "OutOfRange",
  [GrpcStatus.UNIMPLEMENTED]: "Unimplemented",
  [GrpcStatus.INTERNAL]: "Internal",
  [GrpcStatus.UNAVAILABLE]: "Unavailable",
  [GrpcStatus.DATA_LOSS]: "DataLoss",
  [GrpcStatus.UNAUTHENTICATED]: "Unauthenticated",
};

const grpcCodes = new Map<CRIErrorCode, GrpcStatus>(
  Object.entries(codeNames).map(([num, name]) => [name, Number(num) as GrpcStatus]),
);

/** What {@link CRIError}'s constructor takes. */
export interface CRIErrorInit {
  /** gRPC status name. */
  code: CRIErrorCode;
  /** The CRI method, e.g. `"RunPodSandbox"`; `"Dial"` for connection setup. */
  method: string;
  /** The runtime's message (gRPC status details). */
  details: string;
  cause?: unknown;
}

/**
 * A failed CRI call: the gRPC status of a runtime's answer, or a local failure (deadline,
 * unreachable socket) mapped to the status gRPC reports for it.
 *
 * `message` reads like Go's gRPC errors: `RunPodSandbox: rpc error: code = NotFound desc = ...`.
 * Servers may throw it too: `grpcCode` is the numeric status to send.
 *
 * @example
 * ```ts
 * try {
 *   await rt.containerStatus({ containerId });
 * } catch (err) {
 *   if (isCRIError(err, "NotFound")) forget(containerId);
 *   else throw err;
 * }
 * ```
 * @see staging/src/k8s.io/cri-api/pkg/errors/errors.go
 */
export class CRIError extends Error {
  override readonly name = "CRIError";
  /** gRPC status name; the stable field to branch on. */
  readonly code: CRIErrorCode;
  /** Numeric gRPC status matching `code`. */
  readonly grpcCode: number;
  /** CRI method name, e.g. `"StopContainer"`. */
  readonly method: string;
  /** The runtime's own message, without the method and code prefix. */
  readonly details: string;

  constructor(init: CRIErrorInit) {
    super(`${init.method}: rpc error: code = ${init.code} desc = ${init.details}`, init.cause === undefined ? {} : { cause: init.cause });
    this.code = init.code;
    this.grpcCode = grpcCodes.get(init.code) ?? GrpcStatus.UNKNOWN;
    this.method = init.method;
    this.details = init.details;
  }
}

/**
 * Whether `err` is a {@link CRIError} (checked by `name` and `code`, so it also holds across
 * duplicate copies of this package), optionally with the given code.
 */
export function isCRIError(err: unknown, code?: CRIErrorCode): err is CRIError {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { name?: unknown; code?: unknown; method?: unknown };
  if (e.name !== "CRIError" || typeof e.code !== "string" || typeof e.method !== "string") return false;
  return code === undefined || e.code === code;
}

/**
 * Converts anything a gRPC call can fail with into a {@link CRIError} for `method`: a grpc-js
 * `ServiceError` keeps its status and details, an existing CRIError is returned as is, anything
 * else becomes `Unknown` with the value as `cause`. Never throws; does not mutate `err`.
 */
export function toCRIError(err: unknown, method: string): CRIError {
  if (isCRIError(err)) return err;
  if (typeof err === "object" && err !== null && typeof (err as { code?: unknown }).code === "number") {
    const { code, details, message } = err as { code: number; details?: unknown; message?: unknown };
    const name = codeNames[code as GrpcStatus] ?? "Unknown";
    const text = typeof details === "string" ? details : typeof message === "string" ? message : String(err);
    return new CRIError({ code: name, method, details: text, cause: err });
  }
  const text = err instanceof Error ? err.message : String(err);
  return new CRIError({ code: "Unknown", method, details: text, cause: err });
}
