import { describe, expect, it } from "vitest";
import { forbidden, invalid, required } from "./field-errors.js";
import {
  StatusError,
  errorToStatus,
  internalErrorMessage,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isExpired,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isMethodNotSupported,
  isNotFound,
  isServerTimeout,
  isServiceUnavailable,
  isStatusError,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newForbidden,
  newGenericServerResponse,
  newGone,
  newInternalError,
  newInvalid,
  newMethodNotSupported,
  newNotAcceptable,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServerTimeout,
  newServiceUnavailable,
  newTimeoutError,
  newTooManyRequests,
  newUnauthorized,
  newUnsupportedMediaType,
  optimisticLockErrorMessage,
  qualifiedKind,
  qualifiedResource,
  reasonForError,
  statusErrorFromObject,
  statusReasonCodes,
} from "./status-errors.js";

const jobs = { group: "batch", resource: "jobs" };
const pods = { group: "", resource: "pods" };

describe("statusReasonCodes", () => {
  it("maps every 1.23 reason to its HTTP code", () => {
    expect(statusReasonCodes).toEqual({
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
    });
  });
});

describe("qualified names", () => {
  it("joins resource/kind and group", () => {
    expect(qualifiedResource(jobs)).toBe("jobs.batch");
    expect(qualifiedResource(pods)).toBe("pods");
    expect(qualifiedKind({ group: "batch", kind: "Job" })).toBe("Job.batch");
    expect(qualifiedKind({ group: "", kind: "Pod" })).toBe("Pod");
  });
});

describe("factories", () => {
  it("newNotFound", () => {
    const e = newNotFound(jobs, "pi");
    expect(e).toBeInstanceOf(StatusError);
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toBe('jobs.batch "pi" not found');
    expect(e.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'jobs.batch "pi" not found',
      reason: "NotFound",
      details: { name: "pi", group: "batch", kind: "jobs" },
      code: 404,
    });
    expect(e.reason).toBe("NotFound");
    expect(e.code).toBe(404);
    expect(newNotFound(pods, "p").status.details).toEqual({ name: "p", kind: "pods" });
  });

  it("quotes names as Go's %q", () => {
    expect(newNotFound(pods, 'we"ird').message).toBe('pods "we\\"ird" not found');
  });

  it("newAlreadyExists", () => {
    const e = newAlreadyExists(jobs, "pi");
    expect(e.message).toBe('jobs.batch "pi" already exists');
    expect(e.status).toMatchObject({ reason: "AlreadyExists", code: 409, details: { name: "pi", group: "batch", kind: "jobs" } });
  });

  it("newConflict with the optimistic-lock message", () => {
    const e = newConflict(jobs, "pi", optimisticLockErrorMessage);
    expect(e.message).toBe(
      'Operation cannot be fulfilled on jobs.batch "pi": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(e.status).toMatchObject({ reason: "Conflict", code: 409 });
    const cause = new Error("precondition failed");
    const e2 = newConflict(jobs, "pi", cause);
    expect(e2.message).toBe('Operation cannot be fulfilled on jobs.batch "pi": precondition failed');
    expect(e2.cause).toBe(cause);
  });

  it("newInvalid with causes", () => {
    const e = newInvalid({ group: "batch", kind: "Job" }, "pi", [
      invalid("spec.parallelism", -1, "must be greater than or equal to 0"),
      required("spec.template"),
    ]);
    expect(e.message).toBe(
      'Job.batch "pi" is invalid: [spec.parallelism: Invalid value: -1: must be greater than or equal to 0, spec.template: Required value]',
    );
    expect(e.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: e.message,
      reason: "Invalid",
      details: {
        name: "pi",
        group: "batch",
        kind: "Job",
        causes: [
          { reason: "FieldValueInvalid", message: "Invalid value: -1: must be greater than or equal to 0", field: "spec.parallelism" },
          { reason: "FieldValueRequired", message: "Required value", field: "spec.template" },
        ],
      },
      code: 422,
    });
  });

  it("newInvalid with one, duplicate or no errors", () => {
    const f = forbidden("spec.selector", "field is immutable");
    expect(newInvalid({ group: "", kind: "PodTemplate" }, "t", [f]).message).toBe('PodTemplate "t" is invalid: spec.selector: Forbidden: field is immutable');
    const dup = newInvalid({ group: "", kind: "Pod" }, "p", [f, f]);
    expect(dup.message).toBe('Pod "p" is invalid: spec.selector: Forbidden: field is immutable');
    expect(dup.status.details?.causes).toHaveLength(2);
    const none = newInvalid({ group: "batch", kind: "Job" }, "pi", []);
    expect(none.message).toBe('Job.batch "pi" is invalid');
    expect(none.status.details).toEqual({ name: "pi", group: "batch", kind: "Job" });
  });

  it("newBadRequest and newUnauthorized", () => {
    expect(newBadRequest("bad").status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "bad",
      reason: "BadRequest",
      code: 400,
    });
    expect(newUnauthorized().message).toBe("not authorized");
    expect(newUnauthorized("Unauthorized").status).toMatchObject({ message: "Unauthorized", reason: "Unauthorized", code: 401 });
  });

  it("newForbidden in its three forms", () => {
    expect(newForbidden(jobs, "pi", new Error("User \"bob\" cannot get resource"))).toMatchObject({
      message: 'jobs.batch "pi" is forbidden: User "bob" cannot get resource',
      status: { reason: "Forbidden", code: 403, details: { name: "pi", group: "batch", kind: "jobs" } },
    });
    expect(newForbidden(jobs, "", "no").message).toBe("jobs.batch is forbidden: no");
    expect(newForbidden({ group: "", resource: "" }, "", "no").message).toBe("forbidden: no");
  });

  it("newMethodNotSupported", () => {
    const e = newMethodNotSupported(jobs, "deletecollection");
    expect(e.message).toBe('deletecollection is not supported on resources of kind "jobs.batch"');
    expect(e.status).toMatchObject({ reason: "MethodNotAllowed", code: 405, details: { group: "batch", kind: "jobs" } });
  });

  it("410s: Gone and Expired", () => {
    expect(newGone("gone").status).toMatchObject({ reason: "Gone", code: 410, message: "gone" });
    expect(newResourceExpired("too old resource version: 1 (5)").status).toMatchObject({ reason: "Expired", code: 410 });
  });

  it("retry-able errors carry retryAfterSeconds", () => {
    expect(newTooManyRequests("slow down", 3).status).toMatchObject({ reason: "TooManyRequests", code: 429, message: "slow down", details: { retryAfterSeconds: 3 } });
    expect(newTooManyRequests("slow down", 0).status.details).toEqual({});
    expect(newTimeoutError("request did not complete within 60s", 2).status).toMatchObject({
      reason: "Timeout",
      code: 504,
      message: "Timeout: request did not complete within 60s",
      details: { retryAfterSeconds: 2 },
    });
    expect(newServerTimeout(jobs, "create", 1).status).toMatchObject({
      reason: "ServerTimeout",
      code: 500,
      message: "The create operation against jobs.batch could not be completed at this time, please try again.",
      details: { name: "create", group: "batch", kind: "jobs", retryAfterSeconds: 1 },
    });
  });

  it("other fixed-message factories", () => {
    expect(newServiceUnavailable("etcd down").status).toMatchObject({ reason: "ServiceUnavailable", code: 503, message: "etcd down" });
    expect(newRequestEntityTooLarge("limit is 3145728").status).toMatchObject({
      reason: "RequestEntityTooLarge",
      code: 413,
      message: "Request entity too large: limit is 3145728",
    });
    expect(newUnsupportedMediaType(["application/json-patch+json", "application/merge-patch+json"]).status).toMatchObject({
      reason: "UnsupportedMediaType",
      code: 415,
      message: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json",
    });
    expect(newNotAcceptable(["application/json", "application/yaml"]).status).toMatchObject({
      reason: "NotAcceptable",
      code: 406,
      message: "only the following media types are accepted: application/json, application/yaml",
    });
  });

  it("newInternalError exposes the message as its one cause", () => {
    const cause = new Error("disk full");
    const e = newInternalError(cause);
    expect(e.status).toMatchObject({ reason: "InternalError", code: 500, message: "Internal error occurred: disk full", details: { causes: [{ message: "disk full" }] } });
    expect(e.cause).toBe(cause);
    expect(newInternalError("text").message).toBe("Internal error occurred: text");
  });

  it("newGenericServerResponse picks reason and message from the code", () => {
    expect(newGenericServerResponse(404, "GET", jobs, "pi", "", 0, false).status).toMatchObject({
      reason: "NotFound",
      code: 404,
      message: "the server could not find the requested resource (get jobs.batch pi)",
      details: { name: "pi", group: "batch", kind: "jobs" },
    });
    expect(newGenericServerResponse(409, "POST", jobs, "", "", 0, false).status).toMatchObject({ reason: "AlreadyExists", message: "the server reported a conflict (post jobs.batch)" });
    expect(newGenericServerResponse(409, "PUT", { group: "", resource: "" }, "", "", 0, false).status).toMatchObject({ reason: "Conflict", message: "the server reported a conflict" });
    expect(newGenericServerResponse(403, "GET", { group: "", resource: "" }, "", "nope", 0, false).message).toBe("nope");
    expect(newGenericServerResponse(406, "GET", { group: "", resource: "" }, "", "unknown", 0, false).message).toBe(
      "the server was unable to respond with a content type that the client supports",
    );
    expect(newGenericServerResponse(406, "GET", { group: "", resource: "" }, "", "json only", 0, false).message).toBe("json only");
    expect(newGenericServerResponse(415, "GET", { group: "", resource: "" }, "", "bad type", 0, false).status).toMatchObject({ reason: "UnsupportedMediaType", message: "bad type" });
    expect(newGenericServerResponse(502, "GET", { group: "", resource: "" }, "", "proxy", 0, true).status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'an error on the server ("proxy") has prevented the request from succeeding',
      reason: "InternalError",
      details: { causes: [{ reason: "UnexpectedServerResponse", message: "proxy" }] },
      code: 502,
    });
    expect(newGenericServerResponse(418, "GET", { group: "", resource: "" }, "", "", 5, false).status).toMatchObject({
      reason: "",
      code: 418,
      message: "the server responded with the status code 418 but did not return more information",
      details: { retryAfterSeconds: 5 },
    });
    for (const [code, reason] of [
      [400, "BadRequest"],
      [401, "Unauthorized"],
      [405, "MethodNotAllowed"],
      [422, "Invalid"],
      [429, "TooManyRequests"],
      [503, "ServiceUnavailable"],
      [504, "Timeout"],
    ] as const) {
      expect(newGenericServerResponse(code, "GET", { group: "", resource: "" }, "", "", 0, false).reason).toBe(reason);
    }
  });
});

describe("guards", () => {
  it("recognise StatusErrors, also from another package copy", () => {
    expect(isStatusError(newNotFound(jobs, "x"))).toBe(true);
    const foreign = Object.assign(new Error("x"), { name: "StatusError", status: { kind: "Status", reason: "NotFound", code: 404 } });
    expect(isStatusError(foreign)).toBe(true);
    expect(isNotFound(foreign)).toBe(true);
    expect(isStatusError(new Error("x"))).toBe(false);
    expect(isStatusError({ name: "StatusError" })).toBe(false);
    expect(isStatusError(null)).toBe(false);
    expect(isStatusError("StatusError")).toBe(false);
  });

  it("check the reason, or the code when the reason is unknown", () => {
    const unknown404 = newGenericServerResponse(404, "GET", jobs, "", "", 0, false);
    expect(isNotFound(newNotFound(jobs, "x"))).toBe(true);
    expect(isNotFound(unknown404)).toBe(true);
    const odd = new StatusError({ ...newBadRequest("x").status, reason: "", code: 404 });
    expect(isNotFound(odd)).toBe(true);
    const known = new StatusError({ ...newBadRequest("x").status, code: 404 });
    expect(isNotFound(known)).toBe(false);
    expect(isNotFound(new Error("not found"))).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
  });

  it("each guard matches its own factory only", () => {
    const all = {
      isAlreadyExists: newAlreadyExists(jobs, "x"),
      isConflict: newConflict(jobs, "x", "y"),
      isInvalid: newInvalid({ group: "", kind: "Pod" }, "x", []),
      isGone: newGone("g"),
      isExpired: newResourceExpired("e"),
      isBadRequest: newBadRequest("b"),
      isUnauthorized: newUnauthorized(),
      isForbidden: newForbidden(jobs, "x", "y"),
      isTimeout: newTimeoutError("t", 0),
      isServerTimeout: newServerTimeout(jobs, "get", 0),
      isTooManyRequests: newTooManyRequests("t", 0),
      isServiceUnavailable: newServiceUnavailable("s"),
      isInternalError: newInternalError("i"),
      isMethodNotSupported: newMethodNotSupported(jobs, "m"),
      isNotFound: newNotFound(jobs, "x"),
    };
    const guards = {
      isAlreadyExists,
      isConflict,
      isInvalid,
      isGone,
      isExpired,
      isBadRequest,
      isUnauthorized,
      isForbidden,
      isTimeout,
      isServerTimeout,
      isTooManyRequests,
      isServiceUnavailable,
      isInternalError,
      isMethodNotSupported,
      isNotFound,
    };
    for (const [guardName, guard] of Object.entries(guards)) {
      for (const [errName, err] of Object.entries(all)) {
        expect(guard(err), `${guardName}(${errName})`).toBe(guardName === errName);
      }
    }
  });

  it("isTooManyRequests accepts code 429 whatever the reason", () => {
    expect(isTooManyRequests(new StatusError({ ...newBadRequest("x").status, code: 429 }))).toBe(true);
  });

  it("reasonForError", () => {
    expect(reasonForError(newGone("x"))).toBe("Gone");
    expect(reasonForError(new Error("x"))).toBe("");
  });
});

describe("statusErrorFromObject", () => {
  it("rebuilds a StatusError from a decoded body", () => {
    const body = newNotFound(jobs, "pi").status;
    const e = statusErrorFromObject(JSON.parse(JSON.stringify(body)));
    expect(e?.status).toEqual(body);
    expect(isNotFound(e)).toBe(true);
    expect(statusErrorFromObject({ kind: "Status", apiVersion: "meta.k8s.io/v1", reason: "Conflict" })?.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "",
      reason: "Conflict",
      code: 409,
    });
  });

  it("ignores anything else", () => {
    expect(statusErrorFromObject({ kind: "Job", apiVersion: "batch/v1" })).toBeUndefined();
    expect(statusErrorFromObject({ kind: "Status", apiVersion: "v2" })).toBeUndefined();
    expect(statusErrorFromObject("Status")).toBeUndefined();
    expect(statusErrorFromObject(null)).toBeUndefined();
  });
});

describe("errorToStatus", () => {
  it("returns a StatusError's own body", () => {
    const e = newInvalid({ group: "batch", kind: "Job" }, "pi", [required("spec")]);
    expect(errorToStatus(e)).toEqual(e.status);
  });

  it("fills a missing code and status as Kubernetes does", () => {
    const raw = Object.assign(new Error("m"), { name: "StatusError", status: { kind: "Status", reason: "NotFound", message: "m", code: 0 } });
    expect(errorToStatus(raw)).toMatchObject({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code: 500 });
    const ok = Object.assign(new Error("m"), { name: "StatusError", status: { kind: "Status", status: "Success", message: "", reason: "" } });
    expect(errorToStatus(ok)).toMatchObject({ status: "Success", code: 200 });
  });

  it("turns anything else into a generic 500 that leaks nothing", () => {
    for (const thrown of [new Error("password=hunter2"), new TypeError("x is undefined"), "string", 42, undefined, { message: "secret" }]) {
      const s = errorToStatus(thrown);
      expect(s).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: internalErrorMessage,
        reason: "InternalError",
        code: 500,
      });
      expect(JSON.stringify(s)).not.toMatch(/hunter2|secret|undefined|at /);
    }
  });
});
