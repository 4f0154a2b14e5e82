// --agent-cgroups, --runtime-cgroups and --system-cgroups on the real cgroup filesystem (as root;
// cgroup v1 or v2): child processes this test starts stand for the agent, the container runtime
// (listening on a unix socket, found as the endpoint's listener) and the host's loose processes
// (in a private "root" cgroup the system-cgroups pass takes from, so no host process moves).
// Each ends up in its cgroup (read from /proc/<pid>/cgroup), the agent gets --oom-score-adj, and
// a process moved away is moved back on the next pass. On a private containerd, --runtime-cgroups
// moves containerd itself (the listener of its CRI socket).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { CgroupManager } from "../src/cm/index.js";
import { cgroupOfProcess, SystemContainers } from "../src/cm/system-containers.js";
import { waitFor } from "./pods-helpers.js";

const isRoot = process.getuid?.() === 0;
const base = `skiff-syscg-${process.pid}`;
const children: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), "skiff-syscg-"));
const ctd = setUpContainerd({ prefix: "skiff-syscg-ctd-", suite: "system containers containerd suite" });

afterAll(async () => {
  // containerd first: its process leaves the runtime cgroup with it.
  tearDownContainerd(ctd);
  for (const c of children) c.kill("SIGKILL");
  await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once("exit", r)) : undefined)));
  if (isRoot) {
    const cg = new CgroupManager();
    await waitFor("cgroups removed", async () => {
      try {
        await cg.destroy([base]);
        return true;
      } catch {
        return undefined;
      }
    }, 20_000).catch((err: unknown) => console.warn(String(err)));
  }
  rmSync(dir, { recursive: true, force: true });
});

function start(args: string[]): ChildProcess {
  const c = spawn(args[0] ?? "", args.slice(1), { stdio: "ignore" });
  children.push(c);
  return c;
}

describe.skipIf(!isRoot)("system containers on the real cgroupfs", () => {
  it("moves the agent, the runtime and the loose processes into their cgroups and keeps them there", async () => {
    const cg = new CgroupManager();
    const source = [base, "root"];
    await cg.create(source);
    const loose = [start(["sleep", "120"]), start(["sleep", "120"])];
    for (const c of loose) await cg.moveProcess(source, c.pid ?? 0);
    const agent = start(["sleep", "120"]);
    const socket = join(dir, "runtime.sock");
    const runtime = start([process.execPath, "-e", `require("net").createServer().listen(${JSON.stringify(socket)}); setInterval(() => {}, 1000)`]);
    await waitFor("runtime listening", () => (existsSync(socket) ? true : undefined), 10_000);

    const logs: string[] = [];
    const sc = new SystemContainers({
      agentCgroups: `/${base}/agent`,
      runtimeCgroups: `/${base}/runtime`,
      systemCgroups: `/${base}/system`,
      runtimeEndpoint: `unix://${socket}`,
      oomScoreAdj: 500,
      cgroups: cg,
      agentPid: agent.pid ?? 0,
      systemSource: `/${base}/root`,
      log: (m) => logs.push(m),
    });
    expect(await sc.ensure()).toEqual([]);
    const where = (c: ChildProcess) => cgroupOfProcess(c.pid ?? 0, cg.version);
    for (const c of loose) expect(where(c)).toBe(`/${base}/system`);
    expect(where(agent)).toBe(`/${base}/agent`);
    expect(where(runtime)).toBe(`/${base}/runtime`);
    expect(readFileSync(`/proc/${agent.pid ?? 0}/oom_score_adj`, "utf8").trim()).toBe("500");
    expect(readFileSync(join(cg.subsystemPath("memory", [base, "system"]) ?? "", "cgroup.procs"), "utf8").trim().split("\n").map(Number).sort()).toEqual(loose.map((c) => c.pid ?? 0).sort());

    // Moved away, the agent and the runtime are put back by the next pass.
    await cg.moveProcess(source, agent.pid ?? 0);
    await cg.moveProcess(source, runtime.pid ?? 0);
    expect(await sc.ensure()).toEqual([]);
    expect(where(agent)).toBe(`/${base}/agent`);
    expect(where(runtime)).toBe(`/${base}/runtime`);
    expect(() => new SystemContainers({ agentCgroups: "", runtimeCgroups: "", systemCgroups: "/", runtimeEndpoint: "", oomScoreAdj: 0, cgroups: cg })).toThrow('system container cannot be root ("/")');
  });

  it.skipIf(ctd.endpoint === undefined)("moves a real containerd into --runtime-cgroups", async () => {
    const cg = new CgroupManager();
    const sc = new SystemContainers({ agentCgroups: "", runtimeCgroups: `/${base}/containerd`, systemCgroups: "", runtimeEndpoint: ctd.endpoint ?? "", oomScoreAdj: 0, cgroups: cg });
    expect(await sc.ensure()).toEqual([]);
    const pid = Number(readFileSync(join(ctd.dir, "containerd.pid"), "utf8").trim());
    expect(cgroupOfProcess(pid, cg.version)).toBe(`/${base}/containerd`);
    // In every hierarchy (the memory one is what node.systemContainers "runtime" reads).
    expect(readFileSync(join(cg.subsystemPath("memory", [base, "containerd"]) ?? "", "cgroup.procs"), "utf8").split("\n")).toContain(String(pid));
  });
});
