import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { CRIError } from "@skiff/cri-api";
import type { ImageClient, RuntimeClient } from "@skiff/cri-api";
import type { Summary } from "./types.js";
import { StatsProvider, removeTerminatedContainers, removeTerminatedPods } from "./provider.js";
import { VolumeStatsCache } from "./volume-stats.js";

const root = mkdtempSync(join(tmpdir(), "skiff-provider-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

write({
  "proc/stat": "cpu  1000 0 500 9000 0 0 0 0 0 0\nbtime 1700000000\n",
  "proc/meminfo": "MemTotal: 2000000 kB\nMemFree: 1000000 kB\nMemAvailable: 1500000 kB\n",
  "proc/sys/kernel/pid_max": "32768\n",
  "proc/loadavg": "0 0 0 1/200 5\n",
  "proc/net/dev": "h1\nh2\n  eth0: 10 0 1 0 0 0 0 0 20 0 2 0 0 0 0 0\n",
  "proc/77/cgroup": "4:memory:/k8s.io/c2\n2:cpu,cpuacct:/k8s.io/c2\n",
  "proc/78/net/dev": "h1\nh2\n    lo: 5 0 0 0 0 0 0 0 5 0 0 0 0 0 0 0\n  eth0: 300 0 3 0 0 0 0 0 400 0 4 0 0 0 0 0\n",
  "cgroup/memory/memory.usage_in_bytes": "800000000\n",
  "cgroup/memory/memory.stat": "total_inactive_file 300000000\ntotal_rss 400000000\n",
  "cgroup/memory/k8s.io/c2/memory.usage_in_bytes": "50000000\n",
  "cgroup/memory/k8s.io/c2/memory.stat": "total_inactive_file 10000000\n",
  "cgroup/cpuacct/k8s.io/c2/cpuacct.usage": "7000000000\n",
  "cgroup/pids/k8s.io/c2/pids.current": "3\n",
  "root/pods/u1/volumes/kubernetes.io~empty-dir/cache/data": "0123456789",
});

const hostPaths = { procRoot: join(root, "proc"), cgroupRoot: join(root, "cgroup") };
const ns = (ms: number) => String(ms * 1e6);
const t0 = Date.parse("2026-01-01T00:00:00Z");

function fakeCRI(opts: { statsUnimplemented?: boolean }): { runtime: RuntimeClient; images: ImageClient } {
  const sandbox = (id: string, uid: string, state: string, createdMs: number) => ({ id, metadata: { name: "web", namespace: "default", uid, attempt: 0 }, state, createdAt: ns(createdMs), labels: {}, annotations: {}, runtimeHandler: "" });
  const container = (id: string, sb: string, name: string, state: string, createdMs: number) => ({ id, podSandboxId: sb, metadata: { name, attempt: 0 }, image: null, imageRef: "", state, createdAt: ns(createdMs), labels: {}, annotations: {}, imageId: "" });
  const runtime = {
    listPodSandbox: async () => ({ items: [sandbox("old", "u1", "SANDBOX_NOTREADY", t0 - 5000), sandbox("sb1", "u1", "SANDBOX_READY", t0)] }),
    listContainers: async () => ({ containers: [container("c0", "sb1", "app", "CONTAINER_EXITED", t0 + 500), container("c1", "sb1", "app", "CONTAINER_RUNNING", t0 + 1000), container("c2", "sb1", "side", "CONTAINER_RUNNING", t0 + 1000)] }),
    listContainerStats: async () => {
      if (opts.statsUnimplemented) throw new CRIError({ code: "Unimplemented", method: "ListContainerStats", details: "unknown method" });
      const st = (id: string, name: string, cpu: number, mem: number) => ({
        attributes: { id, metadata: { name, attempt: 0 }, labels: {}, annotations: {} },
        cpu: { timestamp: ns(t0 + 60_000), usageCoreNanoSeconds: { value: String(cpu) }, usageNanoCores: null },
        memory: { timestamp: ns(t0 + 60_000), workingSetBytes: { value: String(mem) }, availableBytes: null, usageBytes: null, rssBytes: null, pageFaults: null, majorPageFaults: null },
        writableLayer: { timestamp: ns(t0 + 60_000), fsId: { mountpoint: root }, usedBytes: { value: "4096" }, inodesUsed: { value: "3" } },
      });
      return { stats: [st("c1", "app", 2e9, 30e6), st("c2", "side", 1e9, 10e6)] };
    },
    containerStatus: async (req: { containerId: string }) => ({ status: null, info: req.containerId === "c2" ? { info: JSON.stringify({ pid: 77 }) } : {} }),
    podSandboxStatus: async (req: { podSandboxId: string }) => ({ status: null, info: req.podSandboxId === "sb1" ? { info: JSON.stringify({ pid: 78 }) } : {} }),
  } as unknown as RuntimeClient;
  const images = { imageFsInfo: async () => ({ imageFilesystems: [{ timestamp: ns(t0), fsId: { mountpoint: root }, usedBytes: { value: "1000" }, inodesUsed: { value: "10" } }] }) } as unknown as ImageClient;
  return { runtime, images };
}

describe("StatsProvider over a fake CRI and fixture host", () => {
  it("builds 1.23's summary: node from /proc and the root cgroup, pods from CRI stats, volumes and ephemeral storage", async () => {
    const volumes = new VolumeStatsCache({ rootDir: join(root, "root"), periodMs: 60_000, pods: () => [{ metadata: { uid: "u1" } }] });
    await volumes.refresh();
    const p = new StatsProvider({ nodeName: "n1", rootDir: join(root, "root"), podLogsDir: join(root, "logs"), cri: fakeCRI({}), volumes, hostPaths, nowMs: () => t0 + 61_000 });
    const s = await p.summary(false);
    expect(Object.keys(s.node).sort()).toEqual(["cpu", "fs", "memory", "network", "nodeName", "rlimit", "runtime", "startTime"]);
    expect(s.node.startTime).toBe("2023-11-14T22:13:20Z");
    expect(s.node.memory).toMatchObject({ usageBytes: 800000000, workingSetBytes: 500000000, availableBytes: 2000000 * 1024 - 500000000, rssBytes: 400000000 });
    expect(s.node.rlimit).toMatchObject({ maxpid: 32768, curproc: 200 });
    expect(s.node.runtime?.imageFs).toMatchObject({ usedBytes: 1000, inodesUsed: 10, time: "2026-01-01T00:00:00Z" });
    expect(s.node.network).toMatchObject({ name: "eth0", rxBytes: 10, rxErrors: 1, txBytes: 20, txErrors: 2 });
    expect(s.pods).toHaveLength(1);
    const pod = s.pods[0];
    expect(pod?.podRef).toEqual({ name: "web", namespace: "default", uid: "u1" });
    expect(pod?.startTime).toBe("2026-01-01T00:00:00Z");
    // The pod's network: its sandbox process's namespace, eth0 inline, lo left out.
    expect(pod?.network).toEqual({ time: "2026-01-01T00:01:01Z", name: "eth0", rxBytes: 300, rxErrors: 3, txBytes: 400, txErrors: 4, interfaces: [{ name: "eth0", rxBytes: 300, rxErrors: 3, txBytes: 400, txErrors: 4 }] });
    expect(pod?.containers.map((c) => c.name).sort()).toEqual(["app", "side"]);
    const app = pod?.containers.find((c) => c.name === "app");
    expect(app).toMatchObject({ startTime: "2026-01-01T00:00:01Z", cpu: { time: "2026-01-01T00:01:00Z", usageCoreNanoSeconds: 2e9 }, memory: { workingSetBytes: 30e6 }, rootfs: { usedBytes: 4096, inodesUsed: 3 } });
    expect(app?.rootfs?.capacityBytes).toBeGreaterThan(0);
    expect(pod?.cpu).toMatchObject({ usageCoreNanoSeconds: 3e9, usageNanoCores: 0 });
    expect(pod?.memory?.workingSetBytes).toBe(40e6);
    expect(pod?.volume?.map((v) => v.name)).toEqual(["cache"]);
    // Only "side" has a cgroup of its own (found through its pid): its task count is the pod's.
    expect(pod?.process_stats).toEqual({ process_count: 3 });
    expect(pod?.["ephemeral-storage"]?.usedBytes).toBe(4096 * 2 + (pod?.volume?.[0]?.usedBytes ?? 0));
  });

  it("with the pods' allocatable memory, adds the `pods` system container: available = allocatable − the pods' working set (allocatableMemory.available)", async () => {
    const p = new StatsProvider({ nodeName: "n1", rootDir: join(root, "root"), cri: fakeCRI({}), hostPaths, podsAllocatableMemoryBytes: 100e6, nowMs: () => t0 + 61_000 });
    const s = await p.summary(false);
    const pods = s.node.systemContainers?.find((c) => c.name === "pods");
    expect(pods?.memory).toMatchObject({ workingSetBytes: 40e6, availableBytes: 60e6 });
    expect(pods?.cpu).toMatchObject({ usageCoreNanoSeconds: 3e9 });
    const small = new StatsProvider({ nodeName: "n1", rootDir: join(root, "root"), cri: fakeCRI({}), hostPaths, podsAllocatableMemoryBytes: 10e6, nowMs: () => t0 + 61_000 });
    expect((await small.summary(true)).node.systemContainers?.find((c) => c.name === "pods")?.memory?.availableBytes).toBe(0);
    const without = new StatsProvider({ nodeName: "n1", rootDir: join(root, "root"), cri: fakeCRI({}), hostPaths, nowMs: () => t0 + 61_000 });
    expect((await without.summary(false)).node.systemContainers?.some((c) => c.name === "pods") ?? false).toBe(false);
  });

  it("with podsCpuAndMemoryOnly keeps the node whole and the pods' memory sum, without the pods' disk, network and process reads", async () => {
    const volumes = new VolumeStatsCache({ rootDir: join(root, "root"), periodMs: 60_000, pods: () => [{ metadata: { uid: "u1" } }] });
    await volumes.refresh();
    const p = new StatsProvider({ nodeName: "n1", rootDir: join(root, "root"), podLogsDir: join(root, "logs"), cri: fakeCRI({}), volumes, hostPaths, podsAllocatableMemoryBytes: 100e6, nowMs: () => t0 + 61_000 });
    const full = await p.summary(false);
    const light = await p.summary(false, { podsCpuAndMemoryOnly: true });
    expect(Object.keys(light.node).sort()).toEqual(Object.keys(full.node).sort());
    expect(light.node.fs).toEqual(full.node.fs);
    expect(light.node.systemContainers?.find((c) => c.name === "pods")?.memory).toEqual(full.node.systemContainers?.find((c) => c.name === "pods")?.memory);
    const pod = light.pods[0];
    expect(pod?.memory?.workingSetBytes).toBe(40e6);
    expect(pod?.network).toBeUndefined();
    expect(pod?.volume).toBeUndefined();
    expect(pod?.["ephemeral-storage"]).toBeUndefined();
    expect(pod?.process_stats).toBeUndefined();
    expect(pod?.containers.every((c) => c.logs === undefined && c.rootfs === undefined)).toBe(true);
  });

  it("computes usageNanoCores only when sampling (housekeeping), not on external reads, never taking the runtime's", async () => {
    let now = t0 + 61_000;
    const cri = fakeCRI({});
    let cpu = 2e9;
    const orig = cri.runtime.listContainerStats.bind(cri.runtime);
    (cri.runtime as { listContainerStats: unknown }).listContainerStats = async () => {
      const r = await orig({});
      // containerd also sends its own rate, taken since whichever stats call came before: not read.
      for (const st of r.stats) if (st.attributes?.id === "c1" && st.cpu) st.cpu = { ...st.cpu, timestamp: ns(now), usageCoreNanoSeconds: { value: String(cpu) }, usageNanoCores: { value: "123456789" } };
      return r;
    };
    const p = new StatsProvider({ nodeName: "n1", rootDir: join(root, "root"), cri, hostPaths, nowMs: () => now });
    await p.listPodStatsAndUpdateCPUNanoCoreUsage();
    now += 10_000;
    cpu += 5e9;
    const external = await p.listPodStats();
    expect(external[0]?.containers.find((c) => c.name === "app")?.cpu?.usageNanoCores).toBeUndefined();
    const sampled = await p.listPodStatsAndUpdateCPUNanoCoreUsage();
    expect(sampled[0]?.containers.find((c) => c.name === "app")?.cpu?.usageNanoCores).toBe(5e8);
    expect((await p.listPodStats())[0]?.containers.find((c) => c.name === "app")?.cpu?.usageNanoCores).toBe(5e8);
  });

  it("degrades to cgroup stats with one warning when ListContainerStats is Unimplemented", async () => {
    const logs: string[] = [];
    const p = new StatsProvider({ nodeName: "n1", rootDir: join(root, "root"), cri: fakeCRI({ statsUnimplemented: true }), hostPaths, log: (m) => logs.push(m), nowMs: () => t0 });
    const pods = await p.listPodCPUAndMemoryStats();
    await p.listPodCPUAndMemoryStats();
    const side = pods[0]?.containers.find((c) => c.name === "side");
    expect(side?.memory?.workingSetBytes).toBe(40_000_000);
    expect(side?.cpu?.usageCoreNanoSeconds).toBe(7e9);
    // No pid for "app": zero usage, as 1.23 reports containers without stats.
    expect(pods[0]?.containers.find((c) => c.name === "app")?.memory?.workingSetBytes).toBe(0);
    expect(logs.filter((l) => l.includes("does not implement ListContainerStats"))).toHaveLength(1);
  });

  it("keeps ready sandboxes and running containers (else the newest), as 1.23", () => {
    const sb = (id: string, uid: string, state: string, createdAt: string) => ({ id, metadata: { name: "p", namespace: "d", uid, attempt: 0 }, state, createdAt }) as never;
    expect(removeTerminatedPods([sb("a", "u", "SANDBOX_NOTREADY", "1"), sb("b", "u", "SANDBOX_NOTREADY", "2")]).map((s: { id: string }) => s.id)).toEqual(["b"]);
    expect(removeTerminatedPods([sb("a", "u", "SANDBOX_READY", "1"), sb("b", "u", "SANDBOX_NOTREADY", "2")]).map((s: { id: string }) => s.id)).toEqual(["a"]);
    const c = (id: string, state: string, createdAt: string) => ({ id, podSandboxId: "s", metadata: { name: "x", attempt: 0 }, state, createdAt }) as never;
    expect(removeTerminatedContainers([c("1", "CONTAINER_EXITED", "1"), c("2", "CONTAINER_EXITED", "2")]).map((x: { id: string }) => x.id)).toEqual(["2"]);
  });
});

describe("StatsProvider CPU rates (usageNanoCores)", () => {
  // A container limited to 500m with the CFS period of 100 ms: it runs the first 50 ms of each
  // period and is throttled for the rest. Over a window shorter than a period it can show a whole
  // core (the 0.87 cores once reported for such a container); over the housekeeping's 10 s, half.
  const cfsUsageNs = (ms: number) => (Math.floor(ms / 100) * 50 + Math.min(ms % 100, 50)) * 1e6;
  const dir = join(root, "cfs");
  const paths = { procRoot: join(dir, "proc"), cgroupRoot: join(dir, "cgroup") };
  const writeHost = (ms: number) => {
    // The node: one busy CPU under the same pattern (jiffies at CLK_TCK 100), the agent's cgroup likewise.
    const ticks = Math.floor(cfsUsageNs(ms) / 1e7);
    mkdirSync(join(dir, "proc"), { recursive: true });
    mkdirSync(join(dir, "cgroup", "cpuacct", "agent"), { recursive: true });
    writeFileSync(join(dir, "proc", "stat"), `cpu  ${ticks} 0 0 9000 0 0 0 0 0 0\nbtime 1700000000\n`);
    writeFileSync(join(dir, "cgroup", "cpuacct", "agent", "cpuacct.usage"), `${cfsUsageNs(ms)}\n`);
  };

  function cfsCRI(clock: () => number, readDelayMs: () => number): { runtime: RuntimeClient; images: ImageClient } {
    const base = fakeCRI({});
    (base.runtime as { listContainerStats: unknown }).listContainerStats = async () => {
      // The runtime reads the counter when it gets to it (a queue, a slow shim): its timestamp is that read's, not the call's.
      const readMs = clock() + readDelayMs();
      const st = (id: string) => ({ attributes: { id, metadata: { name: id, attempt: 0 }, labels: {}, annotations: {} }, cpu: { timestamp: ns(readMs), usageCoreNanoSeconds: { value: String(cfsUsageNs(readMs - t0)) }, usageNanoCores: null }, memory: null, writableLayer: null });
      return { stats: [st("c1"), st("c2")] };
    };
    return base;
  }

  it("is the rate between the housekeeping's samples, over the times the counters were read: other summaries (the eviction manager's) do not shorten the window, late and irregular samples do not skew it", async () => {
    let now = t0;
    let delay = 0;
    writeHost(0);
    const p = new StatsProvider({ nodeName: "n1", rootDir: join(root, "root"), cri: cfsCRI(() => now, () => delay), hostPaths: paths, systemCgroups: { kubelet: "/agent" }, nowMs: () => now });
    const rates = (s: Summary) => ({ app: s.pods[0]?.containers.find((c) => c.name === "app")?.cpu?.usageNanoCores, node: s.node.cpu?.usageNanoCores, agent: s.node.systemContainers?.find((c) => c.name === "kubelet")?.cpu?.usageNanoCores });
    await p.sampleCPU();
    now = t0 + 10_000;
    writeHost(10_000);
    await p.sampleCPU();
    expect(rates(await p.summary(false))).toEqual({ app: 5e8, node: 5e8, agent: 5e8 });
    // The eviction manager's summary 20 ms later, in the container's running slot: the rates stay those of the 10 s window.
    now = t0 + 10_020;
    writeHost(10_020);
    const evictionView = await p.summary(false);
    expect(rates(evictionView)).toEqual({ app: 5e8, node: 5e8, agent: 5e8 });
    expect(rates(await p.summary(true))).toEqual({ app: 5e8, node: 5e8, agent: 5e8 });
    // A housekeeping tick that runs 3 s late, and a runtime that reads the counter 1.04 s after the call:
    // the window is that of the reads (10 s → 24.04 s for the container), not of the calls.
    now = t0 + 23_000;
    delay = 1_040;
    writeHost(23_000);
    await p.sampleCPU();
    const late = rates(await p.summary(false));
    const expected = (a: number, b: number) => Math.floor(((cfsUsageNs(b) - cfsUsageNs(a)) / ((b - a) * 1e6)) * 1e9);
    expect(late.app).toBe(expected(10_000, 24_040));
    expect(late.node).toBe(expected(10_000, 23_000));
    for (const v of Object.values(late)) expect(Math.abs((v ?? 0) - 5e8) / 5e8).toBeLessThan(0.01);
  });

  it("takes the period's sample from the eviction manager's summary (updateStats, as 1.23's Get(ctx, true)), never twice within half a period, and the housekeeping lists the runtime only when no such summary came", async () => {
    vi.useFakeTimers({ now: t0, toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      writeHost(0);
      const cri = cfsCRI(() => Date.now(), () => 0);
      let listings = 0;
      const list = cri.runtime.listContainers.bind(cri.runtime);
      (cri.runtime as { listContainers: unknown }).listContainers = (...a: Parameters<RuntimeClient["listContainers"]>) => {
        listings++;
        return list(...a);
      };
      const p = new StatsProvider({ nodeName: "n1", rootDir: join(root, "root"), cri, hostPaths: paths, systemCgroups: { kubelet: "/agent" } });
      const rates = (s: Summary) => ({ app: s.pods[0]?.containers.find((c) => c.name === "app")?.cpu?.usageNanoCores, node: s.node.cpu?.usageNanoCores, agent: s.node.systemContainers?.find((c) => c.name === "kubelet")?.cpu?.usageNanoCores });
      p.start(10_000);
      // The first sample reads real files: done before fake time moves on, or its timestamps are
      // the later ones (CI, under load: the first rate came out wrong).
      await p.settled();
      await vi.advanceTimersByTimeAsync(0);
      expect(listings).toBe(1);
      // Each eviction pass, 10 s apart: it is the sample (the rate up to now); the housekeeping lists nothing of its own.
      for (let i = 1; i <= 3; i++) {
        await vi.advanceTimersByTimeAsync(10_000 - (i === 1 ? 0 : 20));
        writeHost(Date.now() - t0);
        expect(rates(await p.summary(false, { updateStats: true }))).toEqual({ app: 5e8, node: 5e8, agent: 5e8 });
        expect(listings).toBe(1 + i);
        // The same pass's second summary 20 ms later (after a node-level reclaim): no shorter window.
        await vi.advanceTimersByTimeAsync(20);
        writeHost(Date.now() - t0);
        expect(rates(await p.summary(false, { updateStats: true }))).toEqual({ app: 5e8, node: 5e8, agent: 5e8 });
        listings--; // that summary's own listing is not a housekeeping's
      }
      // No eviction pass any more: the housekeeping samples a period and its grace after the last sample.
      await vi.advanceTimersByTimeAsync(11_400);
      expect(listings).toBe(4);
      writeHost(Date.now() - t0);
      await vi.advanceTimersByTimeAsync(200);
      expect(listings).toBe(5);
      p.stop();
      await vi.advanceTimersByTimeAsync(60_000);
      expect(listings).toBe(5);
    } finally {
      vi.useRealTimers();
    }
  });

  it("reads a pod's network and task count once per housekeeping period (cadvisor's cache in 1.23), not on every summary", async () => {
    const d = join(root, "housekept");
    const files = (rx: number, tasks: number) => {
      for (const [path, text] of [
        ["proc/stat", "cpu  1 0 0 9000 0 0 0 0 0 0\nbtime 1700000000\n"],
        ["proc/77/cgroup", "4:memory:/k8s.io/c2\n2:cpu,cpuacct:/k8s.io/c2\n5:pids:/k8s.io/c2\n"],
        ["proc/78/net/dev", `h1\nh2\n  eth0: ${String(rx)} 0 3 0 0 0 0 0 400 0 4 0 0 0 0 0\n`],
        ["cgroup/pids/k8s.io/c2/pids.current", `${String(tasks)}\n`],
      ] as const) {
        mkdirSync(dirname(join(d, path)), { recursive: true });
        writeFileSync(join(d, path), text);
      }
    };
    files(300, 3);
    let now = t0 + 61_000;
    const p = new StatsProvider({ nodeName: "n1", rootDir: join(root, "root"), cri: fakeCRI({}), hostPaths: { procRoot: join(d, "proc"), cgroupRoot: join(d, "cgroup") }, nowMs: () => now });
    const read = async () => {
      const pod = (await p.summary(false)).pods[0];
      return { rx: pod?.network?.rxBytes, tasks: pod?.process_stats?.process_count, time: pod?.network?.time };
    };
    expect(await read()).toEqual({ rx: 300, tasks: 3, time: "2026-01-01T00:01:01Z" });
    files(900, 5);
    now += 9_000;
    expect(await read()).toEqual({ rx: 300, tasks: 3, time: "2026-01-01T00:01:01Z" });
    now += 1_000;
    expect(await read()).toEqual({ rx: 900, tasks: 5, time: "2026-01-01T00:01:11Z" });
  });
});
