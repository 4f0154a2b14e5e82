import { describe, expect, it } from "vitest";
import type { ContainerStatus, PodSpec } from "@skiff/api-types";
import { computePodConditions, computePodPhase } from "./phase.js";

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
