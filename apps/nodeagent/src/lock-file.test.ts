import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireLockFile, LockFileError } from "./lock-file.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dir(): string {
  const d = mkdtempSync(join(tmpdir(), "na-lock-"));
  dirs.push(d);
  return d;
}

describe("acquireLockFile", () => {
  it("creates the file (0600) with the holder's pid and empties it on release", async () => {
    const path = join(dir(), "lock");
    const lock = await acquireLockFile(path);
    expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(existsSync(`${path}.guard`)).toBe(false);
    lock.release();
    lock.release();
    expect(readFileSync(path, "utf8")).toBe("");
  });

  it("takes over a lock whose holder is dead", async () => {
    const path = join(dir(), "lock");
    const child = spawn(process.execPath, ["-e", ""]);
    await new Promise((r) => child.on("exit", r));
    writeFileSync(path, `${child.pid}\n`);
    const lock = await acquireLockFile(path);
    expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n`);
    lock.release();
  });

  it("waits while a live process holds the lock, touching the file, until it is released", async () => {
    const path = join(dir(), "lock");
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      writeFileSync(path, `${holder.pid}\n`);
      const old = new Date(Date.now() - 60_000);
      utimesSync(path, old, old);
      let waitedFor = 0;
      const ac = new AbortController();
      const pending = acquireLockFile(path, { pollMs: 20, signal: ac.signal, onWait: (pid) => (waitedFor = pid) });
      await new Promise((r) => setTimeout(r, 150));
      expect(waitedFor).toBe(holder.pid);
      expect(statSync(path).mtimeMs).toBeGreaterThan(old.getTime() + 30_000); // the waiter signals its presence
      holder.kill();
      const lock = await pending;
      expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n`);
      lock.release();
    } finally {
      holder.kill();
    }
  });

  it("can be cancelled while waiting", async () => {
    const path = join(dir(), "lock");
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      writeFileSync(path, `${holder.pid}\n`);
      const ac = new AbortController();
      const pending = acquireLockFile(path, { pollMs: 20, signal: ac.signal });
      ac.abort();
      await expect(pending).rejects.toMatchObject({ code: "Aborted" });
    } finally {
      holder.kill();
    }
  });

  it("reports a path that cannot be opened", async () => {
    const e = await acquireLockFile("/nonexistent-dir/lock").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LockFileError);
    expect((e as LockFileError).message).toMatch(/^unable to acquire file lock on "\/nonexistent-dir\/lock": /);
  });

  it("signals contention when another process touches the lock file", async () => {
    const path = join(dir(), "lock");
    const lock = await acquireLockFile(path);
    const contended = new Promise<void>((resolve) => lock.watchContention(resolve));
    const now = new Date(Date.now() + 5_000);
    utimesSync(path, now, now);
    await contended;
    lock.release();
  });
});
