import { describe, expect, it } from "vitest";
import { simulateCommand } from "./sim-command.js";

const env = new Map([["JOB_COMPLETION_INDEX", "7"]]);
const sh = (script: string) => simulateCommand(["sh", "-c", script], "busybox", env);

describe("simulateCommand", () => {
  it("sleep N runs N seconds and exits 0", () => {
    expect(sh("sleep 6")).toEqual({ durationMs: 6000, exitCode: 0, stdout: [] });
    expect(simulateCommand(["sleep", "2m"], "busybox", env)).toEqual({ durationMs: 120_000, exitCode: 0, stdout: [] });
    expect(sh("sleep 0.5; sleep 1")).toMatchObject({ durationMs: 1500 });
  });

  it("exit N, false and true give their exit codes at once", () => {
    expect(sh('exit 3')).toEqual({ durationMs: 0, exitCode: 3, stdout: [] });
    expect(sh("false")).toMatchObject({ exitCode: 1 });
    expect(simulateCommand(["false"], "busybox", env)).toMatchObject({ durationMs: 0, exitCode: 1 });
    expect(simulateCommand(["true"], "busybox", env)).toMatchObject({ exitCode: 0 });
    expect(sh("sleep 2; exit 1")).toEqual({ durationMs: 2000, exitCode: 1, stdout: [] });
  });

  it("echo prints with $VAR expansion, not inside single quotes", () => {
    expect(sh('echo "index $JOB_COMPLETION_INDEX"')).toEqual({ durationMs: 0, exitCode: 0, stdout: ["index 7"] });
    expect(sh("echo '$JOB_COMPLETION_INDEX' ${JOB_COMPLETION_INDEX}")).toMatchObject({ stdout: ["$JOB_COMPLETION_INDEX 7"] });
    expect(sh("sleep 6; echo survived")).toEqual({ durationMs: 6000, exitCode: 0, stdout: ["survived"] });
  });

  it("&& and || follow the exit status", () => {
    expect(sh("false && sleep 5; echo after")).toEqual({ durationMs: 0, exitCode: 0, stdout: ["after"] });
    expect(sh("false || exit 4")).toMatchObject({ exitCode: 4 });
    expect(sh("true || exit 4")).toMatchObject({ exitCode: 0 });
  });

  it("unknown commands succeed at once; the image default is instant, pause runs until stopped", () => {
    expect(sh("wget http://example.com && cat /etc/hosts")).toEqual({ durationMs: 0, exitCode: 0, stdout: [] });
    expect(simulateCommand([], "busybox:1.36", env)).toEqual({ durationMs: 0, exitCode: 0, stdout: [] });
    expect(simulateCommand([], "k8s.gcr.io/pause:3.6", env).durationMs).toBe(Infinity);
    expect(sh("sleep infinity").durationMs).toBe(Infinity);
  });

  it("a sleep that does not parse fails as busybox's does", () => {
    expect(sh("sleep forever")).toMatchObject({ durationMs: 0, exitCode: 1 });
  });
});
