// A write whose connection breaks after etcd applied it must still be answered with what happened.
// A TCP proxy on loopback sits between the storage and a real etcd: it passes the request bytes,
// swallows etcd's answer, and cuts the connections once the write is visible in etcd — a real
// network fault after the request was sent, not a mock.
import { connect, createServer } from "node:net";
import type { Server, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findEtcdBinary, isStorageError, openEtcdStorage, startLocalEtcd } from "../src/index.js";
import type { EtcdStorage, LocalEtcd, StoredObject } from "../src/index.js";

/** Forwards loopback TCP to etcd. `swallow` drops etcd's bytes; `down` refuses new connections. */
class CutProxy {
  mode: "pass" | "swallow" | "down" = "pass";
  readonly #pairs = new Set<[Socket, Socket]>();
  readonly #server: Server;
  port = 0;

  constructor(private readonly targetPort: number) {
    this.#server = createServer((client) => {
      if (this.mode === "down") {
        client.destroy();
        return;
      }
      const upstream = connect(this.targetPort, "127.0.0.1");
      const pair: [Socket, Socket] = [client, upstream];
      this.#pairs.add(pair);
      client.on("data", (d: Buffer) => upstream.write(d));
      upstream.on("data", (d: Buffer) => {
        if (this.mode === "pass") client.write(d);
      });
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.#pairs.delete(pair);
      };
      client.on("close", close).on("error", close);
      upstream.on("close", close).on("error", close);
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    const address = this.#server.address();
    this.port = typeof address === "object" && address !== null ? address.port : 0;
    return `http://127.0.0.1:${this.port}`;
  }

  /** Destroys every open connection (both sides). */
  cut(): number {
    const n = this.#pairs.size;
    for (const [a, b] of [...this.#pairs]) {
      a.destroy();
      b.destroy();
    }
    this.#pairs.clear();
    return n;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const object = (name: string, data: string): StoredObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", uid: `uid-${name}` }, data: { v: data } });

describe.skipIf(findEtcdBinary() === undefined)("etcd writes whose connection is cut after etcd applied them", () => {
  let etcd: LocalEtcd;
  let proxy: CutProxy;
  let viaProxy: EtcdStorage;
  let direct: EtcdStorage;
  let shortDeadline: EtcdStorage;
  let n = 0;

  beforeAll(async () => {
    etcd = await startLocalEtcd();
    proxy = new CutProxy(Number(new URL(etcd.clientUrl).port));
    const url = await proxy.listen();
    viaProxy = await openEtcdStorage({ servers: [url], prefix: "/cut", compactionIntervalMs: 0, requestTimeoutMs: 8_000 });
    direct = await openEtcdStorage({ servers: [etcd.clientUrl], prefix: "/cut", compactionIntervalMs: 0 });
    shortDeadline = await openEtcdStorage({ servers: [url], prefix: "/cut", compactionIntervalMs: 0, requestTimeoutMs: 2_000 });
  });
  afterAll(async () => {
    await viaProxy?.close();
    await direct?.close();
    await shortDeadline?.close();
    await proxy?.close();
    await etcd?.stop();
  });

  /** Runs `write` through the proxy with etcd's answer swallowed; cuts the connections once `landed` holds. */
  async function cutAfterApply<T>(write: () => Promise<T>, landed: () => Promise<boolean>, modeAfterCut: "pass" | "down" = "pass", swallowNow = true): Promise<PromiseSettledResult<T>> {
    if (swallowNow) proxy.mode = "swallow";
    const pending = write();
    const settled = pending.then(
      (value): PromiseSettledResult<T> => ({ status: "fulfilled", value }),
      (reason: unknown): PromiseSettledResult<T> => ({ status: "rejected", reason }),
    );
    try {
      await waitFor("the write to reach etcd", landed);
    } finally {
      proxy.mode = modeAfterCut;
      expect(proxy.cut()).toBeGreaterThan(0);
    }
    return await settled;
  }

  it("a create that landed is answered with its revision, not KeyExists", async () => {
    const key = `/registry/configmaps/default/create-${++n}`;
    const r = await cutAfterApply(() => viaProxy.create(key, object(`create-${n}`, "a")), async () => (await direct.get(key, { ignoreNotFound: true })) !== null);
    if (r.status === "rejected") throw r.reason;
    const stored = await direct.get(key);
    expect(r.value.revision).toBe(Number(stored.metadata?.resourceVersion));
    expect(r.value.object).toEqual(stored);
  });

  it("a conditional update that landed is answered with its revision, not a conflict", async () => {
    const key = `/registry/configmaps/default/update-${++n}`;
    const created = await viaProxy.create(key, object(`update-${n}`, "a"));
    let calls = 0;
    const r = await cutAfterApply(
      () =>
        viaProxy.guaranteedUpdate(key, (input, meta) => {
          calls++;
          // The read is answered; swallow what etcd answers to the write.
          proxy.mode = "swallow";
          // As the apiserver's update: the client's resourceVersion must still be current.
          if (meta.revision !== created.revision) throw new Error(`conflict: the object has been modified (${meta.revision} != ${created.revision})`);
          return { ...input, data: { v: "b" } };
        }),
      async () => ((await direct.get(key)).data as { v: string }).v === "b",
      "pass",
      false,
    );
    if (r.status === "rejected") throw r.reason;
    const stored = await direct.get(key);
    expect(r.value.revision).toBe(Number(stored.metadata?.resourceVersion));
    expect(r.value.revision).toBeGreaterThan(created.revision);
    expect(calls).toBe(1);
  });

  it("a delete that landed is answered as deleted, not NotFound", async () => {
    const key = `/registry/configmaps/default/delete-${++n}`;
    const created = await viaProxy.create(key, object(`delete-${n}`, "a"));
    const r = await cutAfterApply(
      () => viaProxy.delete(key, { validateDeletion: () => void (proxy.mode = "swallow") }),
      async () => (await direct.get(key, { ignoreNotFound: true })) === null,
      "pass",
      false,
    );
    if (r.status === "rejected") throw r.reason;
    expect(r.value.revision).toBeGreaterThan(created.revision);
    expect(r.value.object.metadata?.name).toBe(`delete-${n}`);
  });

  it("a write whose outcome cannot be read back is Unreachable (outcome unknown), and the storage recovers", async () => {
    const key = `/registry/configmaps/default/unknown-${++n}`;
    const started = Date.now();
    const r = await cutAfterApply(() => shortDeadline.create(key, object(`unknown-${n}`, "a")), async () => (await direct.get(key, { ignoreNotFound: true })) !== null, "down");
    expect(r.status).toBe("rejected");
    const reason = (r as PromiseRejectedResult).reason as Error;
    expect(isStorageError(reason, "Unreachable")).toBe(true);
    expect(reason.message).toContain("the outcome of the write is unknown");
    // Answered once the write's deadline (requestTimeoutMs, 2 s here) has passed.
    expect(Date.now() - started).toBeLessThan(4_000);
    proxy.mode = "pass";
    // It did land: a later read through the same storage shows it, once etcd is reachable again.
    await waitFor("the storage to reach etcd again", async () => (await viaProxy.get(key, { ignoreNotFound: true }).catch(() => null)) !== null);
    const again = await viaProxy.guaranteedUpdate(key, (input) => ({ ...input, data: { v: "c" } }));
    expect(again.revision).toBe(Number((await direct.get(key)).metadata?.resourceVersion));
  });

  it("a write whose request never reached etcd is sent again and succeeds once", async () => {
    const key = `/registry/configmaps/default/resend-${++n}`;
    // Refuse connections for a moment, cutting the open ones: the first attempt fails before etcd
    // sees it. (The client's per-host circuit breaker may then skip the only host for 5 s; the
    // write's 8 s deadline covers that.)
    proxy.mode = "down";
    proxy.cut();
    const pending = viaProxy.create(key, object(`resend-${n}`, "a"));
    setTimeout(() => (proxy.mode = "pass"), 300);
    const r = await pending;
    expect(r.revision).toBe(Number((await direct.get(key)).metadata?.resourceVersion));
  });
});
