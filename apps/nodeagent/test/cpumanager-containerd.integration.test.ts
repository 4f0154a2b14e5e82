// The static CPU manager on real containerd + runc (tools/containerd/setup.sh in a temporary
// directory), on this machine's real topology (sysfs): with --cpu-manager-policy=static
// --reserved-cpus=0 a Guaranteed pod with `cpu: 1` runs on an exclusive CPU, a BestEffort pod
// runs on the shared pool (CreateContainer's cpuset_cpus, then UpdateContainerResources from the
// reconcile loop as the pool shrinks and grows back), and the assignment is recorded in
// <root-dir>/cpu_manager_state and released when the pod goes. The test reads what the kernel
// applies: Cpus_allowed_list in /proc/<pid>/status of each container's process.
// The node agent is configured from real flags (loadNodeAgentOptions → setUpNode →
// podResourceOptionsFrom → createPodRuntime) with its pods under a --cgroup-root of its own and
// fake /proc/sys and /proc/swaps. Needs at least 2 CPUs. With CI=true it must run; elsewhere it
// is skipped (with the reason) when setup fails.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { podResourceOptionsFrom, podRuntimeOptionsFrom, setUpNode } from "../src/app.js";
import { CgroupManager, formatCPUSet } from "../src/cm/index.js";
import type { CPUManager } from "../src/cm/index.js";
import { podResourcesProviders } from "../src/podresources/index.js";
import type { Logger } from "../src/logging.js";
import { loadNodeAgentOptions } from "../src/options/index.js";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { findPod, waitFor } from "./pods-helpers.js";
import { fakeProc, removeTestCgroupRoot } from "./node-setup-fakes.js";

const setup = setUpContainerd({ prefix: "skiff-cpuman-", suite: "containerd CPU manager suite" });
const cgroupRoot = `skiff-cpuman-${process.pid}`;
const cgroupFs = "/sys/fs/cgroup";
const runtimes: PodRuntime[] = [];
const logs: string[] = [];
const log = {
  info: (m: string) => logs.push(m),
  error: (m: string, f?: unknown) => logs.push(`${m} ${JSON.stringify(f)}`),
  v: () => ({ info: (m: string) => logs.push(m), enabled: false }),
} as unknown as Logger;
const allCPUs = formatCPUSet(cpus().map((_, i) => i));

afterAll(async () => {
  for (const r of runtimes) await r.stop();
  tearDownContainerd(setup);
  await removeTestCgroupRoot(cgroupRoot);
});

function manifest(name: string, resources: Record<string, Record<string, string>>): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "main", image: "busybox:1.36", imagePullPolicy: "IfNotPresent", command: ["sleep", "3600"], resources }] },
  });
}

async function running(runtime: PodRuntime, prefix: string): Promise<Pod> {
  return waitFor(`${prefix} running`, () => {
    const p = findPod(runtime.listPods(), prefix);
    return p?.status?.phase === "Running" && p.status.containerStatuses?.[0]?.state?.running ? p : undefined;
  }, 90_000);
}

// Cpus_allowed_list of the container's process, found through its cpu cgroup.
function allowedCPUs(pod: Pod, qosDir: string[]): string {
  const id = (pod.status?.containerStatuses?.[0]?.containerID ?? "").replace(/^containerd:\/\//, "");
  const procs = readFileSync(join(cgroupFs, "cpu", cgroupRoot, "kubepods", ...qosDir, `pod${pod.metadata?.uid ?? ""}`, id, "cgroup.procs"), "utf8");
  const pid = procs.split("\n")[0] ?? "";
  return /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "";
}

describe.skipIf(setup.endpoint === undefined || cpus().length < 2)("static CPU manager on containerd", () => {
  async function startAgent(name: string, sysfs?: (dir: string) => string): Promise<{ runtime: PodRuntime; manifests: string; rootDir: string; allocatableMilli: bigint | undefined; cpuManager: CPUManager | undefined }> {
    await new CgroupManager().create([cgroupRoot]);
    const dir = mkdtempSync(join(setup.dir, `${name}-`));
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    const rootDir = join(dir, "root");
    const loaded = loadNodeAgentOptions(
      [`--root-dir=${rootDir}`, `--cgroup-root=/${cgroupRoot}`, `--pod-manifest-path=${manifests}`, "--cpu-manager-policy=static", "--reserved-cpus=0", "--cpu-manager-reconcile-period=1s"],
      { stdout: { write: () => true }, stderr: { write: () => true } },
    );
    if (!loaded.ok) throw new Error(loaded.errors.join("; "));
    const o = loaded.value;
    const cm = await setUpNode(o, log, { ...fakeProc(dir), ...(sysfs ? { sysfs: sysfs(dir) } : {}) });
    const resources = await podResourceOptionsFrom(o, cm);
    const runtime = createPodRuntime({
      ...podRuntimeOptionsFrom(o, name, log),
      ...resources,
      containerRuntimeEndpoint: setup.endpoint ?? "",
      podLogsDir: join(dir, "pod-logs"),
      runtimeRequestTimeoutMs: 60_000,
      fileCheckFrequencyMs: 300,
      relistPeriodMs: 300,
      runtimeCheckPeriodMs: 1_000,
      housekeepingPeriodMs: 500,
    });
    runtimes.push(runtime);
    await runtime.start();
    return { runtime, manifests, rootDir, allocatableMilli: resources.nodeAllocatable?.cpuMilli, cpuManager: cm?.topologyManager?.cpuManager };
  }

  it("pins a Guaranteed cpu:1 container to CPU 1, shrinks and grows the shared pool, records and releases the assignment", async () => {
    const { runtime, manifests, rootDir, allocatableMilli, cpuManager } = await startAgent("node-cpu");
    const podResources = podResourcesProviders(runtime, cpuManager);
    expect(podResources.allocatableCPUs()).toEqual(cpus().map((_, i) => i).filter((i) => i !== 0));
    // --reserved-cpus=0 reserves one CPU from node allocatable, as 1.23's system-reserved overwrite.
    expect(allocatableMilli).toBe(BigInt((cpus().length - 1) * 1000));
    const stateFile = join(rootDir, "cpu_manager_state");
    const state = () => JSON.parse(readFileSync(stateFile, "utf8")) as { policyName: string; defaultCPUSet: string; entries?: Record<string, Record<string, string>> };
    expect(state()).toMatchObject({ policyName: "static", defaultCPUSet: allCPUs });

    writeFileSync(join(manifests, "besteffort.json"), manifest("besteffort", {}));
    const e = await running(runtime, "besteffort");
    expect(allowedCPUs(e, ["besteffort"])).toBe(allCPUs);

    writeFileSync(join(manifests, "guaranteed.json"), manifest("guaranteed", { requests: { cpu: "1", memory: "64Mi" }, limits: { cpu: "1", memory: "64Mi" } }));
    const g = await running(runtime, "guaranteed");
    const uid = g.metadata?.uid ?? "";
    expect(allowedCPUs(g, [])).toBe("1");
    const shared = formatCPUSet(cpus().map((_, i) => i).filter((i) => i !== 1));
    expect(state()).toMatchObject({ policyName: "static", defaultCPUSet: shared, entries: { [uid]: { main: "1" } } });
    // The pod resources API reports the exclusive CPU (and none for the shared-pool container).
    expect(podResources.cpus(uid, "main")).toEqual([1]);
    expect(podResources.cpus(e.metadata?.uid ?? "", "main")).toEqual([]);
    // The reconcile loop moves the BestEffort container off the exclusive CPU.
    await waitFor("besteffort off CPU 1", () => (allowedCPUs(e, ["besteffort"]) === shared ? true : undefined), 30_000);

    unlinkSync(join(manifests, "guaranteed.json"));
    await waitFor("guaranteed gone", () => (findPod(runtime.listPods(), "guaranteed") ? undefined : true), 60_000);
    await waitFor("assignment released", () => (state().entries?.[uid] === undefined && state().defaultCPUSet === allCPUs ? true : undefined), 30_000);
    await waitFor("besteffort back on every CPU", () => (allowedCPUs(e, ["besteffort"]) === allCPUs ? true : undefined), 30_000);
  });

  it("rejects a pod the CPU manager cannot serve UnexpectedAdmissionError, leaving no sandbox or state entry", async () => {
    // The CPU manager sees a prepared one-CPU machine (CPU 0, reserved) while allocatable still
    // counts this machine's CPUs: admission passes the fit check and fails in the CPU manager.
    const { runtime, manifests, rootDir } = await startAgent("node-one-cpu", (dir) => {
      const t = join(dir, "sysfs", "devices/system/cpu/cpu0/topology");
      mkdirSync(t, { recursive: true });
      writeFileSync(join(t, "physical_package_id"), "0\n");
      writeFileSync(join(t, "core_id"), "0\n");
      writeFileSync(join(dir, "sysfs", "devices/system/cpu/online"), "0\n");
      return join(dir, "sysfs");
    });
    writeFileSync(join(manifests, "pinned.json"), manifest("pinned", { requests: { cpu: "1", memory: "64Mi" }, limits: { cpu: "1", memory: "64Mi" } }));
    const p = await waitFor("pinned rejected", () => {
      const pod = findPod(runtime.listPods(), "pinned");
      return pod?.status?.phase === "Failed" ? pod : undefined;
    });
    expect(p.status).toMatchObject({ reason: "UnexpectedAdmissionError", message: "Pod Allocate failed due to not enough cpus available to satisfy request, which is unexpected" });
    expect(JSON.parse(readFileSync(join(rootDir, "cpu_manager_state"), "utf8"))).toMatchObject({ policyName: "static", defaultCPUSet: "0" });
    expect(JSON.parse(readFileSync(join(rootDir, "cpu_manager_state"), "utf8")).entries).toBeUndefined();
    expect(existsSync(join(cgroupFs, "cpu", cgroupRoot, "kubepods", `pod${p.metadata?.uid ?? ""}`))).toBe(false);
  });
});
