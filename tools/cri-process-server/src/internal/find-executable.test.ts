import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findExecutable } from "./runtime-core.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "skiff-findexec-"));
  await mkdir(join(dir, "bin"));
  await writeFile(join(dir, "bin", "tool"), "#!/bin/sh\n");
  await chmod(join(dir, "bin", "tool"), 0o755);
  await writeFile(join(dir, "bin", "plain"), "data");
  await chmod(join(dir, "bin", "plain"), 0o644);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("findExecutable (runc's lookup before a wrapped start)", () => {
  it("finds a name on PATH, skipping directories and non-executable files", async () => {
    expect(await findExecutable("tool", `/nonexistent:${join(dir, "bin")}`, "/")).toBe(join(dir, "bin", "tool"));
    expect(await findExecutable("sh", "/usr/bin:/bin", "/")).toMatch(/\/sh$/);
  });
  it("takes a path with a slash as is, relative to the working directory", async () => {
    expect(await findExecutable("bin/tool", "", dir)).toBe(join(dir, "bin", "tool"));
    expect(await findExecutable(join(dir, "bin", "tool"), "", "/")).toBe(join(dir, "bin", "tool"));
  });
  it("fails in runc's words", async () => {
    await expect(findExecutable("no-such-tool", join(dir, "bin"), "/")).rejects.toThrow('exec: "no-such-tool": executable file not found in $PATH');
    await expect(findExecutable("plain", join(dir, "bin"), "/")).rejects.toThrow("executable file not found in $PATH");
    await expect(findExecutable("/nonexistent/binary", "", "/")).rejects.toThrow('exec: "/nonexistent/binary": stat /nonexistent/binary: no such file or directory');
    await expect(findExecutable(join(dir, "bin"), "", "/")).rejects.toThrow("is a directory");
    await expect(findExecutable("", "/bin", "/")).rejects.toThrow("executable file not found");
  });
});
