import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { WatchEvent } from "../src/index.js";
import { openSqliteStorage } from "../src/index.js";

// The child runs TypeScript through tsx, resolved from tools/bench (where it is a dependency):
// node --conditions=@skiff/source --import <tsx loader> fixtures/durability-writer.ts <dataDir>
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const tsxLoader = pathToFileURL(createRequire(join(root, "tools", "bench", "package.json")).resolve("tsx")).href;
const writer = join(here, "fixtures", "durability-writer.ts");

interface Ack {
  readonly revision: number;
  readonly op: "create" | "update";
  readonly key: string;
}

/** Runs the writer until `killAfter` acks were read, SIGKILLs it, returns every ack it printed. */
async function runAndKill(dataDir: string, run: number, killAfter: number): Promise<Ack[]> {
  const child = spawn(process.execPath, ["--conditions=@skiff/source", "--import", tsxLoader, writer, dataDir, String(run)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const acks: Ack[] = [];
  let stderr = "";
  let partial = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdout.on("data", (d: Buffer) => {
    const lines = (partial + d.toString()).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      const m = /^ack (\d+) (create|update) (\S+)$/.exec(line);
      if (m) acks.push({ revision: Number(m[1]), op: m[2] as Ack["op"], key: m[3] as string });
    }
    if (acks.length >= killAfter && child.exitCode === null && !child.killed) child.kill("SIGKILL");
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on("close", (c, s) => resolve([c, s])));
  if (signal !== "SIGKILL") throw new Error(`writer exited with code ${code} before being killed:\n${stderr}`);
  return acks;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("SQLite durability under SIGKILL", () => {
  it("keeps every acknowledged write, keeps revisions increasing, and resumes watches exactly once", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "skiff-durability-"));
    dirs.push(dataDir);
    let lastSeen = 0;
    let expectedObjects = new Map<string, number>();
    for (let round = 0; round < 2; round++) {
      const acks = await runAndKill(dataDir, round, 4000);
      expect(acks.length).toBeGreaterThanOrEqual(4000);
      const revisions = acks.map((a) => a.revision);
      expect(new Set(revisions).size).toBe(revisions.length);
      expect(Math.min(...revisions)).toBeGreaterThan(lastSeen);
      // The last revision a client saw before the kill, and the newest resourceVersion per key.
      const resumeFrom = acks[acks.length - 1]?.revision as number;
      const acked = new Map(expectedObjects);
      for (const a of acks) acked.set(a.key, Math.max(acked.get(a.key) ?? 0, a.revision));

      const storage = await openSqliteStorage({ dataDir, compactionIntervalMs: 0 });
      try {
        const current = await storage.currentRevision();
        expect(current).toBeGreaterThanOrEqual(Math.max(...revisions));
        const list = await storage.list("/registry/jobs");
        const stored = new Map(list.items.map((o) => [`/registry/jobs/${String(o.metadata?.namespace)}/${String(o.metadata?.name)}`, Number(o.metadata?.resourceVersion)]));
        for (const [key, revision] of acked) {
          expect(stored.has(key), `acknowledged ${key} is missing`).toBe(true);
          expect(stored.get(key)).toBeGreaterThanOrEqual(revision);
        }

        // Resume a watch from the last revision seen before the kill: every later change (those
        // committed but not yet acknowledged, then new ones) arrives exactly once, in order.
        const watcher = await storage.watch("/registry/jobs", { recursive: true, resourceVersion: resumeFrom });
        const extra = [];
        for (let i = 0; i < 20; i++) extra.push(await storage.create(`/registry/jobs/after/r${round}-${i}`, { metadata: { name: `r${round}-${i}`, namespace: "after" } }));
        const after = await storage.currentRevision();
        expect(extra[0]?.revision).toBe(current + 1);
        const events: WatchEvent[] = [];
        while (events.length < after - resumeFrom) {
          const r = await watcher.next();
          if (r.done) throw new Error("watch ended early");
          events.push(r.value);
        }
        watcher.stop();
        const seen = events.map((e) => (e.type === "ADDED" || e.type === "MODIFIED" ? e.revision : -1));
        expect(seen).toEqual(Array.from({ length: after - resumeFrom }, (_, i) => resumeFrom + 1 + i));
        for (const a of acks.filter((x) => x.revision > resumeFrom)) {
          expect(events.some((e) => e.type !== "BOOKMARK" && e.type !== "ERROR" && e.key === a.key && e.revision === a.revision)).toBe(true);
        }
        lastSeen = after;
        expectedObjects = new Map(stored);
        for (const e of extra) expectedObjects.set(`/registry/jobs/after/${String(e.object.metadata?.name)}`, e.revision);
      } finally {
        await storage.close();
      }
    }
  });
});
