import { describe, expect, it } from "vitest";
import { defaultsForRepository, isImageId, parseImageReference, resolveArgv } from "./image-names.js";

describe("parseImageReference", () => {
  it.each([
    ["busybox", "docker.io/library/busybox:latest", "docker.io/library/busybox"],
    ["busybox:1.36", "docker.io/library/busybox:1.36", "docker.io/library/busybox"],
    ["docker.io/library/busybox:latest", "docker.io/library/busybox:latest", "docker.io/library/busybox"],
    ["team/app", "docker.io/team/app:latest", "docker.io/team/app"],
    ["registry.k8s.io/pause:3.6", "registry.k8s.io/pause:3.6", "registry.k8s.io/pause"],
    ["localhost:5000/x/y:v2", "localhost:5000/x/y:v2", "localhost:5000/x/y"],
    ["localhost/x", "localhost/x:latest", "localhost/x"],
    [`busybox@sha256:${"a".repeat(64)}`, `docker.io/library/busybox@sha256:${"a".repeat(64)}`, "docker.io/library/busybox"],
    [`busybox:1.36@sha256:${"b".repeat(64)}`, `docker.io/library/busybox@sha256:${"b".repeat(64)}`, "docker.io/library/busybox"],
  ])("normalises %s", (ref, normalized, repository) => {
    expect(parseImageReference(ref)).toMatchObject({ ok: true, value: { normalized, repository } });
  });

  it.each(["", "  ", "Busybox", "busybox:", "busybox:-bad", "busybox@sha256:short", "a//b", "bad name", "-x"])("rejects %j", (ref) => {
    expect(parseImageReference(ref).ok).toBe(false);
  });
});

describe("isImageId", () => {
  it("accepts only sha256:<64 hex>", () => {
    expect(isImageId(`sha256:${"0".repeat(64)}`)).toBe(true);
    expect(isImageId(`sha256:${"0".repeat(63)}`)).toBe(false);
    expect(isImageId("busybox")).toBe(false);
  });
});

describe("resolveArgv", () => {
  const busybox = defaultsForRepository("docker.io/library/busybox");
  const pause = defaultsForRepository("registry.k8s.io/pause");
  const unknown = defaultsForRepository("example.com/app");

  it("uses command + args when a command is given, ignoring the image's Cmd", () => {
    expect(resolveArgv(["echo"], ["hi"], busybox)).toEqual(["echo", "hi"]);
    expect(resolveArgv(["sleep"], [], pause)).toEqual(["sleep"]);
  });

  it("falls back to Entrypoint + Cmd, with args replacing Cmd", () => {
    expect(resolveArgv([], [], busybox)).toEqual(["sh"]);
    expect(resolveArgv([], ["ls", "/"], busybox)).toEqual(["ls", "/"]);
    expect(resolveArgv([], [], pause)).toEqual(["sleep", "2147483647"]);
    expect(resolveArgv([], ["5"], pause)).toEqual(["sleep", "5"]);
  });

  it("has nothing to run for an unknown image without command or args", () => {
    expect(resolveArgv([], [], unknown)).toEqual([]);
    expect(resolveArgv([], ["true"], unknown)).toEqual(["true"]);
  });
});
