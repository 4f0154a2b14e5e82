// Fault injection on a real three-member etcd cluster (tools/etcd): members are killed, frozen and
// restarted while many writers create, conditionally update and delete keys of their own. As each
// writer owns its keys, no write may be answered KeyExists or a conflict; every acknowledged write
// must be stored afterwards; the storage must recover without help.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findEtcdBinary, freeLoopbackPortRange, isStorageError, openEtcdStorage } from "../src/index.js";
import type { EtcdStorage, StoredObject } from "../src/index.js";

const run = promisify(execFile);
const etcdTools = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..", "..", "tools", "etcd");
const haveCluster = findEtcdBinary() !== undefined && existsSync("/usr/bin/curl") && existsSync(join(etcdTools, "start-cluster.sh"));


/** The member name (m0, m1, m2) of the current leader; undefined without etcdctl or when none answers. */
async function leaderName(endpoints: string): Promise<string | undefined> {
  if (!existsSync("/usr/bin/etcdctl")) return undefined;
  try {
    const { stdout } = await run("/usr/bin/etcdctl", [`--endpoints=${endpoints}`, "endpoint", "status", "-w", "json", "--command-timeout=1s"], { env: { ...process.env, ETCDCTL_API: "3" } });
    const status = JSON.parse(stdout.replace(/:(\d{16,})/g, ':"$1"')) as { Endpoint: string; Status: { header: { member_id: string }; leader: string } }[];
    const leader = status.find((s) => s.Status.header.member_id === s.Status.leader);
    const index = endpoints.split(",").indexOf(leader?.Endpoint ?? "");
    return index < 0 ? undefined : `m${index}`;
  } catch {
    return undefined; // A member is down: etcdctl exits non-zero.
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until process `pid` is gone (a signal is delivered asynchronously). */
async function waitForExit(pid: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(50);
  }
  throw new Error(`process ${pid} did not exit`);
}

interface Tally {
  writes: number;
  acknowledged: number;
  /** Answered KeyExists, a conflict or a failed precondition on a key only its writer touches. */
  wrong: string[];
  /** Honest failures: Unreachable (etcd unreachable, or the outcome of the write unknown). */
  unreachable: number;
  other: string[];
}

/** Per key: the revision and value of its last acknowledged write (null: deleted); absent when uncertain. */
type Acked = Map<string, { revision: number; v: string } | null>;

const object = (name: string, v: string): StoredObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "faults", uid: `uid-${name}` }, data: { v } });

class OwnConflictError extends Error {}

/** One writer: creates a key, updates it twice on the revision it last got, deletes every third key. */
async function writer(id: number, storage: EtcdStorage, stop: () => boolean, tally: Tally, acked: Acked, uncertain: Set<string>): Promise<void> {
  const judge = (key: string, op: string, error: unknown): void => {
    if (isStorageError(error, "KeyExists") || isStorageError(error, "Conflict") || isStorageError(error, "InvalidObj") || isStorageError(error, "KeyNotFound") || error instanceof OwnConflictError) {
      tally.wrong.push(`${op} ${key}: ${(error as Error).message}`);
    } else if (isStorageError(error, "Unreachable")) {
      tally.unreachable++;
    } else {
      tally.other.push(`${op} ${key}: ${String(error)}`);
    }
    // Its state is now unknown to this writer: leave the key.
    acked.delete(key);
    uncertain.add(key);
  };
  for (let k = 0; !stop(); k++) {
    const name = `w${id}-${k}`;
    const key = `/registry/configmaps/faults/${name}`;
    let revision: number;
    tally.writes++;
    try {
      revision = (await storage.create(key, object(name, "0"))).revision;
      tally.acknowledged++;
      acked.set(key, { revision, v: "0" });
    } catch (error) {
      judge(key, "create", error);
      continue;
    }
    let ok = true;
    for (let u = 1; u <= 2 && ok && !stop(); u++) {
      tally.writes++;
      const expected = revision;
      try {
        revision = (
          await storage.guaranteedUpdate(key, (input, meta) => {
            // As the apiserver's PUT with a resourceVersion: 409 unless it is still current.
            if (meta.revision !== expected) throw new OwnConflictError(`the object has been modified (${meta.revision} != ${expected})`);
            return { ...input, data: { v: String(u) } };
          })
        ).revision;
        tally.acknowledged++;
        acked.set(key, { revision, v: String(u) });
      } catch (error) {
        judge(key, `update ${u}`, error);
        ok = false;
      }
    }
    if (ok && k % 3 === 2 && !stop()) {
      tally.writes++;
      try {
        await storage.delete(key, { preconditions: { resourceVersion: String(revision) } });
        tally.acknowledged++;
        acked.set(key, null);
      } catch (error) {
        judge(key, "delete", error);
      }
    }
  }
}

describe.skipIf(!haveCluster)("etcd writes while members of a three-member cluster fail", () => {
  let dir = "";
  let endpoints = "";
  const storages: EtcdStorage[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "skiff-etcd-faults-"));
    const { stdout } = await run(join(etcdTools, "start-cluster.sh"), [dir, String(await freeLoopbackPortRange([0, 1, 10, 11, 20, 21]))]);
    endpoints = stdout.trim().split("\n").pop() ?? "";
    for (let i = 0; i < 3; i++) {
      storages.push(await openEtcdStorage({ servers: endpoints.split(","), prefix: "/faults", compactionIntervalMs: 0, requestTimeoutMs: 5_000, dialTimeoutMs: 2_000 }));
    }
  }, 60_000);

  afterAll(async () => {
    for (const s of storages) await s.close();
    if (dir !== "") {
      await run(join(etcdTools, "stop-cluster.sh"), [dir]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("answers no write KeyExists or Conflict wrongly, loses no acknowledged write, and recovers", async () => {
    const tally: Tally = { writes: 0, acknowledged: 0, wrong: [], unreachable: 0, other: [] };
    const acked: Acked = new Map();
    const uncertain = new Set<string>();
    let stopped = false;
    const writers = Array.from({ length: 12 }, (_, id) => writer(id, storages[id % 3] as EtcdStorage, () => stopped, tally, acked, uncertain));
    const faults: string[] = [];
    const started = Date.now();
    try {
      await sleep(1_000);
      // In turn: kill -9 the leader, stop (SIGTERM) a follower, freeze the leader (SIGSTOP: its
      // connections stay open and nothing answers, as when it is cut off by a network partition),
      // each for about 1.5-2 s.
      for (let round = 0; Date.now() - started < 30_000; round++) {
        const leader = await leaderName(endpoints);
        const victim = round % 3 !== 1 ? (leader ?? `m${round % 3}`) : (["m0", "m1", "m2"].find((m) => m !== leader && m !== `m${round % 3}`) ?? "m0");
        if (round % 3 === 2) {
          const pid = Number(readFileSync(join(dir, `${victim}.pid`), "utf8").trim());
          process.kill(pid, "SIGSTOP");
          faults.push(`freeze ${victim}${leader === victim ? " (leader)" : ""}`);
          await sleep(2_000);
          process.kill(pid, "SIGCONT");
          await sleep(1_000);
          continue;
        }
        if (round % 3 === 0) {
          const pid = Number(readFileSync(join(dir, `${victim}.pid`), "utf8").trim());
          process.kill(pid, "SIGKILL");
          await waitForExit(pid);
          faults.push(`kill -9 ${victim}${leader === victim ? " (leader)" : ""}`);
        } else {
          await run(join(etcdTools, "member.sh"), ["stop", dir, victim]);
          faults.push(`stop ${victim}`);
        }
        await sleep(1_500);
        await run(join(etcdTools, "member.sh"), ["start", dir, victim]);
        await sleep(1_000);
      }
    } finally {
      stopped = true;
      await Promise.all(writers);
    }
    console.log(`etcd faults: ${faults.length} (${faults.join(", ")}); writes ${tally.writes}, acknowledged ${tally.acknowledged}, Unreachable ${tally.unreachable}, wrong ${tally.wrong.length}, other ${tally.other.length}`);
    expect(faults.length).toBeGreaterThanOrEqual(5);
    expect(faults.some((f) => f.startsWith("freeze"))).toBe(true);
    expect(tally.acknowledged).toBeGreaterThan(100);
    expect(tally.wrong).toEqual([]);
    expect(tally.other).toEqual([]);

    // Every acknowledged write is what is stored (keys whose last write was not answered are skipped).
    const check = storages[0] as EtcdStorage;
    for (const [key, last] of acked) {
      const stored = await check.get(key, { ignoreNotFound: true });
      if (last === null) expect(stored, key).toBeNull();
      else expect({ revision: Number(stored?.metadata?.resourceVersion), v: (stored?.data as { v?: string } | undefined)?.v }, key).toEqual(last);
    }
    // Keys whose last write was not answered hold one of the values written, or nothing.
    for (const key of uncertain) {
      const stored = await check.get(key, { ignoreNotFound: true });
      if (stored !== null) expect(["0", "1", "2"], key).toContain((stored.data as { v?: string } | undefined)?.v);
    }

    // Recovered by itself: every storage writes again at once.
    for (const [i, s] of storages.entries()) {
      const key = `/registry/configmaps/faults/after-${i}`;
      const created = await s.create(key, object(`after-${i}`, "0"));
      const updated = await s.guaranteedUpdate(key, (input) => ({ ...input, data: { v: "1" } }));
      expect(updated.revision).toBeGreaterThan(created.revision);
    }
  }, 90_000);
});
