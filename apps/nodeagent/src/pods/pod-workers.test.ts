import type { Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { PodWorkers } from "./pod-workers.js";

const pod = (uid: string, rv = "1"): Pod => ({ metadata: { uid, name: uid, namespace: "default", resourceVersion: rv } });

describe("PodWorkers", () => {
  it("waits for the admission before each sync and coalesces the updates that came meanwhile", async () => {
    const synced: string[] = [];
    const gate: (() => void)[] = [];
    const workers = new PodWorkers(
      {
        syncPod: async (p) => {
          synced.push(`${p.metadata?.uid}@${p.metadata?.resourceVersion}`);
          return undefined;
        },
        terminatePod: async () => undefined,
      },
      60_000,
      () => new Promise<void>((r) => gate.push(r)),
    );
    workers.setPaused(false);
    workers.updatePod(pod("a", "1"));
    workers.updatePod(pod("a", "2"));
    workers.updatePod(pod("a", "3"));
    await new Promise((r) => setTimeout(r, 5));
    expect(synced).toEqual([]);
    expect(gate).toHaveLength(1);
    gate.shift()?.();
    await new Promise((r) => setTimeout(r, 5));
    // One sync, of the latest spec; nothing pending after it.
    expect(synced).toEqual(["a@3"]);
    expect(gate).toHaveLength(0);
    workers.updatePod(pod("a", "4"));
    await new Promise((r) => setTimeout(r, 5));
    expect(gate).toHaveLength(1);
    gate.shift()?.();
    await workers.waitIdle("a");
    expect(synced).toEqual(["a@3", "a@4"]);
    workers.close();
  });

  it("does not sync a pod admitted after the workers were closed", async () => {
    const synced: string[] = [];
    let admit: () => void = () => undefined;
    const workers = new PodWorkers({ syncPod: async (p) => void synced.push(p.metadata?.uid ?? ""), terminatePod: async () => undefined }, 60_000, () => new Promise<void>((r) => (admit = r)));
    workers.setPaused(false);
    workers.updatePod(pod("b"));
    await new Promise((r) => setTimeout(r, 5));
    workers.close();
    admit();
    await new Promise((r) => setTimeout(r, 5));
    expect(synced).toEqual([]);
  });

  it("resyncs a pod periodically until a sync says it is finished (Infinity), then only on updates", async () => {
    const synced: string[] = [];
    let finished = false;
    const workers = new PodWorkers({ syncPod: async (p) => (synced.push(p.metadata?.resourceVersion ?? ""), finished ? Infinity : undefined), terminatePod: async () => undefined }, 10);
    workers.setPaused(false);
    workers.updatePod(pod("c", "1"));
    await new Promise((r) => setTimeout(r, 60));
    expect(synced.length).toBeGreaterThan(2);
    finished = true;
    await new Promise((r) => setTimeout(r, 30));
    const atFinish = synced.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(synced.length).toBe(atFinish);
    workers.updatePod(pod("c", "2"));
    await workers.waitIdle("c");
    await new Promise((r) => setTimeout(r, 5));
    expect(synced.at(-1)).toBe("2");
    expect(synced.length).toBe(atFinish + 1);
    workers.close();
  });
});
