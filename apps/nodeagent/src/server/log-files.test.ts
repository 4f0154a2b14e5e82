import { afterAll, describe, it, expect } from "vitest";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { text } from "node:stream/consumers";
import { resolveLogPath } from "./log-files.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function fixture(): Promise<string> {
  const base = await mkdtemp(join(tmpdir(), "na-logs-"));
  dirs.push(base);
  const root = join(base, "log");
  await mkdir(join(root, "pods"), { recursive: true });
  await writeFile(join(root, "syslog"), "hello\n");
  await writeFile(join(root, "a<b"), "x");
  await writeFile(join(root, "pods", "p.log"), "pod line\n");
  await writeFile(join(base, "secret"), "nope");
  await symlink(join(base, "secret"), join(root, "escape"));
  await symlink(join(root, "pods", "p.log"), join(root, "inside"));
  return root;
}

describe("resolveLogPath", () => {
  it("lists directories as Go does and serves files", async () => {
    const root = await fixture();
    expect(await resolveLogPath(root, "")).toEqual({ kind: "listing", html: '<pre>\n<a href="a%3Cb">a&lt;b</a>\n<a href="escape">escape</a>\n<a href="inside">inside</a>\n<a href="pods/">pods/</a>\n<a href="syslog">syslog</a>\n</pre>\n' });
    const file = await resolveLogPath(root, "pods/p.log");
    expect(file.kind).toBe("file");
    if (file.kind === "file") expect(await text(file.stream)).toBe("pod line\n");
    const linked = await resolveLogPath(root, "inside");
    expect(linked.kind).toBe("file");
    if (linked.kind === "file") linked.stream.destroy();
  });

  it("redirects directories without and files with a trailing slash", async () => {
    const root = await fixture();
    expect(await resolveLogPath(root, "pods")).toEqual({ kind: "redirect", location: "pods/" });
    expect(await resolveLogPath(root, "syslog/")).toEqual({ kind: "redirect", location: "../syslog" });
  });

  it("never leaves the directory", async () => {
    const root = await fixture();
    expect(await resolveLogPath(root, "../secret")).toEqual({ kind: "badRequest", message: "invalid URL path" });
    expect(await resolveLogPath(root, "pods/../../secret")).toEqual({ kind: "badRequest", message: "invalid URL path" });
    expect(await resolveLogPath(root, "a\0b")).toMatchObject({ kind: "badRequest" });
    expect(await resolveLogPath(root, "escape")).toEqual({ kind: "notFound" });
    expect(await resolveLogPath(root, "missing")).toEqual({ kind: "notFound" });
    expect(await resolveLogPath(join(root, "nope"), "")).toEqual({ kind: "notFound" });
  });
});
