import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Container, Pod } from "@skiff/api-types";
import { afterEach, describe, expect, it } from "vitest";
import { CgroupManager, cgroupNameToSystemd, cpuSharesToWeight, parseSystemdToCgroupName } from "./cgroup-manager.js";
import { ContainerManager, type ContainerManagerOptions } from "./container-manager.js";
import { cgroupMilliCPUToShares, resourceConfigForPod } from "./helpers.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fake cgroup v1 tree: one directory per hierarchy, as mounted on this machine. */
function fakeV1(): string {
  const root = mkdtempSync(join(tmpdir(), "cm-v1-"));
  dirs.push(root);
  for (const h of ["cpu", "cpuacct", "cpuset", "memory", "pids", "blkio", "unified"]) mkdirSync(join(root, h));
  writeFileSync(join(root, "unified", "cgroup.controllers"), "");
  writeFileSync(join(root, "cpuset", "cpuset.cpus"), "0-1\n");
  writeFileSync(join(root, "cpuset", "cpuset.mems"), "0\n");
  return root;
}

/** A fake cgroup v2 tree (unified). */
function fakeV2(): string {
  const root = mkdtempSync(join(tmpdir(), "cm-v2-"));
  dirs.push(root);
  writeFileSync(join(root, "cgroup.controllers"), "cpuset cpu io memory hugetlb pids rdma\n");
  writeFileSync(join(root, "cgroup.subtree_control"), "");
  return root;
}

const read = (...p: string[]) => readFileSync(join(...p), "utf8").trim();

const ctr = (name: string, requests?: Record<string, string>, limits?: Record<string, string>): Container => ({
  name,
  image: "busybox",
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
});
const pod = (uid: string, ...containers: Container[]): Pod => ({ metadata: { name: uid, namespace: "default", uid }, spec: { containers } });
const guaranteed = pod("g1", ctr("c", { cpu: "1", memory: "64Mi" }, { cpu: "1", memory: "64Mi" }));
const burstable = pod("b1", ctr("c", { cpu: "250m", memory: "32Mi" }, { cpu: "500m", memory: "128Mi" }));
const besteffort = pod("e1", ctr("c"));

function options(root: string, over: Partial<ContainerManagerOptions> = {}): ContainerManagerOptions {
  return {
    cgroupsPerQOS: true,
    cgroupRoot: "",
    cgroupDriver: "cgroupfs",
    cpuCFSQuota: true,
    cpuCFSQuotaPeriodUs: 100_000n,
    customCPUCFSQuotaPeriod: false,
    podPidsLimit: -1,
    enforceNodeAllocatable: ["pods"],
    systemReserved: {},
    clusterReserved: {},
    systemReservedCgroup: "",
    clusterReservedCgroup: "",
    qosReserved: {},
    qosReservedEnabled: false,
    capacity: { cpuMilli: 2000n, memoryBytes: 4n << 30n, pids: 32768n },
    cgroupFsRoot: root,
    ...over,
  };
}

// pkg/kubelet/cm/helpers_linux_test.go (TestResourceConfigForPod), 1.23
describe("resourceConfigForPod", () => {
  const s = { enforceCPULimits: true, cpuPeriodUs: 100_000n, customCPUCFSQuotaPeriod: false };
  it.each([
    { name: "besteffort", pod: besteffort, want: { cpuShares: 2n, hugePageLimit: new Map() } },
    { name: "burstable-no-limits", pod: pod("x", ctr("c", { cpu: "100m", memory: "100Mi" })), want: { cpuShares: 102n, hugePageLimit: new Map() } },
    { name: "burstable-with-limits", pod: pod("x", ctr("c", { cpu: "100m", memory: "100Mi" }, { cpu: "200m", memory: "200Mi" })), want: { cpuShares: 102n, cpuQuota: 20000n, cpuPeriod: 100000n, memory: 209715200n, hugePageLimit: new Map() } },
    { name: "burstable-partial-limits", pod: pod("x", ctr("a", { cpu: "100m" }, { cpu: "200m", memory: "200Mi" }), ctr("b", { cpu: "100m" })), want: { cpuShares: 204n, hugePageLimit: new Map() } },
    { name: "guaranteed", pod: pod("x", ctr("c", { cpu: "100m", memory: "100Mi" }, { cpu: "100m", memory: "100Mi" })), want: { cpuShares: 102n, cpuQuota: 10000n, cpuPeriod: 100000n, memory: 104857600n, hugePageLimit: new Map() } },
  ])("$name", ({ pod: p, want }) => expect(resourceConfigForPod(p, s)).toEqual(want));
  it("sets quota -1 without --cpu-cfs-quota, and the custom period only with its gate", () => {
    const p = pod("x", ctr("c", { cpu: "100m", memory: "100Mi" }, { cpu: "100m", memory: "100Mi" }));
    expect(resourceConfigForPod(p, { ...s, enforceCPULimits: false })).toMatchObject({ cpuQuota: -1n });
    expect(resourceConfigForPod(p, { ...s, cpuPeriodUs: 5000n, customCPUCFSQuotaPeriod: true })).toMatchObject({ cpuQuota: 1000n, cpuPeriod: 5000n });
  });
  it("caps QoS shares at 262144", () => {
    expect(cgroupMilliCPUToShares(0n)).toBe(2n);
    expect(cgroupMilliCPUToShares(1_000_000n)).toBe(262144n);
  });
});

describe("cpuSharesToWeight (cgroup v2)", () => {
  it.each([
    [0n, 0n],
    [2n, 1n],
    [1024n, 39n],
    [262144n, 10000n],
  ])("%s → %s", (s, w) => expect(cpuSharesToWeight(s)).toBe(w));
});

describe("ContainerManager on cgroup v1 (fake root)", () => {
  it("creates kubepods with node allocatable, burstable and besteffort, and pod cgroups under their QoS parent", async () => {
    const root = fakeV1();
    const cm = await ContainerManager.start(options(root, { systemReserved: { cpu: "500m", memory: "1Gi" }, podPidsLimit: 100 }));
    expect(cm.cgroupVersion).toBe("v1");
    expect(read(root, "cpu/kubepods/cpu.shares")).toBe(String((1500n * 1024n) / 1000n));
    expect(read(root, "memory/kubepods/memory.limit_in_bytes")).toBe(String(3n << 30n));
    expect(read(root, "pids/kubepods/pids.max")).toBe("32768");
    expect(read(root, "cpu/kubepods/besteffort/cpu.shares")).toBe("2");
    expect(existsSync(join(root, "cpuacct/kubepods/burstable"))).toBe(true);
    expect(existsSync(join(root, "unified/kubepods"))).toBe(false);
    // runc mirrors containers' cgroups into a hybrid host's unified hierarchy: removed with the pod.
    mkdirSync(join(root, "unified/kubepods/burstable/podb1"), { recursive: true });
    const active = [guaranteed, burstable, besteffort];
    for (const p of active) await cm.ensurePod(p, active);
    expect(cm.cgroupParent(guaranteed)).toBe("/kubepods/podg1");
    expect(cm.cgroupParent(burstable)).toBe("/kubepods/burstable/podb1");
    expect(cm.cgroupParent(besteffort)).toBe("/kubepods/besteffort/pode1");
    expect(read(root, "cpu/kubepods/podg1/cpu.shares")).toBe("1024");
    expect(read(root, "cpu/kubepods/podg1/cpu.cfs_quota_us")).toBe("100000");
    expect(read(root, "cpu/kubepods/podg1/cpu.cfs_period_us")).toBe("100000");
    expect(read(root, "memory/kubepods/podg1/memory.limit_in_bytes")).toBe(String(64 * 1024 * 1024));
    expect(read(root, "pids/kubepods/podg1/pids.max")).toBe("100");
    expect(read(root, "cpu/kubepods/burstable/podb1/cpu.shares")).toBe("256");
    expect(read(root, "cpu/kubepods/burstable/podb1/cpu.cfs_quota_us")).toBe("50000");
    expect(read(root, "memory/kubepods/burstable/podb1/memory.limit_in_bytes")).toBe(String(128 * 1024 * 1024));
    expect(read(root, "cpu/kubepods/besteffort/pode1/cpu.shares")).toBe("2");
    expect(existsSync(join(root, "cpu/kubepods/besteffort/pode1/cpu.cfs_quota_us"))).toBe(false);
    // The QoS cgroups follow the active pods: burstable = shares of the Burstable pods' CPU requests.
    expect(read(root, "cpu/kubepods/burstable/cpu.shares")).toBe("256");
    expect((await cm.podCgroupUIDs()).sort()).toEqual(["b1", "e1", "g1"]);
    await cm.removePod("b1");
    expect(existsSync(join(root, "cpu/kubepods/burstable/podb1"))).toBe(false);
    expect(existsSync(join(root, "memory/kubepods/burstable/podb1"))).toBe(false);
    expect(existsSync(join(root, "unified/kubepods/burstable/podb1"))).toBe(false);
    // Another agent's pod cgroup on the same host is not this manager's to remove.
    mkdirSync(join(root, "cpu/kubepods/besteffort/podforeign"), { recursive: true });
    await cm.cleanupOrphans(new Set(["g1"]));
    expect((await cm.podCgroupUIDs()).sort()).toEqual(["foreign", "g1"]);
    // A removed orphan is not looked at again: a later pass still leaves the foreign one alone.
    await cm.cleanupOrphans(new Set([]));
    expect((await cm.podCgroupUIDs()).sort()).toEqual(["foreign"]);
  });

  it("writes the QoS cgroups at a pod start only when the active pods change them (housekeeping always rewrites them)", async () => {
    const root = fakeV1();
    const cm = await ContainerManager.start(options(root));
    await cm.ensurePod(guaranteed, [guaranteed]);
    expect(read(root, "cpu/kubepods/burstable/cpu.shares")).toBe("2");
    // A marker: a pod start that leaves the QoS settings as they were does not write them again.
    writeFileSync(join(root, "cpu/kubepods/burstable/cpu.shares"), "7");
    const g2 = { ...guaranteed, metadata: { ...guaranteed.metadata, uid: "g2", name: "g2" } };
    await cm.ensurePod(g2, [guaranteed, g2]);
    expect(read(root, "cpu/kubepods/burstable/cpu.shares")).toBe("7");
    // A Burstable pod changes burstable's shares: written.
    await cm.ensurePod(burstable, [guaranteed, g2, burstable]);
    expect(read(root, "cpu/kubepods/burstable/cpu.shares")).toBe("256");
    writeFileSync(join(root, "cpu/kubepods/burstable/cpu.shares"), "7");
    await cm.updateQOSCgroups([guaranteed, g2, burstable]);
    expect(read(root, "cpu/kubepods/burstable/cpu.shares")).toBe("256");
  });

  it("sizes kubepods to capacity without pods enforcement, and applies --qos-reserved=memory", async () => {
    const root = fakeV1();
    const cm = await ContainerManager.start(options(root, { enforceNodeAllocatable: [], systemReserved: { memory: "1Gi" }, qosReserved: { memory: "50%" }, qosReservedEnabled: true }));
    expect(read(root, "memory/kubepods/memory.limit_in_bytes")).toBe(String(4n << 30n));
    await cm.updateQOSCgroups([guaranteed, burstable]);
    const allocatable = 3n << 30n;
    const burstableLimit = allocatable - (64n * 1024n * 1024n * 50n) / 100n;
    expect(read(root, "memory/kubepods/burstable/memory.limit_in_bytes")).toBe(String(burstableLimit));
    expect(read(root, "memory/kubepods/besteffort/memory.limit_in_bytes")).toBe(String(burstableLimit - (32n * 1024n * 1024n * 50n) / 100n));
  });

  it("puts kubepods under --cgroup-root, which must exist", async () => {
    const root = fakeV1();
    await expect(ContainerManager.start(options(root, { cgroupRoot: "/skiff" }))).rejects.toThrow('invalid configuration: cgroup-root "/skiff" doesn\'t exist');
    for (const h of ["cpu", "cpuacct", "cpuset", "memory", "pids", "blkio"]) mkdirSync(join(root, h, "skiff"));
    const cm = await ContainerManager.start(options(root, { cgroupRoot: "/skiff" }));
    expect(cm.cgroupParent(burstable)).toBe("/skiff/kubepods/burstable/podb1");
    expect(existsSync(join(root, "memory/skiff/kubepods/besteffort"))).toBe(true);
  });

  it("enforces system-reserved and cluster-reserved on their existing cgroups, and fails as 1.23 when one is missing", async () => {
    const root = fakeV1();
    const enforce = ["pods", "system-reserved", "cluster-reserved"];
    const o = options(root, { enforceNodeAllocatable: enforce, systemReserved: { cpu: "500m", memory: "100Mi", pid: "1000" }, systemReservedCgroup: "/system.slice", clusterReserved: { memory: "200Mi" }, clusterReservedCgroup: "/kube.slice" });
    await expect(ContainerManager.start(o)).rejects.toThrow('Failed to enforce System Reserved Cgroup Limits on "/system.slice": "/system.slice" cgroup does not exist');
    for (const h of ["cpu", "cpuset", "memory", "pids"]) mkdirSync(join(root, h, "system.slice"));
    await expect(ContainerManager.start(o)).rejects.toThrow('Failed to enforce Kube Reserved Cgroup Limits on "/kube.slice": "/kube.slice" cgroup does not exist');
    for (const h of ["cpu", "cpuset", "memory", "pids"]) mkdirSync(join(root, h, "kube.slice"));
    await ContainerManager.start(o);
    expect(read(root, "cpu/system.slice/cpu.shares")).toBe("512");
    expect(read(root, "memory/system.slice/memory.limit_in_bytes")).toBe(String(100 * 1024 * 1024));
    expect(read(root, "pids/system.slice/pids.max")).toBe("1000");
    expect(read(root, "memory/kube.slice/memory.limit_in_bytes")).toBe(String(200 * 1024 * 1024));
    expect(read(root, "memory/kubepods/memory.limit_in_bytes")).toBe(String((4n << 30n) - 300n * 1024n * 1024n));
  });

  it("creates nothing and gives an empty cgroup parent with --cgroups-per-qos=false", async () => {
    const root = fakeV1();
    const cm = await ContainerManager.start(options(root, { cgroupsPerQOS: false, enforceNodeAllocatable: [] }));
    await cm.ensurePod(burstable, [burstable]);
    expect(cm.cgroupParent(burstable)).toBe("");
    expect(existsSync(join(root, "cpu/kubepods"))).toBe(false);
  });

  it("refuses --cgroup-driver=systemd, saying why", async () => {
    const root = fakeV1();
    await expect(ContainerManager.start(options(root, { cgroupDriver: "systemd", systemdRunning: () => false }))).rejects.toThrow(
      "--cgroup-driver=systemd: systemd is not running on this host (no /run/systemd/system); use --cgroup-driver=cgroupfs",
    );
  });
});

describe("--cgroup-driver=systemd", () => {
  it("names cgroups as 1.23's systemd driver", () => {
    expect(cgroupNameToSystemd(["kubepods", "burstable", "pod12-34-ab"])).toBe("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod12_34_ab.slice");
    expect(cgroupNameToSystemd(["kubepods"])).toBe("/kubepods.slice");
    expect(cgroupNameToSystemd([])).toBe("/");
    expect(parseSystemdToCgroupName("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod12_34_ab.slice")).toEqual(["kubepods", "burstable", "pod12-34-ab"]);
  });

  it("creates the slices through systemd (StartTransientUnit), writes their limits and hands the runtime the systemd cgroup_parent", async () => {
    // A fake systemd: StartTransientUnit creates the slice's directory in every hierarchy, StopUnit removes it.
    const root = fakeV1();
    const calls: string[][] = [];
    const busctl = async (args: readonly string[]) => {
      calls.push([...args]);
      const unit = args[6] ?? "";
      const path = parseSystemdToCgroupName(unit);
      for (const h of ["cpu", "cpuacct", "cpuset", "memory", "pids", "blkio"]) {
        const dir = join(root, h, ...cgroupNameToSystemd(path).split("/").filter(Boolean));
        if (args[4] === "StartTransientUnit") mkdirSync(dir, { recursive: true });
        else rmSync(dir, { recursive: true, force: true });
      }
    };
    const cm = await ContainerManager.start(options(root, { cgroupDriver: "systemd", systemdRunning: () => true, busctl }));
    expect(calls.filter((c) => c[4] === "StartTransientUnit").map((c) => c[6])).toEqual(["kubepods.slice", "kubepods-burstable.slice", "kubepods-besteffort.slice"]);
    expect(calls[0]).toEqual(expect.arrayContaining(["org.freedesktop.systemd1.Manager", "StartTransientUnit", "ssa(sv)a(sa(sv))", "kubepods.slice", "replace"]));
    expect(read(root, "cpu/kubepods.slice/kubepods-besteffort.slice/cpu.shares")).toBe("2");
    const p = pod("ab-12", ctr("c", { cpu: "250m", memory: "32Mi" }, { cpu: "500m", memory: "128Mi" }));
    await cm.ensurePod(p, [p]);
    expect(cm.cgroupParent(p)).toBe("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podab_12.slice");
    expect(read(root, "memory/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podab_12.slice/memory.limit_in_bytes")).toBe(String(128 * 1024 * 1024));
    expect(await cm.podCgroupUIDs()).toEqual(["ab-12"]);
    await cm.removePod("ab-12");
    expect(calls.at(-1)?.slice(4)).toEqual(["StopUnit", "ss", "kubepods-burstable-podab_12.slice", "replace"]);
    expect(existsSync(join(root, "cpu/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podab_12.slice"))).toBe(false);
  });

  it.skipIf(!existsSync("/run/systemd/system"))("creates kubepods.slice through the host's systemd (skipped where systemd is not running: no /run/systemd/system, as on this machine and CI)", async () => {
    // Under a private root slice, removed afterwards, so a kubelet's kubepods.slice is never touched.
    const rootName = `skifftest${process.pid}`;
    const sd = new CgroupManager({ driver: "systemd" });
    await sd.create([rootName]);
    try {
      const cm = await ContainerManager.start(options("/sys/fs/cgroup", { cgroupDriver: "systemd", cgroupRoot: `/${rootName}`, enforceNodeAllocatable: [] }));
      expect(sd.exists([rootName, "kubepods", "burstable"])).toBe(true);
      expect(cm.cgroupParent(guaranteed)).toBe(`/${rootName}.slice/${rootName}-kubepods.slice/${rootName}-kubepods-podg1.slice`);
    } finally {
      for (const n of [[rootName, "kubepods", "burstable"], [rootName, "kubepods", "besteffort"], [rootName, "kubepods"], [rootName]]) await sd.destroy(n).catch(() => undefined);
    }
  });
});

describe("ContainerManager on cgroup v2 (fake root)", () => {
  it("writes cpu.weight, cpu.max, memory.max and pids.max and enables controllers down the path", async () => {
    const root = fakeV2();
    const cm = await ContainerManager.start(options(root, { podPidsLimit: 50 }));
    expect(cm.cgroupVersion).toBe("v2");
    expect(read(root, "cgroup.subtree_control")).toBe("+cpu +cpuset +memory +pids +io +hugetlb");
    expect(read(root, "kubepods/cgroup.subtree_control")).toContain("+cpu");
    expect(read(root, "kubepods/memory.max")).toBe(String(4n << 30n));
    expect(read(root, "kubepods/besteffort/cpu.weight")).toBe("1");
    await cm.ensurePod(guaranteed, [guaranteed]);
    expect(read(root, "kubepods/podg1/cpu.weight")).toBe(String(cpuSharesToWeight(1024n)));
    expect(read(root, "kubepods/podg1/cpu.max")).toBe("100000 100000");
    expect(read(root, "kubepods/podg1/memory.max")).toBe(String(64 * 1024 * 1024));
    expect(read(root, "kubepods/podg1/pids.max")).toBe("50");
    await cm.ensurePod(burstable, [guaranteed, burstable]);
    expect(read(root, "kubepods/burstable/podb1/cpu.max")).toBe("50000 100000");
    await cm.removePod("g1");
    expect(existsSync(join(root, "kubepods/podg1"))).toBe(false);
  });

  it("writes max for an unlimited quota", async () => {
    const root = fakeV2();
    const cg = new CgroupManager({ root });
    await cg.create(["x"], { cpuQuota: -1n, cpuPeriod: 100000n, memory: -1n, pidsLimit: -1n });
    expect(read(root, "x/cpu.max")).toBe("max 100000");
    expect(read(root, "x/memory.max")).toBe("max");
    expect(read(root, "x/pids.max")).toBe("max");
  });
});
