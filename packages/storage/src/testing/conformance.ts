import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isStorageError } from "../errors.js";
import type { StorageErrorCode } from "../errors.js";
import type { Storage, StoredObject, WatchChangeEvent, WatchEvent, Watcher } from "../types.js";

/**
 * What a conformance factory returns: a fresh, empty storage with its compaction timer off, a
 * `cleanup` that closes it (and any storage `reopen` returned) and removes its data, and
 * optionally `reopen`, which closes the storage and opens a new one on the same data (for
 * persistent backends).
 */
export interface StorageFactoryResult {
  readonly storage: Storage;
  readonly cleanup: () => Promise<void>;
  readonly reopen?: () => Promise<Storage>;
}

/** Builds one fresh storage per test. */
export type StorageFactory = () => Promise<StorageFactoryResult>;

/** How long a test waits for an expected watch event before failing (guards hangs, not speed). */
const eventTimeoutMs = 5_000;

function widget(name: string, spec: Record<string, unknown> = {}, labels: Record<string, string> = {}): StoredObject {
  return { apiVersion: "example.io/v1", kind: "Widget", metadata: { name, uid: `uid-${name}`, labels }, spec };
}

function rv(object: StoredObject | null | undefined): string | undefined {
  return object?.metadata?.resourceVersion;
}

function specOf(object: StoredObject | null | undefined): unknown {
  return object?.spec;
}

async function expectCode(promise: Promise<unknown>, code: StorageErrorCode): Promise<unknown> {
  let error: unknown;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  expect(error, `expected StorageError ${code}`).toBeDefined();
  expect(isStorageError(error) ? error.code : error).toBe(code);
  return error;
}

async function nextEvent(w: Watcher): Promise<WatchEvent | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no watch event within ${eventTimeoutMs} ms`)), eventTimeoutMs);
  });
  try {
    const r = await Promise.race([w.next(), timeout]);
    return r.done ? undefined : r.value;
  } finally {
    clearTimeout(timer);
  }
}

/** Reads `n` events, skipping bookmarks. */
async function take(w: Watcher, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  while (out.length < n) {
    const e = await nextEvent(w);
    if (e === undefined) throw new Error(`watch ended after ${out.length} of ${n} events`);
    if (e.type !== "BOOKMARK") out.push(e);
  }
  return out;
}

function change(e: WatchEvent | undefined): WatchChangeEvent {
  if (e === undefined || e.type === "BOOKMARK" || e.type === "ERROR") {
    throw new Error(`expected a change event, got ${JSON.stringify(e)}`);
  }
  return e;
}

function summary(events: WatchEvent[]): string[] {
  return events.map((e) => {
    const c = change(e);
    return `${c.type} ${c.key} ${c.revision}`;
  });
}

/**
 * Registers the storage conformance suite (vitest `describe`/`it`) for one backend: every
 * behaviour of the {@link Storage} contract, mirroring Kubernetes' shared store tests. Call it at
 * the top level of a test file; `factory` runs once per test.
 *
 * The factory must return an empty store with compaction timers off. Revisions are compared
 * relative to the store's starting revision, so backends whose first revision is not 1 pass.
 * Tests needing `reopen` are skipped when the factory gives none.
 *
 * @see staging/src/k8s.io/apiserver/pkg/storage/testing/store_tests.go
 * @example
 * import { runStorageConformance } from "@skiff/storage/testing";
 * runStorageConformance("memory", async () => {
 *   const storage = new MemoryStorage({ compactionIntervalMs: 0 });
 *   return { storage, cleanup: () => storage.close() };
 * });
 */
export function runStorageConformance(name: string, factory: StorageFactory): void {
  describe(`storage conformance: ${name}`, () => {
    let env: StorageFactoryResult;
    let s: Storage;
    const opened: Watcher[] = [];
    const watch = async (...args: Parameters<Storage["watch"]>): Promise<Watcher> => {
      const w = await s.watch(...args);
      opened.push(w);
      return w;
    };

    beforeEach(async () => {
      env = await factory();
      s = env.storage;
    });

    afterEach(async () => {
      for (const w of opened.splice(0)) w.stop();
      await env.cleanup();
    });

    describe("create", () => {
      it("stores the object, takes the next revision and sets resourceVersion on what it returns", async () => {
        const start = await s.currentRevision();
        const input = widget("a", { size: 1 });
        const before = JSON.stringify(input);
        const first = await s.create("/registry/widgets/ns/a", input);
        const second = await s.create("/registry/widgets/ns/b", widget("b"));
        expect(first.revision).toBeGreaterThan(start);
        expect(second.revision).toBeGreaterThan(first.revision);
        expect(rv(first.object)).toBe(String(first.revision));
        expect(first.object.spec).toEqual({ size: 1 });
        expect(JSON.stringify(input)).toBe(before);
        expect(await s.currentRevision()).toBe(second.revision);
        const got = await s.get("/registry/widgets/ns/a");
        expect(got).toEqual(first.object);
      });

      it("rejects an existing key with KeyExists and leaves the object alone", async () => {
        const { revision } = await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        const error = await expectCode(s.create("/registry/widgets/ns/a", widget("a", { v: 2 })), "KeyExists");
        expect((error as { key: string }).key).toBe("/registry/widgets/ns/a");
        expect(specOf(await s.get("/registry/widgets/ns/a"))).toEqual({ v: 1 });
        expect(await s.currentRevision()).toBe(revision);
      });

      it("rejects an object that already has a resourceVersion, and values that are not objects", async () => {
        const start = await s.currentRevision();
        const withRv = { ...widget("a"), metadata: { name: "a", resourceVersion: "7" } };
        await expectCode(s.create("/registry/widgets/ns/a", withRv), "InvalidObj");
        await expectCode(s.create("/registry/widgets/ns/b", [] as unknown as StoredObject), "InvalidObj");
        await expectCode(s.create("/registry/widgets/ns/c", null as unknown as StoredObject), "InvalidObj");
        expect(await s.get("/registry/widgets/ns/a", { ignoreNotFound: true })).toBeNull();
        expect(await s.currentRevision()).toBe(start);
      });

      it("can create a key again after it was deleted, at a new revision", async () => {
        const a = await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        const d = await s.delete("/registry/widgets/ns/a");
        const again = await s.create("/registry/widgets/ns/a", widget("a", { v: 2 }));
        expect(d.revision).toBeGreaterThan(a.revision);
        expect(again.revision).toBeGreaterThan(d.revision);
        expect(specOf(await s.get("/registry/widgets/ns/a"))).toEqual({ v: 2 });
      });
    });

    describe("get", () => {
      it("throws KeyNotFound for a missing key, or returns null with ignoreNotFound", async () => {
        const error = await expectCode(s.get("/registry/widgets/ns/missing"), "KeyNotFound");
        expect((error as { key: string }).key).toBe("/registry/widgets/ns/missing");
        expect(await s.get("/registry/widgets/ns/missing", { ignoreNotFound: true })).toBeNull();
      });

      it("returns a fresh copy each time", async () => {
        await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        const one = await s.get("/registry/widgets/ns/a");
        (one.spec as Record<string, unknown>).v = 99;
        expect(specOf(await s.get("/registry/widgets/ns/a"))).toEqual({ v: 1 });
      });

      it("reads the state at an older revision with Exact", async () => {
        const c = await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        const u = await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur, spec: { v: 2 } }));
        const d = await s.delete("/registry/widgets/ns/a");
        const atCreate = await s.get("/registry/widgets/ns/a", { resourceVersion: String(c.revision), resourceVersionMatch: "Exact" });
        expect(specOf(atCreate)).toEqual({ v: 1 });
        expect(rv(atCreate)).toBe(String(c.revision));
        const atUpdate = await s.get("/registry/widgets/ns/a", { resourceVersion: u.revision, resourceVersionMatch: "Exact" });
        expect(specOf(atUpdate)).toEqual({ v: 2 });
        await expectCode(s.get("/registry/widgets/ns/a", { resourceVersion: d.revision, resourceVersionMatch: "Exact" }), "KeyNotFound");
        if (c.revision > 1) {
          await expectCode(s.get("/registry/widgets/ns/a", { resourceVersion: c.revision - 1, resourceVersionMatch: "Exact" }), "KeyNotFound");
        }
      });

      it("serves the latest state for a revision not newer than the current one, else TooLargeResourceVersion", async () => {
        const c = await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur, spec: { v: 2 } }));
        for (const options of [{}, { resourceVersion: "" }, { resourceVersion: "0" }, { resourceVersion: String(c.revision) }, { resourceVersion: c.revision, resourceVersionMatch: "NotOlderThan" as const }]) {
          expect(specOf(await s.get("/registry/widgets/ns/a", options))).toEqual({ v: 2 });
        }
        const current = await s.currentRevision();
        const error = await expectCode(s.get("/registry/widgets/ns/a", { resourceVersion: String(current + 5) }), "TooLargeResourceVersion");
        expect((error as { retryAfterSeconds?: number }).retryAfterSeconds).toBe(1);
        expect((error as Error).message).toBe(`Too large resource version: ${current + 5}, current: ${current}`);
        await expectCode(s.get("/registry/widgets/ns/a", { resourceVersion: current + 1, resourceVersionMatch: "Exact" }), "TooLargeResourceVersion");
      });

      it("rejects malformed resource versions and Exact without a revision", async () => {
        await s.create("/registry/widgets/ns/a", widget("a"));
        for (const bad of ["abc", "-1", "1.5", " 1"]) {
          await expectCode(s.get("/registry/widgets/ns/a", { resourceVersion: bad }), "InvalidError");
        }
        await expectCode(s.get("/registry/widgets/ns/a", { resourceVersion: "0", resourceVersionMatch: "Exact" }), "InvalidError");
      });

      it("answers ResourceVersionExpired for an exact read below the compaction horizon", async () => {
        const c = await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        const u = await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur, spec: { v: 2 } }));
        await s.compact(u.revision);
        await expectCode(s.get("/registry/widgets/ns/a", { resourceVersion: c.revision, resourceVersionMatch: "Exact" }), "ResourceVersionExpired");
        expect(specOf(await s.get("/registry/widgets/ns/a", { resourceVersion: u.revision, resourceVersionMatch: "Exact" }))).toEqual({ v: 2 });
      });
    });

    describe("guaranteedUpdate", () => {
      it("passes the current object and revision to tryUpdate and stores its result at a new revision", async () => {
        const c = await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        let seen: { object: StoredObject; revision: number } | undefined;
        const u = await s.guaranteedUpdate("/registry/widgets/ns/a", (cur, state) => {
          seen = { object: structuredClone(cur), revision: state.revision };
          return { ...cur, metadata: { ...cur.metadata, resourceVersion: "12345" }, spec: { v: 2 } };
        });
        expect(seen?.revision).toBe(c.revision);
        expect(rv(seen?.object)).toBe(String(c.revision));
        expect(specOf(seen?.object)).toEqual({ v: 1 });
        expect(u.revision).toBeGreaterThan(c.revision);
        expect(rv(u.object)).toBe(String(u.revision));
        expect(await s.get("/registry/widgets/ns/a")).toEqual(u.object);
      });

      it("throws KeyNotFound for a missing key unless ignoreNotFound, which creates it", async () => {
        await expectCode(s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => cur), "KeyNotFound");
        let input: StoredObject | undefined;
        let revision = -1;
        const u = await s.guaranteedUpdate(
          "/registry/widgets/ns/a",
          (cur, state) => {
            input = cur;
            revision = state.revision;
            return widget("a", { v: 1 });
          },
          { ignoreNotFound: true },
        );
        expect(input).toEqual({});
        expect(revision).toBe(0);
        expect(specOf(await s.get("/registry/widgets/ns/a"))).toEqual({ v: 1 });
        expect(rv(u.object)).toBe(String(u.revision));
      });

      it("checks uid and resourceVersion preconditions (InvalidObj on mismatch, as Kubernetes 1.23)", async () => {
        const c = await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        const bump = (cur: StoredObject) => ({ ...cur, spec: { v: Number((cur.spec as { v: number }).v) + 1 } });
        const e1 = await expectCode(s.guaranteedUpdate("/registry/widgets/ns/a", bump, { preconditions: { uid: "other" } }), "InvalidObj");
        expect((e1 as Error).message).toContain("Precondition failed: UID in precondition: other, UID in object meta: uid-a");
        const e2 = await expectCode(s.guaranteedUpdate("/registry/widgets/ns/a", bump, { preconditions: { resourceVersion: "999999" } }), "InvalidObj");
        expect((e2 as Error).message).toContain(`Precondition failed: ResourceVersion in precondition: 999999, ResourceVersion in object meta: ${c.revision}`);
        expect(specOf(await s.get("/registry/widgets/ns/a"))).toEqual({ v: 1 });
        const ok = await s.guaranteedUpdate("/registry/widgets/ns/a", bump, { preconditions: { uid: "uid-a", resourceVersion: String(c.revision) } });
        expect(specOf(ok.object)).toEqual({ v: 2 });
      });

      it("passes an error thrown by tryUpdate through unchanged and writes nothing", async () => {
        await s.create("/registry/widgets/ns/a", widget("a"));
        const before = await s.currentRevision();
        const boom = new Error("boom");
        let caught: unknown;
        try {
          await s.guaranteedUpdate("/registry/widgets/ns/a", async () => {
            throw boom;
          });
        } catch (e) {
          caught = e;
        }
        expect(caught).toBe(boom);
        expect(await s.currentRevision()).toBe(before);
      });

      it("applies concurrent updates exactly once each, retrying on conflict", async () => {
        await s.create("/registry/widgets/ns/counter", widget("counter", { n: 0 }));
        const start = await s.currentRevision();
        const tasks = 25;
        let calls = 0;
        const results = await Promise.all(
          Array.from({ length: tasks }, (_, i) =>
            s.guaranteedUpdate("/registry/widgets/ns/counter", async (cur) => {
              calls++;
              await new Promise((r) => setTimeout(r, i % 3));
              const n = (cur.spec as { n: number }).n;
              return { ...cur, spec: { n: n + 1 } };
            }),
          ),
        );
        expect(specOf(await s.get("/registry/widgets/ns/counter"))).toEqual({ n: tasks });
        const revisions = results.map((r) => r.revision);
        expect(new Set(revisions).size).toBe(tasks);
        expect(await s.currentRevision()).toBe(Math.max(...revisions));
        expect(Math.min(...revisions)).toBeGreaterThan(start);
        expect(calls).toBeGreaterThan(tasks);
      });

      it("retries when the object changes while tryUpdate runs", async () => {
        await s.create("/registry/widgets/ns/a", widget("a", { tags: [] }));
        let attempts = 0;
        const u = await s.guaranteedUpdate("/registry/widgets/ns/a", async (cur) => {
          attempts++;
          if (attempts === 1) {
            await s.guaranteedUpdate("/registry/widgets/ns/a", (c2) => ({ ...c2, spec: { tags: ["other"] } }));
          }
          const tags = (cur.spec as { tags: string[] }).tags;
          return { ...cur, spec: { tags: [...tags, "mine"] } };
        });
        expect(attempts).toBe(2);
        expect(specOf(u.object)).toEqual({ tags: ["other", "mine"] });
      });

      it("does not write (nor bump the revision) when the result equals the current object", async () => {
        const c = await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        const w = await watch("/registry/widgets/ns", { recursive: true, resourceVersion: c.revision });
        const same = await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur }));
        expect(same.revision).toBe(c.revision);
        expect(rv(same.object)).toBe(String(c.revision));
        expect(await s.currentRevision()).toBe(c.revision);
        const other = await s.create("/registry/widgets/ns/b", widget("b"));
        const [e] = await take(w, 1);
        expect(change(e).revision).toBe(other.revision);
      });
    });

    describe("delete", () => {
      it("returns the last state and the revision of the delete; the key is gone", async () => {
        const c = await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        const d = await s.delete("/registry/widgets/ns/a");
        expect(d.revision).toBeGreaterThan(c.revision);
        expect(d.object).toEqual(c.object);
        expect(await s.currentRevision()).toBe(d.revision);
        await expectCode(s.get("/registry/widgets/ns/a"), "KeyNotFound");
        expect(await s.count("/registry/widgets/ns")).toBe(0);
      });

      it("throws KeyNotFound for a missing key", async () => {
        await expectCode(s.delete("/registry/widgets/ns/missing"), "KeyNotFound");
      });

      it("checks preconditions and keeps the object when they fail", async () => {
        const c = await s.create("/registry/widgets/ns/a", widget("a"));
        await expectCode(s.delete("/registry/widgets/ns/a", { preconditions: { uid: "nope" } }), "InvalidObj");
        await expectCode(s.delete("/registry/widgets/ns/a", { preconditions: { resourceVersion: String(c.revision + 100) } }), "InvalidObj");
        expect(await s.get("/registry/widgets/ns/a")).toEqual(c.object);
        const d = await s.delete("/registry/widgets/ns/a", { preconditions: { uid: "uid-a", resourceVersion: String(c.revision) } });
        expect(d.object).toEqual(c.object);
      });

      it("runs validateDeletion on the current object and passes its error through", async () => {
        const c = await s.create("/registry/widgets/ns/a", widget("a"));
        const refused = new Error("refused");
        let seen: StoredObject | undefined;
        let caught: unknown;
        try {
          await s.delete("/registry/widgets/ns/a", {
            validateDeletion: (cur) => {
              seen = cur;
              throw refused;
            },
          });
        } catch (e) {
          caught = e;
        }
        expect(caught).toBe(refused);
        expect(seen).toEqual(c.object);
        expect(await s.get("/registry/widgets/ns/a")).toEqual(c.object);
        await s.delete("/registry/widgets/ns/a", { validateDeletion: async () => {} });
        await expectCode(s.get("/registry/widgets/ns/a"), "KeyNotFound");
      });

      it("deletes the newest state when the object changes during validateDeletion", async () => {
        await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        let calls = 0;
        const d = await s.delete("/registry/widgets/ns/a", {
          validateDeletion: async () => {
            calls++;
            if (calls === 1) await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur, spec: { v: 2 } }));
          },
        });
        expect(calls).toBe(2);
        expect(specOf(d.object)).toEqual({ v: 2 });
      });
    });

    describe("list and count", () => {
      it("lists a prefix as a directory: /a/b does not include /a/bc", async () => {
        await s.create("/registry/widgets/b/x", widget("x"));
        await s.create("/registry/widgets/b/y", widget("y"));
        await s.create("/registry/widgets/bc/z", widget("z"));
        await s.create("/registry/widgets/b", widget("b"));
        const names = async (p: string) => (await s.list(p)).items.map((o) => o.metadata?.name);
        expect(await names("/registry/widgets/b")).toEqual(["x", "y"]);
        expect(await names("/registry/widgets/b/")).toEqual(["x", "y"]);
        expect(await names("/registry/widgets/bc")).toEqual(["z"]);
        expect(await names("/registry/widgets")).toEqual(["b", "x", "y", "z"]);
        expect(await s.count("/registry/widgets/b")).toBe(2);
        expect(await s.count("/registry/widgets")).toBe(4);
        expect(await s.count("/registry/other")).toBe(0);
      });

      it("returns items in key order with resourceVersions, at the current revision", async () => {
        for (const n of ["c", "a", "b"]) await s.create(`/registry/widgets/ns/${n}`, widget(n));
        const page = await s.list("/registry/widgets/ns");
        expect(page.items.map((o) => o.metadata?.name)).toEqual(["a", "b", "c"]);
        expect(page.revision).toBe(await s.currentRevision());
        expect(page.continue).toBeUndefined();
        expect(page.remainingItemCount).toBeUndefined();
        for (const o of page.items) expect(await s.get(`/registry/widgets/ns/${o.metadata?.name}`)).toEqual(o);
        const empty = await s.list("/registry/nothing");
        expect(empty.items).toEqual([]);
        expect(empty.revision).toBe(page.revision);
      });

      it("reads the state at an older revision with Exact (and with a limit and no match, as 1.23)", async () => {
        await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        const b = await s.create("/registry/widgets/ns/b", widget("b", { v: 1 }));
        const at = b.revision;
        await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur, spec: { v: 2 } }));
        await s.delete("/registry/widgets/ns/b");
        await s.create("/registry/widgets/ns/c", widget("c"));
        const old = await s.list("/registry/widgets/ns", { resourceVersion: String(at), resourceVersionMatch: "Exact" });
        expect(old.revision).toBe(at);
        expect(old.items.map((o) => [o.metadata?.name, o.spec])).toEqual([["a", { v: 1 }], ["b", { v: 1 }]]);
        const legacy = await s.list("/registry/widgets/ns", { resourceVersion: String(at), limit: 10 });
        expect(legacy.revision).toBe(at);
        expect(legacy.items).toEqual(old.items);
        const latest = await s.list("/registry/widgets/ns", { resourceVersion: String(at) });
        expect(latest.revision).toBe(await s.currentRevision());
        expect(latest.items.map((o) => o.metadata?.name)).toEqual(["a", "c"]);
        const current = await s.currentRevision();
        await expectCode(s.list("/registry/widgets/ns", { resourceVersion: current + 1, resourceVersionMatch: "NotOlderThan" }), "TooLargeResourceVersion");
        await expectCode(s.list("/registry/widgets/ns", { resourceVersion: current + 1, resourceVersionMatch: "Exact" }), "TooLargeResourceVersion");
      });

      it("paginates with limit and continue, consistently at the first page's revision", async () => {
        for (let i = 0; i < 10; i++) await s.create(`/registry/widgets/ns/w${i}`, widget(`w${i}`, { v: 0 }));
        const first = await s.list("/registry/widgets/ns", { limit: 3 });
        expect(first.items.map((o) => o.metadata?.name)).toEqual(["w0", "w1", "w2"]);
        expect(first.remainingItemCount).toBe(7);
        expect(first.continue?.revision).toBe(first.revision);
        // Changes after the first page must not show in later pages.
        await s.delete("/registry/widgets/ns/w5");
        await s.guaranteedUpdate("/registry/widgets/ns/w6", (cur) => ({ ...cur, spec: { v: 1 } }));
        await s.create("/registry/widgets/ns/w45", widget("w45"));
        const seen = [...first.items];
        let page = first;
        const remaining: (number | undefined)[] = [first.remainingItemCount];
        while (page.continue !== undefined) {
          page = await s.list("/registry/widgets/ns", { limit: 3, continue: page.continue });
          expect(page.revision).toBe(first.revision);
          remaining.push(page.remainingItemCount);
          seen.push(...page.items);
        }
        expect(seen.map((o) => o.metadata?.name)).toEqual(["w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9"]);
        expect(seen.every((o) => (o.spec as { v: number }).v === 0)).toBe(true);
        expect(remaining).toEqual([7, 4, 1, undefined]);
        const exact = await s.list("/registry/widgets/ns", { limit: 5 });
        expect(exact.items).toHaveLength(5);
        const rest = await s.list("/registry/widgets/ns", { limit: 5, continue: exact.continue as NonNullable<typeof exact.continue> });
        expect(rest.items).toHaveLength(5);
        expect(rest.continue).toBeUndefined();
      });

      it("rejects a continue with a resourceVersion or outside the prefix, and an invalid limit", async () => {
        for (let i = 0; i < 3; i++) await s.create(`/registry/widgets/ns/w${i}`, widget(`w${i}`));
        const first = await s.list("/registry/widgets/ns", { limit: 1 });
        const cont = first.continue as NonNullable<typeof first.continue>;
        await expectCode(s.list("/registry/widgets/ns", { limit: 1, continue: cont, resourceVersion: "1" }), "InvalidError");
        await expectCode(s.list("/registry/widgets/other", { limit: 1, continue: cont }), "InvalidError");
        await expectCode(s.list("/registry/widgets/ns", { limit: -1 }), "InvalidError");
        expect((await s.list("/registry/widgets/ns", { limit: 1, continue: cont, resourceVersion: "0" })).items).toHaveLength(1);
      });

      it("answers ResourceVersionExpired for a continue whose revision was compacted", async () => {
        for (let i = 0; i < 3; i++) await s.create(`/registry/widgets/ns/w${i}`, widget(`w${i}`));
        const first = await s.list("/registry/widgets/ns", { limit: 1 });
        await s.guaranteedUpdate("/registry/widgets/ns/w1", (cur) => ({ ...cur, spec: { v: 1 } }));
        await s.compact(await s.currentRevision());
        await expectCode(s.list("/registry/widgets/ns", { limit: 1, continue: first.continue as NonNullable<typeof first.continue> }), "ResourceVersionExpired");
      });

      it("filters with a predicate and still fills each page up to the limit", async () => {
        for (let i = 0; i < 20; i++) {
          await s.create(`/registry/widgets/ns/w${String(i).padStart(2, "0")}`, widget(`w${i}`, { i }, { parity: i % 2 === 0 ? "even" : "odd" }));
        }
        const predicate = (o: StoredObject) => (o.metadata?.labels as Record<string, string> | undefined)?.parity === "even";
        const sizes: number[] = [];
        const got: unknown[] = [];
        let page = await s.list("/registry/widgets/ns", { limit: 4, predicate });
        for (;;) {
          sizes.push(page.items.length);
          expect(page.remainingItemCount).toBeUndefined();
          got.push(...page.items.map((o) => (o.spec as { i: number }).i));
          if (page.continue === undefined) break;
          page = await s.list("/registry/widgets/ns", { limit: 4, predicate, continue: page.continue });
        }
        expect(got).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
        expect(sizes.slice(0, 2)).toEqual([4, 4]);
        expect(sizes.reduce((a, b) => a + b, 0)).toBe(10);
        const all = await s.list("/registry/widgets/ns", { predicate });
        expect(all.items).toHaveLength(10);
      });

      it("listEncoded (when offered) answers each page as list does, every item in JSON.stringify's bytes", async (ctx) => {
        const listEncoded = s.listEncoded?.bind(s);
        if (listEncoded === undefined) return ctx.skip();
        await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }, { l: "x" }));
        await s.create("/registry/widgets/ns/b", { apiVersion: "v1", kind: "Widget" });
        await s.create("/registry/widgets/ns/c", { metadata: {}, "2": ["x"], "10": { "k\"ey": "\u00e9\n" } });
        await s.create("/registry/widgets/ns/d", { kind: "Widget", metadata: { name: "d", labels: { resourceVersion: "7" } }, spec: { metadata: {} } });
        await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur, spec: { v: 2 } }));
        const mid = await s.currentRevision();
        await s.delete("/registry/widgets/ns/b");
        const cases: { limit?: number; resourceVersion?: number; resourceVersionMatch?: "Exact" }[] = [{}, { limit: 1 }, { limit: 3 }, { resourceVersion: mid, resourceVersionMatch: "Exact" }];
        for (const options of cases) {
          let page = await s.list("/registry/widgets/ns", options);
          let encoded = await listEncoded("/registry/widgets/ns", options);
          for (;;) {
            expect(encoded.items).toEqual(page.items.map((o) => JSON.stringify(o)));
            expect({ ...encoded, items: [] }).toEqual({ ...page, items: [] });
            if (page.continue === undefined) break;
            const next = { limit: options.limit ?? 0, continue: page.continue };
            page = await s.list("/registry/widgets/ns", next);
            encoded = await listEncoded("/registry/widgets/ns", next);
          }
        }
      });
      it("getEncoded (when offered) answers as get does, in JSON.stringify's bytes, at the latest and at a past revision", async (ctx) => {
        const getEncoded = s.getEncoded?.bind(s);
        if (getEncoded === undefined) return ctx.skip();
        await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }, { l: "x" }));
        await s.create("/registry/widgets/ns/c", { metadata: {}, "2": ["x"], "10": { "k\"ey": "\u00e9\n" } });
        await s.create("/registry/widgets/ns/d", { kind: "Widget", metadata: { name: "d", labels: { resourceVersion: "7" } }, spec: { metadata: {} } });
        const mid = await s.currentRevision();
        await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur, spec: { v: 2 } }));
        for (const key of ["/registry/widgets/ns/a", "/registry/widgets/ns/c", "/registry/widgets/ns/d"]) {
          expect(await getEncoded(key)).toBe(JSON.stringify(await s.get(key)));
          expect(await getEncoded(key, { resourceVersion: mid, resourceVersionMatch: "Exact" })).toBe(JSON.stringify(await s.get(key, { resourceVersion: mid, resourceVersionMatch: "Exact" })));
        }
        await expectCode(getEncoded("/registry/widgets/ns/missing"), "KeyNotFound");
      });
    });

    describe("watch", () => {
      it("from the current revision delivers ADDED, MODIFIED and DELETED with previous objects", async () => {
        const start = await s.currentRevision();
        const w = await watch("/registry/widgets", { recursive: true, resourceVersion: String(start) });
        const c = await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        const u = await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur, spec: { v: 2 } }));
        const d = await s.delete("/registry/widgets/ns/a");
        const [added, modified, deleted] = (await take(w, 3)).map(change);
        expect(added).toMatchObject({ type: "ADDED", key: "/registry/widgets/ns/a", revision: c.revision });
        expect(added?.object).toEqual(c.object);
        expect(added?.prevObject).toBeUndefined();
        expect(modified).toMatchObject({ type: "MODIFIED", revision: u.revision });
        expect(modified?.object).toEqual(u.object);
        expect(modified?.prevObject).toEqual(c.object);
        expect(deleted).toMatchObject({ type: "DELETED", revision: d.revision });
        expect(specOf(deleted?.object)).toEqual({ v: 2 });
        expect(rv(deleted?.object)).toBe(String(d.revision));
        expect(deleted?.prevObject).toEqual(u.object);
      });

      it("without a resourceVersion (or \"0\") starts with ADDED for every current object, then changes", async () => {
        await s.create("/registry/widgets/ns/a", widget("a"));
        const b = await s.create("/registry/widgets/ns/b", widget("b"));
        await s.create("/registry/widgets/other/c", widget("c"));
        for (const options of [{ recursive: true }, { recursive: true, resourceVersion: "0" }]) {
          const w = await watch("/registry/widgets/ns", options);
          const initial = (await take(w, 2)).map(change);
          expect(initial.map((e) => [e.type, e.key])).toEqual([
            ["ADDED", "/registry/widgets/ns/a"],
            ["ADDED", "/registry/widgets/ns/b"],
          ]);
          expect(initial[1]?.object).toEqual(b.object);
          w.stop();
        }
        const w = await watch("/registry/widgets/ns", { recursive: true });
        await take(w, 2);
        const x = await s.create("/registry/widgets/ns/x", widget("x"));
        expect(change((await take(w, 1))[0])).toMatchObject({ type: "ADDED", revision: x.revision });
        const single = await watch("/registry/widgets/ns/b", {});
        expect(change((await take(single, 1))[0]).object).toEqual(b.object);
      });

      it("without a resourceVersion, a state of many keys is delivered as it was at the start, whatever changes meanwhile", async () => {
        const n = 600;
        for (let i = 0; i < n; i++) await s.create(`/registry/widgets/ns/w${String(i).padStart(3, "0")}`, widget(`w${i}`, { v: 0 }));
        const w = await watch("/registry/widgets/ns", { recursive: true });
        const first = (await take(w, 10)).map(change);
        // Changes while the state is being read: to keys already delivered and keys still to come.
        const u1 = await s.guaranteedUpdate("/registry/widgets/ns/w001", (cur) => ({ ...cur, spec: { v: 1 } }));
        const u2 = await s.guaranteedUpdate("/registry/widgets/ns/w500", (cur) => ({ ...cur, spec: { v: 1 } }));
        const d = await s.delete("/registry/widgets/ns/w400");
        const c = await s.create("/registry/widgets/ns/w999", widget("w999", { v: 1 }));
        const rest = (await take(w, n - 10 + 4)).map(change);
        const initial = [...first, ...rest.slice(0, n - 10)];
        expect(initial.every((e) => e.type === "ADDED" && (e.object.spec as { v: number }).v === 0)).toBe(true);
        expect(initial.map((e) => e.key)).toEqual(Array.from({ length: n }, (_, i) => `/registry/widgets/ns/w${String(i).padStart(3, "0")}`));
        expect(rest.slice(n - 10).map((e) => [e.type, e.key, e.revision])).toEqual([
          ["MODIFIED", "/registry/widgets/ns/w001", u1.revision],
          ["MODIFIED", "/registry/widgets/ns/w500", u2.revision],
          ["DELETED", "/registry/widgets/ns/w400", d.revision],
          ["ADDED", "/registry/widgets/ns/w999", c.revision],
        ]);
        w.stop();
      });

      it("from an old revision replays every later change exactly once, in order, then goes live", async () => {
        // Revision "0" means "current state first", so start from a real revision.
        const { revision: start } = await s.create("/registry/widgets/seed", widget("seed"));
        const revisions: number[] = [];
        for (let i = 0; i < 30; i++) {
          const key = `/registry/widgets/ns/w${i % 7}`;
          if (i < 7) {
            revisions.push((await s.create(key, widget(`w${i}`, { i }))).revision);
          } else if (i % 5 === 0) {
            revisions.push((await s.delete(key)).revision);
            revisions.push((await s.create(key, widget(`w${i}`, { i }))).revision);
          } else {
            revisions.push((await s.guaranteedUpdate(key, (cur) => ({ ...cur, spec: { i } }))).revision);
          }
        }
        const all = await s.currentRevision();
        const w = await watch("/registry/widgets", { recursive: true, resourceVersion: start });
        const replayed = (await take(w, all - start)).map(change);
        expect(replayed.map((e) => e.revision)).toEqual(Array.from({ length: all - start }, (_, i) => start + 1 + i));
        const live = await s.create("/registry/widgets/ns/live", widget("live"));
        expect(change((await take(w, 1))[0]).revision).toBe(live.revision);
        const mid = revisions[10] as number;
        const w2 = await watch("/registry/widgets", { recursive: true, resourceVersion: String(mid) });
        const rest = (await take(w2, live.revision - mid)).map((e) => change(e).revision);
        expect(rest).toEqual(Array.from({ length: live.revision - mid }, (_, i) => mid + 1 + i));
      });

      it("keeps to its key or prefix: a single-key watch and /a/b vs /a/bc", async () => {
        const start = await s.currentRevision();
        const one = await watch("/registry/widgets/b/x", { resourceVersion: start });
        const dir = await watch("/registry/widgets/b", { recursive: true, resourceVersion: start });
        await s.create("/registry/widgets/b/xy", widget("xy"));
        await s.create("/registry/widgets/bc/x", widget("bcx"));
        await s.create("/registry/widgets/b", widget("b"));
        const x = await s.create("/registry/widgets/b/x", widget("x"));
        const y = await s.create("/registry/widgets/b/y", widget("y"));
        expect(summary(await take(one, 1))).toEqual([`ADDED /registry/widgets/b/x ${x.revision}`]);
        const dirEvents = summary(await take(dir, 3));
        expect(dirEvents).toEqual([
          `ADDED /registry/widgets/b/xy ${start + 1}`,
          `ADDED /registry/widgets/b/x ${x.revision}`,
          `ADDED /registry/widgets/b/y ${y.revision}`,
        ]);
      });

      it("ends after stop(), and when a for-await loop is left", async () => {
        const w = await watch("/registry/widgets", { recursive: true, resourceVersion: await s.currentRevision() });
        const pending = w.next();
        w.stop();
        expect((await pending).done).toBe(true);
        await s.create("/registry/widgets/ns/a", widget("a"));
        expect((await w.next()).done).toBe(true);
        w.stop();
        const w2 = await watch("/registry/widgets", { recursive: true, resourceVersion: await s.currentRevision() });
        await s.create("/registry/widgets/ns/b", widget("b"));
        await s.create("/registry/widgets/ns/c", widget("c"));
        const keys: string[] = [];
        for await (const e of w2) {
          keys.push(change(e).key);
          break;
        }
        expect(keys).toEqual(["/registry/widgets/ns/b"]);
        expect((await w2.next()).done).toBe(true);
      });

      it("refuses to start below the compaction horizon with ResourceVersionExpired", async () => {
        const c = await s.create("/registry/widgets/ns/a", widget("a"));
        await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur, spec: { v: 1 } }));
        const u = await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur, spec: { v: 2 } }));
        await s.compact(u.revision);
        await expectCode(s.watch("/registry/widgets", { recursive: true, resourceVersion: c.revision }), "ResourceVersionExpired");
        const w = await watch("/registry/widgets", { recursive: true, resourceVersion: u.revision });
        const n = await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur, spec: { v: 3 } }));
        const e = change((await take(w, 1))[0]);
        expect(e.revision).toBe(n.revision);
        expect(e.prevObject).toEqual(u.object);
      });

      it("feeds many watchers the same events", async () => {
        const start = await s.currentRevision();
        const watchers = await Promise.all(Array.from({ length: 50 }, () => watch("/registry/widgets", { recursive: true, resourceVersion: start })));
        for (let i = 0; i < 5; i++) await s.create(`/registry/widgets/ns/w${i}`, widget(`w${i}`));
        const expected = Array.from({ length: 5 }, (_, i) => `ADDED /registry/widgets/ns/w${i} ${start + 1 + i}`);
        for (const w of watchers) expect(summary(await take(w, 5))).toEqual(expected);
      });

      it("does not let a watcher that never reads block writers or other watchers", async () => {
        const start = await s.currentRevision();
        const slow = await watch("/registry/widgets", { recursive: true, resourceVersion: start });
        const fast = await watch("/registry/widgets", { recursive: true, resourceVersion: start });
        const total = 3000;
        const fastSeen: number[] = [];
        const reading = (async () => {
          while (fastSeen.length < total) fastSeen.push(change((await take(fast, 1))[0]).revision);
        })();
        for (let i = 0; i < total; i++) await s.create(`/registry/widgets/ns/w${i}`, widget(`w${i}`, { pad: "x".repeat(200) }));
        await reading;
        expect(fastSeen).toEqual(Array.from({ length: total }, (_, i) => start + 1 + i));
        // The slow watcher either still delivers everything in order, or ends with an ERROR
        // event after an in-order prefix (backends without a log to fall back on).
        let expectedRevision = start + 1;
        for (;;) {
          const e = await nextEvent(slow);
          if (e === undefined) throw new Error("slow watcher ended without an ERROR event");
          if (e.type === "BOOKMARK") continue;
          if (e.type === "ERROR") {
            expect(isStorageError(e.error)).toBe(true);
            break;
          }
          expect(e.revision).toBe(expectedRevision++);
          if (expectedRevision > start + total) break;
        }
      });

      it("applies a predicate with Kubernetes' transitions", async () => {
        const start = await s.currentRevision();
        const predicate = (o: StoredObject) => (o.metadata?.labels as Record<string, string> | undefined)?.team === "blue";
        const w = await watch("/registry/widgets", { recursive: true, resourceVersion: start, predicate });
        const key = "/registry/widgets/ns/a";
        const setTeam = (team: string) => (cur: StoredObject) => ({ ...cur, metadata: { ...cur.metadata, labels: { team } } });
        await s.create(key, widget("a", {}, { team: "red" }));
        const intoBlue = await s.guaranteedUpdate(key, setTeam("blue"));
        const stillBlue = await s.guaranteedUpdate(key, (cur) => ({ ...cur, spec: { v: 1 } }));
        const outOfBlue = await s.guaranteedUpdate(key, setTeam("green"));
        await s.delete(key);
        const blue = await s.create("/registry/widgets/ns/b", widget("b", {}, { team: "blue" }));
        const blueGone = await s.delete("/registry/widgets/ns/b");
        const events = (await take(w, 5)).map(change);
        expect(events.map((e) => [e.type, e.revision])).toEqual([
          ["ADDED", intoBlue.revision],
          ["MODIFIED", stillBlue.revision],
          ["DELETED", outOfBlue.revision],
          ["ADDED", blue.revision],
          ["DELETED", blueGone.revision],
        ]);
        expect(events[2]?.object.metadata?.labels).toEqual({ team: "blue" });
        expect(rv(events[2]?.object)).toBe(String(outOfBlue.revision));
      });

      it("sends BOOKMARK events with the current revision when asked", async () => {
        const w = await watch("/registry/widgets", { recursive: true, resourceVersion: await s.currentRevision(), allowBookmarks: true, bookmarkIntervalMs: 20 });
        const c = await s.create("/registry/widgets/ns/a", widget("a"));
        await s.create("/registry/other/x", widget("x"));
        const last = await s.currentRevision();
        let bookmark: WatchEvent | undefined;
        let sawAdd = false;
        while (bookmark === undefined) {
          const e = await nextEvent(w);
          if (e?.type === "ADDED") {
            expect(e.revision).toBe(c.revision);
            sawAdd = true;
          } else if (e?.type === "BOOKMARK" && sawAdd && e.revision >= last) bookmark = e;
        }
        expect(bookmark).toEqual({ type: "BOOKMARK", revision: last });
        const quiet = await watch("/registry/widgets", { recursive: true, resourceVersion: last });
        await s.create("/registry/widgets/ns/b", widget("b"));
        expect((await take(quiet, 1))[0]?.type).toBe("ADDED");
      });
    });

    describe("compaction", () => {
      it("keeps the state at the horizon readable and every change after it watchable", async () => {
        const a = await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        const b = await s.create("/registry/widgets/ns/b", widget("b", { v: 1 }));
        await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur, spec: { v: 2 } }));
        const gone = await s.create("/registry/widgets/ns/gone", widget("gone"));
        await s.delete("/registry/widgets/ns/gone");
        const horizon = await s.currentRevision();
        const after = await s.guaranteedUpdate("/registry/widgets/ns/b", (cur) => ({ ...cur, spec: { v: 2 } }));
        expect(await s.compact(horizon)).toBe(horizon);
        const atHorizon = await s.list("/registry/widgets/ns", { resourceVersion: horizon, resourceVersionMatch: "Exact" });
        expect(atHorizon.items.map((o) => [o.metadata?.name, o.spec])).toEqual([["a", { v: 2 }], ["b", { v: 1 }]]);
        await expectCode(s.list("/registry/widgets/ns", { resourceVersion: horizon - 1, resourceVersionMatch: "Exact" }), "ResourceVersionExpired");
        await expectCode(s.get("/registry/widgets/ns/a", { resourceVersion: a.revision, resourceVersionMatch: "Exact" }), "ResourceVersionExpired");
        await expectCode(s.get("/registry/widgets/ns/gone", { resourceVersion: gone.revision, resourceVersionMatch: "Exact" }), "ResourceVersionExpired");
        const w = await watch("/registry/widgets", { recursive: true, resourceVersion: horizon });
        const e = change((await take(w, 1))[0]);
        expect(e).toMatchObject({ type: "MODIFIED", revision: after.revision });
        expect(e.prevObject).toEqual(b.object);
        expect((await s.list("/registry/widgets/ns")).items).toHaveLength(2);
        expect(await s.count("/registry/widgets/ns")).toBe(2);
      });

      it("ignores a horizon at or below the current one and refuses a future revision", async () => {
        await s.create("/registry/widgets/ns/a", widget("a"));
        const r = await s.currentRevision();
        expect(await s.compact(r)).toBe(r);
        expect(await s.compact(r - 1)).toBe(r);
        await expectCode(s.compact(r + 10), "TooLargeResourceVersion");
        const next = await s.create("/registry/widgets/ns/b", widget("b"));
        expect(next.revision).toBeGreaterThan(r);
      });
    });

    describe("reopen", () => {
      it("keeps objects, keeps revisions increasing and remembers the compaction horizon", async (ctx) => {
        if (env.reopen === undefined) {
          ctx.skip();
          return;
        }
        const a = await s.create("/registry/widgets/ns/a", widget("a", { v: 1 }));
        await s.guaranteedUpdate("/registry/widgets/ns/a", (cur) => ({ ...cur, spec: { v: 2 } }));
        await s.create("/registry/widgets/ns/b", widget("b"));
        const d = await s.delete("/registry/widgets/ns/b");
        await s.compact(d.revision);
        const list = await s.list("/registry/widgets/ns");
        s = await env.reopen();
        expect(await s.currentRevision()).toBe(d.revision);
        expect(await s.list("/registry/widgets/ns")).toEqual(list);
        await expectCode(s.get("/registry/widgets/ns/a", { resourceVersion: a.revision, resourceVersionMatch: "Exact" }), "ResourceVersionExpired");
        const w = await watch("/registry/widgets", { recursive: true, resourceVersion: d.revision });
        const c = await s.create("/registry/widgets/ns/c", widget("c"));
        expect(c.revision).toBe(d.revision + 1);
        expect(change((await take(w, 1))[0]).revision).toBe(c.revision);
      });
    });

    describe("close", () => {
      it("ends watchers and refuses later calls with Unreachable", async () => {
        const w = await s.watch("/registry/widgets", { recursive: true });
        const pending = w.next();
        await s.close();
        expect((await pending).done).toBe(true);
        await expectCode(s.get("/registry/widgets/ns/a"), "Unreachable");
        await expectCode(s.create("/registry/widgets/ns/a", widget("a")), "Unreachable");
        await s.close();
      });
    });
  });
}
