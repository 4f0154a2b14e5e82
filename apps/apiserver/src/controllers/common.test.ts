import { FakeClock, ItemExponentialFailureRateLimiter, RateLimitingQueue } from "@skiff/client";
import { MemoryStorage, StorageError } from "@skiff/storage";
import type { Storage, WatchEvent, WatchOptions, Watcher } from "@skiff/storage";
import { afterEach, describe, expect, it } from "vitest";
import { startWatchedWorker } from "./common.js";

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error(`never happened: ${what}`);
};

describe("startWatchedWorker", () => {
  it("feeds the queue from the watch, retries a failing key after the rate limiter's back-off and forgets it once synced", async () => {
    const storage = new MemoryStorage({ compactionIntervalMs: 0 });
    cleanup.push(() => storage.close());
    const clock = new FakeClock();
    const queue = new RateLimitingQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter<string>(100, 1000) });
    const synced: string[] = [];
    const logged: string[] = [];
    let failures = 2;
    const stop = await startWatchedWorker(storage, {
      name: "test",
      prefix: "/registry/x/",
      queue,
      sync: (key) => {
        synced.push(key);
        if (failures-- > 0) return Promise.reject(new Error("boom"));
        return Promise.resolve();
      },
      onChange: (e) => queue.add(e.key),
      log: (l) => logged.push(l),
    });
    cleanup.push(stop);
    await storage.create("/registry/x/a", { metadata: { name: "a" } });
    await until(() => synced.length === 1, "first sync");
    expect(logged).toEqual(["test: /registry/x/a: boom"]);
    expect(queue.numRequeues("/registry/x/a")).toBe(1);
    // The first retry waits 100 ms, the second 200 ms (per-key exponential back-off).
    clock.advance(99);
    await new Promise((r) => setTimeout(r, 20));
    expect(synced).toHaveLength(1);
    clock.advance(1);
    await until(() => synced.length === 2, "first retry");
    await until(() => queue.numRequeues("/registry/x/a") === 2, "second failure recorded");
    clock.advance(200);
    await until(() => synced.length === 3, "second retry");
    await until(() => queue.numRequeues("/registry/x/a") === 0, "forgotten after success");
    expect(synced).toEqual(["/registry/x/a", "/registry/x/a", "/registry/x/a"]);
  });

  it("stops syncing at once when stopped, even with keys still queued", async () => {
    const storage = new MemoryStorage({ compactionIntervalMs: 0 });
    cleanup.push(() => storage.close());
    const queue = new RateLimitingQueue<string>();
    const synced: string[] = [];
    let release: () => void = () => undefined;
    const stop = await startWatchedWorker(storage, {
      name: "test",
      prefix: "/registry/x/",
      queue,
      sync: (key) => {
        synced.push(key);
        return new Promise<void>((r) => (release = r));
      },
      onChange: () => undefined,
      log: () => undefined,
    });
    queue.add("a");
    queue.add("b");
    queue.add("c");
    await until(() => synced.length === 1, "first sync");
    stop();
    release();
    await new Promise((r) => setTimeout(r, 30));
    expect(synced).toEqual(["a"]);
    // A stopped worker's queue takes nothing new.
    const left = queue.len();
    queue.add("d");
    expect(queue.len()).toBe(left);
  });

  it("hands the events under the prefix to onChange", async () => {
    const storage = new MemoryStorage({ compactionIntervalMs: 0 });
    cleanup.push(() => storage.close());
    const queue = new RateLimitingQueue<string>();
    const events: string[] = [];
    const stop = await startWatchedWorker(storage, {
      name: "test",
      prefix: "/registry/x/",
      queue,
      sync: () => Promise.resolve(),
      onChange: (e) => events.push(`${e.type} ${e.key}`),
      log: () => undefined,
    });
    cleanup.push(stop);
    await storage.create("/registry/x/a", { metadata: { name: "a" } });
    await storage.delete("/registry/x/a");
    await storage.create("/registry/y/b", { metadata: { name: "b" } });
    await until(() => events.length === 2, "two events");
    expect(events).toEqual(["ADDED /registry/x/a", "DELETED /registry/x/a"]);
  });
  // The real MemoryStorage; only its first watch is wrapped to end with an ERROR after one event
  // (what a failed etcd stream or a consumer that fell behind delivers).
  function failingOnce(storage: MemoryStorage): { storage: Storage; watchOptions: (WatchOptions | undefined)[] } {
    const watchOptions: (WatchOptions | undefined)[] = [];
    const wrapped = new Proxy(storage, {
      get(target, p) {
        if (p === "watch") {
          return async (key: string, options?: WatchOptions): Promise<Watcher> => {
            watchOptions.push(options);
            const inner = await target.watch(key, options);
            if (watchOptions.length > 1) return inner;
            let delivered = 0;
            const w: Watcher & { return(): Promise<IteratorResult<WatchEvent, undefined>> } = {
              async next(): Promise<IteratorResult<WatchEvent, undefined>> {
                if (delivered++ === 1) return { done: false, value: { type: "ERROR", error: new StorageError("Unreachable", { detail: "injected stream failure" }) } };
                return inner.next();
              },
              async return() {
                inner.stop();
                return { done: true, value: undefined };
              },
              stop: () => inner.stop(),
              [Symbol.asyncIterator]() {
                return w;
              },
            };
            return w;
          };
        }
        const v = Reflect.get(target, p, target) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    return { storage: wrapped, watchOptions };
  }

  // A worker over a MemoryStorage whose first watch fails after one event, recording what it sees.
  async function recordingWorker(): Promise<{ memory: MemoryStorage; watchOptions: (WatchOptions | undefined)[]; events: string[]; logged: string[] }> {
    const memory = new MemoryStorage({ compactionIntervalMs: 0 });
    cleanup.push(() => memory.close());
    const { storage, watchOptions } = failingOnce(memory);
    const events: string[] = [];
    const logged: string[] = [];
    const stop = await startWatchedWorker(storage, {
      name: "test",
      prefix: "/registry/x/",
      queue: new RateLimitingQueue<string>(),
      sync: () => Promise.resolve(),
      onChange: (e) => events.push(`${e.type} ${e.key}`),
      log: (l) => logged.push(l),
      rewatchDelayMs: 200,
    });
    cleanup.push(stop);
    return { memory, watchOptions, events, logged };
  }

  it("opens the watch again after an ERROR, from the last event's revision: changes made meanwhile arrive once, nothing is missed", async () => {
    const { memory, watchOptions, events, logged } = await recordingWorker();
    const a = await memory.create("/registry/x/a", { metadata: { name: "a" } });
    await until(() => logged.length === 1, "the watch ended");
    // While no watch is open:
    await memory.create("/registry/x/b", { metadata: { name: "b" } });
    await memory.delete("/registry/x/a");
    await until(() => events.length === 3, "three events");
    expect(events).toEqual(["ADDED /registry/x/a", "ADDED /registry/x/b", "DELETED /registry/x/a"]);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^test: watch ended: .*injected stream failure; watching again$/);
    expect(watchOptions.map((o) => o?.resourceVersion)).toEqual([undefined, a.revision]);
    await memory.create("/registry/x/c", { metadata: { name: "c" } });
    await until(() => events.length === 4, "a live event on the new watch");
    expect(events[3]).toBe("ADDED /registry/x/c");
  });

  it("when the last revision is compacted meanwhile, watches from the current state (every object ADDED again)", async () => {
    const { memory, watchOptions, events, logged } = await recordingWorker();
    const a = await memory.create("/registry/x/a", { metadata: { name: "a" } });
    await until(() => logged.length === 1, "the watch ended");
    const b = await memory.create("/registry/x/b", { metadata: { name: "b" } });
    await memory.compact(b.revision);
    await until(() => events.length === 3, "the objects again");
    expect(events).toEqual(["ADDED /registry/x/a", "ADDED /registry/x/a", "ADDED /registry/x/b"]);
    expect(logged[1]).toBe(`test: revision ${a.revision} is compacted; watching from the current state`);
    expect(watchOptions.map((o) => o?.resourceVersion)).toEqual([undefined, a.revision, undefined]);
  });
});
