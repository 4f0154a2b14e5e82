// The static-pod scenario with the REAL node agent binary on real containerd + runc, set up by
// tools/containerd/setup.sh in a temporary directory and stopped (tasks killed, containers and
// sandboxes deleted, containerd stopped, directory purged) afterwards, also when a test fails.
// Skip rules as the other containerd suites: with CI=true it must run; elsewhere it is skipped
// (with the reason) when not root or when setup fails.
import { mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import type { Pod } from "@skiff/api-types";
import { createRuntimeClient } from "@skiff/cri-api";
import type { HarnessAgent } from "./agent-harness.js";
import { eventually, get, podNamed, removePodLogs, startHarnessAgent } from "./agent-harness.js";
import { alwaysManifest, neverManifest } from "./pods-helpers.js";

const setup = setUpContainerd({ prefix: "skiff-bbc-", suite: "containerd black-box suite" });

const nodeName = `bbc-${Math.random().toString(36).slice(2, 8)}`;
let agent: HarnessAgent | undefined;

afterAll(async () => {
  await agent?.stop(10_000);
  tearDownContainerd(setup);
  await removePodLogs(nodeName);
}, 180_000);

const phaseOf = (p: Pod | undefined) => p?.status?.phase;
const mainStatus = (p: Pod | undefined) => p?.status?.containerStatuses?.find((c) => c.name === "main");

describe.skipIf(setup.endpoint === undefined)("nodeagent binary on containerd: static pods", () => {
  const endpoint = setup.endpoint ?? "";
  const manifests = join(setup.dir, "manifests");
  const context = () => agent?.logs() ?? "";

  beforeAll(async () => {
    mkdirSync(manifests, { recursive: true });
    writeFileSync(join(manifests, "always.yaml"), alwaysManifest("busybox:1.36"));
    writeFileSync(join(manifests, "never.json"), neverManifest("docker.io/library/busybox:latest"));
    writeFileSync(join(manifests, "broken.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: broken}\nspec: [not, a, spec]\n");
    agent = await startHarnessAgent({ dir: join(setup.dir, "agent"), nodeName, runtimeEndpoint: endpoint, manifests, args: ["--file-check-frequency=1s"] });
  }, 120_000);

  it("runs the Always and Never pods; the malformed manifest is reported and skipped", async () => {
    const a = agent;
    if (!a) throw new Error("no agent");
    await eventually("runtime ready", () => a.logs().includes("container runtime is ready (containerd)"), 60_000, context);
    const pods = await eventually("two pods", async () => {
      const p = await a.pods();
      return p.length === 2 ? p : undefined;
    }, 60_000, context);
    expect(pods.map((p) => p.metadata?.name).sort()).toEqual([`always-${nodeName}`, `never-${nodeName}`]);
    expect(a.logs()).toContain(join(manifests, "broken.yaml"));
  });

  it("reports the Never pod's exit code in /pods, never restarted", async () => {
    const a = agent;
    if (!a) throw new Error("no agent");
    const never = await eventually("never Failed", async () => {
      const p = podNamed(await a.pods(), "never", nodeName);
      return phaseOf(p) === "Failed" ? p : undefined;
    }, 90_000, context);
    expect(mainStatus(never)?.state?.terminated?.exitCode).toBe(7);
    expect(mainStatus(never)?.restartCount).toBe(0);
    expect(mainStatus(never)?.containerID).toMatch(/^containerd:\/\//);
  });

  it("restarts the Always pod with a rising restart count and its exit code in /pods", async () => {
    const a = agent;
    if (!a) throw new Error("no agent");
    const first = await eventually("always restarted", async () => {
      const p = podNamed(await a.pods(), "always", nodeName);
      return (mainStatus(p)?.restartCount ?? 0) >= 1 ? p : undefined;
    }, 90_000, context);
    const second = await eventually("always restarted again", async () => {
      const p = podNamed(await a.pods(), "always", nodeName);
      return (mainStatus(p)?.restartCount ?? 0) > (mainStatus(first)?.restartCount ?? 0) ? p : undefined;
    }, 120_000, context);
    const cs = mainStatus(second);
    expect((cs?.lastState?.terminated ?? cs?.state?.terminated)?.exitCode).toBe(3);
    expect(phaseOf(second)).toBe("Running");
    expect(second.status?.podIP).toBeTruthy();
  }, 240_000);

  it("serves both pods' logs through /containerLogs", async () => {
    const a = agent;
    if (!a) throw new Error("no agent");
    // stdout and stderr reach containerd through separate pipes, so their lines may interleave
    // either way in the log file: compare them as a set.
    const never = await get(a.ports.main, `/containerLogs/default/never-${nodeName}/main`, {});
    expect(never.status).toBe(200);
    expect(never.body.split("\n").filter((l) => l !== "").sort()).toEqual(["done", "oops"]);
    expect(await get(a.ports.main, `/containerLogs/default/always-${nodeName}/main?previous=true`, {})).toMatchObject({ status: 200, body: "hello always\n" });
  });

  it("deleting the file stops and removes the pod: gone from /pods, /runningpods/ and containerd", async () => {
    const a = agent;
    if (!a) throw new Error("no agent");
    const uid = podNamed(await a.pods(), "always", nodeName)?.metadata?.uid ?? "";
    expect(uid).not.toBe("");
    unlinkSync(join(manifests, "always.yaml"));
    await eventually("always gone from /pods", async () => (podNamed(await a.pods(), "always", nodeName) ? undefined : true), 60_000, context);
    await eventually("always gone from /runningpods/", async () => {
      const r = await get(a.ports.main, "/runningpods/", {});
      return r.status === 200 && !(r.json<{ items: Pod[] | null }>().items ?? []).some((p) => p.metadata?.uid === uid);
    }, 60_000, context);
    const rt = createRuntimeClient({ endpoint, timeoutMs: 30_000 });
    try {
      await eventually("sandbox and containers removed from containerd", async () => {
        const { items } = await rt.listPodSandbox({ filter: { labelSelector: { "io.example.pod.uid": uid } } });
        const { containers } = await rt.listContainers({ filter: { labelSelector: { "io.example.pod.uid": uid } } });
        return items.length === 0 && containers.length === 0;
      }, 90_000, context);
    } finally {
      rt.close();
    }
    expect(phaseOf(podNamed(await a.pods(), "never", nodeName))).toBe("Failed");
  }, 240_000);
});
