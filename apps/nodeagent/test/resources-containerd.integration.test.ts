// Requests, limits, QoS and pod cgroups, OOM kills and --max-pods on real containerd + runc
// (tools/containerd/setup.sh in a temporary directory). The node agent is configured from real
// flags (loadNodeAgentOptions → setUpNode → podResourceOptionsFrom → createPodRuntime), with its
// pods' cgroups under a --cgroup-root of its own that the test creates and removes, and with fake
// /proc/sys and /proc/swaps so the host's kernel tunables are left alone. The test reads the
// cgroup files the kernel really applies to each pod and container.
// With CI=true it must run; elsewhere it is skipped (with the reason) when setup fails.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { createRuntimeClient } from "@skiff/cri-api";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { podResourceOptionsFrom, podRuntimeOptionsFrom, setUpNode } from "../src/app.js";
import { CgroupManager } from "../src/cm/index.js";
import type { Logger } from "../src/logging.js";
import { loadNodeAgentOptions } from "../src/options/index.js";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { findPod, waitFor } from "./pods-helpers.js";
import { fakeProc, removeTestCgroupRoot } from "./node-setup-fakes.js";

const setup = setUpContainerd({ prefix: "skiff-res-", suite: "containerd resources suite" });
const cgroupRoot = `skiff-res-${process.pid}`;
const cgroupFs = "/sys/fs/cgroup";
const runtimes: PodRuntime[] = [];
const logs: string[] = [];
const log = {
  info: (m: string) => logs.push(m),
  error: (m: string, f?: unknown) => logs.push(`${m} ${JSON.stringify(f)}`),
  v: () => ({ info: (m: string) => logs.push(m), enabled: false }),
} as unknown as Logger;

afterAll(async () => {
  for (const r of runtimes) await r.stop();
  tearDownContainerd(setup);
  // Everything below our --cgroup-root: the runtime's processes are gone with containerd.
  await removeTestCgroupRoot(cgroupRoot);
});

async function startAgent(name: string, flags: string[]): Promise<{ runtime: PodRuntime; manifests: string }> {
  // --cgroup-root must exist (as the kubelet's); the test's own keeps other agents' pods apart.
  await new CgroupManager().create([cgroupRoot]);
  const dir = mkdtempSync(join(setup.dir, `${name}-`));
  const manifests = join(dir, "manifests");
  mkdirSync(manifests);
  const loaded = loadNodeAgentOptions([`--root-dir=${join(dir, "root")}`, `--cgroup-root=/${cgroupRoot}`, `--pod-manifest-path=${manifests}`, ...flags], {
    stdout: { write: () => true },
    stderr: { write: () => true },
  });
  if (!loaded.ok) throw new Error(loaded.errors.join("; "));
  const o = loaded.value;
  const cm = await setUpNode(o, log, fakeProc(dir));
  const runtime = createPodRuntime({
    ...podRuntimeOptionsFrom(o, name, log),
    ...(await podResourceOptionsFrom(o, cm)),
    containerRuntimeEndpoint: setup.endpoint ?? "",
    podLogsDir: join(dir, "pod-logs"),
    runtimeRequestTimeoutMs: 60_000,
    fileCheckFrequencyMs: 300,
    backOffInitialMs: 300,
    backOffMaxMs: 1_000,
    relistPeriodMs: 300,
    runtimeCheckPeriodMs: 1_000,
    housekeepingPeriodMs: 500,
  });
  runtimes.push(runtime);
  await runtime.start();
  return { runtime, manifests };
}

type RL = Record<string, string>;
function manifest(name: string, resources: { requests?: RL; limits?: RL }, command = ["sleep", "3600"], restartPolicy = "Always"): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { restartPolicy, terminationGracePeriodSeconds: 1, containers: [{ name: "main", image: "busybox:1.36", imagePullPolicy: "IfNotPresent", command, resources }] },
  });
}

const read = (subsystem: string, ...path: string[]) => readFileSync(join(cgroupFs, subsystem, cgroupRoot, ...path), "utf8").trim();

async function running(runtime: PodRuntime, prefix: string): Promise<Pod> {
  return waitFor(`${prefix} running`, () => {
    const p = findPod(runtime.listPods(), prefix);
    return p?.status?.phase === "Running" && p.status.containerStatuses?.[0]?.state?.running ? p : undefined;
  }, 90_000);
}

const containerIdOf = (p: Pod) => (p.status?.containerStatuses?.[0]?.containerID ?? "").replace(/^containerd:\/\//, "");

describe.skipIf(setup.endpoint === undefined)("requests, limits and QoS cgroups on containerd (cgroup v1)", () => {
  let agent: { runtime: PodRuntime; manifests: string };

  it("runs a Guaranteed, a Burstable and a BestEffort pod with their limits in the real cgroup files", async () => {
    agent = await startAgent("node-res", ["--pod-max-pids=100", "--max-pods=10"]);
    writeFileSync(join(agent.manifests, "guaranteed.json"), manifest("guaranteed", { requests: { cpu: "1", memory: "64Mi" }, limits: { cpu: "1", memory: "64Mi" } }));
    writeFileSync(join(agent.manifests, "burstable.json"), manifest("burstable", { requests: { cpu: "250m", memory: "32Mi" }, limits: { memory: "128Mi" } }));
    writeFileSync(join(agent.manifests, "besteffort.json"), manifest("besteffort", {}));
    const g = await running(agent.runtime, "guaranteed");
    const b = await running(agent.runtime, "burstable");
    const e = await running(agent.runtime, "besteffort");
    expect([g.status?.qosClass, b.status?.qosClass, e.status?.qosClass]).toEqual(["Guaranteed", "Burstable", "BestEffort"]);

    // kubepods sized to node allocatable (no reservations: the capacity), QoS cgroups.
    expect(read("cpu", "kubepods", "besteffort", "cpu.shares")).toBe("2");
    expect(read("cpu", "kubepods", "burstable", "cpu.shares")).toBe("256");
    expect(read("memory", "kubepods", "memory.limit_in_bytes")).toBe(String(totalmem()));

    // Guaranteed: the pod cgroup sits in kubepods; container and pod get shares, quota, memory limit.
    const gPod = ["kubepods", `pod${g.metadata?.uid ?? ""}`];
    const gCtr = [...gPod, containerIdOf(g)];
    expect([read("cpu", ...gPod, "cpu.shares"), read("cpu", ...gPod, "cpu.cfs_quota_us"), read("cpu", ...gPod, "cpu.cfs_period_us")]).toEqual(["1024", "100000", "100000"]);
    expect(read("memory", ...gPod, "memory.limit_in_bytes")).toBe(String(64 * 1024 * 1024));
    expect(read("pids", ...gPod, "pids.max")).toBe("100");
    expect([read("cpu", ...gCtr, "cpu.shares"), read("cpu", ...gCtr, "cpu.cfs_quota_us")]).toEqual(["1024", "100000"]);
    expect(read("memory", ...gCtr, "memory.limit_in_bytes")).toBe(String(64 * 1024 * 1024));

    // Burstable: under kubepods/burstable; no CPU limit → no quota; memory limit declared → pod limit.
    const bPod = ["kubepods", "burstable", `pod${b.metadata?.uid ?? ""}`];
    const bCtr = [...bPod, containerIdOf(b)];
    expect([read("cpu", ...bPod, "cpu.shares"), read("cpu", ...bPod, "cpu.cfs_quota_us")]).toEqual(["256", "-1"]);
    expect(read("memory", ...bPod, "memory.limit_in_bytes")).toBe(String(128 * 1024 * 1024));
    expect(read("pids", ...bPod, "pids.max")).toBe("100");
    expect([read("cpu", ...bCtr, "cpu.shares"), read("cpu", ...bCtr, "cpu.cfs_quota_us")]).toEqual(["256", "-1"]);
    expect(read("memory", ...bCtr, "memory.limit_in_bytes")).toBe(String(128 * 1024 * 1024));
    const bPid = read("cpu", ...bCtr, "cgroup.procs").split("\n")[0] ?? "";
    const memory = BigInt(totalmem());
    const expectedBurstable = 1000n - (1000n * 32n * 1024n * 1024n) / memory;
    expect(readFileSync(`/proc/${bPid}/oom_score_adj`, "utf8").trim()).toBe(String(expectedBurstable === 1000n ? 999n : expectedBurstable));

    // BestEffort: 2 shares, no quota, no memory limit.
    const ePod = ["kubepods", "besteffort", `pod${e.metadata?.uid ?? ""}`];
    const eCtr = [...ePod, containerIdOf(e)];
    expect([read("cpu", ...ePod, "cpu.shares"), read("cpu", ...eCtr, "cpu.shares"), read("cpu", ...eCtr, "cpu.cfs_quota_us")]).toEqual(["2", "2", "-1"]);
    const ePid = read("cpu", ...eCtr, "cgroup.procs").split("\n")[0] ?? "";
    expect(readFileSync(`/proc/${ePid}/oom_score_adj`, "utf8").trim()).toBe("1000");
  });

  it("reports a container allocating past its memory limit OOMKilled, restarting it", async () => {
    writeFileSync(
      join(agent.manifests, "hog.json"),
      manifest("hog", { requests: { memory: "16Mi" }, limits: { memory: "16Mi" } }, ["sh", "-c", 'x=$(head -c 200000000 /dev/zero | tr "\\0" a); echo survived']),
    );
    const hog = await waitFor("hog restarted after an OOM kill", () => {
      const p = findPod(agent.runtime.listPods(), "hog");
      const cs = p?.status?.containerStatuses?.[0];
      const t = cs?.lastState?.terminated ?? cs?.state?.terminated;
      return (cs?.restartCount ?? 0) >= 1 && t?.reason === "OOMKilled" ? p : undefined;
    }, 120_000);
    const cs = hog.status?.containerStatuses?.[0];
    const t = cs?.lastState?.terminated ?? cs?.state?.terminated;
    expect(t).toMatchObject({ reason: "OOMKilled", exitCode: 137 });
    expect(hog.status?.qosClass).toBe("Burstable");
  });

  // Static pods are critical: 1.23 answers their lack of resources by preempting, and when nothing
  // can be preempted (the other pods are static too) refuses them with UnexpectedAdmissionError.
  it("rejects a static pod asking for more CPU than the node has (nothing to preempt: UnexpectedAdmissionError), with no sandbox or cgroup", async () => {
    writeFileSync(join(agent.manifests, "huge.json"), manifest("huge", { requests: { cpu: "1000" } }));
    const huge = await waitFor("huge rejected", () => {
      const p = findPod(agent.runtime.listPods(), "huge");
      return p?.status?.phase === "Failed" ? p : undefined;
    });
    const used = [250n, 0n, 0n, 1000n].reduce((a, b) => a + b); // burstable, besteffort, hog, guaranteed
    const short = 1_000_000n - (BigInt(cpus().length) * 1000n - used);
    expect(huge.status).toMatchObject({
      reason: "UnexpectedAdmissionError",
      message: `Pod Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: [(res: cpu, q: ${short}), ]`,
    });
    const rt = createRuntimeClient({ endpoint: setup.endpoint ?? "", timeoutMs: 30_000 });
    try {
      expect((await rt.listPodSandbox({ filter: { labelSelector: { "io.example.pod.uid": huge.metadata?.uid ?? "" } } })).items).toEqual([]);
    } finally {
      rt.close();
    }
    expect(existsSync(join(cgroupFs, "cpu", cgroupRoot, "kubepods", "burstable", `pod${huge.metadata?.uid ?? ""}`))).toBe(false);
  });

  it("removes a pod's cgroup when the pod goes", async () => {
    const g = findPod(agent.runtime.listPods(), "guaranteed");
    const dir = join(cgroupFs, "memory", cgroupRoot, "kubepods", `pod${g?.metadata?.uid ?? ""}`);
    expect(existsSync(dir)).toBe(true);
    unlinkSync(join(agent.manifests, "guaranteed.json"));
    await waitFor("guaranteed pod cgroup removed", () => (existsSync(dir) ? undefined : true), 60_000);
    expect(existsSync(join(cgroupFs, "cpu", cgroupRoot, "kubepods", `pod${g?.metadata?.uid ?? ""}`))).toBe(false);
    const unified = join(cgroupFs, "unified", cgroupRoot, "kubepods", `pod${g?.metadata?.uid ?? ""}`);
    await waitFor("its unified (hybrid) mirror removed too", () => (existsSync(unified) ? undefined : true), 30_000);
  });

  it("--max-pods=2 runs two static pods and rejects the third (nothing to preempt: UnexpectedAdmissionError), leaving no sandbox or cgroup for it", async () => {
    const small = await startAgent("node-small", ["--max-pods=2"]);
    for (const n of ["a", "b", "c"]) writeFileSync(join(small.manifests, `${n}.json`), manifest(`p${n}`, {}));
    const pods = await waitFor("three pods, one rejected", () => {
      const list = small.runtime.listPods();
      return list.length === 3 && list.filter((p) => p.status?.phase === "Running").length === 2 && list.some((p) => p.status?.phase === "Failed") ? list : undefined;
    }, 90_000);
    const rejected = pods.find((p) => p.status?.phase === "Failed");
    expect(rejected?.status).toMatchObject({
      phase: "Failed",
      reason: "UnexpectedAdmissionError",
      message: "Pod Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: [(res: pods, q: 1), ]",
    });
    const uid = rejected?.metadata?.uid ?? "";
    const rt = createRuntimeClient({ endpoint: setup.endpoint ?? "", timeoutMs: 30_000 });
    try {
      const { items } = await rt.listPodSandbox({ filter: { labelSelector: { "io.example.pod.uid": uid } } });
      expect(items).toEqual([]);
    } finally {
      rt.close();
    }
    const besteffortDir = join(cgroupFs, "cpu", cgroupRoot, "kubepods", "besteffort");
    expect(readdirSync(besteffortDir).filter((d) => d === `pod${uid}`)).toEqual([]);
  });

  it("--cgroups-per-qos=false: no pod cgroup, the runtime's default parent, limits still on the container", async () => {
    const flat = await startAgent("node-flat", ["--cgroups-per-qos=false", "--enforce-node-allocatable="]);
    writeFileSync(join(flat.manifests, "flat.json"), manifest("flat", { requests: { cpu: "500m", memory: "32Mi" }, limits: { cpu: "500m", memory: "32Mi" } }));
    const p = await running(flat.runtime, "flat");
    expect(p.status?.qosClass).toBe("Guaranteed");
    expect(existsSync(join(cgroupFs, "cpu", cgroupRoot, "kubepods", `pod${p.metadata?.uid ?? ""}`))).toBe(false);
    const id = containerIdOf(p);
    const dir = join(cgroupFs, "cpu", "k8s.io", id);
    expect(readFileSync(join(dir, "cpu.shares"), "utf8").trim()).toBe("512");
    expect(readFileSync(join(dir, "cpu.cfs_quota_us"), "utf8").trim()).toBe("50000");
    expect(readFileSync(join(cgroupFs, "memory", "k8s.io", id, "memory.limit_in_bytes"), "utf8").trim()).toBe(String(32 * 1024 * 1024));
  });
});
