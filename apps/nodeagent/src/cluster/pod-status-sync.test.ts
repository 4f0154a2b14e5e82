import type { Pod, PodStatus } from "@skiff/api-types";
import { newConflict } from "@skiff/apimachinery";
import type { Client } from "@skiff/client";
import { describe, expect, it, vi } from "vitest";
import { PodStatusSync, visibleState } from "./pod-status-sync.js";

// The agent's tracer, recording in memory (the real one writes to $SKIFF_TRACE_FILE).
const spans = vi.hoisted(() => [] as { span: string; start: number; end: number; phase: unknown; pod: unknown }[]);
vi.mock("../internal/trace.js", () => ({
  agentTracer: {
    enabled: true,
    now: () => performance.timeOrigin + performance.now(),
    record: (span: string, start: number, end: number, f?: { pod?: string; attrs?: Record<string, unknown> }) => void spans.push({ span, start, end, phase: f?.attrs?.["phase"], pod: f?.pod }),
    flush: () => undefined,
  },
}));

/** An in-memory apiserver for pods: GET and PUT status with resourceVersion preconditions; PUTs of pods in `hold` wait for `release`. */
function fakeServer(pods: Pod[]) {
  const byName = new Map(pods.map((p) => [p.metadata?.name ?? "", structuredClone(p)]));
  const calls: string[] = [];
  const held = new Map<string, () => void>();
  const hold = new Set<string>();
  let inFlightPuts = 0;
  let maxInFlightPuts = 0;
  const client = {
    pods: {
      async get(name: string) {
        calls.push(`GET ${name}`);
        const p = byName.get(name);
        if (!p) throw new Error(`no pod ${name}`);
        return structuredClone(p);
      },
      async updateStatus(obj: Pod) {
        const name = obj.metadata?.name ?? "";
        calls.push(`PUT ${name} ${obj.status?.phase ?? ""}`);
        inFlightPuts++;
        maxInFlightPuts = Math.max(maxInFlightPuts, inFlightPuts);
        try {
          if (hold.has(name)) await new Promise<void>((r) => held.set(name, r));
          const cur = byName.get(name);
          if (!cur) throw new Error(`no pod ${name}`);
          if (obj.metadata?.resourceVersion !== cur.metadata?.resourceVersion) throw newConflict({ group: "", resource: "pods" }, name, "the object has been modified");
          const next: Pod = { ...cur, metadata: { ...cur.metadata, resourceVersion: String(Number(cur.metadata?.resourceVersion ?? "0") + 1) }, status: obj.status ?? {} };
          byName.set(name, next);
          return structuredClone(next);
        } finally {
          inFlightPuts--;
        }
      },
    },
  } as unknown as Client;
  return { client, byName, calls, hold, held, maxInFlight: () => maxInFlightPuts };
}

const pod = (name: string, rv = "1"): Pod => ({ metadata: { name, namespace: "default", uid: `uid-${name}`, resourceVersion: rv }, spec: { containers: [] }, status: { phase: "Pending" } });
const running: PodStatus = { phase: "Running" };
const settle = async (sync: PodStatusSync): Promise<void> => {
  for (let i = 0; i < 100 && sync.writesInFlight > 0; i++) await new Promise((r) => setTimeout(r, 1));
};

describe("PodStatusSync", () => {
  it("writes nothing when the server's status equals the merge, whatever its key order (after a GET confirms it)", async () => {
    const server: Pod = { ...pod("a"), status: { podIP: "10.0.0.1", phase: "Running", conditions: [{ status: "True", type: "Ready" }] } };
    const s = fakeServer([server]);
    const sync = new PodStatusSync({ client: s.client, log: () => undefined, mirrorPods: () => [], cachedPod: (_ns, name) => s.byName.get(name) });
    const ours: PodStatus = { phase: "Running", conditions: [{ type: "Ready", status: "True" }], podIP: "10.0.0.1", message: undefined as unknown as string };
    sync.onStatus(pod("a"), ours);
    await settle(sync);
    expect(s.calls).toEqual(["GET a"]);
    sync.onStatus(pod("a"), { ...ours, podIP: "10.0.0.2" });
    await settle(sync);
    expect(s.calls).toEqual(["GET a", "PUT a Running"]);
  });

  it("writes from the watch cache's copy without a GET", async () => {
    const s = fakeServer([pod("a")]);
    const sync = new PodStatusSync({ client: s.client, log: () => undefined, mirrorPods: () => [], cachedPod: (_ns, name) => s.byName.get(name) });
    sync.onStatus(pod("a"), running);
    await settle(sync);
    expect(s.calls).toEqual(["PUT a Running"]);
    expect(s.byName.get("a")?.status?.phase).toBe("Running");
  });

  it("falls back to a GET when the cached copy is stale (409) or already shows the status", async () => {
    const s = fakeServer([pod("a", "5")]);
    const stale = pod("a", "4");
    const sync = new PodStatusSync({ client: s.client, log: () => undefined, mirrorPods: () => [], cachedPod: () => stale });
    sync.onStatus(pod("a"), running);
    await settle(sync);
    expect(s.calls).toEqual(["PUT a Running", "GET a", "PUT a Running"]);
    expect(s.byName.get("a")?.status?.phase).toBe("Running");

    // The cache says Running already, the server does not: the GET finds the difference.
    s.calls.length = 0;
    s.byName.set("a", { ...pod("a", "9"), status: { phase: "Pending" } });
    const cachedRunning = { ...pod("a", "8"), status: { phase: "Running" as const } };
    const sync2 = new PodStatusSync({ client: s.client, log: () => undefined, mirrorPods: () => [], cachedPod: () => cachedRunning });
    sync2.onStatus(pod("a"), running);
    await settle(sync2);
    expect(s.calls).toEqual(["GET a", "PUT a Running"]);
  });

  it("writes the next status on its own last written copy when the watch has not caught up", async () => {
    const s = fakeServer([pod("a")]);
    const watched = pod("a");
    const sync = new PodStatusSync({ client: s.client, log: () => undefined, mirrorPods: () => [], cachedPod: () => watched });
    sync.onStatus(pod("a"), running);
    await settle(sync);
    sync.onStatus(pod("a"), { phase: "Succeeded" });
    await settle(sync);
    expect(s.calls).toEqual(["PUT a Running", "PUT a Succeeded"]);
  });

  it("without a cache, GETs before each write", async () => {
    const s = fakeServer([pod("a")]);
    const sync = new PodStatusSync({ client: s.client, log: () => undefined, mirrorPods: () => [] });
    sync.onStatus(pod("a"), running);
    await settle(sync);
    expect(s.calls).toEqual(["GET a", "PUT a Running"]);
  });

  it("writes several pods at once, never two writes of one pod, the latest status last", async () => {
    const s = fakeServer([pod("a"), pod("b"), pod("c")]);
    s.hold.add("a");
    const sync = new PodStatusSync({ client: s.client, log: () => undefined, mirrorPods: () => [], cachedPod: (_ns, name) => s.byName.get(name), concurrency: 2 });
    sync.onStatus(pod("a"), running);
    sync.onStatus(pod("b"), running);
    sync.onStatus(pod("c"), running);
    // a's write is held: b and c are written meanwhile by the second writer.
    for (let i = 0; i < 100 && s.byName.get("c")?.status?.phase !== "Running"; i++) await new Promise((r) => setTimeout(r, 1));
    expect(s.byName.get("b")?.status?.phase).toBe("Running");
    expect(s.byName.get("c")?.status?.phase).toBe("Running");
    // A newer status of `a` while its write is in flight waits for it.
    sync.onStatus(pod("a"), { phase: "Succeeded" });
    await new Promise((r) => setTimeout(r, 5));
    expect(s.calls.filter((c) => c.startsWith("PUT a"))).toEqual(["PUT a Running"]);
    s.hold.delete("a");
    s.held.get("a")?.();
    await settle(sync);
    expect(s.calls.filter((c) => c.startsWith("PUT a"))).toEqual(["PUT a Running", "PUT a Succeeded"]);
    expect(s.byName.get("a")?.status?.phase).toBe("Succeeded");
    expect(s.maxInFlight()).toBe(2);
  });

  it("traces a status's queue wait from when its phase was queued; a coalesced one from the first of its kind", async () => {
    spans.length = 0;
    const s = fakeServer([pod("a"), pod("b")]);
    s.hold.add("b");
    const sync = new PodStatusSync({ client: s.client, log: () => undefined, mirrorPods: () => [], cachedPod: (_ns, name) => s.byName.get(name), concurrency: 1 });
    const now = () => performance.timeOrigin + performance.now();
    sync.onStatus(pod("b"), running); // held: a waits in the queue
    sync.onStatus(pod("a"), { phase: "Pending", reason: "x" });
    await new Promise((r) => setTimeout(r, 30));
    const runningAt = now();
    sync.onStatus(pod("a"), running);
    await new Promise((r) => setTimeout(r, 30));
    sync.onStatus(pod("a"), { ...running, podIP: "10.0.0.9" }); // same phase: coalesced
    s.hold.delete("b");
    s.held.get("b")?.();
    await settle(sync);
    const queued = spans.filter((x) => x.span === "status-queue" && x.pod === "default/a");
    expect(queued.map((x) => x.phase)).toEqual(["Pending", "Running"]);
    // Before the fix the Running status inherited the Pending one's queue time, 30 ms earlier.
    expect(queued[1]!.start).toBeGreaterThanOrEqual(runningAt - 1);
    expect(queued[1]!.start).toBeLessThan(runningAt + 20);
  });

  it("writes an unwritten status that shows something else before the newer one (ErrImagePull, then ImagePullBackOff), as 1.23 writes each; drops one that shows the same", async () => {
    const s = fakeServer([pod("a")]);
    s.hold.add("a");
    const puts: string[] = [];
    const pods = s.client.pods as unknown as { updateStatus: (p: Pod) => Promise<Pod> };
    const put = pods.updateStatus.bind(pods);
    pods.updateStatus = (p: Pod) => {
      puts.push(p.status?.containerStatuses?.[0]?.state?.waiting?.reason ?? p.status?.podIP ?? "");
      return put(p);
    };
    const sync = new PodStatusSync({ client: s.client, log: () => undefined, mirrorPods: () => [], cachedPod: (_ns, name) => s.byName.get(name) });
    const waiting = (reason: string, podIP?: string): PodStatus => ({ phase: "Pending", ...(podIP ? { podIP } : {}), containerStatuses: [{ name: "main", image: "x", imageID: "", ready: false, restartCount: 0, state: { waiting: { reason } } }] });
    sync.onStatus(pod("a"), { phase: "Pending", podIP: "10.0.0.1" }); // in flight, held
    sync.onStatus(pod("a"), waiting("ErrImagePull"));
    sync.onStatus(pod("a"), waiting("ImagePullBackOff"));
    sync.onStatus(pod("a"), waiting("ImagePullBackOff", "10.0.0.9")); // the same on screen: replaces the previous
    s.hold.delete("a");
    s.held.get("a")?.();
    for (let i = 0; i < 200 && s.byName.get("a")?.status?.podIP !== "10.0.0.9"; i++) await new Promise((r) => setTimeout(r, 1));
    await settle(sync);
    expect(puts).toEqual(["10.0.0.1", "ErrImagePull", "ImagePullBackOff"]);
    expect(s.byName.get("a")?.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe("ImagePullBackOff");
    expect(s.byName.get("a")?.metadata?.resourceVersion).toBe("4");
  });

  it("visibleState: the phase and each container's state, reason, readiness and restarts", () => {
    const base: PodStatus = { phase: "Running", containerStatuses: [{ name: "c", image: "x", imageID: "", ready: true, restartCount: 1, state: { running: { startedAt: "2026-01-01T00:00:00Z" } } }] };
    expect(visibleState(base)).toBe(visibleState({ ...base, podIP: "10.0.0.1", conditions: [{ type: "Ready", status: "True" }] }));
    expect(visibleState(base)).not.toBe(visibleState({ ...base, phase: "Succeeded" }));
    const c = base.containerStatuses?.[0];
    if (!c) throw new Error("no container status");
    expect(visibleState(base)).not.toBe(visibleState({ ...base, containerStatuses: [{ ...c, ready: false }] }));
    expect(visibleState(base)).not.toBe(visibleState({ ...base, containerStatuses: [{ ...c, restartCount: 2 }] }));
    expect(visibleState(base)).not.toBe(visibleState({ ...base, containerStatuses: [{ ...c, state: { terminated: { exitCode: 1, reason: "Error" } } }] }));
  });
});
