import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { TokenRequest } from "@skiff/client";
import { createPodRuntime } from "./pod-runtime.js";
import { ServiceAccountTokenManager, serviceAccountTokenCleanupPeriodMs, tokenRequiresRefresh } from "./token-manager.js";
import type { PodObjectManagers } from "./pod-objects.js";

const t0 = Date.parse("2026-01-01T00:00:00Z");
const tr = (expirationSeconds: number, issuedMs = t0, token = "t"): TokenRequest => ({
  apiVersion: "authentication.k8s.io/v1",
  kind: "TokenRequest",
  spec: { audiences: [], expirationSeconds },
  status: { token, expirationTimestamp: new Date(issuedMs + expirationSeconds * 1000).toISOString() },
});

describe("tokenRequiresRefresh", () => {
  it("refreshes past 80 % of the lifetime, less the jitter", () => {
    expect(tokenRequiresRefresh(tr(1000), t0 + 799_000)).toBe(false);
    expect(tokenRequiresRefresh(tr(1000), t0 + 801_000)).toBe(true);
    expect(tokenRequiresRefresh(tr(1000), t0 + 795_000, 10_000)).toBe(true);
  });
  it("refreshes a long-lived token after 24 hours", () => {
    const year = 365 * 24 * 3600;
    expect(tokenRequiresRefresh(tr(year), t0 + 23 * 3600_000)).toBe(false);
    expect(tokenRequiresRefresh(tr(year), t0 + 24 * 3600_000 + 1)).toBe(true);
  });
});

describe("ServiceAccountTokenManager", () => {
  it("caches per request, keeps the cached token when a refresh fails until it expires, and says why", async () => {
    let now = t0;
    let fail = false;
    let n = 0;
    const m = new ServiceAccountTokenManager(
      () => {
        if (fail) return Promise.reject(new Error('serviceaccounts "sa" not found'));
        n++;
        return Promise.resolve(tr(1000, now, `t${String(n)}`));
      },
      { now: () => now, random: () => 0 },
    );
    const spec = { expirationSeconds: 1000 };
    expect((await m.get("ns", "sa", spec)).status.token).toBe("t1");
    expect((await m.get("ns", "sa", spec)).status.token).toBe("t1");
    expect((await m.get("ns", "sa", { expirationSeconds: 2000 })).status.token).toBe("t2");
    now = t0 + 900_000;
    fail = true;
    expect((await m.get("ns", "sa", spec)).status.token).toBe("t1");
    now = t0 + 1_000_001;
    await expect(m.get("ns", "sa", spec)).rejects.toThrow('token ns/sa expired and refresh failed: serviceaccounts "sa" not found');
    await expect(m.get("ns", "other", spec)).rejects.toThrow('failed to fetch token: serviceaccounts "sa" not found');
  });
});

describe("token cleanup", () => {
  it("cleanup() forgets expired tokens: a later failing request has nothing to fall back to", async () => {
    let now = t0;
    let fail = false;
    const m = new ServiceAccountTokenManager(() => (fail ? Promise.reject(new Error("down")) : Promise.resolve(tr(1000, now))), { now: () => now, random: () => 0 });
    await m.get("ns", "sa", { expirationSeconds: 1000 });
    now = t0 + 999_000;
    m.cleanup(); // not expired yet: kept
    fail = true;
    expect((await m.get("ns", "sa", { expirationSeconds: 1000 })).status.token).toBe("t");
    now = t0 + 1_000_001;
    m.cleanup();
    await expect(m.get("ns", "sa", { expirationSeconds: 1000 })).rejects.toThrow("failed to fetch token: down");
  });

  it("the pod runtime runs cleanup() every minute (1.23's gcPeriod)", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const dir = mkdtempSync(join(tmpdir(), "token-gc-"));
    let cleanups = 0;
    const idle = { stop: () => {}, registerPod: () => {}, unregisterPod: () => {}, get: () => Promise.reject(new Error("none")) };
    const objects = { configMaps: idle, secrets: idle, serviceAccountTokens: { cleanup: () => void cleanups++, get: () => Promise.reject(new Error("none")), deleteForPod: () => {} } };
    const runtime = createPodRuntime({ nodeName: "n1", rootDir: join(dir, "root"), containerRuntimeEndpoint: "unix:///nonexistent-skiff.sock", podLogsDir: join(dir, "logs"), objects: objects as unknown as PodObjectManagers });
    try {
      await runtime.start();
      expect(cleanups).toBe(0);
      await vi.advanceTimersByTimeAsync(serviceAccountTokenCleanupPeriodMs);
      expect(cleanups).toBe(1);
      await vi.advanceTimersByTimeAsync(serviceAccountTokenCleanupPeriodMs);
      expect(cleanups).toBe(2);
    } finally {
      await runtime.stop();
      vi.useRealTimers();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
