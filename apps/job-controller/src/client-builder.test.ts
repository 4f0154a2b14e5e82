import { newNotFound } from "@skiff/apimachinery";
import type { Client, TokenRequest } from "@skiff/client";
import { describe, expect, it } from "vitest";
import { getOrCreateServiceAccount, serviceAccountTokenSource } from "./client-builder.js";

/** A root client that knows service accounts and answers TokenRequests with tokens t1, t2, ... of `lifetimeS`. */
function fakeRoot(o: { now: () => number; lifetimeS: number; failFirst?: number }) {
  const accounts = new Set<string>();
  const calls: string[] = [];
  let issued = 0;
  let failures = o.failFirst ?? 0;
  const root = {
    serviceAccounts: {
      get: (name: string, opts: { namespace: string }) => {
        calls.push(`get sa ${opts.namespace}/${name}`);
        return accounts.has(`${opts.namespace}/${name}`) ? Promise.resolve({}) : Promise.reject(newNotFound({ group: "", resource: "serviceaccounts" }, name));
      },
      create: (sa: { metadata: { name: string; namespace: string } }) => {
        calls.push(`create sa ${sa.metadata.namespace}/${sa.metadata.name}`);
        accounts.add(`${sa.metadata.namespace}/${sa.metadata.name}`);
        return Promise.resolve(sa);
      },
    },
    namespaces: { get: () => Promise.resolve({}), create: () => Promise.resolve({}) },
    createServiceAccountToken: (target: { namespace: string; name: string }, spec: { expirationSeconds?: number }): Promise<TokenRequest> => {
      calls.push(`token ${target.namespace}/${target.name} ${String(spec.expirationSeconds)}`);
      if (failures > 0) {
        failures--;
        return Promise.reject(new Error("apiserver unavailable"));
      }
      issued++;
      return Promise.resolve({
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: { audiences: [], expirationSeconds: o.lifetimeS },
        status: { token: `t${String(issued)}`, expirationTimestamp: new Date(o.now() + o.lifetimeS * 1000).toISOString() },
      });
    },
  };
  return { root: root as unknown as Client, calls };
}

describe("getOrCreateServiceAccount", () => {
  it("creates a missing service account, and only reads an existing one", async () => {
    const { root, calls } = fakeRoot({ now: Date.now, lifetimeS: 3600 });
    await getOrCreateServiceAccount(root, "kube-system", "job-controller");
    await getOrCreateServiceAccount(root, "kube-system", "job-controller");
    expect(calls).toEqual(["get sa kube-system/job-controller", "create sa kube-system/job-controller", "get sa kube-system/job-controller"]);
  });
});

describe("serviceAccountTokenSource", () => {
  it("asks one hour, keeps the token until 20 % of its lifetime is left, then asks again", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const { root, calls } = fakeRoot({ now: () => now, lifetimeS: 3600 });
    const source = serviceAccountTokenSource(root, { namespace: "kube-system", name: "job-controller", now: () => now });
    expect(await source.token()).toBe("t1");
    expect(calls.filter((c) => c.startsWith("token"))).toEqual(["token kube-system/job-controller 3600"]);
    now += 47 * 60_000; // 13 minutes left: more than 20 % (12 minutes)
    expect(await source.token()).toBe("t1");
    now += 2 * 60_000;
    expect(await source.token()).toBe("t2");
  });

  it("concurrent callers share one request; reset() (after a 401) forces a new token", async () => {
    const now = Date.now();
    const { root, calls } = fakeRoot({ now: () => now, lifetimeS: 3600 });
    const source = serviceAccountTokenSource(root, { namespace: "kube-system", name: "node-controller", now: () => now });
    expect(await Promise.all([source.token(), source.token(), source.token()])).toEqual(["t1", "t1", "t1"]);
    expect(calls.filter((c) => c.startsWith("token"))).toHaveLength(1);
    source.reset?.();
    expect(await source.token()).toBe("t2");
  });

  it("a lifetime under 10 minutes counts as 10 minutes (clock skew)", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const { root } = fakeRoot({ now: () => now, lifetimeS: 60 });
    const source = serviceAccountTokenSource(root, { namespace: "kube-system", name: "x", now: () => now });
    expect(await source.token()).toBe("t1");
    now += 7 * 60_000; // before 80 % of 10 minutes
    expect(await source.token()).toBe("t1");
  });

  it("retries four times, 500 ms apart and doubling, then rejects naming the account and the last error", async () => {
    const waits: number[] = [];
    const { root } = fakeRoot({ now: Date.now, lifetimeS: 3600, failFirst: 4 });
    const source = serviceAccountTokenSource(root, { namespace: "kube-system", name: "job-controller", sleep: (ms) => (waits.push(ms), Promise.resolve()) });
    await expect(source.token()).rejects.toThrow("failed to get token for kube-system/job-controller: apiserver unavailable");
    expect(waits).toEqual([500, 1000, 2000]);
    expect(await source.token()).toBe("t1");
  });
});
