// The runtime's readiness as 1.23's kubelet keeps it (pkg/kubelet/kubelet.go updateRuntimeUp,
// pkg/kubelet/runtime.go runtimeErrors): a failed or slow status check changes nothing until 30 s
// pass without a successful one; RuntimeReady=false counts at once; NetworkReady=false is its own
// error. The CRI client is an in-memory fake here (the unit is the state kept from its answers, on
// a fake clock); the agent's integration suites run the same code against real runtimes.
import { CRIError, type ImageClient, type RuntimeClient } from "@skiff/cri-api";
import { describe, expect, it } from "vitest";
import { maxWaitForContainerRuntimeMs, plegHealthError, plegRelistThresholdMs, RuntimeClients } from "./runtime-clients.js";

type StatusAnswer = Error | { runtime: boolean; network: boolean };

function setUp() {
  let now = 1_000_000;
  let answer: StatusAnswer = { runtime: true, network: true };
  const logs: string[] = [];
  let dials = 0;
  const statusTimeouts: (number | undefined)[] = [];
  const versions: number[] = [];
  const dial = () => {
    dials++;
    const runtime = {
      status: async (_req: unknown, opts?: { timeoutMs?: number }) => {
        statusTimeouts.push(opts?.timeoutMs);
        if (answer instanceof Error) throw answer;
        const cond = (type: string, ok: boolean) => ({ type, status: ok, reason: ok ? "" : "NotReadyReason", message: ok ? "" : "not ready here" });
        return { status: { conditions: [cond("RuntimeReady", answer.runtime), cond("NetworkReady", answer.network)] }, info: {} };
      },
      version: async () => {
        versions.push(now);
        return { version: "0.1.0", runtimeName: "fake", runtimeVersion: "1.2", runtimeApiVersion: "v1" };
      },
      close: () => undefined,
    } as unknown as RuntimeClient;
    return { runtime, images: { close: () => undefined } as unknown as ImageClient };
  };
  const clients = new RuntimeClients("unix:///unused", 120_000, "", undefined, dial, { clock: () => now, log: (m) => logs.push(m) });
  return {
    clients,
    logs,
    statusTimeouts,
    versions,
    dials: () => dials,
    advance: (ms: number) => (now += ms),
    answer: (a: StatusAnswer) => (answer = a),
  };
}

const deadline = () => new CRIError({ method: "Status", code: "DeadlineExceeded", details: "Deadline exceeded after 120.000s" });
const unavailable = () => new CRIError({ method: "Status", code: "Unavailable", details: "connect ENOENT /run/x.sock" });

describe("RuntimeClients: runtime readiness (1.23's runtimeState)", () => {
  it("is not ready before the first successful status check, then ready with the runtime's version", async () => {
    const t = setUp();
    expect(t.clients.current()).toMatchObject({ ready: false, message: "container runtime status check may not have completed yet", runtimeName: "" });
    const state = await t.clients.probe();
    expect(state).toMatchObject({ ready: true, message: "", errors: [], networkError: "", runtimeName: "fake", runtimeVersion: "1.2" });
    // Status is asked with the runtime request timeout, not a shorter one of its own.
    expect(t.statusTimeouts).toEqual([120_000]);
    // The version is asked once, not on every check.
    await t.clients.probe();
    expect(t.versions).toHaveLength(1);
  });

  it("stays ready through failed and timed-out checks shorter than 30 s, and keeps its channels", async () => {
    const t = setUp();
    await t.clients.probe();
    t.answer(deadline());
    for (let i = 0; i < 5; i++) {
      t.advance(5_000);
      expect((await t.clients.probe()).ready).toBe(true);
    }
    expect(t.logs.filter((l) => l.startsWith("Container runtime sanity check failed: Status: rpc error: code = DeadlineExceeded"))).toHaveLength(5);
    // A slow runtime under load keeps its gRPC channels (in-flight calls are not cut).
    expect(t.dials()).toBe(1);
    expect(t.clients.runtimeUp()).toBe(true);
  });

  it("is down once 30 s pass without a successful check, whether or not a check is still waiting, and ready again on the next success", async () => {
    const t = setUp();
    await t.clients.probe();
    t.answer(deadline());
    t.advance(maxWaitForContainerRuntimeMs - 1);
    expect(t.clients.current().ready).toBe(true);
    t.advance(1);
    expect(t.clients.current()).toMatchObject({ ready: false, message: "container runtime is down", errors: ["container runtime is down"] });
    expect(t.clients.runtimeUp()).toBe(false);
    // Once down, a timed-out check replaces the channels (the runtime may have come back elsewhere).
    await t.clients.probe();
    expect(t.dials()).toBe(2);
    t.answer({ runtime: true, network: true });
    expect(await t.clients.probe()).toMatchObject({ ready: true, runtimeName: "fake" });
    // After a reconnect the version is asked again (a restarted runtime may be another one).
    expect(t.versions).toHaveLength(2);
  });

  it("reconnects at once when the runtime is unavailable, without turning not ready", async () => {
    const t = setUp();
    await t.clients.probe();
    t.answer(unavailable());
    t.advance(5_000);
    expect((await t.clients.probe()).ready).toBe(true);
    expect(t.dials()).toBe(2);
  });

  it("is not ready at once when Status says RuntimeReady=false, with 1.23's message", async () => {
    const t = setUp();
    await t.clients.probe();
    t.answer({ runtime: false, network: true });
    expect(await t.clients.probe()).toMatchObject({
      ready: false,
      message: "container runtime not ready: RuntimeReady=false reason:NotReadyReason message:not ready here",
    });
    expect(t.clients.runtimeUp()).toBe(false);
    // 30 s later without a good answer the runtime also counts as down: two errors, aggregated.
    t.advance(maxWaitForContainerRuntimeMs);
    expect(t.clients.current().message).toBe("[container runtime is down, container runtime not ready: RuntimeReady=false reason:NotReadyReason message:not ready here]");
    t.answer({ runtime: true, network: true });
    expect((await t.clients.probe()).ready).toBe(true);
  });

  it("reports NetworkReady=false as a network error that leaves the runtime ready", async () => {
    const t = setUp();
    t.answer({ runtime: true, network: false });
    const state = await t.clients.probe();
    expect(state).toMatchObject({ ready: true, networkError: "container runtime network not ready: NetworkReady=false reason:NotReadyReason message:not ready here" });
    expect(t.logs).toContain("Container runtime network not ready: NetworkReady=false reason:NotReadyReason message:not ready here");
    t.answer({ runtime: true, network: true });
    expect((await t.clients.probe()).networkError).toBe("");
  });

  it("adds a failing health check's error (the PLEG's) to the runtime errors, and leaves runtimeUp alone", async () => {
    const t = setUp();
    let pleg: string | undefined = "pleg has yet to be successful";
    t.clients.addHealthCheck("PLEG", () => pleg);
    await t.clients.probe();
    expect(t.clients.current()).toMatchObject({ ready: false, message: "PLEG is not healthy: pleg has yet to be successful" });
    expect(t.clients.runtimeUp()).toBe(true);
    pleg = undefined;
    expect(t.clients.current().ready).toBe(true);
  });
});

describe("plegHealthError (1.23's GenericPLEG.Healthy)", () => {
  it("is unhealthy before the first relist and after 3 min without one, healthy in between, with Go durations", () => {
    expect(plegHealthError(undefined, 5)).toBe("pleg has yet to be successful");
    expect(plegHealthError(1_000, 1_000 + plegRelistThresholdMs)).toBeUndefined();
    expect(plegHealthError(1_000, 1_000 + plegRelistThresholdMs + 1)).toBe("pleg was last seen active 3m0.001s ago; threshold is 3m0s");
    expect(plegHealthError(0, 3_725_500)).toBe("pleg was last seen active 1h2m5.5s ago; threshold is 3m0s");
  });
});
