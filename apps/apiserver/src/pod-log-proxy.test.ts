import { describe, expect, it } from "vitest";
import { isStatusError } from "@skiff/apimachinery";
import { containerLogsPath, nodeAgentLocation, parsePodLogOptions, resolveLogContainer } from "./pod-log-proxy.js";

function statusOf(fn: () => unknown): { code: number; reason: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (isStatusError(e)) return { code: e.status.code, reason: e.status.reason, message: e.status.message };
    throw e;
  }
  throw new Error("did not throw");
}

describe("parsePodLogOptions", () => {
  it("parses every option", () => {
    expect(parsePodLogOptions("p", { container: "c", follow: "true", previous: "1", timestamps: "false", tailLines: "10", sinceSeconds: "5", limitBytes: "100" })).toEqual({
      container: "c", follow: true, previous: true, timestamps: false, tailLines: 10, sinceSeconds: 5, limitBytes: 100,
    });
    expect(parsePodLogOptions("p", {})).toEqual({ container: "", follow: false, previous: false, timestamps: false });
  });

  it("rejects undecodable values with 400 and invalid ones with 422 PodLogOptions", () => {
    expect(statusOf(() => parsePodLogOptions("p", { tailLines: "ten" }))).toMatchObject({ code: 400, reason: "BadRequest" });
    expect(statusOf(() => parsePodLogOptions("p", { tailLines: "ten" })).message).toBe('strconv.ParseInt: parsing "ten": invalid syntax');
    expect(statusOf(() => parsePodLogOptions("p", { limitBytes: "" })).message).toBe('strconv.ParseInt: parsing "": invalid syntax');
    // Booleans never fail (Convert_Slice_string_To_bool): only 0/false in any case are false.
    expect(parsePodLogOptions("p", { follow: "yes", previous: "False", timestamps: "" })).toMatchObject({ follow: true, previous: false, timestamps: true });
    expect(statusOf(() => parsePodLogOptions("p", { sinceTime: "yesterday" }))).toMatchObject({ code: 400 });
    const s = statusOf(() => parsePodLogOptions("p", { tailLines: "-1", limitBytes: "0" }));
    expect(s).toMatchObject({ code: 422, reason: "Invalid" });
    expect(s.message).toBe('PodLogOptions "p" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]');
    expect(statusOf(() => parsePodLogOptions("p", { sinceSeconds: "0" })).message).toContain("sinceSeconds: Invalid value: 0: must be greater than 0");
    expect(statusOf(() => parsePodLogOptions("p", { sinceSeconds: "5", sinceTime: "2026-01-01T00:00:00Z" })).message).toContain("at most one of `sinceTime` or `sinceSeconds` may be specified");
  });
});

describe("resolveLogContainer", () => {
  const pod = { spec: { containers: [{ name: "a" }, { name: "b" }], initContainers: [{ name: "i" }] } };
  it("uses the only container, or the one named (init containers too)", () => {
    expect(resolveLogContainer({ spec: { containers: [{ name: "only" }] } }, "p", "")).toBe("only");
    expect(resolveLogContainer(pod, "p", "i")).toBe("i");
  });
  it("accepts an ephemeral container's name (kubectl logs -c debugger-x, kubectl debug's attach)", () => {
    expect(resolveLogContainer({ spec: { ...pod.spec, ephemeralContainers: [{ name: "debugger-x" }] } }, "p", "debugger-x")).toBe("debugger-x");
  });
  it("answers 400 as 1.23 when the container is missing or unknown", () => {
    expect(statusOf(() => resolveLogContainer(pod, "p", ""))).toEqual({ code: 400, reason: "BadRequest", message: "a container name must be specified for pod p, choose one of: [a b] or one of the init containers: [i]" });
    expect(statusOf(() => resolveLogContainer({ spec: { containers: [] } }, "p", "")).message).toBe("a container name must be specified for pod p");
    expect(statusOf(() => resolveLogContainer(pod, "p", "z")).message).toBe("container z is not valid for pod p");
  });
});

describe("nodeAgentLocation and containerLogsPath", () => {
  it("prefers InternalIP, then Hostname; the port from daemonEndpoints, else 10250", () => {
    expect(nodeAgentLocation("n", { status: { addresses: [{ type: "Hostname", address: "n" }, { type: "InternalIP", address: "10.0.0.2" }], daemonEndpoints: { kubeletEndpoint: { Port: 11250 } } } })).toEqual({ host: "10.0.0.2", port: 11250 });
    expect(nodeAgentLocation("n", { status: { addresses: [{ type: "Hostname", address: "n" }] } })).toEqual({ host: "n", port: 10250 });
    expect(statusOf(() => nodeAgentLocation("n", { status: {} }))).toMatchObject({ code: 500 });
  });
  it("builds the agent's path with only the options set", () => {
    expect(containerLogsPath("ns", "p", "c", { container: "c", follow: true, previous: false, timestamps: true, tailLines: 3 })).toBe("/containerLogs/ns/p/c?follow=true&timestamps=true&tailLines=3");
    expect(containerLogsPath("ns", "p", "c", { container: "c", follow: false, previous: false, timestamps: false })).toBe("/containerLogs/ns/p/c");
  });
});
