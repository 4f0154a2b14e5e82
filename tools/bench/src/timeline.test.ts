import type { TraceRecord } from "@skiff/apimachinery";
import { describe, expect, it } from "vitest";
import { apfWaits, mutatingLatencies, percentile, podTimeline } from "./timeline.js";

const r = (component: string, span: string, start: number, end: number, more: Partial<TraceRecord> = {}): TraceRecord => ({ component, span, start, end, ...more });

describe("podTimeline", () => {
  it("joins one pod's records from every component into its steps", () => {
    const pod = "default/p";
    const uid = "u";
    const records: TraceRecord[] = [
      r("job-controller", "sync", 0, 50, { job: "default/j" }),
      r("job-controller", "create-pod", 10, 20, { job: "default/j", pod, uid }),
      r("apiserver", "create pods", 12, 15, { pod, uid, attrs: { code: 201 } }),
      r("scheduler", "queue", 25, 30, { pod, uid }),
      r("scheduler", "schedule", 30, 31, { pod, uid }),
      r("scheduler", "bind", 31, 40, { pod, uid }),
      r("apiserver", "create pods/binding", 33, 35, { pod, attrs: { code: 201 } }),
      r("nodeagent", "pod-seen", 45, 45, { pod, uid }),
      r("nodeagent", "pod-sync", 50, 200, { uid }),
      r("nodeagent", "volume-token", 52, 54, { uid }),
      r("nodeagent", "volume-configMap", 54, 57, { uid }),
      r("nodeagent", "volume-secret", 57, 58, { uid }),
      r("nodeagent", "volumes", 55, 60, { uid }),
      r("nodeagent", "sandbox", 70, 100, { uid }),
      r("nodeagent", "container-start", 110, 150, { uid }),
      r("nodeagent", "status-queue", 160, 170, { uid, attrs: { phase: "Running" } }),
      r("nodeagent", "status-write", 170, 180, { uid, attrs: { phase: "Running" } }),
      r("nodeagent", "status-queue", 300, 305, { uid, attrs: { phase: "Succeeded" } }),
      r("nodeagent", "status-write", 305, 320, { uid, attrs: { phase: "Succeeded" } }),
      r("job-controller", "sync", 330, 360, { job: "default/j" }),
      r("job-controller", "job-status", 340, 350, { job: "default/j" }),
    ];
    const t = podTimeline(records);
    expect(t.pods).toBe(1);
    const step = (name: string) => t.steps.find((s) => s.step.startsWith(name));
    expect(step("job sync → pod create sent")).toMatchObject({ pods: 1, p50: 10 });
    expect(step("pod create (job controller")).toMatchObject({ p50: 10, workP50: 3 });
    expect(step("created → scheduler queue")).toMatchObject({ p50: 10 });
    expect(step("bind (scheduler")).toMatchObject({ p50: 9, workP50: 2 });
    expect(step("bound → agent sees it")).toMatchObject({ p50: 10 });
    expect(step("sandbox (RunPodSandbox)")).toMatchObject({ p50: 30 });
    expect(step("  of which: first TokenRequest")).toMatchObject({ pods: 1, p50: 2 });
    expect(step("  of which: first ConfigMap/Secret read")).toMatchObject({ pods: 1, p50: 3 });
    expect(step("status Running: GET + PUT")).toMatchObject({ p50: 10 });
    expect(step("status Running written → Succeeded queued")).toMatchObject({ p50: 120 });
    expect(step("Succeeded → Job counted (no tracking finalizers)")).toMatchObject({ p50: 30, workP50: 10 });
    expect(step("→ finalizer removed")).toMatchObject({ pods: 0 });
    expect(t.startupMs).toEqual([165]);
  });

  it("counts pods through uncountedTerminatedPods when tracking with finalizers", () => {
    const uid = "u";
    const t = podTimeline([
      r("apiserver", "create pods", 0, 1, { pod: "default/p", uid, attrs: { code: 201 } }),
      r("nodeagent", "status-queue", 10, 11, { uid, attrs: { phase: "Succeeded" } }),
      r("nodeagent", "status-write", 11, 20, { uid, attrs: { phase: "Succeeded" } }),
      r("job-controller", "uncounted", 25, 30, { uids: [uid] }),
      r("job-controller", "remove-finalizer", 31, 40, { uid }),
      r("job-controller", "counted", 45, 50, { uids: [uid] }),
    ]);
    const step = (name: string) => t.steps.find((s) => s.step.startsWith(name));
    expect(step("Succeeded → UID in uncountedTerminatedPods")).toMatchObject({ p50: 10 });
    expect(step("→ finalizer removed")).toMatchObject({ p50: 10, workP50: 9 });
    expect(step("→ Job counted (status write)")).toMatchObject({ p50: 10 });
    expect(t.startupMs).toEqual([19]);
  });
});

describe("podTimeline of bare pods", () => {
  it("joins a pod no controller created through the apiserver's create span (its bind, the agent's first sight)", () => {
    const pod = "default/latency-0";
    const uid = "l";
    const t = podTimeline([
      r("apiserver", "create pods", 0, 2, { pod, uid, attrs: { code: 201 } }),
      r("scheduler", "queue", 5, 6, { pod, uid }),
      r("scheduler", "bind", 7, 20, { pod, uid }),
      r("apiserver", "create pods/binding", 10, 15, { pod, attrs: { code: 201 } }),
      r("nodeagent", "pod-seen", 25, 25, { pod, uid }),
    ]);
    const step = (name: string) => t.steps.find((s) => s.step.startsWith(name));
    expect(step("bind (scheduler")).toMatchObject({ pods: 1, p50: 13, workP50: 5 });
    expect(step("bound → agent sees it")).toMatchObject({ pods: 1, p50: 10 });
    expect(step("job sync → pod create sent")).toMatchObject({ pods: 0 });
  });
});

describe("percentile and mutatingLatencies", () => {
  it("nearest rank; the apiserver's spans by name", () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([], 99)).toBe(0);
    expect(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 99)).toBe(99);
    const records = [r("apiserver", "create pods", 0, 2), r("apiserver", "create pods", 0, 4), r("scheduler", "bind", 0, 9), r("apiserver", "apf-wait", 0, 7), r("apiserver", "apf-reject", 3, 3)];
    const m = mutatingLatencies(records);
    expect(m.all).toEqual([2, 4]);
    expect(m.bySpan.get("create pods")).toEqual([2, 4]);
    // Queue waits are reported on their own.
    expect(apfWaits(records)).toEqual([7]);
  });
});
