import { describe, expect, it } from "vitest";
import type { ContainerStatus, PodSpec } from "@skiff/api-types";
import { computePodConditions, computePodPhase, needToReconcilePodReadiness, podReadyCondition } from "./phase.js";

const running = (name: string): ContainerStatus => ({ name, ready: true, restartCount: 0, image: "i", imageID: "", state: { running: {} } });
const exited = (name: string, exitCode: number): ContainerStatus => ({ name, ready: false, restartCount: 0, image: "i", imageID: "", state: { terminated: { exitCode } } });
const waiting = (name: string, lastExit?: number): ContainerStatus => ({
  name,
  ready: false,
  restartCount: 1,
  image: "i",
  imageID: "",
  state: { waiting: { reason: "CrashLoopBackOff" } },
  ...(lastExit === undefined ? {} : { lastState: { terminated: { exitCode: lastExit } } }),
});
const spec = (restartPolicy: NonNullable<PodSpec["restartPolicy"]>, init: string[] = []): PodSpec => ({
  restartPolicy,
  containers: [{ name: "a" }, { name: "b" }],
  ...(init.length > 0 ? { initContainers: init.map((name) => ({ name })) } : {}),
});

describe("computePodPhase", () => {
  it.each([
    ["no statuses", spec("Always"), [], [], "Pending"],
    ["one running, one unknown", spec("Always"), [], [running("a")], "Pending"],
    ["all running", spec("Always"), [], [running("a"), running("b")], "Running"],
    ["one waiting fresh", spec("Always"), [], [running("a"), waiting("b")], "Pending"],
    ["crash looping counts as stopped", spec("Always"), [], [running("a"), waiting("b", 1)], "Running"],
    ["all exited, Always", spec("Always"), [], [exited("a", 0), exited("b", 1)], "Running"],
    ["all exited 0, Never", spec("Never"), [], [exited("a", 0), exited("b", 0)], "Succeeded"],
    ["all exited 0, OnFailure", spec("OnFailure"), [], [exited("a", 0), exited("b", 0)], "Succeeded"],
    ["one failed, Never", spec("Never"), [], [exited("a", 0), exited("b", 2)], "Failed"],
    ["one failed, OnFailure", spec("OnFailure"), [], [exited("a", 0), exited("b", 2)], "Running"],
    ["init running", spec("Always", ["i"]), [running("i")], [], "Pending"],
    ["init failed, Never", spec("Never", ["i"]), [exited("i", 1)], [], "Failed"],
    ["init failed, Always: retried", spec("Always", ["i"]), [exited("i", 1)], [], "Pending"],
    ["init crash looping, OnFailure", spec("OnFailure", ["i"]), [waiting("i", 1)], [], "Pending"],
    ["init done", spec("Always", ["i"]), [exited("i", 0)], [running("a"), running("b")], "Running"],
  ] as const)("%s → %s", (_name, s, init, statuses, want) => {
    expect(computePodPhase(s, init, statuses)).toBe(want);
  });
});

describe("computePodConditions", () => {
  it("reports ready when every container is ready", () => {
    const c = computePodConditions(spec("Always"), "Running", [], [running("a"), running("b")]);
    expect(c.map((x) => [x.type, x.status])).toEqual([
      ["Initialized", "True"],
      ["Ready", "True"],
      ["ContainersReady", "True"],
      ["PodScheduled", "True"],
    ]);
  });

  it("names unready and uninitialized containers", () => {
    const c = computePodConditions(spec("Always", ["i"]), "Pending", [running("i")], [waiting("a")]);
    expect(c[0]).toMatchObject({ type: "Initialized", status: "False", reason: "ContainersNotInitialized", message: "containers with incomplete status: [i]" });
    expect(c[1]).toMatchObject({ type: "Ready", status: "False", reason: "ContainersNotReady", message: "containers with unknown status: [b], containers with unready status: [a]" });
  });

  it("uses PodCompleted once Succeeded", () => {
    const c = computePodConditions(spec("Never"), "Succeeded", [], [exited("a", 0), exited("b", 0)]);
    expect(c[1]).toMatchObject({ type: "Ready", status: "False", reason: "PodCompleted" });
  });
});

// 1.23's TestGeneratePodReadyCondition cases (pkg/kubelet/status/generate_test.go), by outcome.
describe("readiness gates (podReadyCondition)", () => {
  const gated = (...types: string[]): Pick<PodSpec, "readinessGates"> => ({ readinessGates: types.map((conditionType) => ({ conditionType })) });
  const containersReady = { type: "ContainersReady", status: "True" } as const;
  const cond = (type: string, status: "True" | "False" | "Unknown") => ({ type, status });

  it("is True with no gates, or with every gate's condition True", () => {
    expect(podReadyCondition({}, containersReady, [])).toEqual({ type: "Ready", status: "True" });
    expect(podReadyCondition(gated("a", "b"), containersReady, [cond("a", "True"), cond("b", "True")])).toEqual({ type: "Ready", status: "True" });
  });

  it("is False with reason ReadinessGatesNotReady and 1.23's messages while a gate's condition is missing or not True", () => {
    expect(podReadyCondition(gated("a"), containersReady, [])).toEqual({ type: "Ready", status: "False", reason: "ReadinessGatesNotReady", message: 'corresponding condition of pod readiness gate "a" does not exist.' });
    expect(podReadyCondition(gated("a", "b", "c"), containersReady, [cond("a", "True"), cond("b", "False"), cond("c", "Unknown")])).toEqual({
      type: "Ready",
      status: "False",
      reason: "ReadinessGatesNotReady",
      message: 'the status of pod readiness gate "b" is not "True", but False, the status of pod readiness gate "c" is not "True", but Unknown',
    });
  });

  it("takes ContainersReady's status, reason and message while the containers are not ready, gates or not", () => {
    const notReady = { type: "ContainersReady", status: "False", reason: "ContainersNotReady", message: "containers with unready status: [a]" } as const;
    expect(podReadyCondition(gated("a"), notReady, [cond("a", "True")])).toEqual({ type: "Ready", status: "False", reason: "ContainersNotReady", message: "containers with unready status: [a]" });
  });

  it("is computed by computePodConditions from the pod's current conditions", () => {
    const s = { ...spec("Always"), readinessGates: [{ conditionType: "a" }] };
    expect(computePodConditions(s, "Running", [], [running("a"), running("b")])[1]).toMatchObject({ type: "Ready", status: "False", reason: "ReadinessGatesNotReady" });
    expect(computePodConditions(s, "Running", [], [running("a"), running("b")], [cond("a", "True")])[1]).toEqual({ type: "Ready", status: "True" });
  });
});

// 1.23's TestNeedToReconcilePodReadiness (pkg/kubelet/status/status_manager_test.go), by outcome.
describe("needToReconcilePodReadiness", () => {
  const pod = (gates: string[], conditions: { type: string; status: "True" | "False"; message?: string }[]) => ({
    spec: { containers: [{ name: "a" }], readinessGates: gates.map((conditionType) => ({ conditionType })) },
    status: { phase: "Running", containerStatuses: [running("a")], conditions },
  });

  it("is false without readiness gates, or without a Ready condition", () => {
    expect(needToReconcilePodReadiness(pod([], [{ type: "Ready", status: "False" }]))).toBe(false);
    expect(needToReconcilePodReadiness(pod(["g"], [{ type: "g", status: "True" }]))).toBe(false);
  });

  it("is true when the Ready condition's status or message differs from what the gates give", () => {
    expect(needToReconcilePodReadiness(pod(["g"], [{ type: "Ready", status: "False", message: 'corresponding condition of pod readiness gate "g" does not exist.' }, { type: "g", status: "True" }]))).toBe(true);
    expect(needToReconcilePodReadiness(pod(["g"], [{ type: "Ready", status: "True" }, { type: "g", status: "False" }]))).toBe(true);
    expect(needToReconcilePodReadiness(pod(["g"], [{ type: "Ready", status: "False", message: 'corresponding condition of pod readiness gate "g" does not exist.' }, { type: "g", status: "False" }]))).toBe(true);
  });

  it("is false when the Ready condition already matches", () => {
    expect(needToReconcilePodReadiness(pod(["g"], [{ type: "Ready", status: "True" }, { type: "g", status: "True" }]))).toBe(false);
    expect(needToReconcilePodReadiness(pod(["g"], [{ type: "Ready", status: "False", message: 'the status of pod readiness gate "g" is not "True", but False' }, { type: "g", status: "False" }]))).toBe(false);
  });
});
