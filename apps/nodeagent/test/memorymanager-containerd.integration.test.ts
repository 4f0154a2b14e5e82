// The Static memory manager behind the topology manager on real containerd + runc
// (tools/containerd/setup.sh in a temporary directory), configured from real flags
// (loadNodeAgentOptions → setUpNode → podResourceOptionsFrom → createPodRuntime):
// - on this machine's sysfs, a Guaranteed pod gets a memory block on NUMA node 0 recorded in
//   <root-dir>/memory_manager_state, its container runs with cpuset.mems of that node (CRI
//   cpuset_mems; read from the container's cpuset cgroup and Mems_allowed_list), and the block is
//   released when the pod goes;
// - on a prepared sysfs with 2 NUMA nodes where the pod's CPU only fits node 1 and its memory
//   only node 0, single-numa-node rejects it TopologyAffinityError through admission, with no
//   sandbox, pod cgroup or state entry left.
// Its pods live under a --cgroup-root of its own, with fake /proc/sys and /proc/swaps. With
// CI=true it must run; elsewhere it is skipped (with the reason) when setup fails.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { podResourceOptionsFrom, podRuntimeOptionsFrom, setUpNode } from "../src/app.js";
import { CgroupManager } from "../src/cm/index.js";
import type { Logger } from "../src/logging.js";
import { loadNodeAgentOptions } from "../src/options/index.js";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { findPod, waitFor } from "./pods-helpers.js";
import { fakeProc, removeTestCgroupRoot } from "./node-setup-fakes.js";

const setup = setUpContainerd({ prefix: "skiff-memman-", suite: "containerd memory manager suite" });
const cgroupRoot = `skiff-memman-${process.pid}`;
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
  await removeTestCgroupRoot(cgroupRoot);
});

// 2 NUMA nodes: node 0 holds CPU 0 (reserved) and 4Gi, node 1 CPUs 1-3 and 512Mi.
function twoNodeSysfs(dir: string): string {
  const root = join(dir, "sysfs");
  for (let cpu = 0; cpu < 4; cpu++) {
    const t = join(root, "devices/system/cpu", `cpu${cpu}`, "topology");
    mkdirSync(t, { recursive: true });
    writeFileSync(join(t, "physical_package_id"), cpu === 0 ? "0\n" : "1\n");
    writeFileSync(join(t, "core_id"), `${cpu}\n`);
  }
  writeFileSync(join(root, "devices/system/cpu/online"), "0-3\n");
  const nodes: Array<[string, number]> = [["0", 4 * 1024 * 1024], ["1-3", 512 * 1024]];
  nodes.forEach(([cpus, kB], n) => {
    const d = join(root, "devices/system/node", `node${n}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, "cpulist"), `${cpus}\n`);
    writeFileSync(join(d, "meminfo"), `Node ${n} MemTotal:       ${kB} kB\nNode ${n} MemFree:        ${kB} kB\n`);
  });
  return root;
}

function manifest(name: string, resources: Record<string, Record<string, string>>): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "main", image: "busybox:1.36", imagePullPolicy: "IfNotPresent", command: ["sleep", "3600"], resources }] },
  });
}

const v2 = existsSync(join(cgroupFs, "cgroup.controllers"));
const podDir = (uid: string) => (v2 ? join(cgroupFs, cgroupRoot, "kubepods", `pod${uid}`) : join(cgroupFs, "cpuset", cgroupRoot, "kubepods", `pod${uid}`));

describe.skipIf(setup.endpoint === undefined)("Static memory manager on containerd", () => {
  async function startAgent(name: string, sysfs?: (dir: string) => string): Promise<{ runtime: PodRuntime; manifests: string; rootDir: string }> {
    await new CgroupManager().create([cgroupRoot]);
    const dir = mkdtempSync(join(setup.dir, `${name}-`));
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    const rootDir = join(dir, "root");
    const loaded = loadNodeAgentOptions(
      [
        `--root-dir=${rootDir}`,
        `--cgroup-root=/${cgroupRoot}`,
        `--pod-manifest-path=${manifests}`,
        "--cpu-manager-policy=static",
        "--reserved-cpus=0",
        "--memory-manager-policy=Static",
        "--reserved-memory=0:memory=100Mi",
        "--topology-manager-policy=single-numa-node",
        "--cpu-manager-reconcile-period=1s",
      ],
      { stdout: { write: () => true }, stderr: { write: () => true } },
    );
    if (!loaded.ok) throw new Error(loaded.errors.join("; "));
    const o = loaded.value;
    const cm = await setUpNode(o, log, { ...fakeProc(dir), ...(sysfs ? { sysfs: sysfs(dir) } : {}) });
    const runtime = createPodRuntime({
      ...podRuntimeOptionsFrom(o, name, log),
      ...(await podResourceOptionsFrom(o, cm)),
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
    return { runtime, manifests, rootDir };
  }

  it("pins a Guaranteed container's memory to NUMA node 0 (cpuset.mems), records the block and releases it", async () => {
    const { runtime, manifests, rootDir } = await startAgent("node-mem");
    const stateFile = join(rootDir, "memory_manager_state");
    type State = { policyName: string; machineState: Record<string, { numberOfAssignments: number; memoryMap: { memory: { reserved: number; systemReserved: number } } }>; entries?: Record<string, Record<string, Array<{ numaAffinity: number[]; type: string; size: number }>>> };
    const state = () => JSON.parse(readFileSync(stateFile, "utf8")) as State;
    expect(state()).toMatchObject({ policyName: "Static", machineState: { "0": { numberOfAssignments: 0, memoryMap: { memory: { reserved: 0, systemReserved: 100 * 1024 * 1024 } } } } });

    writeFileSync(join(manifests, "guaranteed.json"), manifest("guaranteed", { requests: { cpu: "1", memory: "64Mi" }, limits: { cpu: "1", memory: "64Mi" } }));
    const g = await waitFor("guaranteed running", () => {
      const p = findPod(runtime.listPods(), "guaranteed");
      return p?.status?.phase === "Running" && p.status.containerStatuses?.[0]?.state?.running ? p : undefined;
    }, 90_000);
    const uid = g.metadata?.uid ?? "";
    expect(state().entries?.[uid]).toEqual({ main: [{ numaAffinity: [0], type: "memory", size: 64 * 1024 * 1024 }] });
    expect(state().machineState["0"]).toMatchObject({ numberOfAssignments: 1, memoryMap: { memory: { reserved: 64 * 1024 * 1024 } } });
    const id = (g.status?.containerStatuses?.[0]?.containerID ?? "").replace(/^containerd:\/\//, "");
    const cg = join(podDir(uid), id);
    expect(readFileSync(join(cg, v2 ? "cpuset.mems" : "cpuset.mems"), "utf8").trim()).toBe("0");
    const pid = readFileSync(join(cg, "cgroup.procs"), "utf8").split("\n")[0] ?? "";
    expect(/Mems_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]).toBe("0");

    unlinkSync(join(manifests, "guaranteed.json"));
    await waitFor("guaranteed gone", () => (findPod(runtime.listPods(), "guaranteed") ? undefined : true), 60_000);
    await waitFor("memory released", () => (state().entries?.[uid] === undefined && state().machineState["0"]?.numberOfAssignments === 0 ? true : undefined), 30_000);
    expect(state().machineState["0"]?.memoryMap.memory.reserved).toBe(0);
  });

  it("single-numa-node rejects a pod whose CPU and memory hints do not intersect TopologyAffinityError, leaving nothing behind", async () => {
    const { runtime, manifests, rootDir } = await startAgent("node-numa", twoNodeSysfs);
    // cpu: 1 fits only node 1 (CPU 0 is reserved); 1Gi of memory fits only node 0 (node 1 has 512Mi).
    writeFileSync(join(manifests, "split.json"), manifest("split", { requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } }));
    const p = await waitFor("split rejected", () => {
      const pod = findPod(runtime.listPods(), "split");
      return pod?.status?.phase === "Failed" ? pod : undefined;
    });
    expect(p.status).toMatchObject({ reason: "TopologyAffinityError", message: "Pod Resources cannot be allocated with Topology locality" });
    const mem = JSON.parse(readFileSync(join(rootDir, "memory_manager_state"), "utf8")) as { entries?: unknown; machineState: Record<string, { numberOfAssignments: number }> };
    expect(mem.entries).toBeUndefined();
    expect(mem.machineState["0"]?.numberOfAssignments).toBe(0);
    expect(JSON.parse(readFileSync(join(rootDir, "cpu_manager_state"), "utf8")).entries).toBeUndefined();
    expect(existsSync(podDir(p.metadata?.uid ?? ""))).toBe(false);

    // Both fit node 1 when the memory does: admitted there (the sandbox then runs on this machine).
    writeFileSync(join(manifests, "aligned.json"), manifest("aligned", { requests: { cpu: "1", memory: "256Mi" }, limits: { cpu: "1", memory: "256Mi" } }));
    const a = await waitFor("aligned admitted", () => {
      const pod = findPod(runtime.listPods(), "aligned");
      return pod && pod.status?.phase !== "Failed" && JSON.parse(readFileSync(join(rootDir, "memory_manager_state"), "utf8")).entries ? pod : undefined;
    });
    expect(JSON.parse(readFileSync(join(rootDir, "memory_manager_state"), "utf8")).entries[a.metadata?.uid ?? ""]).toEqual({ main: [{ numaAffinity: [1], type: "memory", size: 256 * 1024 * 1024 }] });
    unlinkSync(join(manifests, "aligned.json"));
    await waitFor("aligned released", () => (JSON.parse(readFileSync(join(rootDir, "memory_manager_state"), "utf8")).entries === undefined ? true : undefined), 60_000);
  });
});
