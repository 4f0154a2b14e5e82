import { describe, expect, it } from "vitest";
import type { Container, ContainerStatus, Pod, PodStatus, Probe } from "@skiff/api-types";
import { ProberManager, type ProbeKind, type ProberClock } from "./prober-manager.js";
import { ProbeError, type ProbeAttempt } from "./prober.js";

class FakeClock implements ProberClock {
  nowMs = 1_000_000;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  now() {
    return this.nowMs;
  }
  setTimeout(fn: () => void, ms: number) {
    const id = ++this.seq;
    this.timers.set(id, { at: this.nowMs + ms, fn });
    return id;
  }
  clearTimeout(h: unknown) {
    this.timers.delete(h as number);
  }
  /** Moves time forward, firing due timers in order and letting their async work settle. */
  async advance(ms: number) {
    const end = this.nowMs + ms;
    for (;;) {
      await flush();
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.nowMs = Math.max(this.nowMs, due[1].at);
      due[1].fn();
    }
    this.nowMs = end;
    await flush();
  }
}

async function flush() {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

function makePod(container: Partial<Container>, restartPolicy: "Always" | "Never" = "Always"): Pod {
  return { metadata: { name: "p", namespace: "default", uid: "u1" }, spec: { restartPolicy, containers: [{ name: "main", image: "busybox", ...container }] } };
}

interface Harness {
  clock: FakeClock;
  prober: ProberManager;
  outcomes: Record<ProbeKind, ProbeAttempt | Error>;
  calls: Record<ProbeKind, number>;
  events: string[];
  changes: string[];
  status: PodStatus;
  setRunning(id: string, startedAtMs: number): void;
  refresh(): ContainerStatus;
}

function harness(pod: Pod): Harness {
  const clock = new FakeClock();
  const events: string[] = [];
  const changes: string[] = [];
  const outcomes: Record<ProbeKind, ProbeAttempt | Error> = { liveness: { outcome: "Success", output: "" }, readiness: { outcome: "Success", output: "" }, startup: { outcome: "Success", output: "" } };
  const calls: Record<ProbeKind, number> = { liveness: 0, readiness: 0, startup: 0 };
  const h: Harness = {
    clock,
    outcomes,
    calls,
    events,
    changes,
    status: { phase: "Pending", containerStatuses: [{ name: "main", ready: false, restartCount: 0, image: "busybox", imageID: "", state: { waiting: { reason: "ContainerCreating" } } }] },
    prober: new ProberManager({
      clock,
      getStatus: () => h.status,
      runProbe: async (kind: ProbeKind, _probe: Probe, _pod: Pod, _c: Container, containerId: string) => {
        calls[kind]++;
        expect(containerId).not.toContain("://");
        const o = outcomes[kind];
        if (o instanceof Error) throw o;
        return o;
      },
      onResultChange: (_p, kind) => changes.push(kind),
      onEvent: (_p, type, reason, message) => events.push(`${type} ${reason} ${message}`),
    }),
    setRunning(id, startedAtMs) {
      h.status = { phase: "Running", containerStatuses: [{ name: "main", ready: false, restartCount: 0, image: "busybox", imageID: "", containerID: `cri://${id}`, state: { running: { startedAt: iso(startedAtMs) } } }] };
      h.refresh();
    },
    refresh() {
      h.prober.updatePodStatus("u1", h.status);
      const cs = h.status.containerStatuses?.[0];
      if (!cs) throw new Error("no status");
      return cs;
    },
  };
  h.prober.addPod(pod);
  return h;
}

describe("ProberManager", () => {
  it("reports a container without probes started and ready once running, and not before", () => {
    const h = harness(makePod({}));
    expect(h.refresh()).toMatchObject({ started: false, ready: false });
    h.setRunning("c1", h.clock.now());
    expect(h.refresh()).toMatchObject({ started: true, ready: true });
  });

  it("keeps a container with a readiness probe unready until the probe succeeds", async () => {
    const h = harness(makePod({ readinessProbe: { exec: { command: ["true"] }, periodSeconds: 5 } }));
    h.outcomes.readiness = { outcome: "Failure", output: "nope" };
    h.setRunning("c1", h.clock.now());
    expect(h.refresh().ready).toBe(false);
    await h.clock.advance(0); // the manual trigger of UpdatePodStatus
    expect(h.calls.readiness).toBe(1);
    expect(h.events).toContain("Warning Unhealthy Readiness probe failed: nope");
    expect(h.refresh()).toMatchObject({ started: true, ready: false });
    h.outcomes.readiness = { outcome: "Success", output: "" };
    await h.clock.advance(5_000);
    expect(h.prober.get("readiness", "cri://c1")).toBe("Success");
    expect(h.refresh().ready).toBe(true);
    expect(h.changes).toEqual(["readiness", "readiness"]);
  });

  it("needs successThreshold successes and failureThreshold failures to flip readiness", async () => {
    const h = harness(makePod({ readinessProbe: { exec: { command: ["x"] }, periodSeconds: 1, successThreshold: 2, failureThreshold: 3 } }));
    h.setRunning("c1", h.clock.now());
    await h.clock.advance(0);
    expect(h.prober.get("readiness", "c1")).toBe("Failure"); // initial value; one success is not enough
    await h.clock.advance(1_000);
    expect(h.prober.get("readiness", "c1")).toBe("Success");
    h.outcomes.readiness = { outcome: "Failure", output: "down" };
    await h.clock.advance(2_000);
    expect(h.prober.get("readiness", "c1")).toBe("Success");
    await h.clock.advance(1_000);
    expect(h.prober.get("readiness", "c1")).toBe("Failure");
  });

  it("waits initialDelaySeconds after the container started", async () => {
    const h = harness(makePod({ livenessProbe: { exec: { command: ["x"] }, initialDelaySeconds: 30, periodSeconds: 10 } }));
    h.setRunning("c1", h.clock.now());
    await h.clock.advance(20_000);
    expect(h.calls.liveness).toBe(0);
    await h.clock.advance(10_000);
    expect(h.calls.liveness).toBe(1);
  });

  it("gates liveness and readiness on the startup probe", async () => {
    const h = harness(makePod({ startupProbe: { exec: { command: ["s"] }, periodSeconds: 1, failureThreshold: 5 }, livenessProbe: { exec: { command: ["l"] }, periodSeconds: 1 }, readinessProbe: { exec: { command: ["r"] }, periodSeconds: 1 } }));
    h.outcomes.startup = { outcome: "Failure", output: "starting" };
    h.setRunning("c1", h.clock.now());
    await h.clock.advance(3_000);
    expect(h.calls.startup).toBeGreaterThan(0);
    expect(h.calls.liveness).toBe(0);
    expect(h.calls.readiness).toBe(0);
    expect(h.refresh()).toMatchObject({ started: false, ready: false });
    expect(h.prober.probeFailure("main", "cri://c1")).toBeUndefined();
    h.outcomes.startup = { outcome: "Success", output: "" };
    await h.clock.advance(1_000);
    expect(h.refresh()).toMatchObject({ started: true });
    const startupCalls = h.calls.startup;
    await h.clock.advance(3_000);
    h.refresh();
    await h.clock.advance(1_000);
    expect(h.calls.startup).toBe(startupCalls); // no more startup probing once started
    expect(h.calls.liveness).toBeGreaterThan(0);
    expect(h.calls.readiness).toBeGreaterThan(0);
    expect(h.refresh()).toMatchObject({ started: true, ready: true });
  });

  it("fails the startup probe after failureThreshold failures and asks for a kill", async () => {
    const h = harness(makePod({ startupProbe: { exec: { command: ["s"] }, periodSeconds: 1, failureThreshold: 2 } }));
    h.outcomes.startup = { outcome: "Failure", output: "no" };
    h.setRunning("c1", h.clock.now());
    await h.clock.advance(1_000);
    expect(h.prober.probeFailure("main", "cri://c1")).toBeUndefined();
    await h.clock.advance(1_000);
    expect(h.prober.probeFailure("main", "cri://c1")).toEqual({ kind: "startup", message: "Container main failed startup probe" });
  });

  it("fails liveness after failureThreshold failures, holds, and resumes on a new container", async () => {
    const h = harness(makePod({ livenessProbe: { httpGet: { port: 80 }, periodSeconds: 10, failureThreshold: 3 } }));
    h.setRunning("c1", h.clock.now());
    await h.clock.advance(10_000);
    expect(h.prober.get("liveness", "c1")).toBe("Success");
    h.outcomes.liveness = { outcome: "Failure", output: "HTTP probe failed with statuscode: 500" };
    await h.clock.advance(20_000);
    expect(h.prober.probeFailure("main", "c1")).toBeUndefined();
    await h.clock.advance(10_000);
    expect(h.prober.probeFailure("main", "c1")).toEqual({ kind: "liveness", message: "Container main failed liveness probe" });
    expect(h.events.filter((e) => e === "Warning Unhealthy Liveness probe failed: HTTP probe failed with statuscode: 500")).toHaveLength(3);
    const calls = h.calls.liveness;
    await h.clock.advance(30_000);
    expect(h.calls.liveness).toBe(calls); // on hold
    h.outcomes.liveness = { outcome: "Success", output: "" };
    h.setRunning("c2", h.clock.now());
    await h.clock.advance(10_000);
    expect(h.calls.liveness).toBe(calls + 1);
    expect(h.prober.get("liveness", "c1")).toBeUndefined();
    expect(h.prober.get("liveness", "c2")).toBe("Success");
  });

  it("counts a warning as success with a ProbeWarning event, and ignores errored probes", async () => {
    const h = harness(makePod({ readinessProbe: { httpGet: { port: 80 }, periodSeconds: 1 } }));
    h.outcomes.readiness = { outcome: "Warning", output: "Probe terminated redirects, Response body: " };
    h.setRunning("c1", h.clock.now());
    await h.clock.advance(0);
    expect(h.prober.get("readiness", "c1")).toBe("Success");
    expect(h.events).toContain("Warning ProbeWarning Readiness probe warning: Probe terminated redirects, Response body: ");
    h.outcomes.readiness = new ProbeError("InvalidPort", "couldn't find port: web in main");
    await h.clock.advance(5_000);
    expect(h.prober.get("readiness", "c1")).toBe("Success");
    expect(h.events).toContain("Warning Unhealthy Readiness probe errored: couldn't find port: web in main");
  });

  it("retries a runtime error three times before reporting it", async () => {
    const h = harness(makePod({ livenessProbe: { exec: { command: ["x"] }, periodSeconds: 1 } }));
    h.outcomes.liveness = new ProbeError("RuntimeError", "container not running");
    h.setRunning("c1", h.clock.now());
    await h.clock.advance(0);
    await h.clock.advance(1_000);
    expect(h.calls.liveness).toBe(3);
    expect(h.prober.get("liveness", "c1")).toBe("Success");
  });

  it("marks an exited container's readiness failed and stops for a terminal pod", async () => {
    const h = harness(makePod({ readinessProbe: { exec: { command: ["x"] }, periodSeconds: 1 } }, "Never"));
    h.setRunning("c1", h.clock.now());
    await h.clock.advance(1_000);
    expect(h.prober.get("readiness", "c1")).toBe("Success");
    h.status = { phase: "Running", containerStatuses: [{ name: "main", ready: false, restartCount: 0, image: "b", imageID: "", containerID: "cri://c1", state: { terminated: { exitCode: 1 } } }] };
    await h.clock.advance(1_000);
    expect(h.prober.hasWorker("u1", "main", "readiness")).toBe(false); // Never + terminated: worker ends
    expect(h.prober.podUIDs()).toEqual([]);
  });

  it("sets liveness to success and stops when the pod is being deleted", async () => {
    const pod = makePod({ livenessProbe: { exec: { command: ["x"] }, periodSeconds: 1 } });
    const h = harness(pod);
    h.outcomes.liveness = { outcome: "Failure", output: "x" };
    h.setRunning("c1", h.clock.now());
    h.prober.addPod({ ...pod, metadata: { ...pod.metadata, deletionTimestamp: iso(h.clock.now()) } });
    await h.clock.advance(5_000);
    expect(h.calls.liveness).toBe(0);
    expect(h.prober.hasWorker("u1", "main", "liveness")).toBe(false);
  });

  it("marks init containers ready once they exited 0", () => {
    const h = harness(makePod({}));
    const status: PodStatus = {
      initContainerStatuses: [
        { name: "a", ready: false, restartCount: 0, image: "", imageID: "", state: { terminated: { exitCode: 0 } } },
        { name: "b", ready: true, restartCount: 0, image: "", imageID: "", state: { terminated: { exitCode: 2 } } },
      ],
    };
    h.prober.updatePodStatus("u1", status);
    expect(status.initContainerStatuses?.map((c) => c.ready)).toEqual([true, false]);
  });

  it("removes workers and results with the pod", async () => {
    const h = harness(makePod({ livenessProbe: { exec: { command: ["x"] }, periodSeconds: 1 }, readinessProbe: { exec: { command: ["x"] }, periodSeconds: 1 } }));
    h.setRunning("c1", h.clock.now());
    await h.clock.advance(1_000);
    expect(h.prober.podUIDs()).toEqual(["u1"]);
    h.prober.removePod("u1");
    expect(h.prober.podUIDs()).toEqual([]);
    expect(h.prober.get("readiness", "c1")).toBeUndefined();
    const calls = h.calls.liveness;
    await h.clock.advance(5_000);
    expect(h.calls.liveness).toBe(calls);
  });
});
