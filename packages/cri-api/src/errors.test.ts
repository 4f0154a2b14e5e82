import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { CRIError, isCRIError, toCRIError, type CRIErrorCode } from "./errors.js";

const expectedNames: [number, CRIErrorCode][] = [
  [status.OK, "OK"],
  [status.CANCELLED, "Canceled"],
  [status.UNKNOWN, "Unknown"],
  [status.INVALID_ARGUMENT, "InvalidArgument"],
  [status.DEADLINE_EXCEEDED, "DeadlineExceeded"],
  [status.NOT_FOUND, "NotFound"],
  [status.ALREADY_EXISTS, "AlreadyExists"],
  [status.PERMISSION_DENIED, "PermissionDenied"],
  [status.RESOURCE_EXHAUSTED, "ResourceExhausted"],
  [status.FAILED_PRECONDITION, "FailedPrecondition"],
  [status.ABORTED, "Aborted"],
  [status.OUT_OF_RANGE, "OutOfRange"],
  [status.UNIMPLEMENTED, "Unimplemented"],
  [status.INTERNAL, "Internal"],
  [status.UNAVAILABLE, "Unavailable"],
  [status.DATA_LOSS, "DataLoss"],
  [status.UNAUTHENTICATED, "Unauthenticated"],
];

function serviceError(code: number, details: string): Error & { code: number; details: string } {
  return Object.assign(new Error(`${code} ${details}`), { code, details });
}

describe("toCRIError", () => {
  it.each(expectedNames)("maps gRPC status %i to %s and back", (code, name) => {
    const err = toCRIError(serviceError(code, "boom"), "RunPodSandbox");
    expect(err).toBeInstanceOf(CRIError);
    expect(err.code).toBe(name);
    expect(err.grpcCode).toBe(code);
    expect(err.method).toBe("RunPodSandbox");
    expect(err.details).toBe("boom");
    expect(err.message).toBe(`RunPodSandbox: rpc error: code = ${name} desc = boom`);
    expect(new CRIError({ code: name, method: "X", details: "" }).grpcCode).toBe(code);
  });

  it("keeps the original error as cause", () => {
    const original = serviceError(status.NOT_FOUND, "no such container");
    expect(toCRIError(original, "ContainerStatus").cause).toBe(original);
  });

  it("maps an unknown numeric status to Unknown", () => {
    const err = toCRIError(serviceError(99, "odd"), "Version");
    expect(err.code).toBe("Unknown");
    expect(err.details).toBe("odd");
  });

  it("falls back to the message when a status error has no details", () => {
    const err = toCRIError(Object.assign(new Error("plain message"), { code: status.INTERNAL }), "Status");
    expect(err).toMatchObject({ code: "Internal", details: "plain message" });
  });

  it("maps errors that are not gRPC errors to Unknown", () => {
    expect(toCRIError(new TypeError("bad field"), "CreateContainer")).toMatchObject({ code: "Unknown", method: "CreateContainer", details: "bad field" });
    expect(toCRIError("a string", "Version")).toMatchObject({ code: "Unknown", details: "a string" });
    expect(toCRIError(undefined, "Version")).toMatchObject({ code: "Unknown", details: "undefined" });
    expect(toCRIError(null, "Version")).toMatchObject({ code: "Unknown", details: "null" });
    expect(toCRIError({ code: "ENOENT" }, "Version").code).toBe("Unknown");
  });

  it("returns a CRIError unchanged", () => {
    const err = new CRIError({ code: "NotFound", method: "A", details: "x" });
    expect(toCRIError(err, "B")).toBe(err);
  });
});

describe("isCRIError", () => {
  it("recognises CRIErrors, optionally by code", () => {
    const err = new CRIError({ code: "DeadlineExceeded", method: "StopContainer", details: "late" });
    expect(isCRIError(err)).toBe(true);
    expect(isCRIError(err, "DeadlineExceeded")).toBe(true);
    expect(isCRIError(err, "NotFound")).toBe(false);
  });

  it("recognises a CRIError from another copy of the package by its shape", () => {
    const foreign = { name: "CRIError", code: "NotFound", method: "ContainerStatus", message: "..." };
    expect(isCRIError(foreign, "NotFound")).toBe(true);
  });

  it("rejects everything else", () => {
    for (const value of [null, undefined, 3, "CRIError", new Error("x"), { name: "CRIError" }, { name: "CRIError", code: 5, method: "x" }]) {
      expect(isCRIError(value)).toBe(false);
    }
  });
});
