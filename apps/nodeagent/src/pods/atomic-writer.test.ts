import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AtomicWriteCache, AtomicWriterError, processUmask, validatePayloadPath, writeAtomically, type FileProjection } from "./atomic-writer.js";

const root = mkdtempSync(join(tmpdir(), "skiff-aw-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const payload = (o: Record<string, string | Uint8Array | [string, number]>) =>
  new Map<string, FileProjection>(Object.entries(o).map(([k, v]) => [k, Array.isArray(v) ? { data: v[0], mode: v[1] } : { data: v, mode: 0o644 }]));

const visible = (d: string) => readdirSync(d).filter((n) => !n.startsWith("..")).sort();

describe("validatePayloadPath", () => {
  it.each([
    ["", `invalid path: must not be empty: ""`],
    ["/etc/passwd", "invalid path: must be relative path: /etc/passwd"],
    ["a/../b", "invalid path: must not contain '..': a/../b"],
    ["..", "invalid path: must not contain '..': .."],
    ["..data/x", "invalid path: must not start with '..': ..data/x"],
    ["..a", "invalid path: must not start with '..': ..a"],
    [`a/${"x".repeat(256)}`, "invalid path: filenames must be less than or equal to 255 characters"],
    ["y/".repeat(2049), "invalid path: must be less than or equal to 4096 characters"],
  ])("refuses %j with 1.23's message", (p, message) => {
    expect(() => validatePayloadPath(p)).toThrow(new AtomicWriterError(message));
  });

  it.each(["a", "a/b/c", "a..b", ".hidden", "a/..b"])("accepts %j", (p) => {
    expect(() => validatePayloadPath(p)).not.toThrow();
  });
});

describe("writeAtomically", () => {
  it("writes files under a timestamped directory behind ..data, with user-visible symlinks and modes", async () => {
    const d = join(root, "first");
    expect(await writeAtomically(d, payload({ "app.properties": "a=1\n", "nested/dir/key": ["v", 0o400], bin: new Uint8Array([0, 255, 10]) }))).toBe(true);
    const ts = readlinkSync(join(d, "..data"));
    expect(ts).toMatch(/^\.\.\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}\.\d+$/);
    expect(statSync(join(d, ts)).mode & 0o777).toBe(0o755);
    expect(readlinkSync(join(d, "app.properties"))).toBe("..data/app.properties");
    expect(readlinkSync(join(d, "nested"))).toBe("..data/nested");
    expect(readFileSync(join(d, "app.properties"), "utf8")).toBe("a=1\n");
    expect(readFileSync(join(d, "nested/dir/key"), "utf8")).toBe("v");
    expect([...readFileSync(join(d, "bin"))]).toEqual([0, 255, 10]);
    expect(statSync(join(d, "nested/dir/key")).mode & 0o777).toBe(0o400);
    expect(statSync(join(d, "app.properties")).mode & 0o777).toBe(0o644);
    expect(visible(d)).toEqual(["app.properties", "bin", "nested"]);
  });

  it("reads the process umask as the kernel applies it (a file created 0777 gets 0777 & ~umask)", () => {
    const f = join(root, "umask-probe");
    writeFileSync(f, "", { mode: 0o777 });
    const umask = processUmask();
    expect(umask).toBeDefined();
    expect(statSync(f).mode & 0o777).toBe(0o777 & ~(umask ?? 0));
  });

  it("gives each file exactly its mode, whatever the umask clears (0666, 0777, setgid 02755)", async () => {
    const d = join(root, "modes");
    await writeAtomically(d, payload({ rw: ["a", 0o666], all: ["b", 0o777], sgid: ["c", 0o2755], ro: ["d", 0o400] }));
    expect(statSync(join(d, "rw")).mode & 0o7777).toBe(0o666);
    expect(statSync(join(d, "all")).mode & 0o7777).toBe(0o777);
    expect(statSync(join(d, "sgid")).mode & 0o7777).toBe(0o2755);
    expect(statSync(join(d, "ro")).mode & 0o7777).toBe(0o400);
    expect(statSync(join(d, readlinkSync(join(d, "..data")))).mode & 0o777).toBe(0o755);
  });

  it("replaces a ..data_tmp left by an interrupted write, and keeps a top-level name that exists", async () => {
    const d = join(root, "leftovers");
    await writeAtomically(d, payload({ a: "1" }));
    symlinkSync("..nowhere", join(d, "..data_tmp"));
    writeFileSync(join(d, "b"), "not ours");
    expect(await writeAtomically(d, payload({ a: "2", b: "3", "c/x": "4", "c/y": "5" }))).toBe(true);
    expect(existsSync(join(d, "..data_tmp"))).toBe(false);
    expect(lstatSync(join(d, "..data_tmp"), { throwIfNoEntry: false })).toBeUndefined();
    expect(readFileSync(join(d, "a"), "utf8")).toBe("2");
    expect(readFileSync(join(d, "b"), "utf8")).toBe("not ours");
    expect(readFileSync(join(d, "c/y"), "utf8")).toBe("5");
    expect(readlinkSync(join(d, "c"))).toBe("..data/c");
  });

  it("creates the target folder and its parents, and names the cause when the target is a file", async () => {
    const d = join(root, "deep/er/target");
    expect(await writeAtomically(d, payload({ k: "v" }))).toBe(true);
    expect(readFileSync(join(d, "k"), "utf8")).toBe("v");
    const f = join(root, "a-file");
    writeFileSync(f, "");
    await expect(writeAtomically(join(f, "sub"), payload({ k: "v" }))).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOTDIR|EEXIST)$/) });
  });

  it("does not rewrite an unchanged payload, and swaps ..data on a change", async () => {
    const d = join(root, "update");
    await writeAtomically(d, payload({ a: "1", b: "2" }));
    const first = readlinkSync(join(d, "..data"));
    expect(await writeAtomically(d, payload({ a: "1", b: "2" }))).toBe(false);
    expect(readlinkSync(join(d, "..data"))).toBe(first);
    expect(await writeAtomically(d, payload({ a: "1", b: "3" }))).toBe(true);
    const second = readlinkSync(join(d, "..data"));
    expect(second).not.toBe(first);
    expect(readFileSync(join(d, "b"), "utf8")).toBe("3");
    // The previous timestamped directory is gone; only ..data, the new one and the visible links remain.
    expect(existsSync(join(d, first))).toBe(false);
    expect(readdirSync(d).sort()).toEqual(["..data", second, "a", "b"].sort());
  });

  it("with a cache, skips an unchanged payload without reading the files, and still writes changes", async () => {
    const d = join(root, "cached");
    const cache = new AtomicWriteCache();
    expect(await writeAtomically(d, payload({ a: "1", "sub/b": "2" }), cache)).toBe(true);
    const first = readlinkSync(join(d, "..data"));
    // A file changed behind the writer's back is not read back while the cache holds the directory.
    writeFileSync(join(d, first, "a"), "tampered");
    expect(await writeAtomically(d, payload({ a: "1", "sub/b": "2" }), cache)).toBe(false);
    expect(readFileSync(join(d, "a"), "utf8")).toBe("tampered");
    // Without the cache, the same payload is compared with the disk and rewritten.
    expect(await writeAtomically(d, payload({ a: "1", "sub/b": "2" }))).toBe(true);
    expect(readFileSync(join(d, "a"), "utf8")).toBe("1");
    // ..data moved by someone else: the cache entry no longer matches, the writer compares again.
    const moved = readlinkSync(join(d, "..data"));
    expect(moved).not.toBe(first);
    expect(await writeAtomically(d, payload({ a: "1", "sub/b": "2" }), cache)).toBe(false);
    expect(cache.get(d)?.tsName).toBe(moved);
    // A changed payload (content or a renamed path) is written.
    expect(await writeAtomically(d, payload({ a: "1", "sub/b": "3" }), cache)).toBe(true);
    expect(readFileSync(join(d, "sub", "b"), "utf8")).toBe("3");
    expect(await writeAtomically(d, payload({ a: "1", "sub/c": "3" }), cache)).toBe(true);
    expect(visible(d)).toEqual(["a", "sub"]);
    expect(existsSync(join(d, "sub", "b"))).toBe(false);
    // The directory removed (a pod torn down and recreated with the same UID): written again.
    rmSync(d, { recursive: true, force: true });
    expect(await writeAtomically(d, payload({ a: "1", "sub/c": "3" }), cache)).toBe(true);
    expect(readFileSync(join(d, "a"), "utf8")).toBe("1");
    // ..data replaced by a link to the same name but a directory rebuilt by hand still matches by name only.
    const now = readlinkSync(join(d, "..data"));
    unlinkSync(join(d, "..data"));
    symlinkSync(now, join(d, "..data"));
    expect(await writeAtomically(d, payload({ a: "1", "sub/c": "3" }), cache)).toBe(false);
  });

  it("AtomicWriteCache.forgetUnder drops a directory's entries and those below it, not its siblings'", () => {
    const cache = new AtomicWriteCache();
    cache.set("/r/pods/u1/volumes/p/a", "..x", "f");
    cache.set("/r/pods/u1/volumes/s/b", "..y", "f");
    cache.set("/r/pods/u10/volumes/p/a", "..z", "f");
    cache.forgetUnder("/r/pods/u1");
    expect(cache.size).toBe(1);
    expect(cache.get("/r/pods/u10/volumes/p/a")?.tsName).toBe("..z");
  });

  it("removes user-visible names of keys that are gone, and adds new ones", async () => {
    const d = join(root, "remove");
    await writeAtomically(d, payload({ a: "1", b: "2", "dir/x": "x" }));
    expect(await writeAtomically(d, payload({ a: "1", c: "3" }))).toBe(true);
    expect(visible(d)).toEqual(["a", "c"]);
    expect(lstatSync(join(d, "c")).isSymbolicLink()).toBe(true);
    expect(existsSync(join(d, "b"))).toBe(false);
    // Removing a key alone (no content change) still rewrites.
    expect(await writeAtomically(d, payload({ a: "1" }))).toBe(true);
    expect(visible(d)).toEqual(["a"]);
    expect(await writeAtomically(d, payload({}))).toBe(true);
    expect(visible(d)).toEqual([]);
    expect(existsSync(join(d, "..data"))).toBe(true);
  });

  it("refuses a bad path before touching the directory", async () => {
    const d = join(root, "bad");
    await expect(writeAtomically(d, payload({ "../escape": "x" }))).rejects.toThrow("invalid path: must not contain '..': ../escape");
    expect(existsSync(d)).toBe(false);
  });
});
