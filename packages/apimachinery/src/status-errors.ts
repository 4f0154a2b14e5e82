/**
 * API errors: the `Status` body every failing request returns, the {@link StatusError} that
 * carries it, factories with Kubernetes' exact messages, and guards.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (`StatusReason`)
 */

import type { FieldError } from "./field-errors.js";
import { formatFieldErrorBody, formatFieldErrors } from "./field-errors.js";
import { errorMessage, goQuote } from "./internal/go-format.js";

/**
 * Every `StatusReason` of Kubernetes 1.23. `""` is `StatusReasonUnknown` (the server gave no
 * reason; clients treat the code alone).
 */
export type StatusReason =
  | ""
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Invalid"
  | "ServerTimeout"
  | "Timeout"
  | "TooManyRequests"
  | "BadRequest"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "RequestEntityTooLarge"
  | "UnsupportedMediaType"
  | "InternalError"
  | "Expired"
  | "ServiceUnavailable";

/**
 * The HTTP status code of each reason: the one table (a new reason does not compile until it is
 * mapped here). `ServerTimeout` is 500 and `Timeout` 504, as in Kubernetes.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export const statusReasonCodes: Readonly<Record<StatusReason, number>> = {
  "": 500,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Invalid: 422,
  ServerTimeout: 500,
  Timeout: 504,
  TooManyRequests: 429,
  BadRequest: 400,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  InternalError: 500,
  Expired: 410,
  ServiceUnavailable: 503,
};

const knownReasons = new Set<string>(Object.keys(statusReasonCodes).filter((r) => r !== ""));

/**
 * One cause of a failure. For a 422 `Invalid`, `reason` is the field error type
 * (`FieldValueInvalid`), `message` the error without its path and `field` the path.
 */
export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/**
 * What the failure is about. Empty strings, empty cause lists and a zero `retryAfterSeconds` are
 * left out, as Kubernetes' JSON leaves them out. `kind` holds the resource (`jobs`) for most
 * errors and the kind (`Job`) for `Invalid`, as in Kubernetes.
 */
export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  /** Seconds the client should wait before retrying. */
  readonly retryAfterSeconds?: number;
}

/** The `Status` object (`v1`), as sent on the wire. */
export interface StatusBody {
  readonly kind: "Status";
  readonly apiVersion: "v1";
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly status: "Failure" | "Success";
  readonly message: string;
  readonly reason: StatusReason;
  readonly details?: StatusDetails;
  /** HTTP status code. */
  readonly code: number;
}

/** A resource and its API group (`{group: "batch", resource: "jobs"}`); core resources have group `""`. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** A kind and its API group (`{group: "batch", kind: "Job"}`). */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/**
 * `jobs.batch`, or just `pods` for the core group, as Kubernetes names a resource in messages.
 * @see staging/src/k8s.io/apimachinery/pkg/runtime/schema/group_version.go `GroupResource.String`
 * @example
 * qualifiedResource({ group: "batch", resource: "jobs" }) // "jobs.batch"
 */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/**
 * `Job.batch`, or just `Pod` for the core group.
 * @see staging/src/k8s.io/apimachinery/pkg/runtime/schema/group_version.go `GroupKind.String`
 */
export function qualifiedKind(gk: GroupKind): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

/**
 * An error carrying a `Status` body; `message` is the body's message. Build it with the `new*`
 * factories, or from a received body with {@link statusErrorFromObject}. `name` is always
 * `"StatusError"`, which {@link isStatusError} relies on across package copies.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `StatusError`
 */
export class StatusError extends Error {
  override readonly name = "StatusError";
  readonly status: StatusBody;

  constructor(status: StatusBody, options?: ErrorOptions) {
    super(status.message, options);
    this.status = status;
  }

  /** The body's reason, e.g. `NotFound`. */
  get reason(): StatusReason {
    return this.status.reason;
  }

  /** The body's HTTP status code. */
  get code(): number {
    return this.status.code;
  }
}

function compactDetails(d: StatusDetails): StatusDetails {
  const out: { -readonly [K in keyof StatusDetails]: StatusDetails[K] } = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.uid) out.uid = d.uid;
  if (d.causes && d.causes.length > 0) out.causes = d.causes;
  if (d.retryAfterSeconds) out.retryAfterSeconds = d.retryAfterSeconds;
  return out;
}

function failure(reason: StatusReason, message: string, details?: StatusDetails, options?: ErrorOptions, code?: number): StatusError {
  const body: StatusBody = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    ...(details ? { details: compactDetails(details) } : {}),
    code: code ?? statusReasonCodes[reason],
  };
  return new StatusError(body, options);
}

const causeOf = (err: unknown): ErrorOptions | undefined => (err instanceof Error ? { cause: err } : undefined);

/**
 * 404 NotFound: `jobs.batch "pi" not found`.
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewNotFound`
 * @example
 * newNotFound({ group: "batch", resource: "jobs" }, "pi").message // 'jobs.batch "pi" not found'
 */
export function newNotFound(qr: GroupResource, name: string): StatusError {
  return failure("NotFound", `${qualifiedResource(qr)} ${goQuote(name)} not found`, { group: qr.group, kind: qr.resource, name });
}

/**
 * 409 AlreadyExists: `jobs.batch "pi" already exists`.
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewAlreadyExists`
 */
export function newAlreadyExists(qr: GroupResource, name: string): StatusError {
  return failure("AlreadyExists", `${qualifiedResource(qr)} ${goQuote(name)} already exists`, { group: qr.group, kind: qr.resource, name });
}

/**
 * The message Kubernetes gives an optimistic-lock failure (stale `resourceVersion`); pass it to
 * {@link newConflict}.
 * @see staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go `OptimisticLockErrorMsg`
 */
export const optimisticLockErrorMessage = "the object has been modified; please apply your changes to the latest version and try again";

/**
 * 409 Conflict: `Operation cannot be fulfilled on jobs.batch "pi": <err>`.
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewConflict`
 * @example
 * newConflict({ group: "batch", resource: "jobs" }, "pi", optimisticLockErrorMessage)
 */
export function newConflict(qr: GroupResource, name: string, err: unknown): StatusError {
  return failure(
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(qr)} ${goQuote(name)}: ${errorMessage(err)}`,
    { group: qr.group, kind: qr.resource, name },
    causeOf(err),
  );
}

/**
 * 422 Invalid: `Job.batch "pi" is invalid: <errors>` (one error as is, several as `[a, b]`,
 * duplicates dropped), with one cause per field error (`reason` = error type, `message` = error
 * without its path, `field` = path). `details.kind` is the kind, not the resource.
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewInvalid`
 * @example
 * newInvalid({ group: "batch", kind: "Job" }, "pi", [invalid("spec.parallelism", -1, "must be greater than or equal to 0")])
 * // message: 'Job.batch "pi" is invalid: spec.parallelism: Invalid value: -1: must be greater than or equal to 0'
 */
export function newInvalid(qk: GroupKind, name: string, errs: readonly FieldError[]): StatusError {
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: formatFieldErrorBody(e), field: e.field }));
  const prefix = `${qualifiedKind(qk)} ${goQuote(name)} is invalid`;
  const message = errs.length === 0 ? prefix : `${prefix}: ${formatFieldErrors(errs)}`;
  return failure("Invalid", message, { group: qk.group, kind: qk.kind, name, causes });
}

/**
 * 400 BadRequest with the given message.
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewBadRequest`
 */
export function newBadRequest(message: string): StatusError {
  return failure("BadRequest", message);
}

/**
 * 401 Unauthorized with the given message.
 * @defaultValue message `"not authorized"`
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewUnauthorized`
 */
export function newUnauthorized(message = ""): StatusError {
  return failure("Unauthorized", message || "not authorized");
}

/**
 * 403 Forbidden: `jobs.batch "pi" is forbidden: <err>`; without a name `jobs.batch is forbidden:
 * <err>`; without a resource `forbidden: <err>`.
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewForbidden`
 */
export function newForbidden(qr: GroupResource, name: string, err: unknown): StatusError {
  const e = errorMessage(err);
  let message: string;
  if (!qr.group && !qr.resource) message = `forbidden: ${e}`;
  else if (!name) message = `${qualifiedResource(qr)} is forbidden: ${e}`;
  else message = `${qualifiedResource(qr)} ${goQuote(name)} is forbidden: ${e}`;
  return failure("Forbidden", message, { group: qr.group, kind: qr.resource, name }, causeOf(err));
}

/**
 * 405 MethodNotAllowed: `<action> is not supported on resources of kind "jobs.batch"`.
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewMethodNotSupported`
 */
export function newMethodNotSupported(qr: GroupResource, action: string): StatusError {
  return failure("MethodNotAllowed", `${action} is not supported on resources of kind ${goQuote(qualifiedResource(qr))}`, {
    group: qr.group,
    kind: qr.resource,
  });
}

/**
 * 410 Gone with reason `Gone` (deprecated in Kubernetes in favour of {@link newResourceExpired}).
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewGone`
 */
export function newGone(message: string): StatusError {
  return failure("Gone", message);
}

/**
 * 410 Gone with reason `Expired`: the requested resourceVersion is older than the compaction
 * window; clients relist. Kubernetes' message is `too old resource version: <requested>
 * (<oldest>)`.
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewResourceExpired`
 */
export function newResourceExpired(message: string): StatusError {
  return failure("Expired", message);
}

/**
 * 503 ServiceUnavailable with the given message.
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewServiceUnavailable`
 */
export function newServiceUnavailable(message: string): StatusError {
  return failure("ServiceUnavailable", message);
}

/**
 * 504 Timeout: `Timeout: <message>`, with `details.retryAfterSeconds`.
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewTimeoutError`
 */
export function newTimeoutError(message: string, retryAfterSeconds: number): StatusError {
  return failure("Timeout", `Timeout: ${message}`, { retryAfterSeconds });
}

/**
 * 500 ServerTimeout: `The <operation> operation against jobs.batch could not be completed at this
 * time, please try again.` (`details.name` holds the operation, as in Kubernetes).
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewServerTimeout`
 */
export function newServerTimeout(qr: GroupResource, operation: string, retryAfterSeconds: number): StatusError {
  return failure(
    "ServerTimeout",
    `The ${operation} operation against ${qualifiedResource(qr)} could not be completed at this time, please try again.`,
    { group: qr.group, kind: qr.resource, name: operation, retryAfterSeconds },
  );
}

/**
 * 429 TooManyRequests with the message as given and `details.retryAfterSeconds`.
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewTooManyRequests`
 */
export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return failure("TooManyRequests", message, { retryAfterSeconds });
}

/**
 * 413 RequestEntityTooLarge: `Request entity too large: <message>`.
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewRequestEntityTooLargeError`
 */
export function newRequestEntityTooLarge(message: string): StatusError {
  return failure("RequestEntityTooLarge", `Request entity too large: ${message}`);
}

/**
 * 415 UnsupportedMediaType: `the body of the request was in an unknown format - accepted media
 * types include: a, b`. (Kubernetes 1.23 also puts that message into `reason`; the proper
 * `UnsupportedMediaType` reason is used here, which client `IsUnsupportedMediaType` checks accept
 * either way.)
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/errors.go `NewUnsupportedMediaTypeError`
 */
export function newUnsupportedMediaType(accepted: readonly string[]): StatusError {
  return failure("UnsupportedMediaType", `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`);
}

/**
 * 406 NotAcceptable: `only the following media types are accepted: a, b`.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/errors.go `NewNotAcceptableError`
 */
export function newNotAcceptable(accepted: readonly string[]): StatusError {
  return failure("NotAcceptable", `only the following media types are accepted: ${accepted.join(", ")}`);
}

/**
 * 500 InternalError: `Internal error occurred: <err>`, with the message as the one cause. This
 * shows `err`'s message to the client; for errors that must stay private use
 * {@link errorToStatus}.
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewInternalError`
 */
export function newInternalError(err: unknown): StatusError {
  const e = errorMessage(err);
  return failure("InternalError", `Internal error occurred: ${e}`, { causes: [{ message: e }] }, causeOf(err));
}

const genericReasons: ReadonlyMap<number, [StatusReason, string]> = new Map([
  [400, ["BadRequest", "the server rejected our request for an unknown reason"]],
  [401, ["Unauthorized", "the server has asked for the client to provide credentials"]],
  [404, ["NotFound", "the server could not find the requested resource"]],
  [405, ["MethodNotAllowed", "the server does not allow this method on the requested resource"]],
  [422, ["Invalid", "the server rejected our request due to an error in our request"]],
  [429, ["TooManyRequests", "the server has received too many requests and has asked us to try again later"]],
  [503, ["ServiceUnavailable", "the server is currently unable to handle the request"]],
  [504, ["Timeout", "the server was unable to return a response in the time allotted, but may still be processing the request"]],
]);

/**
 * The error a client builds for a response that carried no `Status` body: reason and message
 * from the code (409 is AlreadyExists for POST, else Conflict; 403 and 415 keep the server's
 * message; 406 keeps it unless empty or `unknown`; other 5xx become InternalError `an error on
 * the server ("<serverMessage>") has prevented the request from succeeding`; other codes keep
 * reason `""`), then ` (<verb> <resource> [<name>])` when a resource is given. With
 * `isUnexpectedResponse` the server message becomes a cause of reason `UnexpectedServerResponse`.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `NewGenericServerResponse`
 */
export function newGenericServerResponse(
  code: number,
  verb: string,
  qr: GroupResource,
  name: string,
  serverMessage: string,
  retryAfterSeconds: number,
  isUnexpectedResponse: boolean,
): StatusError {
  let reason: StatusReason = "";
  let message = `the server responded with the status code ${code} but did not return more information`;
  const known = genericReasons.get(code);
  if (known) [reason, message] = known;
  else if (code === 409) {
    reason = verb === "POST" ? "AlreadyExists" : "Conflict";
    message = "the server reported a conflict";
  } else if (code === 403) {
    reason = "Forbidden";
    message = serverMessage;
  } else if (code === 406) {
    reason = "NotAcceptable";
    message = !serverMessage || serverMessage === "unknown" ? "the server was unable to respond with a content type that the client supports" : serverMessage;
  } else if (code === 415) {
    reason = "UnsupportedMediaType";
    message = serverMessage;
  } else if (code >= 500) {
    reason = "InternalError";
    message = `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`;
  }
  const resource = qualifiedResource(qr);
  if (resource && name) message = `${message} (${verb.toLowerCase()} ${resource} ${name})`;
  else if (resource) message = `${message} (${verb.toLowerCase()} ${resource})`;
  const causes = isUnexpectedResponse ? [{ reason: "UnexpectedServerResponse", message: serverMessage }] : [];
  return failure(reason, message, { group: qr.group, kind: qr.resource, name, causes, retryAfterSeconds }, undefined, code);
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null;
}

/**
 * Whether `x` is a {@link StatusError}, also when it comes from another copy of this package:
 * checks `name === "StatusError"` and a `status` object of kind `Status`.
 */
export function isStatusError(x: unknown): x is StatusError {
  if (x instanceof StatusError) return true;
  return isRecord(x) && x.name === "StatusError" && isRecord(x.status) && x.status.kind === "Status";
}

/**
 * Rebuilds a {@link StatusError} from a decoded response body: `undefined` unless it is an object
 * of kind `Status` with apiVersion `v1` or `meta.k8s.io/v1`. Missing fields get defaults
 * (`status` "Failure", `message` "", `reason` "", `code` from the reason).
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `FromObject`
 */
export function statusErrorFromObject(obj: unknown): StatusError | undefined {
  if (!isRecord(obj) || obj.kind !== "Status") return undefined;
  if (obj.apiVersion !== "v1" && obj.apiVersion !== "meta.k8s.io/v1") return undefined;
  const reason = typeof obj.reason === "string" ? (obj.reason as StatusReason) : "";
  const code = typeof obj.code === "number" && obj.code > 0 ? obj.code : (statusReasonCodes[reason] ?? 500);
  const body: StatusBody = {
    kind: "Status",
    apiVersion: "v1",
    metadata: isRecord(obj.metadata) ? obj.metadata : {},
    status: obj.status === "Success" ? "Success" : "Failure",
    message: typeof obj.message === "string" ? obj.message : "",
    reason,
    ...(isRecord(obj.details) ? { details: obj.details as StatusDetails } : {}),
    code,
  };
  return new StatusError(body);
}

function reasonAndCode(err: unknown): [string, number] {
  if (!isStatusError(err)) return ["", 0];
  return [err.status.reason, err.status.code];
}

// Kubernetes' IsX: the reason matches, or the reason is not a known one and the code matches.
function isReasonOrCode(err: unknown, reason: StatusReason, code: number): boolean {
  const [r, c] = reasonAndCode(err);
  return r === reason || (!knownReasons.has(r) && c === code);
}

/**
 * The reason of a StatusError (`""` for anything else).
 * @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `ReasonForError`
 */
export function reasonForError(err: unknown): StatusReason {
  return isStatusError(err) ? err.status.reason : "";
}

/** NotFound, or an unknown reason with code 404. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsNotFound` */
export function isNotFound(err: unknown): boolean {
  return isReasonOrCode(err, "NotFound", 404);
}

/** Reason AlreadyExists. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsAlreadyExists` */
export function isAlreadyExists(err: unknown): boolean {
  return reasonForError(err) === "AlreadyExists";
}

/** Conflict, or an unknown reason with code 409. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsConflict` */
export function isConflict(err: unknown): boolean {
  return isReasonOrCode(err, "Conflict", 409);
}

/** Invalid, or an unknown reason with code 422. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsInvalid` */
export function isInvalid(err: unknown): boolean {
  return isReasonOrCode(err, "Invalid", 422);
}

/** Gone, or an unknown reason with code 410. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsGone` */
export function isGone(err: unknown): boolean {
  return isReasonOrCode(err, "Gone", 410);
}

/** Reason Expired (resourceVersion too old). @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsResourceExpired` */
export function isExpired(err: unknown): boolean {
  return reasonForError(err) === "Expired";
}

/** BadRequest, or an unknown reason with code 400. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsBadRequest` */
export function isBadRequest(err: unknown): boolean {
  return isReasonOrCode(err, "BadRequest", 400);
}

/** Unauthorized, or an unknown reason with code 401. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsUnauthorized` */
export function isUnauthorized(err: unknown): boolean {
  return isReasonOrCode(err, "Unauthorized", 401);
}

/** Forbidden, or an unknown reason with code 403. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsForbidden` */
export function isForbidden(err: unknown): boolean {
  return isReasonOrCode(err, "Forbidden", 403);
}

/** Timeout, or an unknown reason with code 504. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsTimeout` */
export function isTimeout(err: unknown): boolean {
  return isReasonOrCode(err, "Timeout", 504);
}

/** Reason ServerTimeout. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsServerTimeout` */
export function isServerTimeout(err: unknown): boolean {
  return reasonForError(err) === "ServerTimeout";
}

/** TooManyRequests, or code 429 whatever the reason. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsTooManyRequests` */
export function isTooManyRequests(err: unknown): boolean {
  const [r, c] = reasonAndCode(err);
  return r === "TooManyRequests" || c === 429;
}

/** ServiceUnavailable, or an unknown reason with code 503. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsServiceUnavailable` */
export function isServiceUnavailable(err: unknown): boolean {
  return isReasonOrCode(err, "ServiceUnavailable", 503);
}

/** InternalError, or an unknown reason with code 500. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsInternalError` */
export function isInternalError(err: unknown): boolean {
  return isReasonOrCode(err, "InternalError", 500);
}

/** MethodNotAllowed, or an unknown reason with code 405. @see staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go `IsMethodNotSupported` */
export function isMethodNotSupported(err: unknown): boolean {
  return isReasonOrCode(err, "MethodNotAllowed", 405);
}

/** The message {@link errorToStatus} gives every error that is not a StatusError. */
export const internalErrorMessage = "Internal error occurred: an unexpected error occurred while processing the request";

/**
 * The `Status` body to send for any thrown value. A StatusError gives its own body (with
 * `kind`/`apiVersion` set, `status` "Failure" unless "Success", and a missing code set to 500, or
 * 200 for "Success", as Kubernetes does). Anything else is a server bug: 500 `InternalError` with the generic
 * {@link internalErrorMessage}, never the error's own message or stack (log those
 * separately). Kubernetes 1.23 answers such errors with reason `""` and the raw message; the safe
 * form is used here on purpose. Does not mutate `err`.
 *
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/status.go `ErrorToAPIStatus`
 * @example
 * errorToStatus(new Error("db password is hunter2")).message // internalErrorMessage
 */
export function errorToStatus(err: unknown): StatusBody {
  if (isStatusError(err)) {
    const s = err.status;
    return {
      ...s,
      kind: "Status",
      apiVersion: "v1",
      metadata: s.metadata ?? {},
      status: s.status === "Success" ? "Success" : "Failure",
      code: s.code || (s.status === "Success" ? 200 : 500),
    };
  }
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: internalErrorMessage,
    reason: "InternalError",
    code: 500,
  };
}
