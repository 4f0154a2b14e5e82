// The pod machinery end to end on the project's process CRI server (containers are host processes).
import { mkdtempSync, rmSync, unlinkSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImageClient, createRuntimeClient } from "@skiff/cri-api";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { alwaysManifest, findPod, neverManifest, readAll, waitFor } from "./pods-helpers.js";

const nodeName = "node-a";

describe("pods on the process CRI server", () => {
  let dir: string;
  let runtime: ProcessRuntime;
  let pods: PodRuntime;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-np-"));
    runtime = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "state") });
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    writeFileSync(join(manifests, "always.yaml"), alwaysManifest("busybox"));
    writeFileSync(join(manifests, "never.json"), neverManifest("busybox"));
    writeFileSync(join(manifests, "bad.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: Bad_Name}\nspec: {containers: []}\n");
    writeFileSync(join(manifests, ".hidden.yaml"), "not: a pod");
    pods = createPodRuntime({
      nodeName,
      rootDir: join(dir, "root"),
      podLogsDir: join(dir, "logs"),
      containerRuntimeEndpoint: runtime.endpoint,
      runtimeRequestTimeoutMs: 10_000,
      staticPodPath: manifests,
      fileCheckFrequencyMs: 300,
      syncFrequencyMs: 5_000,
      backOffInitialMs: 300,
      backOffMaxMs: 1_000,
      relistPeriodMs: 200,
      runtimeCheckPeriodMs: 300,
      log: (m) => logs.push(m),
    });
    await pods.start();
  });

  afterAll(async () => {
    await pods?.stop();
    await runtime?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs the two good pods and skips the malformed manifest", async () => {
    await waitFor("two pods", () => (pods.listPods().length === 2 ? true : undefined));
    const names = pods.listPods().map((p) => p.metadata?.name).sort();
    expect(names).toEqual([`always-${nodeName}`, `never-${nodeName}`]);
    expect(logs.some((l) => l.includes("bad.yaml"))).toBe(true);
    const always = findPod(pods.listPods(), "always");
    expect(always?.metadata?.namespace).toBe("default");
    expect(always?.metadata?.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(always?.metadata?.annotations?.["example.io/config.source"]).toBe("file");
    expect(always?.spec?.nodeName).toBe(nodeName);
  });

  it("restarts the Always pod with a rising restartCount and reports its exit code", async () => {
    const pod = await waitFor("restartCount ≥ 2", () => {
      const p = findPod(pods.listPods(), "always");
      const cs = p?.status?.containerStatuses?.[0];
      return cs && cs.restartCount >= 2 ? p : undefined;
    });
    const cs = pod.status?.containerStatuses?.[0];
    expect(pod.status?.phase).toBe("Running");
    const last = cs?.lastState?.terminated ?? cs?.state?.terminated;
    expect(last?.exitCode).toBe(3);
    expect(cs?.containerID).toMatch(/:\/\//);
  });

  it("reports the Never pod Failed with its exit code, and never restarts it", async () => {
    const pod = await waitFor("never Failed", () => {
      const p = findPod(pods.listPods(), "never");
      return p?.status?.phase === "Failed" ? p : undefined;
    });
    const cs = pod.status?.containerStatuses?.[0];
    expect(cs?.state?.terminated?.exitCode).toBe(7);
    expect(cs?.restartCount).toBe(0);
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("False");
    expect(pod.status?.conditions?.find((c) => c.type === "PodScheduled")?.status).toBe("True");
  });

  it("serves container logs, with previous, tail and timestamps", async () => {
    const text = await readAll(await pods.containerLogs("default", `never-${nodeName}`, "main", {}));
    expect(text).toBe("done\noops\n");
    const tail = await readAll(await pods.containerLogs("default", `never-${nodeName}`, "main", { tailLines: 1, timestamps: true }));
    expect(tail).toMatch(/^\d{4}-\d\d-\d\dT[0-9:.]+Z oops\n$/);
    const always = await readAll(await pods.containerLogs("default", `always-${nodeName}`, "main", {}));
    expect(always).toBe("hello always\n");
    const previous = await readAll(await pods.containerLogs("default", `always-${nodeName}`, "main", { previous: true }));
    expect(previous).toBe("hello always\n");
    await expect(pods.containerLogs("default", "nope", "main", {})).rejects.toMatchObject({ code: "NotFound" });
    await expect(pods.containerLogs("default", `never-${nodeName}`, "other", {})).rejects.toMatchObject({ code: "NotFound" });
    await expect(pods.containerLogs("default", `never-${nodeName}`, "main", { previous: true })).rejects.toMatchObject({ code: "BadRequest" });
  });

  it("lists running pods from the runtime", async () => {
    const running = await pods.listRunningPods();
    // The Never pod's sandbox is stopped once it failed; the Always pod keeps its sandbox.
    expect(running.some((p) => p.metadata?.name === `always-${nodeName}`)).toBe(true);
    expect(running.some((p) => p.metadata?.name === `never-${nodeName}`)).toBe(false);
  });

  it("stops and removes the pod when its file is deleted", async () => {
    const uid = findPod(pods.listPods(), "always")?.metadata?.uid ?? "";
    unlinkSync(join(dir, "manifests", "always.yaml"));
    await waitFor("always pod gone", () => (findPod(pods.listPods(), "always") ? undefined : true));
    const rt = createRuntimeClient({ endpoint: runtime.endpoint, timeoutMs: 5_000 });
    try {
      await waitFor("sandbox removed", async () => {
        const { items } = await rt.listPodSandbox({ filter: { labelSelector: { "io.example.pod.uid": uid } } });
        const { containers } = await rt.listContainers({ filter: { labelSelector: { "io.example.pod.uid": uid } } });
        return items.length === 0 && containers.length === 0 ? true : undefined;
      });
    } finally {
      rt.close();
    }
    expect(findPod(pods.listPods(), "never")).toBeDefined();
  });

  it("reports healthy and the runtime ready", () => {
    expect(pods.runtimeState().ready).toBe(true);
    for (const h of pods.healthChecks()) expect(() => h.check()).not.toThrow();
  });
});

describe("a runtime that appears after the agent started", () => {
  it("reports not ready, stays up, and recovers", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skiff-np-"));
    const socketPath = join(dir, "late.sock");
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    writeFileSync(join(manifests, "sleeper.yaml"), alwaysManifest("busybox").replace("name: always", "name: sleeper").replace("exit 3", "sleep 30"));
    const pods = createPodRuntime({
      nodeName,
      rootDir: join(dir, "root"),
      podLogsDir: join(dir, "logs"),
      containerRuntimeEndpoint: `unix://${socketPath}`,
      runtimeRequestTimeoutMs: 2_000,
      staticPodPath: manifests,
      runtimeCheckPeriodMs: 200,
      relistPeriodMs: 200,
    });
    let runtime: ProcessRuntime | undefined;
    try {
      await pods.start();
      expect(pods.runtimeState().ready).toBe(false);
      expect(pods.runtimeState().message).toMatch(/container runtime status check may not have completed yet/);
      for (const h of pods.healthChecks()) expect(() => h.check()).not.toThrow();
      expect(findPod(pods.listPods(), "sleeper")?.status?.phase).toBe("Pending");
      await new Promise((r) => setTimeout(r, 1_000));
      runtime = await startProcessRuntime({ socketPath, stateDir: join(dir, "state") });
      await waitFor("runtime ready", () => (pods.runtimeState().ready ? true : undefined));
      const pod = await waitFor("sleeper running", () => {
        const p = findPod(pods.listPods(), "sleeper");
        return p?.status?.phase === "Running" ? p : undefined;
      });
      expect(pod.status?.containerStatuses?.[0]?.ready).toBe(true);
    } finally {
      await pods.stop();
      await runtime?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("runOnce and the manifest API", () => {
  let dir: string;
  let runtime: ProcessRuntime;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-np-"));
    runtime = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "state") });
  });
  afterAll(async () => {
    await runtime?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runOnce starts the static pods and reports each", async () => {
    const manifests = join(dir, "once");
    mkdirSync(manifests);
    writeFileSync(join(manifests, "sleeper.yaml"), alwaysManifest("busybox").replace("name: always", "name: sleeper").replace("exit 3", "sleep 30"));
    writeFileSync(join(manifests, "fails.json"), neverManifest("busybox").replace('"name":"never"', '"name":"fails"'));
    const pods = createPodRuntime({ nodeName, rootDir: join(dir, "root"), podLogsDir: join(dir, "logs"), containerRuntimeEndpoint: runtime.endpoint, staticPodPath: manifests });
    const r = await pods.runOnce(20_000);
    expect(r.pods.map((p) => [p.name, p.phase, p.ok])).toEqual([
      [`fails-${nodeName}`, "Failed", false],
      [`sleeper-${nodeName}`, "Running", true],
    ]);
    expect(r.ok).toBe(false);
    await pods.stop();
  });

  it("runOnce without any source reports no manifest update", async () => {
    const pods = createPodRuntime({ nodeName, rootDir: join(dir, "root"), containerRuntimeEndpoint: runtime.endpoint });
    expect(await pods.runOnce(1_000)).toMatchObject({ ok: false, error: "no pod manifest update after 1s" });
    await pods.stop();
  });

  it("runs and removes pods submitted through the manifest API", async () => {
    const pods = createPodRuntime({ nodeName, rootDir: join(dir, "root"), podLogsDir: join(dir, "logs2"), containerRuntimeEndpoint: runtime.endpoint, relistPeriodMs: 200 });
    try {
      await pods.start();
      const bad = pods.submitManifest({ body: "kind: Pod" });
      expect(bad.ok).toBe(false);
      const r = pods.submitManifest({ body: alwaysManifest("busybox").replace("name: always", "name: api").replace("exit 3", "sleep 30") });
      expect(r.ok && r.pod.metadata?.name).toBe(`api-${nodeName}`);
      const pod = await waitFor("api pod running", () => {
        const p = findPod(pods.listPods(), "api");
        return p?.status?.phase === "Running" ? p : undefined;
      });
      expect(pod.metadata?.annotations?.["example.io/config.source"]).toBe("manifest");
      expect(pods.removeSubmittedManifest("default", "nope")).toBe(false);
      expect(pods.removeSubmittedManifest("default", "api")).toBe(true);
      await waitFor("api pod gone", async () => {
        const running = await pods.listRunningPods();
        return !findPod(running, "api") && pods.listPods().length === 0 ? true : undefined;
      });
    } finally {
      await pods.stop();
    }
  });
});

describe("orphaned pods after a restart of the agent", () => {
  it("stops a pod it finds running that no source wants any more (HandlePodCleanups); its own wanted pods and another node's pods keep running", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skiff-np-"));
    const runtime = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "state") });
    const cri = createRuntimeClient({ endpoint: runtime.endpoint, timeoutMs: 10_000 });
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    const sleeper = (name: string) => alwaysManifest("busybox").replace("name: always", `name: ${name}`).replace("exit 3", "sleep 60");
    writeFileSync(join(manifests, "keep.yaml"), sleeper("keep"));
    writeFileSync(join(manifests, "gone.yaml"), sleeper("gone"));
    const logs: string[] = [];
    const agent = () =>
      createPodRuntime({ nodeName: "node-o", rootDir: join(dir, "root"), podLogsDir: join(dir, "logs"), containerRuntimeEndpoint: runtime.endpoint, staticPodPath: manifests, fileCheckFrequencyMs: 300, relistPeriodMs: 200, orphanCleanupPeriodMs: 200, log: (m) => logs.push(m) });
    let pods = agent();
    try {
      // Another node's pod on the same runtime (as tests share one): never this agent's to stop.
      const foreign = { metadata: { name: "foreign", namespace: "default", uid: "foreign-uid", attempt: 0 }, labels: { "io.example.pod.uid": "foreign-uid", "io.skiff.node.name": "node-other" } };
      const images = createImageClient({ endpoint: runtime.endpoint, timeoutMs: 10_000 });
      await images.pullImage({ image: { image: "busybox" } });
      images.close();
      const { podSandboxId } = await cri.runPodSandbox({ config: foreign });
      const { containerId: foreignId } = await cri.createContainer({ podSandboxId, sandboxConfig: foreign, config: { metadata: { name: "c" }, image: { image: "busybox" }, command: ["sleep", "60"], labels: foreign.labels } });
      await cri.startContainer({ containerId: foreignId });
      await pods.start();
      const running = async (prefix: string) => {
        const { containers } = await cri.listContainers({ filter: { state: { state: "CONTAINER_RUNNING" } } });
        return containers.filter((c) => (c.labels["io.example.pod.name"] ?? "").startsWith(prefix)).map((c) => c.id);
      };
      const keepId = await waitFor("keep running", async () => (await running("keep"))[0]);
      await waitFor("gone running", async () => (await running("gone"))[0]);
      // The agent goes away (its pods keep running), the manifest is removed meanwhile.
      await pods.stop();
      unlinkSync(join(manifests, "gone.yaml"));
      pods = agent();
      await pods.start();
      await waitFor("the orphan stopped", async () => ((await running("gone")).length === 0 ? true : undefined));
      const { items } = await cri.listPodSandbox({ filter: { state: { state: "SANDBOX_READY" } } });
      expect(items.map((s) => s.metadata?.name).sort()).toEqual(["foreign", "keep-node-o"]);
      expect(await running("keep")).toEqual([keepId]);
      expect((await cri.containerStatus({ containerId: foreignId })).status?.state).toBe("CONTAINER_RUNNING");
      expect(logs.filter((l) => l.startsWith("Clean up orphaned pod containers"))).toHaveLength(1);
    } finally {
      await pods.stop();
      cri.close();
      await runtime.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
