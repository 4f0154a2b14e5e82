import { describe, expect, it } from "vitest";
import { parseCRIEndpoint } from "./endpoint.js";

describe("parseCRIEndpoint", () => {
  it.each([
    ["unix:///run/containerd/containerd.sock", "/run/containerd/containerd.sock"],
    ["/run/containerd/containerd.sock", "/run/containerd/containerd.sock"],
    ["unix:/tmp/x.sock", "/tmp/x.sock"],
  ])("accepts %s", (endpoint, socketPath) => {
    expect(parseCRIEndpoint(endpoint)).toEqual({ ok: true, value: { socketPath, target: `unix://${socketPath}` } });
  });

  it.each([
    ["", "empty"],
    ["   ", "empty"],
    ["tcp://127.0.0.1:1234", 'protocol "tcp" not supported'],
    ["npipe:////./pipe/containerd", 'protocol "npipe" not supported'],
    ["unix://relative.sock", "must be absolute"],
    ["relative.sock", "must be absolute"],
    ["/tmp/a\0b", "NUL"],
  ])("rejects %j", (endpoint, message) => {
    const result = parseCRIEndpoint(endpoint);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.join(" ")).toContain(message);
  });

  it("never throws on non-string input", () => {
    expect(parseCRIEndpoint(undefined as unknown as string).ok).toBe(false);
  });
});
