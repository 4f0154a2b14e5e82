// The process runtime places a container in cgroups as runc does when it runs as root and the
// sandbox has a cgroup_parent: <cgroup_parent>/<container id> with the CRI resources written
// (cpu.shares, CFS quota/period, memory limit, cpuset; v2 equivalents), the process joining before
// its command runs (read from /proc/<pid>/cgroup), UpdateContainerResources writing new limits,
// and the cgroups removed with the container. Without a cgroup_parent (the agent with
// --cgroups-per-qos=false) the container goes under the default parent with its limits, as
// containerd puts it under /k8s.io/<id>. Runs as root only (skipped otherwise).
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImageClient, createRuntimeClient, type RuntimeClient } from "@skiff/cri-api";
import { startProcessRuntime, type ProcessRuntime } from "../src/index.js";
import { waitFor } from "./runtime-suite.js";

const isRoot = process.getuid?.() === 0;
const root = "/sys/fs/cgroup";
const v2 = existsSync(join(root, "cgroup.controllers"));
const parent = `skiff-procrt-${process.pid}`;
const defaultParent = `skiff-procrt-default-${process.pid}`;
let workDir: string;
let runtime: ProcessRuntime;
let rt: RuntimeClient;
let busybox: string;

const dirOf = (sub: string, ...rel: string[]) => (v2 ? join(root, ...rel) : join(root, sub, ...rel));

beforeAll(async () => {
  if (!isRoot) return;
  workDir = await mkdtemp(join(tmpdir(), "skiff-cri-cg-"));
  runtime = await startProcessRuntime({ socketPath: join(workDir, "cri.sock"), stateDir: join(workDir, "state"), defaultCgroupParent: `/${defaultParent}` });
  rt = createRuntimeClient({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
  busybox = (await createImageClient({ endpoint: runtime.endpoint, timeoutMs: 30_000 }).pullImage({ image: { image: "busybox:1.36" } })).imageRef;
  // The parent the kubelet would have created (its pod cgroup).
  for (const s of v2 ? [""] : ["cpu", "memory", "cpuset", "pids"]) await mkdir(v2 ? join(root, parent) : join(root, s, parent), { recursive: true });
  if (!v2) for (const f of ["cpuset.cpus", "cpuset.mems"]) await writeFile(join(root, "cpuset", parent, f), (await readFile(join(root, "cpuset", f), "utf8")).trim());
});

afterAll(async () => {
  await runtime?.stop();
  for (const s of v2 ? [""] : ["cpu", "memory", "cpuset", "pids"]) {
    for (const p of [parent, defaultParent]) {
      const dir = v2 ? join(root, p) : join(root, s, p);
      // Containers' cgroups a failed test left behind, then the parent.
      for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) if (e.isDirectory()) await rmdir(join(dir, e.name)).catch(() => undefined);
      await rmdir(dir).catch(() => undefined);
    }
  }
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe.skipIf(!isRoot)("process runtime cgroups (root)", () => {
  async function run(name: string, cgroupParent: string, resources: Record<string, unknown>): Promise<{ sandbox: string; id: string; pid: number }> {
    const sandboxConfig = { metadata: { name, uid: `${name}-uid`, namespace: "default", attempt: 0 }, logDirectory: join(workDir, name), linux: { cgroupParent } };
    const sandbox = (await rt.runPodSandbox({ config: sandboxConfig })).podSandboxId;
    const id = (await rt.createContainer({ podSandboxId: sandbox, sandboxConfig, config: { metadata: { name: "c", attempt: 0 }, image: { image: busybox }, command: ["sleep", "60"], linux: { resources } } })).containerId;
    await rt.startContainer({ containerId: id });
    const status = await rt.containerStatus({ containerId: id, verbose: true });
    const pid = Number(JSON.parse(status.info.info ?? "{}").pid ?? 0);
    return { sandbox, id, pid };
  }

  it("puts the container in <cgroup_parent>/<id> with its limits, updates them and removes the cgroups", async () => {
    const { sandbox, id, pid } = await run("placed", `/${parent}`, { cpuShares: "512", cpuQuota: "50000", cpuPeriod: "100000", memoryLimitInBytes: String(64 * 1024 * 1024), cpusetCpus: "0" });
    expect(pid).toBeGreaterThan(0);
    // The wrapper joins before it execs the command (sleep), so wait for the command.
    await waitFor("command running", async () => (readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("sleep") ? true : undefined), 10_000);
    const line = readFileSync(`/proc/${pid}/cgroup`, "utf8").split("\n").find((l) => (v2 ? l.startsWith("0::") : /:(cpu,cpuacct|cpu|cpuacct,cpu):/.test(l)));
    expect(line?.split(":")[2]).toBe(`/${parent}/${id}`);
    if (v2) {
      expect(readFileSync(dirOf("", parent, id, "memory.max"), "utf8").trim()).toBe(String(64 * 1024 * 1024));
      expect(readFileSync(dirOf("", parent, id, "cpu.max"), "utf8").trim()).toBe("50000 100000");
    } else {
      expect(readFileSync(dirOf("cpu", parent, id, "cpu.shares"), "utf8").trim()).toBe("512");
      expect(readFileSync(dirOf("cpu", parent, id, "cpu.cfs_quota_us"), "utf8").trim()).toBe("50000");
      expect(readFileSync(dirOf("memory", parent, id, "memory.limit_in_bytes"), "utf8").trim()).toBe(String(64 * 1024 * 1024));
      expect(readFileSync(dirOf("cpuset", parent, id, "cpuset.cpus"), "utf8").trim()).toBe("0");
    }
    expect(/Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]).toBe("0");
    await rt.updateContainerResources({ containerId: id, linux: { cpusetCpus: "0-1" } });
    expect(readFileSync(dirOf("cpuset", parent, id, "cpuset.cpus"), "utf8").trim()).toBe("0-1");
    await rt.stopPodSandbox({ podSandboxId: sandbox });
    await rt.removePodSandbox({ podSandboxId: sandbox });
    await waitFor("cgroups removed", async () => (existsSync(dirOf("cpu", parent, id)) ? undefined : true), 10_000);
  });

  it("with namespaces (bubblewrap), puts bubblewrap and the container's process in <cgroup_parent>/<id> in every hierarchy", async () => {
    const iso = await startProcessRuntime({ socketPath: join(workDir, "iso.sock"), stateDir: join(workDir, "iso-state"), isolation: "namespaces", network: "host" });
    try {
      const irt = createRuntimeClient({ endpoint: iso.endpoint, timeoutMs: 30_000 });
      const image = (await createImageClient({ endpoint: iso.endpoint, timeoutMs: 30_000 }).pullImage({ image: { image: "busybox:1.36" } })).imageRef;
      const sandboxConfig = { metadata: { name: "iso", uid: "iso-uid", namespace: "default", attempt: 0 }, logDirectory: join(workDir, "iso"), linux: { cgroupParent: `/${parent}` } };
      const sandbox = (await irt.runPodSandbox({ config: sandboxConfig })).podSandboxId;
      const id = (await irt.createContainer({ podSandboxId: sandbox, sandboxConfig, config: { metadata: { name: "c", attempt: 0 }, image: { image }, command: ["sleep", "60"], linux: { resources: { cpuShares: "256", memoryLimitInBytes: String(32 * 1024 * 1024) } } } })).containerId;
      await irt.startContainer({ containerId: id });
      const pid = Number(JSON.parse((await irt.containerStatus({ containerId: id, verbose: true })).info.info ?? "{}").pid ?? 0);
      expect(pid).toBeGreaterThan(0);
      // bubblewrap: the parent of the container's process in the host's PID namespace.
      const bwrap = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
      for (const p of [pid, bwrap]) {
        const lines = readFileSync(`/proc/${p}/cgroup`, "utf8").split("\n");
        const want = v2 ? [/^0::/] : [/:(cpu,cpuacct|cpu|cpuacct,cpu):/, /:memory:/, /:cpuset:/, /:pids:/];
        for (const re of want) expect(lines.find((l) => re.test(l))?.split(":")[2], `${String(p)} ${String(re)}`).toBe(`/${parent}/${id}`);
      }
      await irt.stopPodSandbox({ podSandboxId: sandbox });
      await irt.removePodSandbox({ podSandboxId: sandbox });
      await waitFor("cgroups removed", async () => (existsSync(dirOf("cpu", parent, id)) ? undefined : true), 10_000);
    } finally {
      await iso.stop();
    }
  });

  it("with namespaces (bubblewrap), what the command forks at once is in <cgroup_parent>/<id> too (placed before the exec)", async () => {
    const iso = await startProcessRuntime({ socketPath: join(workDir, "iso2.sock"), stateDir: join(workDir, "iso2-state"), isolation: "namespaces", network: "host" });
    try {
      const irt = createRuntimeClient({ endpoint: iso.endpoint, timeoutMs: 30_000 });
      const image = (await createImageClient({ endpoint: iso.endpoint, timeoutMs: 30_000 }).pullImage({ image: { image: "busybox:1.36" } })).imageRef;
      const logDirectory = join(workDir, "iso2");
      await mkdir(logDirectory, { recursive: true });
      const sandboxConfig = { metadata: { name: "iso2", uid: "iso2-uid", namespace: "default", attempt: 0 }, logDirectory, linux: { cgroupParent: `/${parent}` } };
      const sandbox = (await irt.runPodSandbox({ config: sandboxConfig })).podSandboxId;
      // `cat` is the shell's first child: it reads its own cgroup the moment the command runs.
      const command = ["sh", "-c", "cat /proc/self/cgroup; sleep 60"];
      const id = (await irt.createContainer({ podSandboxId: sandbox, sandboxConfig, config: { metadata: { name: "c", attempt: 0 }, image: { image }, command, logPath: "c.log", linux: { resources: { memoryLimitInBytes: String(32 * 1024 * 1024) } } } })).containerId;
      await irt.startContainer({ containerId: id });
      const want = v2 ? /^0::/ : /:memory:/;
      const line = await waitFor("the child's cgroup in the log", async () => {
        const text = await readFile(join(logDirectory, "c.log"), "utf8").catch(() => "");
        // CRI log lines: <time> stdout F <content>
        return text.split("\n").map((l) => l.split(" ").slice(3).join(" ")).find((l) => want.test(l));
      }, 10_000);
      expect(line.split(":")[2]).toBe(`/${parent}/${id}`);
      await irt.stopPodSandbox({ podSandboxId: sandbox });
      await irt.removePodSandbox({ podSandboxId: sandbox });
    } finally {
      await iso.stop();
    }
  });

  it("without a cgroup_parent places the container under the default parent with its limits (containerd: /k8s.io/<id>), created with the host's cpuset on v1", async () => {
    const { sandbox, id, pid } = await run("loose", "", { cpuShares: "512", memoryLimitInBytes: String(48 * 1024 * 1024) });
    // StartContainer returns once the process is in its cgroups and runs its own command (not the
    // joining wrapper, which a SIGTERM right after the start would have hit).
    expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0]).toBe("sleep");
    const line = readFileSync(`/proc/${pid}/cgroup`, "utf8").split("\n").find((l) => (v2 ? l.startsWith("0::") : /:(cpu,cpuacct|cpu|cpuacct,cpu):/.test(l)));
    expect(line?.split(":")[2]).toBe(`/${defaultParent}/${id}`);
    if (v2) expect(readFileSync(dirOf("", defaultParent, id, "memory.max"), "utf8").trim()).toBe(String(48 * 1024 * 1024));
    else {
      expect(readFileSync(dirOf("cpu", defaultParent, id, "cpu.shares"), "utf8").trim()).toBe("512");
      expect(readFileSync(dirOf("memory", defaultParent, id, "memory.limit_in_bytes"), "utf8").trim()).toBe(String(48 * 1024 * 1024));
      const host = readFileSync(dirOf("cpuset", "cpuset.cpus"), "utf8").trim();
      expect(readFileSync(dirOf("cpuset", defaultParent, "cpuset.cpus"), "utf8").trim()).toBe(host);
      expect(readFileSync(dirOf("cpuset", defaultParent, id, "cpuset.cpus"), "utf8").trim()).toBe(host);
    }
    await rt.updateContainerResources({ containerId: id, linux: { cpuShares: "256" } });
    if (!v2) expect(readFileSync(dirOf("cpu", defaultParent, id, "cpu.shares"), "utf8").trim()).toBe("256");
    await rt.stopPodSandbox({ podSandboxId: sandbox });
    await rt.removePodSandbox({ podSandboxId: sandbox });
    await waitFor("cgroups removed", async () => (existsSync(dirOf("cpu", defaultParent, id)) ? undefined : true), 10_000);
  });
});
