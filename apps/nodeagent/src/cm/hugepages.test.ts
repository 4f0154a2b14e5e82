import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { afterEach, describe, expect, it } from "vitest";
import { computeNodeResources } from "../cluster/node-resources.js";
import { admitPod } from "../pods/admission.js";
import { containerResources } from "../pods/resources.js";
import { ContainerManager } from "./container-manager.js";
import { hugePageResourceNameOf, hugePageSizes, hugePageUnitSize, readMachineHugePages } from "./hugepages.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = (p: string) => {
  const d = mkdtempSync(join(tmpdir(), p));
  dirs.push(d);
  return d;
};
const Mi = 1024n * 1024n;
const read = (...p: string[]) => readFileSync(join(...p), "utf8").trim();

// A Guaranteed pod asking for 4Mi of 2Mi hugepages.
const hugePod: Pod = {
  metadata: { uid: "h1", name: "h1", namespace: "default" },
  spec: { containers: [{ name: "c", image: "x", resources: { requests: { cpu: "1", memory: "64Mi", "hugepages-2Mi": "4Mi" }, limits: { cpu: "1", memory: "64Mi", "hugepages-2Mi": "4Mi" } } }] },
};

describe("hugepage sizes", () => {
  it("reads the machine's sizes from sysfs in libcontainer's order and words", () => {
    const root = tmp("hp-sysfs-");
    for (const [name, n] of [["hugepages-2048kB", "4"], ["hugepages-1048576kB", "0"]] as const) {
      mkdirSync(join(root, "kernel/mm/hugepages", name), { recursive: true });
      writeFileSync(join(root, "kernel/mm/hugepages", name, "nr_hugepages"), `${n}\n`);
    }
    const pages = readMachineHugePages(root);
    expect(pages).toEqual([{ pageSizeBytes: 1024n * Mi, numPages: 0n }, { pageSizeBytes: 2n * Mi, numPages: 4n }]);
    expect(hugePageSizes(pages)).toEqual(["1GB", "2MB"]);
    expect(hugePageResourceNameOf(2n * Mi)).toBe("hugepages-2Mi");
    expect(hugePageUnitSize(64n * 1024n)).toBe("64KB");
    expect(() => hugePageUnitSize(1536n * 1024n)).toThrow("size: 1536KB must be guaranteed to divisible into the largest units");
    expect(readMachineHugePages(join(root, "missing"))).toEqual([]);
  });

  it("gives CRI hugepage_limits for every page size, 0 when not requested", () => {
    const c = hugePod.spec?.containers[0];
    if (!c) throw new Error("no container");
    expect(containerResources(hugePod, c, { memoryCapacityBytes: 1n << 30n, hugePageSizes: ["1GB", "2MB"] }).hugepageLimits).toEqual([
      { pageSize: "1GB", limit: "0" },
      { pageSize: "2MB", limit: "4194304" },
    ]);
    expect(containerResources(hugePod, { name: "plain", image: "x" }, { memoryCapacityBytes: 1n << 30n, hugePageSizes: ["2MB"] }).hugepageLimits).toEqual([{ pageSize: "2MB", limit: "0" }]);
    expect(containerResources(hugePod, c, { memoryCapacityBytes: 1n << 30n }).hugepageLimits).toBeUndefined();
  });

  it("reports hugepages capacity and allocatable, taking them out of allocatable memory; admission checks them", () => {
    const r = computeNodeResources({ cpuCores: 2, memoryBytes: 4 * 1024 ** 3, rootfsBytes: 0, hugePages: { "hugepages-2Mi": 8 * 1024 ** 2, "hugepages-1Gi": 0 } }, { maxPods: 110, podsPerCore: 0, systemReserved: { "hugepages-2Mi": "2Mi" }, clusterReserved: {}, evictionHard: {} });
    expect(r.capacity).toMatchObject({ "hugepages-2Mi": "8Mi", "hugepages-1Gi": "0", memory: "4Gi" });
    expect(r.allocatable).toMatchObject({ "hugepages-2Mi": "6Mi", "hugepages-1Gi": "0", memory: "4088Mi" });
    const allocatable = { pods: 10, hugePages: new Map([["hugepages-2Mi", 6n * Mi]]) };
    expect(admitPod(hugePod, [hugePod], allocatable)).toEqual({ admit: false, reason: "OutOfhugepages-2Mi", message: "Node didn't have enough resource: hugepages-2Mi, requested: 4194304, used: 4194304, capacity: 6291456" });
    expect(admitPod(hugePod, [], allocatable)).toEqual({ admit: true });
  });
});

describe("hugetlb limits of the pods' cgroups", () => {
  const base = (root: string) => ({
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
    capacity: { cpuMilli: 2000n, memoryBytes: 1n << 32n, pids: 0n, hugePages: new Map([["hugepages-2Mi", 8n * Mi], ["hugepages-1Gi", 0n]]) },
    cgroupFsRoot: root,
    hugePageSizes: ["1GB", "2MB"],
  });

  it("cgroup v1: hugetlb.<size>.limit_in_bytes of kubepods (capacity), QoS (unbounded) and the pod (its requests, 0 otherwise)", async () => {
    const root = tmp("hp-v1-");
    for (const h of ["cpu", "cpuacct", "cpuset", "memory", "pids", "hugetlb"]) mkdirSync(join(root, h));
    writeFileSync(join(root, "cpuset", "cpuset.cpus"), "0-1\n");
    writeFileSync(join(root, "cpuset", "cpuset.mems"), "0\n");
    const cm = await ContainerManager.start(base(root));
    expect(read(root, "hugetlb/kubepods/hugetlb.2MB.limit_in_bytes")).toBe(String(8n * Mi));
    expect(read(root, "hugetlb/kubepods/hugetlb.1GB.limit_in_bytes")).toBe("0");
    expect(read(root, "hugetlb/kubepods/burstable/hugetlb.2MB.limit_in_bytes")).toBe(String(1n << 62n));
    expect(read(root, "hugetlb/kubepods/besteffort/hugetlb.1GB.limit_in_bytes")).toBe(String(1n << 62n));
    await cm.ensurePod(hugePod, [hugePod]);
    expect(read(root, "hugetlb/kubepods/podh1/hugetlb.2MB.limit_in_bytes")).toBe(String(4n * Mi));
    expect(read(root, "hugetlb/kubepods/podh1/hugetlb.1GB.limit_in_bytes")).toBe("0");
  });

  it("cgroup v2: hugetlb.<size>.max", async () => {
    const root = tmp("hp-v2-");
    writeFileSync(join(root, "cgroup.controllers"), "cpuset cpu io memory hugetlb pids\n");
    writeFileSync(join(root, "cgroup.subtree_control"), "");
    const cm = await ContainerManager.start(base(root));
    await cm.ensurePod(hugePod, [hugePod]);
    expect(read(root, "kubepods/podh1/hugetlb.2MB.max")).toBe(String(4n * Mi));
    expect(read(root, "kubepods/podh1/hugetlb.1GB.max")).toBe("0");
    expect(read(root, "kubepods/burstable/hugetlb.2MB.max")).toBe(String(1n << 62n));
  });
});
