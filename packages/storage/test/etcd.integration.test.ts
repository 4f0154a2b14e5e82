import { execFileSync } from "node:child_process";
import { Etcd3 } from "etcd3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findEtcdBinary, isStorageError, migrateStorage, openEtcdStorage, openSqliteStorage, startLocalEtcd } from "../src/index.js";
import type { EtcdStorage, LocalEtcd } from "../src/index.js";
import { runStorageConformance } from "../src/testing/index.js";
import { EtcdWatcher } from "../src/etcd/etcd-watcher.js";
import type { StoredObject } from "../src/index.js";

const binary = findEtcdBinary();
if (binary === undefined) {
  describe("etcd storage", () => {
    it.skip("needs an etcd binary (/usr/bin/etcd or $ETCD_BIN; Debian package etcd-server): not installed, skipped", () => {});
  });
} else {
  let etcd: LocalEtcd | undefined;
  let n = 0;
  beforeAll(async () => {
    // Progress notifications every 100 ms let BOOKMARK events reach the current revision quickly.
    etcd = await startLocalEtcd({ extraArgs: ["--experimental-watch-progress-notify-interval=100ms"] });
  });
  afterAll(async () => {
    await etcd?.stop();
  });
  const servers = (): string[] => [(etcd as LocalEtcd).clientUrl];

  runStorageConformance("etcd", async () => {
    const prefix = `/conformance-${process.pid}-${++n}`;
    const open = () => openEtcdStorage({ servers: servers(), prefix, compactionIntervalMs: 0 });
    const opened: EtcdStorage[] = [await open()];
    return {
      storage: opened[0] as EtcdStorage,
      reopen: async () => {
        await opened[opened.length - 1]?.close();
        const s = await open();
        opened.push(s);
        return s;
      },
      cleanup: async () => {
        for (const s of opened) await s.close();
      },
    };
  });

  describe("etcd storage specifics", () => {
    it("keeps keys under the etcd prefix, mapping the /registry root onto it", async () => {
      const a = await openEtcdStorage({ servers: servers(), prefix: "/tenant-a/", compactionIntervalMs: 0 });
      const b = await openEtcdStorage({ servers: servers(), prefix: "/tenant-b", compactionIntervalMs: 0 });
      try {
        expect(a.prefix).toBe("/tenant-a");
        await a.create("/registry/widgets/ns/x", { metadata: { name: "x" } });
        expect(await b.get("/registry/widgets/ns/x", { ignoreNotFound: true })).toBeNull();
        expect((await a.list("/registry/widgets")).items.map((o) => o.metadata?.name)).toEqual(["x"]);
        let error: unknown;
        try {
          await a.get("/elsewhere/x");
        } catch (e) {
          error = e;
        }
        expect(isStorageError(error, "InvalidError")).toBe(true);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it("sees writes made through another client (two apiservers on one etcd)", async () => {
      const prefix = `/shared-${process.pid}`;
      const a = await openEtcdStorage({ servers: servers(), prefix, compactionIntervalMs: 0 });
      const b = await openEtcdStorage({ servers: servers(), prefix, compactionIntervalMs: 0 });
      try {
        const w = await b.watch("/registry/widgets", { recursive: true, resourceVersion: await b.currentRevision() });
        const c = await a.create("/registry/widgets/ns/x", { metadata: { name: "x" }, spec: { v: 1 } });
        const e = await w.next();
        expect(e.value).toMatchObject({ type: "ADDED", revision: c.revision });
        await a.guaranteedUpdate("/registry/widgets/ns/x", (cur) => ({ ...cur, spec: { v: 2 } }));
        let error: unknown;
        try {
          await b.guaranteedUpdate("/registry/widgets/ns/x", (cur) => ({ ...cur, spec: { v: 3 } }), { preconditions: { resourceVersion: String(c.revision) } });
        } catch (err) {
          error = err;
        }
        expect(isStorageError(error, "InvalidObj")).toBe(true);
        w.stop();
      } finally {
        await a.close();
        await b.close();
      }
    });

    it("a watch from an old revision gets every event when etcd's catch-up response is over 4 MiB (grpc-js's default limit; clientv3 takes any size)", async () => {
      const prefix = `/big-${process.pid}`;
      const s = await openEtcdStorage({ servers: servers(), prefix, compactionIntervalMs: 0 });
      try {
        const from = await s.currentRevision();
        // 400 updates of 16 KiB objects: with previous values, one catch-up batch is ~13 MiB.
        const pad = "x".repeat(16 * 1024);
        await s.create("/registry/widgets/ns/big", { metadata: { name: "big" }, spec: { n: 0, pad } });
        for (let i = 1; i <= 400; i++) await s.guaranteedUpdate("/registry/widgets/ns/big", (cur) => ({ ...cur, spec: { n: i, pad } }));
        const w = await s.watch("/registry/widgets", { recursive: true, resourceVersion: from });
        const seen: number[] = [];
        const deadline = Date.now() + 20_000;
        while (seen.length < 401 && Date.now() < deadline) {
          const e = await Promise.race([w.next(), new Promise<undefined>((r) => setTimeout(() => r(undefined), Math.max(0, deadline - Date.now())))]);
          if (e === undefined || e.done) break;
          if (e.value.type === "ERROR") throw e.value.error;
          if (e.value.type !== "BOOKMARK") seen.push((e.value.object as { spec: { n: number } }).spec.n);
        }
        w.stop();
        expect(seen).toEqual(Array.from({ length: 401 }, (_, i) => i));
      } finally {
        await s.close();
      }
    }, 60_000);

    it("a watch's catch-up reaches a busy process in a few event-loop turns: the client grants etcd a 16 MiB flow-control window, not HTTP/2's 64 KiB (clientv3's grows to 16 MiB)", async () => {
      const prefix = `/window-${process.pid}`;
      const s = await openEtcdStorage({ servers: servers(), prefix, compactionIntervalMs: 0 });
      try {
        const from = await s.currentRevision();
        // 120 updates of 16 KiB objects: one catch-up response of ~4 MiB with previous values.
        const pad = "x".repeat(16 * 1024);
        await s.create("/registry/widgets/ns/w", { metadata: { name: "w" }, spec: { n: 0, pad } });
        for (let i = 1; i <= 120; i++) await s.guaranteedUpdate("/registry/widgets/ns/w", (cur) => ({ ...cur, spec: { n: i, pad } }));
        // A busy process: every event-loop turn spends 5 ms of CPU. With a 64 KiB window etcd sent
        // 64 KiB a turn (the window update goes out the turn after), so ~4 MiB took over 100 turns.
        let turns = 0;
        let busy = true;
        const spin = (): void => {
          if (!busy) return;
          turns++;
          const until = performance.now() + 5;
          while (performance.now() < until);
          setImmediate(spin);
        };
        const w = await s.watch("/registry/widgets", { recursive: true, resourceVersion: from });
        setImmediate(spin);
        try {
          const first = await w.next();
          expect(first).toMatchObject({ done: false, value: { type: "ADDED" } });
        } finally {
          busy = false;
          w.stop();
        }
        // Measured here: 110-115 turns with 64 KiB, 6-40 with 16 MiB.
        expect(turns).toBeLessThan(60);
      } finally {
        await s.close();
      }
    }, 60_000);

    it("a watcher takes a catch-up response larger than its buffer whole (no cancel and re-create per batch); a consumer that stays behind pauses it, and it resumes with nothing lost or repeated", async () => {
      const client = new Etcd3({ hosts: servers() });
      let watches = 0;
      // The real client; only its watch() calls are counted (each is one etcd watch created).
      const counting = new Proxy(client, {
        get: (target, p) => (p === "watch" ? () => (watches++, target.watch()) : Reflect.get(target, p, target)),
      });
      const root = `/pause-${process.pid}/`;
      const revisionOf = async () => Number((await client.get("/").exec()).header.revision);
      const put = async (from: number, to: number) => {
        for (let i = from; i < to; i++) await client.put(`${root}k${String(i).padStart(3, "0")}`).value(JSON.stringify({ metadata: { name: `k${i}` }, spec: { i } }));
      };
      try {
        const startRevision = await revisionOf();
        await put(0, 50);
        const w = new EtcdWatcher({
          client: counting,
          key: root,
          start: Buffer.from(root),
          end: Buffer.from(`/pause-${process.pid}0`),
          predicate: undefined,
          startRevision,
          initial: [],
          bufferSize: 10,
          bookmarkIntervalMs: undefined,
          toStorageKey: (k) => k.toString(),
          decode: (kv) => JSON.parse(kv.value.toString()) as StoredObject,
          compactedRevision: async () => 0,
          onStop: () => {},
        });
        await w.start();
        const spec = async () => {
          const r = await w.next();
          if (r.done || r.value.type === "ERROR" || r.value.type === "BOOKMARK") throw new Error(`unexpected ${JSON.stringify(r)}`);
          return (r.value.object as { spec: { i: number } }).spec.i;
        };
        const seen: number[] = [];
        // etcd answers the catch-up of 50 revisions in one response: 50 queued, over the buffer of 10.
        for (let i = 0; i < 50; i++) seen.push(await spec());
        expect(watches).toBe(1);
        // Now the consumer stays behind: 20 more events one by one; the queue is over the buffer
        // when the next response comes, so the etcd watch is cancelled ...
        await put(50, 70);
        await new Promise((r) => setTimeout(r, 300));
        // ... and re-created from the last queued revision once the consumer has drained.
        for (let i = 50; i < 70; i++) seen.push(await spec());
        await put(70, 75);
        for (let i = 70; i < 75; i++) seen.push(await spec());
        w.stop();
        expect(watches).toBe(2);
        expect(seen).toEqual(Array.from({ length: 75 }, (_, i) => i));
      } finally {
        await client.delete().prefix(root).exec();
        client.close();
      }
    }, 60_000);

    it("a watch whose catch-up etcd cannot send within the message limit ends with an error, as do the others on the client's stream (as clientv3's); new watches then work", async () => {
      const prefix = `/limit-${process.pid}`;
      const s = await openEtcdStorage({ servers: servers(), prefix, compactionIntervalMs: 0, maxCallRecvMsgSize: 1 << 20 });
      try {
        const from = await s.currentRevision();
        const pad = "x".repeat(16 * 1024);
        await s.create("/registry/widgets/ns/big", { metadata: { name: "big" }, spec: { n: 0, pad } });
        for (let i = 1; i <= 100; i++) await s.guaranteedUpdate("/registry/widgets/ns/big", (cur) => ({ ...cur, spec: { n: i, pad } }));
        const other = await s.watch("/registry/gadgets", { recursive: true, resourceVersion: await s.currentRevision() });
        const big = await s.watch("/registry/widgets", { recursive: true, resourceVersion: from });
        const timeout = (ms: number) => new Promise<"timeout">((r) => setTimeout(() => r("timeout"), ms));
        const first = await Promise.race([big.next(), timeout(15_000)]);
        expect(first).not.toBe("timeout");
        expect(first).toMatchObject({ done: false, value: { type: "ERROR" } });
        expect(String((first as { value: { error: Error } }).value.error.message)).toMatch(/RESOURCE_EXHAUSTED|larger than max|message/i);
        // The stream the two shared failed: the other watch ends too, rather than stalling.
        expect(await Promise.race([other.next(), timeout(15_000)])).toMatchObject({ done: false, value: { type: "ERROR" } });
        const again = await s.watch("/registry/gadgets", { recursive: true, resourceVersion: await s.currentRevision() });
        await s.create("/registry/gadgets/ns/g", { metadata: { name: "g" } });
        expect(await Promise.race([again.next(), timeout(15_000)])).toMatchObject({ done: false, value: { type: "ADDED" } });
        again.stop();
      } finally {
        await s.close();
      }
    }, 60_000);

    it("answers Unreachable when no etcd listens, and InvalidError for bad options", async () => {
      const codeOf = async (p: Promise<unknown>) => {
        try {
          await p;
        } catch (e) {
          return isStorageError(e) ? e.code : String(e);
        }
        return "resolved";
      };
      expect(await codeOf(openEtcdStorage({ servers: ["http://127.0.0.1:1"], dialTimeoutMs: 500, requestTimeoutMs: 1000 }))).toBe("Unreachable");
      expect(await codeOf(openEtcdStorage({ servers: [] }))).toBe("InvalidError");
      expect(await codeOf(openEtcdStorage({ servers: ["127.0.0.1:2379"] }))).toBe("InvalidError");
      expect(await codeOf(openEtcdStorage({ servers: servers(), certFile: "/x" }))).toBe("InvalidError");
      expect(await codeOf(openEtcdStorage({ servers: servers(), caFile: "/nonexistent/ca.pem" }))).toBe("InvalidError");
      for (const maxCallRecvMsgSize of [0, -1, 1.5, 2 ** 31, Number.NaN]) expect(await codeOf(openEtcdStorage({ servers: servers(), maxCallRecvMsgSize }))).toBe("InvalidError");
      for (const knownStateBytes of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(await codeOf(openEtcdStorage({ servers: servers(), knownStateBytes }))).toBe("InvalidError");
    });
  });

  describe("updates and deletes start from the last state this client knew (1.23's cachedExistingObject)", () => {
    const key = "/registry/widgets/ns/x";
    // etcd's own count of Range calls it has served (its gRPC server metrics).
    const ranges = async (): Promise<number> => {
      const text = await (await fetch(`${servers()[0]}/metrics`)).text();
      const line = text.split("\n").find((l) => l.startsWith("grpc_server_handled_total{") && l.includes('grpc_method="Range"') && l.includes('grpc_code="OK"'));
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
    };
    let m = 0;
    const pair = async (knownStateBytes?: number): Promise<[EtcdStorage, EtcdStorage, () => Promise<void>]> => {
      const prefix = `/known-${process.pid}-${++m}`;
      const a = await openEtcdStorage({ servers: servers(), prefix, compactionIntervalMs: 0, ...(knownStateBytes === undefined ? {} : { knownStateBytes }) });
      const b = await openEtcdStorage({ servers: servers(), prefix, compactionIntervalMs: 0 });
      return [a, b, async () => { await a.close(); await b.close(); }];
    };
    const v = (o: StoredObject | null): unknown => (o?.spec as { v?: unknown } | undefined)?.v;

    it("an update or delete of a key this client wrote or read is one transaction, no read; with knownStateBytes 0 each reads first", async () => {
      for (const [bytes, reads] of [[undefined, 0], [0, 4]] as const) {
        const [a, , close] = await pair(bytes);
        try {
          await a.create(key, { metadata: { name: "x" }, spec: { v: 1 } });
          const before = await ranges();
          await a.guaranteedUpdate(key, (cur) => ({ ...cur, spec: { v: 2 } }));
          await a.guaranteedUpdate(key, (cur) => ({ ...cur, spec: { v: 3 } }), { preconditions: { uid: "" } });
          await a.guaranteedUpdate(key, (cur) => ({ ...cur, status: { done: true } }));
          const gone = await a.delete(key);
          expect(await ranges() - before).toBe(reads);
          expect(gone.object).toMatchObject({ spec: { v: 3 }, status: { done: true } });
        } finally {
          await close();
        }
      }
    });

    it("a known state another writer made stale: the compare fails and the update is computed again from the current value", async () => {
      const [a, b, close] = await pair();
      try {
        const c = await a.create(key, { metadata: { name: "x" }, spec: { v: 1 } });
        const moved = await b.guaranteedUpdate(key, (cur) => ({ ...cur, spec: { v: 10 } }));
        const seen: unknown[] = [];
        const r = await a.guaranteedUpdate(key, (cur, state) => {
          seen.push([v(cur), state.revision]);
          return { ...cur, spec: { v: (v(cur) as number) + 1 } };
        });
        expect(seen).toEqual([[1, c.revision], [10, moved.revision]]);
        expect(v(r.object)).toBe(11);
        expect(v(await b.get(key))).toBe(11);
      } finally {
        await close();
      }
    });

    it("an error of tryUpdate or a failed precondition on a stale known state reads the key and tries again; on a current one it stands after one read", async () => {
      const [a, b, close] = await pair();
      try {
        await a.create(key, { metadata: { name: "x", uid: "u1" }, spec: { v: 1 } });
        await b.delete(key);
        await b.create(key, { metadata: { name: "x", uid: "u2" }, spec: { v: 2 } });
        // The known state has uid u1: the precondition fails on it, then holds on the current value.
        const r = await a.guaranteedUpdate(key, (cur) => ({ ...cur, spec: { v: 3 } }), { preconditions: { uid: "u2" } });
        expect(r.object.metadata).toMatchObject({ uid: "u2" });
        // tryUpdate refuses what it sees as stale (as the registry's resourceVersion check does).
        await b.guaranteedUpdate(key, (cur) => ({ ...cur, spec: { v: 4 } }));
        const calls: unknown[] = [];
        const r2 = await a.guaranteedUpdate(key, (cur) => {
          calls.push(v(cur));
          if (v(cur) !== 4) throw new Error("conflict");
          return { ...cur, spec: { v: 5 } };
        });
        expect(calls).toEqual([3, 4]);
        expect(v(r2.object)).toBe(5);
        // The known state is current: the error stands, after one read that found no change.
        const before = await ranges();
        const calls2: unknown[] = [];
        let error: unknown;
        try {
          await a.guaranteedUpdate(key, (cur) => {
            calls2.push(v(cur));
            throw new Error("invalid");
          });
        } catch (e) {
          error = e;
        }
        expect((error as Error).message).toBe("invalid");
        expect(calls2).toEqual([5]);
        expect(await ranges() - before).toBe(1);
        // A key deleted behind the known state: KeyNotFound, or create with ignoreNotFound.
        await b.delete(key);
        let missing: unknown;
        try {
          await a.guaranteedUpdate(key, (cur) => ({ ...cur, spec: { v: 6 } }));
        } catch (e) {
          missing = e;
        }
        expect(isStorageError(missing, "KeyNotFound")).toBe(true);
        await b.create(key, { metadata: { name: "x", uid: "u3" }, spec: { v: 7 } });
        await a.get(key);
        await b.delete(key);
        const created = await a.guaranteedUpdate(key, (cur, state) => (state.revision === 0 ? { metadata: { name: "x", uid: "u4" }, spec: { v: 8 } } : cur), { ignoreNotFound: true });
        expect(created.object.metadata).toMatchObject({ uid: "u4" });
      } finally {
        await close();
      }
    });

    it("an update that changes nothing on a known state reads the key first: unchanged keeps its revision; changed since is written", async () => {
      const [a, b, close] = await pair();
      try {
        const c = await a.create(key, { metadata: { name: "x" }, spec: { v: 1 } });
        const same = await a.guaranteedUpdate(key, (cur) => cur);
        expect(same.revision).toBe(c.revision);
        const moved = await b.guaranteedUpdate(key, (cur) => ({ ...cur, spec: { v: 2 } }));
        // Sets v 1: no change on the stale known state, a change on the current value.
        const r = await a.guaranteedUpdate(key, (cur) => ({ ...cur, spec: { v: 1 } }));
        expect(r.revision).toBeGreaterThan(moved.revision);
        expect(v(await b.get(key))).toBe(1);
      } finally {
        await close();
      }
    });

    it("a delete from a stale known state: preconditions and validateDeletion see the current value; a key deleted since is KeyNotFound", async () => {
      const [a, b, close] = await pair();
      try {
        await a.create(key, { metadata: { name: "x", uid: "u1" }, spec: { v: 1 } });
        await b.guaranteedUpdate(key, (cur) => ({ ...cur, spec: { v: 2 } }));
        const validated: unknown[] = [];
        const d = await a.delete(key, {
          validateDeletion: (cur) => {
            validated.push(v(cur));
            if (v(cur) !== 2) throw new Error("stale");
          },
        });
        expect(validated).toEqual([1, 2]);
        expect(v(d.object)).toBe(2);
        expect(await b.get(key, { ignoreNotFound: true })).toBeNull();
        await a.create(key, { metadata: { name: "x", uid: "u1" }, spec: { v: 1 } });
        await b.delete(key);
        let error: unknown;
        try {
          await a.delete(key);
        } catch (e) {
          error = e;
        }
        expect(isStorageError(error, "KeyNotFound")).toBe(true);
        // A precondition that fails on the current value stands.
        await a.create(key, { metadata: { name: "x", uid: "u1" }, spec: { v: 1 } });
        let refused: unknown;
        try {
          await a.delete(key, { preconditions: { uid: "other" } });
        } catch (e) {
          refused = e;
        }
        expect(isStorageError(refused, "InvalidObj")).toBe(true);
        expect(v(await b.get(key))).toBe(1);
      } finally {
        await close();
      }
    });
  });

  describe("migrateStorage from SQLite to etcd", () => {
    it("copies every live object with its content; resourceVersions become etcd revisions; a re-run skips", async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "skiff-migrate-"));
      const sqlite = await openSqliteStorage({ dataDir, compactionIntervalMs: 0 });
      const target = await openEtcdStorage({ servers: servers(), prefix: `/migrated-${process.pid}`, compactionIntervalMs: 0 });
      try {
        for (let i = 0; i < 25; i++) {
          await sqlite.create(`/registry/widgets/ns${i % 3}/w${String(i).padStart(2, "0")}`, { metadata: { name: `w${i}`, uid: `u${i}` }, spec: { i } });
        }
        await sqlite.create("/registry/core/namespaces/ns0", { metadata: { name: "ns0", uid: "n0" } });
        await sqlite.guaranteedUpdate("/registry/widgets/ns0/w00", (cur) => ({ ...cur, spec: { i: 100 } }));
        await sqlite.delete("/registry/widgets/ns1/w01");
        await target.create("/registry/widgets/ns2/w02", { metadata: { name: "w2", uid: "u2" }, spec: { i: 2 } });
        const copiedKeys: string[] = [];
        const result = await migrateStorage(sqlite, target, { onObject: (key, outcome) => outcome === "copied" && copiedKeys.push(key) });
        expect(result).toEqual({ copied: 24, skipped: 1, sourceRevision: await sqlite.currentRevision() });
        expect(copiedKeys).toEqual([...copiedKeys].sort());
        const strip = (items: { metadata?: Record<string, unknown> }[]) => items.map((o) => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } }));
        const from = await sqlite.list("/registry");
        const to = await target.list("/registry");
        expect(strip(to.items)).toEqual(strip(from.items));
        expect(await target.get("/registry/widgets/ns0/w00")).toMatchObject({ spec: { i: 100 }, metadata: { uid: "u0" } });
        expect(await target.get("/registry/widgets/ns1/w01", { ignoreNotFound: true })).toBeNull();
        const copiedRevisions = to.items.filter((o) => o.metadata?.name !== "w2").map((o) => Number(o.metadata?.resourceVersion));
        expect(Math.max(...copiedRevisions)).toBe(to.revision);
        expect(new Set(copiedRevisions).size).toBe(copiedRevisions.length);

        expect(await migrateStorage(sqlite, target)).toMatchObject({ copied: 0, skipped: 25 });
        await target.guaranteedUpdate("/registry/widgets/ns2/w05", (cur) => ({ ...cur, spec: { i: -1 } }));
        let error: unknown;
        try {
          await migrateStorage(sqlite, target);
        } catch (e) {
          error = e;
        }
        expect(isStorageError(error, "KeyExists")).toBe(true);
        expect((error as { key: string }).key).toBe("/registry/widgets/ns2/w05");
      } finally {
        await sqlite.close();
        await target.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  describe("the compactor (--etcd-compaction-interval)", () => {
    it("compacts the revision seen at the previous turn, one compaction per turn across apiservers", async () => {
      const prefix = `/compactor-${process.pid}`;
      const a = await openEtcdStorage({ servers: servers(), prefix, compactionIntervalMs: 50 });
      const b = await openEtcdStorage({ servers: servers(), prefix, compactionIntervalMs: 50 });
      try {
        const first = await a.create("/registry/widgets/ns/x", { metadata: { name: "x" }, spec: { v: 1 } });
        await a.guaranteedUpdate("/registry/widgets/ns/x", (cur) => ({ ...cur, spec: { v: 2 } }));
        let expired = false;
        for (let i = 0; i < 200 && !expired; i++) {
          await new Promise((r) => setTimeout(r, 50));
          try {
            await b.get("/registry/widgets/ns/x", { resourceVersion: first.revision, resourceVersionMatch: "Exact" });
          } catch (e) {
            expired = isStorageError(e, "ResourceVersionExpired");
            if (!expired) throw e;
          }
        }
        expect(expired).toBe(true);
        expect((await a.get("/registry/widgets/ns/x")).spec).toEqual({ v: 2 });
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  describe("TLS (--etcd-cafile, --etcd-certfile, --etcd-keyfile)", () => {
    it("talks to an etcd that requires client certificates, and fails Unreachable without one", async (ctx) => {
      const dir = mkdtempSync(join(tmpdir(), "skiff-etcd-tls-"));
      const sh = (script: string) => execFileSync("/bin/bash", ["-c", script], { cwd: dir, stdio: "pipe" });
      try {
        sh("command -v openssl >/dev/null");
      } catch {
        ctx.skip();
        return;
      }
      const key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
      sh(
        [
          `openssl req -x509 ${key} -keyout ca.key -out ca.crt -subj /CN=skiff-test-ca -days 1`,
          `openssl req ${key} -keyout server.key -out server.csr -subj /CN=etcd`,
          `printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n' > server.ext`,
          "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 1 -extfile server.ext",
          `openssl req ${key} -keyout client.key -out client.csr -subj /CN=apiserver`,
          `printf 'extendedKeyUsage=clientAuth\n' > client.ext`,
          "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt -days 1 -extfile client.ext",
        ].join(" && "),
      );
      const f = (name: string) => join(dir, name);
      const secure = await startLocalEtcd({
        tls: { certFile: f("server.crt"), keyFile: f("server.key"), caFile: f("ca.crt"), clientCertFile: f("client.crt"), clientKeyFile: f("client.key") },
      });
      try {
        expect(secure.clientUrl).toMatch(/^https:/);
        const s = await openEtcdStorage({ servers: [secure.clientUrl], caFile: f("ca.crt"), certFile: f("client.crt"), keyFile: f("client.key"), compactionIntervalMs: 0 });
        try {
          const c = await s.create("/registry/widgets/ns/tls", { metadata: { name: "tls" } });
          expect((await s.get("/registry/widgets/ns/tls")).metadata?.resourceVersion).toBe(String(c.revision));
        } finally {
          await s.close();
        }
        let error: unknown;
        try {
          const anonymous = await openEtcdStorage({ servers: [secure.clientUrl], caFile: f("ca.crt"), compactionIntervalMs: 0, dialTimeoutMs: 1000, requestTimeoutMs: 2000 });
          await anonymous.close();
        } catch (e) {
          error = e;
        }
        expect(isStorageError(error, "Unreachable")).toBe(true);
      } finally {
        await secure.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
