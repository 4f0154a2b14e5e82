// The real skiff-apiserver on SQLite under storage faults (issue 14): a disk that fills up (a small
// tmpfs mounted at --data-dir) and a --data-dir on a read-only file system. Needs root to mount;
// with CI=true (root) it must run, elsewhere it is skipped with the reason in its name.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { call, startServer, type RunningServer } from "./harness.js";

const isRoot = process.getuid?.() === 0;
const mounts: string[] = [];
const dirs: string[] = [];

afterAll(() => {
  for (const m of mounts.reverse()) {
    try {
      execFileSync("umount", ["-l", m]);
    } catch {
      // already unmounted
    }
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh folder with a tmpfs of `sizeKiB` mounted at `<folder>/data`, given as --data-dir. */
function folderWithSmallDataDir(sizeKiB: number, readOnly = false): string {
  const dir = mkdtempSync(join(tmpdir(), "skiff-apiserver-fault-"));
  dirs.push(dir);
  const data = join(dir, "data");
  mkdirSync(data);
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeKiB}k${readOnly ? ",ro" : ""}`, "tmpfs", data]);
  mounts.push(data);
  return dir;
}

async function post(s: RunningServer, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await call(s, "POST", path, body);
  return { status: r.status, json: r.json() as Record<string, unknown> };
}

function podTemplate(name: string, bytes: number): unknown {
  return {
    apiVersion: "v1",
    kind: "PodTemplate",
    metadata: { name, annotations: { filler: "x".repeat(bytes) } },
    template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } },
  };
}

const runs = isRoot || process.env.CI === "true";
const suite = runs ? describe : describe.skip;

suite(runs ? "apiserver storage faults" : "apiserver storage faults (skipped: mounting a tmpfs needs root)", () => {
  it("a full disk answers 500 with a Status naming the cause, keeps serving reads and loses no acknowledged write", async () => {
    const dir = folderWithSmallDataDir(4096);
    const server = await startServer({ extraArgs: [`--data-dir=${join(dir, "data")}`] });
    try {
      writeFileSync(join(dir, "data", "filler"), Buffer.alloc(2 * 1024 * 1024));
      const acked: string[] = [];
      let refusal: { status: number; json: Record<string, unknown> } | undefined;
      for (let i = 0; i < 500 && refusal === undefined; i++) {
        const r = await post(server, "/api/v1/namespaces/default/podtemplates", podTemplate(`t${i}`, 64 * 1024));
        if (r.status === 201) acked.push(`t${i}`);
        else refusal = r;
      }
      expect(refusal, "the disk never filled").toBeDefined();
      expect(refusal?.status).toBe(500);
      expect(refusal?.json.kind).toBe("Status");
      expect(refusal?.json.reason).toBe("InternalError");
      expect(String(refusal?.json.message)).toMatch(/database or disk is full/);
      expect(acked.length).toBeGreaterThan(0);

      // Still serving: every acknowledged object reads back; the refused one does not exist.
      const list = (await call(server, "GET", "/api/v1/namespaces/default/podtemplates")).json() as { items: unknown };
      const names = (list.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name);
      expect(names).toEqual(expect.arrayContaining(acked));
      expect(names).toHaveLength(acked.length);

      // Space freed: writes work again.
      rmSync(join(dir, "data", "filler"));
      const after = await post(server, "/api/v1/namespaces/default/podtemplates", podTemplate("after", 16));
      expect(after.status).toBe(201);
    } finally {
      await server.stop();
    }
  });

  it("a --data-dir on a read-only file system stops start-up with a message naming the file, no stack trace", async () => {
    const dir = folderWithSmallDataDir(1024, true);
    let failure: unknown;
    try {
      const server = await startServer({ extraArgs: [`--data-dir=${join(dir, "data")}`] });
      await server.stop();
    } catch (err) {
      failure = err;
    }
    const message = (failure as Error | undefined)?.message ?? "";
    expect(message).toMatch(/apiserver exited with 1/);
    expect(message).toContain(join(dir, "data"));
    expect(message).toMatch(/read-only/i);
    expect(message).not.toMatch(/\n\s+at /);
  });
});
