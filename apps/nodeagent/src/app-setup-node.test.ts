// Start-up of the node agent's node-level set-up through runNodeAgent, with fake host paths: the
// flags that must fail start-up do so with exit 1 and the kubelet's (or a clear "not supported") message.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cpus } from "node:os";
import { podResourceOptionsFrom, runNodeAgent, type HostPaths } from "./app.js";
import { loadNodeAgentOptions } from "./options/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function host(o: { swap?: boolean; tunables?: Record<string, string> } = {}): { dir: string; paths: HostPaths } {
  const dir = mkdtempSync(join(tmpdir(), "na-setup-"));
  dirs.push(dir);
  const put = (p: string, t: string) => {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), t);
  };
  const tunables = { "vm/overcommit_memory": "1", "vm/panic_on_oom": "0", "kernel/panic": "10", "kernel/panic_on_oops": "1", "kernel/keys/root_maxkeys": "1000000", "kernel/keys/root_maxbytes": "25000000", "kernel/pid_max": "4096", ...o.tunables };
  for (const [k, v] of Object.entries(tunables)) put(join("sys", k), v);
  put("swaps", `Filename\tType\tSize\tUsed\tPriority\n${o.swap ? "/swapfile\tfile\t1024\t0\t-2\n" : ""}`);
  put("proc/self/oom_score_adj", "0");
  for (const h of ["cpu", "cpuacct", "cpuset", "memory", "pids"]) mkdirSync(join(dir, "cgroup", h), { recursive: true });
  return { dir, paths: { proc: join(dir, "proc"), procSys: join(dir, "sys"), swaps: join(dir, "swaps"), cgroupFs: join(dir, "cgroup") } };
}

async function run(args: string[], paths: HostPaths, dir: string): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const stop = new AbortController();
  const code = await runNodeAgent(["--hostname-override=n1", `--root-dir=${join(dir, "root")}`, "--container-runtime-endpoint=unix:///nonexistent.sock", "--enable-server=false", "--healthz-port=0", "--read-only-port=0", ...args], {
    stdout: { write: () => true },
    stderr: { write: (t: string) => err.push(t) },
    getuid: () => 0,
    hostPaths: paths,
    stopSignal: stop.signal,
    onReady: () => stop.abort(),
  });
  return { code, err: err.join("") };
}

describe("runNodeAgent node set-up", () => {
  it("fails with swap on (--fail-swap-on default true), 1.23's message", async () => {
    const { dir, paths } = host({ swap: true });
    const r = await run([], paths, dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain("running with swap on is not supported, please disable swap! or set --fail-swap-on flag to false. /proc/swaps contained: [");
  });

  it("fails with --protect-kernel-defaults when a tunable differs, and sets them otherwise", async () => {
    const { dir, paths } = host({ tunables: { "kernel/panic": "0" } });
    const r = await run(["--protect-kernel-defaults"], paths, dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain("invalid kernel flag: kernel/panic, expected value: 10, actual value: 0");
    const ok = await run([], paths, dir);
    expect(ok.code, ok.err).toBe(0);
    expect(readFileSync(join(dir, "sys/kernel/panic"), "utf8")).toBe("10");
  });

  it("writes --oom-score-adj and builds kubepods under the cgroup root", async () => {
    const { dir, paths } = host();
    const r = await run(["--oom-score-adj=-500", "--enforce-node-allocatable=pods"], paths, dir);
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(join(dir, "proc/self/oom_score_adj"), "utf8")).toBe("-500");
    expect(readFileSync(join(dir, "cgroup/pids/kubepods/pids.max"), "utf8")).toBe("4096");
    expect(readFileSync(join(dir, "cgroup/cpu/kubepods/besteffort/cpu.shares"), "utf8")).toBe("2");
  });

  it("moves the agent into --agent-cgroups, creating it", async () => {
    const { dir, paths } = host();
    mkdirSync(join(dir, "proc", "4242"), { recursive: true });
    const r = await run(["--agent-cgroups=/nodeagent.slice", "--oom-score-adj=-900"], { ...paths, agentPid: 4242 }, dir);
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(join(dir, "proc", "4242", "oom_score_adj"), "utf8")).toBe("-900");
    for (const h of ["cpu", "memory", "pids"]) expect(readFileSync(join(dir, "cgroup", h, "nodeagent.slice", "cgroup.procs"), "utf8")).toBe("4242");
  });

  it("logs, and starts, when the runtime's process for --runtime-cgroups is not found (as 1.23's ensure-state loop)", async () => {
    const { dir, paths } = host();
    const r = await run(["--runtime-cgroups=/runtime"], paths, dir);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain("Failed to ensure state: failed to find the container runtime's process (no listener on /nonexistent.sock) to move into /runtime");
  });

  it.each([
    [["--cpu-manager-policy=static"], "start cpu manager error: [cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero"],
    [["--memory-manager-policy=Static"], 'the total amount \\"0\\" of type \\"memory\\" is not equal to the value \\"100Mi\\" determined by Node Allocatable feature'],
    [["--system-cgroups=/", "--cgroup-root=/"], 'system container cannot be root (\\"/\\")'],
    [["--cgroup-driver=systemd"], "--cgroup-driver=systemd"],
    [["--cgroup-root=/missing"], 'invalid configuration: cgroup-root \\"/missing\\" doesn\'t exist'],
    [["--enforce-node-allocatable=pods,system-reserved", "--system-reserved=memory=1Gi", "--system-reserved-cgroup=/system.slice"], 'Failed to enforce System Reserved Cgroup Limits on \\"/system.slice\\": \\"/system.slice\\" cgroup does not exist'],
  ])("refuses %j at start-up", async (args, message) => {
    const { dir, paths } = host();
    const r = await run(args, paths, dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain('"Failed to run nodeagent"');
    expect(r.err).toContain(message);
  });
});

// A prepared sysfs with `n` CPUs (one socket, one thread per core, one NUMA node).
function sysfsWith(dir: string, n: number): string {
  const root = join(dir, "sysfs");
  for (let cpu = 0; cpu < n; cpu++) {
    const t = join(root, "devices/system/cpu", `cpu${cpu}`, "topology");
    mkdirSync(t, { recursive: true });
    writeFileSync(join(t, "physical_package_id"), "0\n");
    writeFileSync(join(t, "core_id"), `${cpu}\n`);
  }
  writeFileSync(join(root, "devices/system/cpu/online"), n === 1 ? "0\n" : `0-${n - 1}\n`);
  return root;
}

// A prepared sysfs with `nodes` NUMA nodes of 2 CPUs each (one socket per node).
function numaSysfs(dir: string, nodes: number): string {
  const root = join(dir, "numa-sysfs");
  for (let cpu = 0; cpu < nodes * 2; cpu++) {
    const t = join(root, "devices/system/cpu", `cpu${cpu}`, "topology");
    mkdirSync(t, { recursive: true });
    writeFileSync(join(t, "physical_package_id"), `${Math.floor(cpu / 2)}\n`);
    writeFileSync(join(t, "core_id"), `${cpu % 2}\n`);
  }
  writeFileSync(join(root, "devices/system/cpu/online"), `0-${nodes * 2 - 1}\n`);
  for (let n = 0; n < nodes; n++) {
    mkdirSync(join(root, "devices/system/node", `node${n}`), { recursive: true });
    writeFileSync(join(root, "devices/system/node", `node${n}`, "cpulist"), `${2 * n}-${2 * n + 1}\n`);
    writeFileSync(join(root, "devices/system/node", `node${n}`, "meminfo"), `Node ${n} MemTotal:       4194304 kB\nNode ${n} MemFree:        4000000 kB\n`);
  }
  return root;
}

describe("runNodeAgent memory manager start-up", () => {
  it("checks --reserved-memory in 1.23's words, writes memory_manager_state, then refuses a changed policy and a corrupt file naming it", async () => {
    const { dir, paths } = host();
    const p = { ...paths, sysfs: numaSysfs(dir, 2) };
    const missing = await run(["--memory-manager-policy=Static"], p, dir);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('the total amount \\"0\\" of type \\"memory\\" is not equal to the value \\"100Mi\\" determined by Node Allocatable feature');
    const nowhere = await run(["--memory-manager-policy=Static", "--reserved-memory=2:memory=100Mi"], p, dir);
    expect(nowhere.err).toContain("the reserved memory configuration references a NUMA node 2 that does not exist on this machine");
    const ok = await run(["--memory-manager-policy=Static", "--system-reserved=memory=1Gi", "--reserved-memory=0:memory=1Gi", "--reserved-memory=1:memory=100Mi"], p, dir);
    expect(ok.code, ok.err).toBe(0);
    const file = join(dir, "root", "memory_manager_state");
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({
      policyName: "Static",
      machineState: { "0": { memoryMap: { memory: { total: 4 * 2 ** 30, systemReserved: 2 ** 30 } } }, "1": { memoryMap: { memory: { total: 4 * 2 ** 30, systemReserved: 100 * 2 ** 20 } } } },
    });
    const changed = await run([], p, dir);
    expect(changed.code).toBe(1);
    expect(changed.err).toContain('start memory manager error: could not restore state from checkpoint: [memorymanager] configured policy \\"None\\" differs from state checkpoint policy \\"Static\\"');
    expect(changed.err).toContain(file);
    writeFileSync(file, readFileSync(file, "utf8").replace('"numberOfAssignments":0', '"numberOfAssignments":2'));
    const corrupt = await run(["--memory-manager-policy=Static", "--system-reserved=memory=1Gi", "--reserved-memory=0:memory=1Gi", "--reserved-memory=1:memory=100Mi"], p, dir);
    expect(corrupt.code).toBe(1);
    expect(corrupt.err).toContain("start memory manager error: could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the memory manager checkpoint file");
    expect(corrupt.err).toContain(file);
  });
});

describe("runNodeAgent topology manager start-up", () => {
  it("starts with single-numa-node and pod scope on 2 NUMA nodes, and refuses more than 8", async () => {
    const { dir, paths } = host();
    const two = await run(["--cpu-manager-policy=static", "--reserved-cpus=0", "--topology-manager-policy=single-numa-node", "--topology-manager-scope=pod"], { ...paths, sysfs: numaSysfs(dir, 2) }, dir);
    expect(two.code, two.err).toBe(0);
    const other = host();
    const nine = await run(["--cpu-manager-policy=static", "--reserved-cpus=0", "--topology-manager-policy=restricted"], { ...other.paths, sysfs: numaSysfs(other.dir, 9) }, other.dir);
    expect(nine.code).toBe(1);
    expect(nine.err).toContain("failed to initialize topology manager: unsupported on machines with more than 8 NUMA Nodes");
  });
});

describe("runNodeAgent CPU manager start-up", () => {
  it("writes cpu_manager_state, then refuses a changed policy and a corrupt file naming it", async () => {
    const { dir, paths } = host();
    const p = { ...paths, sysfs: sysfsWith(dir, 4) };
    const ok = await run(["--cpu-manager-policy=static", "--reserved-cpus=0"], p, dir);
    expect(ok.code, ok.err).toBe(0);
    const file = join(dir, "root", "cpu_manager_state");
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ policyName: "static", defaultCPUSet: "0-3" });
    const changed = await run(["--cpu-manager-policy=none"], p, dir);
    expect(changed.code).toBe(1);
    expect(changed.err).toContain("start cpu manager error: could not restore state from checkpoint: configured policy \\\"none\\\" differs from state checkpoint policy \\\"static\\\"");
    expect(changed.err).toContain(file);
    writeFileSync(file, readFileSync(file, "utf8").replace('"0-3"', '"0-2"'));
    const corrupt = await run(["--cpu-manager-policy=static", "--reserved-cpus=0"], p, dir);
    expect(corrupt.code).toBe(1);
    expect(corrupt.err).toContain("could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the CPU manager checkpoint file");
    expect(corrupt.err).toContain(file);
  });

  it("refuses an option without its gate and more reserved CPUs than the machine has", async () => {
    const { dir, paths } = host();
    const p = { ...paths, sysfs: sysfsWith(dir, 2) };
    const beta = await run(["--cpu-manager-policy=static", "--reserved-cpus=0", "--cpu-manager-policy-options=full-pcpus-only=true", "--feature-gates=CPUManagerPolicyBetaOptions=false"], p, dir);
    expect(beta.code).toBe(1);
    expect(beta.err).toContain("CPU Manager Policy Beta-level Options not enabled, but option \\\"full-pcpus-only\\\" provided");
    const tooMany = await run(["--cpu-manager-policy=static", "--system-reserved=cpu=3"], p, dir);
    expect(tooMany.code).toBe(1);
    expect(tooMany.err).toContain("[cpumanager] unable to reserve the required amount of CPUs (size of  did not equal 3)");
  });
});

describe("podResourceOptionsFrom (admission and CRI resources from flags)", () => {
  const load = (argv: string[]) => {
    const r = loadNodeAgentOptions(argv, { stdout: { write: () => true }, stderr: { write: () => true } });
    if (!r.ok) throw new Error(r.errors.join("; "));
    return r.value;
  };
  it("admits min(cores × --pods-per-core, --max-pods) pods against allocatable cpu and memory", async () => {
    const r = await podResourceOptionsFrom(load(["--pods-per-core=1", "--max-pods=50", "--system-reserved=cpu=500m"]), undefined);
    expect(r.nodeAllocatable?.pods).toBe(Math.min(cpus().length, 50));
    expect(r.nodeAllocatable?.cpuMilli).toBe(BigInt(cpus().length * 1000 - 500));
    expect(r.podCgroups).toBeUndefined();
  });
  it("passes --cpu-cfs-quota and --cpu-cfs-quota-period (with CustomCPUCFSQuotaPeriod) to the container resources", async () => {
    const r = await podResourceOptionsFrom(load(["--cpu-cfs-quota=false", "--cpu-cfs-quota-period=50ms", "--feature-gates=CustomCPUCFSQuotaPeriod=true"]), undefined);
    expect(r.containerResources).toMatchObject({ cpuCFSQuota: false, cpuCFSQuotaPeriodUs: 50_000n, customCPUCFSQuotaPeriod: true });
  });
});
