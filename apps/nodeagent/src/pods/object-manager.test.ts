import { afterEach, describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import { newNotFound, StatusError } from "@skiff/apimachinery";
import type { ResourceClient, ResourceWatchEvent, Watch } from "@skiff/client";
import { CacheObjectManager, GetObjectManager, podConfigMapNames, podSecretNames, WatchObjectManager, type ObjectManager } from "./object-manager.js";
import type { ConfigMapObject } from "./pod-objects.js";

// An in-memory configmaps resource: get/listAll/watch (field selector metadata.name) with revisions.
function fakeConfigMaps() {
  const objects = new Map<string, ConfigMapObject>();
  let rv = 1;
  let gets = 0;
  const watchers = new Set<{ ns: string; name: string; push: (e: ResourceWatchEvent<ConfigMapObject>) => void }>();
  const nameOf = (sel: string | undefined) => /^metadata\.name=(.*)$/.exec(sel ?? "")?.[1] ?? "";
  const put = (ns: string, name: string, data: Record<string, string>, immutable = false) => {
    const type = objects.has(`${ns}/${name}`) ? "MODIFIED" : "ADDED";
    const obj: ConfigMapObject = { metadata: { namespace: ns, name, resourceVersion: String(++rv) }, data, ...(immutable ? { immutable } : {}) };
    objects.set(`${ns}/${name}`, obj);
    for (const w of watchers) if (w.ns === ns && w.name === name) w.push({ type, object: obj });
  };
  const client = {
    get: async (name: string, o?: { namespace?: string }) => {
      gets++;
      const obj = objects.get(`${o?.namespace ?? ""}/${name}`);
      if (!obj) throw newNotFound({ group: "", resource: "configmaps" }, name);
      return obj;
    },
    listAll: async (o?: { namespace?: string; fieldSelector?: string }) => {
      const obj = objects.get(`${o?.namespace ?? ""}/${nameOf(o?.fieldSelector)}`);
      return { apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion: String(rv) }, items: obj ? [obj] : [] };
    },
    watch: (o?: { namespace?: string; fieldSelector?: string; signal?: AbortSignal }): Watch<ConfigMapObject> => {
      const queue: Array<ResourceWatchEvent<ConfigMapObject>> = [];
      let wake: (() => void) | undefined;
      let done = false;
      const w = { ns: o?.namespace ?? "", name: nameOf(o?.fieldSelector), push: (e: ResourceWatchEvent<ConfigMapObject>) => (queue.push(e), wake?.()) };
      watchers.add(w);
      const stop = () => {
        done = true;
        watchers.delete(w);
        wake?.();
      };
      o?.signal?.addEventListener("abort", stop);
      return {
        stop,
        async *[Symbol.asyncIterator]() {
          while (!done) {
            const e = queue.shift();
            if (e) yield e;
            else await new Promise<void>((r) => (wake = r));
          }
        },
      };
    },
  } as unknown as ResourceClient<ConfigMapObject>;
  return { client, put, watchers, gets: () => gets };
}

const pod = (uid: string, names: string[]): Pod => ({
  metadata: { name: `p-${uid}`, namespace: "ns", uid },
  spec: { containers: [{ name: "c", image: "i", envFrom: names.map((name) => ({ configMapRef: { name } })) }] },
});

const managers: Array<ObjectManager<unknown>> = [];
afterEach(() => {
  for (const m of managers.splice(0)) m.stop();
});

describe("referenced names", () => {
  it("visits env, envFrom, volumes, projections, image pull secrets and CSI secrets", () => {
    const p: Pod = {
      metadata: { name: "p", namespace: "ns" },
      spec: {
        imagePullSecrets: [{ name: "pull" }],
        initContainers: [{ name: "i", envFrom: [{ configMapRef: { name: "cm-init" } }, { secretRef: { name: "s-init" } }] }],
        containers: [{ name: "c", env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "cm-env", key: "k" } } }, { name: "B", valueFrom: { secretKeyRef: { name: "s-env", key: "k" } } }] }],
        volumes: [
          { name: "v1", configMap: { name: "cm-vol" } },
          { name: "v2", secret: { secretName: "s-vol" } },
          { name: "v3", projected: { sources: [{ configMap: { name: "cm-proj" } }, { secret: { name: "s-proj" } }] } },
          { name: "v4", csi: { driver: "d", nodePublishSecretRef: { name: "s-csi" } } },
        ],
      },
    };
    expect([...podConfigMapNames(p)].sort()).toEqual(["cm-env", "cm-init", "cm-proj", "cm-vol"]);
    expect([...podSecretNames(p)].sort()).toEqual(["pull", "s-csi", "s-env", "s-init", "s-proj", "s-vol"]);
  });
});

describe("GetObjectManager", () => {
  it("asks the apiserver every time, with its NotFound message", async () => {
    const f = fakeConfigMaps();
    const m = new GetObjectManager(f.client);
    await expect(m.get("ns", "a")).rejects.toThrow('configmaps "a" not found');
    f.put("ns", "a", { k: "1" });
    expect((await m.get("ns", "a")).data).toEqual({ k: "1" });
    await m.get("ns", "a");
    expect(f.gets()).toBe(3);
  });
});

describe("CacheObjectManager", () => {
  it("serves from the cache within the TTL, refetches after it or after a pod update, caches NotFound", async () => {
    const f = fakeConfigMaps();
    let now = 0;
    const m = new CacheObjectManager(f.client, podConfigMapNames, { ttlMs: 1000, now: () => now });
    await expect(m.get("ns", "a")).rejects.toThrow('object "ns"/"a" not registered');
    const p = pod("u1", ["a"]);
    m.registerPod(p);
    await expect(m.get("ns", "a")).rejects.toThrow('configmaps "a" not found');
    f.put("ns", "a", { k: "1" });
    // A cached NotFound is an error entry: fetched again at once.
    expect((await m.get("ns", "a")).data).toEqual({ k: "1" });
    f.put("ns", "a", { k: "2" });
    expect((await m.get("ns", "a")).data).toEqual({ k: "1" });
    now = 1000;
    expect((await m.get("ns", "a")).data).toEqual({ k: "2" });
    f.put("ns", "a", { k: "3" });
    m.registerPod(p); // an update of the pod invalidates its objects
    expect((await m.get("ns", "a")).data).toEqual({ k: "3" });
    m.unregisterPod(p);
    await expect(m.get("ns", "a")).rejects.toThrow("not registered");
  });
});

describe("WatchObjectManager", () => {
  it("answers from a per-object watch, follows updates, and stops when no pod references it", async () => {
    const f = fakeConfigMaps();
    const m = new WatchObjectManager(f.client, podConfigMapNames, { groupResource: "configmap", isImmutable: (o) => (o as ConfigMapObject).immutable === true });
    managers.push(m as ObjectManager<unknown>);
    const p1 = pod("u1", ["a"]);
    const p2 = pod("u2", ["a"]);
    m.registerPod(p1);
    m.registerPod(p2);
    await expect(m.get("ns", "a")).rejects.toThrow(new StatusError(newNotFound({ group: "", resource: "configmap" }, "a").status));
    await expect(m.get("ns", "a")).rejects.toThrow('configmap "a" not found');
    f.put("ns", "a", { k: "1" });
    await expect.poll(async () => (await m.get("ns", "a").catch(() => undefined))?.data).toEqual({ k: "1" });
    f.put("ns", "a", { k: "2" });
    await expect.poll(async () => (await m.get("ns", "a")).data).toEqual({ k: "2" });
    expect(f.gets()).toBe(0);
    expect(f.watchers.size).toBe(1);
    m.unregisterPod(p1);
    expect(f.watchers.size).toBe(1);
    m.unregisterPod(p2);
    await expect.poll(() => f.watchers.size).toBe(0);
    await expect(m.get("ns", "a")).rejects.toThrow("not registered");
  });

  it("stops watching an immutable object and keeps serving it", async () => {
    const f = fakeConfigMaps();
    const m = new WatchObjectManager(f.client, podConfigMapNames, { groupResource: "configmap", isImmutable: (o) => (o as ConfigMapObject).immutable === true });
    managers.push(m as ObjectManager<unknown>);
    f.put("ns", "frozen", { k: "v" }, true);
    m.registerPod(pod("u1", ["frozen"]));
    expect((await m.get("ns", "frozen")).data).toEqual({ k: "v" });
    await expect.poll(() => f.watchers.size).toBe(0);
    expect((await m.get("ns", "frozen")).data).toEqual({ k: "v" });
  });

  it("reports a watch that does not sync in time", async () => {
    const f = fakeConfigMaps();
    const slow = { ...f.client, listAll: () => new Promise(() => {}) } as unknown as ResourceClient<ConfigMapObject>;
    const m = new WatchObjectManager(slow, podConfigMapNames, { groupResource: "configmap", isImmutable: () => false, syncTimeoutMs: 50 });
    managers.push(m as ObjectManager<unknown>);
    m.registerPod(pod("u1", ["a"]));
    await expect(m.get("ns", "a")).rejects.toThrow("failed to sync configmap cache: timed out waiting for the condition");
  });
});
