import { describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import { newNotFound } from "@skiff/apimachinery";
import type { Client } from "@skiff/client";
import { CacheObjectManager, GetObjectManager, WatchObjectManager, type ObjectManager } from "./object-manager.js";
import { createPodObjectManagers, envReferencedNames, fetchEnvObjects, type ConfigMapObject, type PodObjectManagers, type SecretObject } from "./pod-objects.js";

const client = { configMaps: {}, secrets: {} } as unknown as Client;

describe("createPodObjectManagers", () => {
  it("builds the managers of each strategy", () => {
    const watch = createPodObjectManagers({ client, strategy: "Watch" });
    expect(watch.configMaps).toBeInstanceOf(WatchObjectManager);
    watch.configMaps.stop();
    watch.secrets.stop();
    expect(createPodObjectManagers({ client, strategy: "Cache" }).secrets).toBeInstanceOf(CacheObjectManager);
    expect(createPodObjectManagers({ client, strategy: "Get" }).configMaps).toBeInstanceOf(GetObjectManager);
  });

  it("gives the service-account token manager the clock passed as `now`", async () => {
    let requests = 0;
    let nowMs = Date.parse("2026-01-01T00:00:00Z");
    const tokenClient = {
      ...client,
      createServiceAccountToken: (_t: unknown, spec: { expirationSeconds?: number }) => {
        requests++;
        const exp = spec.expirationSeconds ?? 3600;
        return Promise.resolve({ spec: { audiences: [], expirationSeconds: exp }, status: { token: `t${requests}`, expirationTimestamp: new Date(nowMs + exp * 1000).toISOString() } });
      },
    } as unknown as Client;
    const tokens = createPodObjectManagers({ client: tokenClient, strategy: "Get", now: () => nowMs }).serviceAccountTokens;
    const spec = { audiences: ["a"], expirationSeconds: 600 };
    expect((await tokens?.get("ns", "sa", spec))?.status.token).toBe("t1");
    expect((await tokens?.get("ns", "sa", spec))?.status.token).toBe("t1");
    nowMs += 500_000; // past 80 % of 600 s on the given clock only
    expect((await tokens?.get("ns", "sa", spec))?.status.token).toBe("t2");
  });

  it("refuses another strategy with 1.23's message", () => {
    expect(() => createPodObjectManagers({ client, strategy: "Sometimes" as "Get" })).toThrow("unknown configmap and secret manager mode: Sometimes");
  });
});

describe("fetchEnvObjects", () => {
  const pod: Pod = {
    metadata: { name: "p", namespace: "ns" },
    spec: {
      initContainers: [{ name: "i", envFrom: [{ secretRef: { name: "s1" } }] }],
      containers: [{ name: "c", envFrom: [{ configMapRef: { name: "cm1" } }], env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "cm2", key: "k" } } }] }],
      volumes: [{ name: "v", configMap: { name: "only-a-volume" } }],
    },
  };

  it("lists only the env references", () => {
    expect(envReferencedNames(pod)).toEqual({ configMaps: new Set(["cm1", "cm2"]), secrets: new Set(["s1"]) });
  });

  it("fetches each once and keeps failures by name", async () => {
    const asked: string[] = [];
    const mgr = <T>(have: Record<string, T>, resource: string): ObjectManager<T> => ({
      get: async (ns, name) => {
        asked.push(`${resource} ${ns}/${name}`);
        const o = have[name];
        if (!o) throw newNotFound({ group: "", resource }, name);
        return o;
      },
      registerPod: () => {},
      unregisterPod: () => {},
      stop: () => {},
    });
    const managers: PodObjectManagers = { configMaps: mgr<ConfigMapObject>({ cm1: { data: { a: "1" } } }, "configmap"), secrets: mgr<SecretObject>({ s1: { data: {} } }, "secret") };
    const got = await fetchEnvObjects(pod, managers);
    expect(asked.sort()).toEqual(["configmap ns/cm1", "configmap ns/cm2", "secret ns/s1"]);
    expect(got.configMaps.get("cm1")).toEqual({ ok: true, object: { data: { a: "1" } } });
    const failed = got.configMaps.get("cm2");
    expect(failed?.ok).toBe(false);
    expect(failed && !failed.ok ? String(failed.error) : "").toContain('configmap "cm2" not found');
  });
});
