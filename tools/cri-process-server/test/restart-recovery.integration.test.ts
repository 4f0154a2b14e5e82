// A process runtime killed with SIGKILL and started again on the same state dir finds its
// sandboxes, containers and images again, as containerd's CRI plugin does after a crash
// (pkg/cri/server/restart.go): a container whose process died with the server is EXITED with exit
// code 255 and reason "Unknown", one whose process survived is still RUNNING (re-adopted), and
// StopPodSandbox / RemovePodSandbox then leave no mount, no directory and no record behind. The
// server runs as its own process (started from source, as `skiff-cri-process-server`), so that
// the test can kill it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createImageClient, createRuntimeClient, type PodSandboxConfig, type RuntimeClient } from "@skiff/cri-api";
import { processAlive, processStartTime } from "../src/internal/checkpoint.js";
import { podConfList } from "../src/internal/pod-network.js";
import { waitFor } from "./runtime-suite.js";

const main = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "main.ts");
const isRoot = process.getuid?.() === 0;
const hasBwrap = ["/usr/bin/bwrap", "/bin/bwrap"].some((p) => existsSync(p));

const workDirs: string[] = [];
const servers = new Set<ChildProcess>();
const clients: Array<{ close(): void }> = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  // A clean stop of whatever server still runs (it kills its containers, tears its networks down).
  await Promise.all(
    [...servers].map(
      (s) =>
        new Promise<void>((resolve) => {
          if (s.exitCode !== null || s.signalCode !== null) return resolve();
          s.once("exit", () => resolve());
          s.kill("SIGTERM");
        }),
    ),
  );
  servers.clear();
});

afterAll(async () => {
  for (const d of workDirs) await rm(d, { recursive: true, force: true });
});

interface Server {
  child: ChildProcess;
  endpoint: string;
  stderr: () => string;
}

async function startServer(workDir: string, isolation: "namespaces" | "none", network?: "host"): Promise<Server> {
  const socket = join(workDir, "cri.sock");
  const child = spawn(process.execPath, ["--conditions=@skiff/source", "--import", "tsx", main, "--listen", socket, "--state-dir", join(workDir, "state"), "--isolation", isolation, ...(network ? ["--network", network] : [])], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  servers.add(child);
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  await waitFor("the server to listen", async () => (stderr.includes("listening on") ? true : child.exitCode !== null ? Promise.reject(new Error(`server exited: ${stderr}`)) : undefined), 60_000);
  return { child, endpoint: `unix://${socket}`, stderr: () => stderr };
}

async function sigkill(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.child.once("exit", () => resolve());
    server.child.kill("SIGKILL");
  });
  servers.delete(server.child);
}

async function stopCleanly(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.child.once("exit", () => resolve());
    server.child.kill("SIGTERM");
  });
  servers.delete(server.child);
}

// Whether the pod network bridge of the runtime on `workDir`'s state dir exists.
function bridgeExists(workDir: string): boolean {
  const bridge = String(podConfList(join(workDir, "state"), "").plugins[0]?.bridge);
  return spawnSync("ip", ["link", "show", bridge], { stdio: "ignore" }).status === 0;
}

function client(endpoint: string): RuntimeClient {
  const rt = createRuntimeClient({ endpoint, timeoutMs: 60_000 });
  clients.push(rt);
  return rt;
}

function mountsUnder(dir: string): string[] {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((l) => l.split(" ")[4] ?? "")
    .filter((m) => m.startsWith(dir));
}

async function podWithSleep(endpoint: string, workDir: string, name: string): Promise<{ rt: RuntimeClient; podSandboxId: string; running: string; created: string; config: PodSandboxConfig }> {
  const rt = client(endpoint);
  const images = createImageClient({ endpoint, timeoutMs: 30_000 });
  clients.push(images);
  await images.pullImage({ image: { image: "busybox:1.36" } });
  const config: PodSandboxConfig = { metadata: { name, namespace: "recover", uid: `uid-${name}`, attempt: 0 }, hostname: name, logDirectory: join(workDir, "logs", name) };
  const { podSandboxId } = await rt.runPodSandbox({ config });
  const create = async (c: string, command: string[]) =>
    (await rt.createContainer({ podSandboxId, sandboxConfig: config, config: { metadata: { name: c }, image: { image: "busybox:1.36" }, command, logPath: `${c}.log` } })).containerId;
  const running = await create("sleeper", ["sleep", "3600"]);
  await rt.startContainer({ containerId: running });
  const created = await create("later", ["sleep", "3600"]);
  return { rt, podSandboxId, running, created, config };
}

function pidOf(info: Record<string, string>): number {
  return Number((JSON.parse(info.info ?? "{}") as { pid?: number }).pid ?? 0);
}

describe.skipIf(!isRoot || !hasBwrap)(isRoot && hasBwrap ? "process runtime: restart after SIGKILL (namespaces)" : "process runtime: restart after SIGKILL (namespaces; skipped: needs root and bubblewrap)", () => {
  it("lists the sandbox and its containers again, the killed container EXITED 255 Unknown, and Stop/Remove leave no mount nor directory", async () => {
    const workDir = await mkdtemp(join(tmpdir(), "skiff-cri-recover-"));
    workDirs.push(workDir);
    const first = await startServer(workDir, "namespaces");
    const { podSandboxId, running, created, config } = await podWithSleep(first.endpoint, workDir, "ns1");
    await sigkill(first);

    const second = await startServer(workDir, "namespaces");
    const rt = client(second.endpoint);
    const images = createImageClient({ endpoint: second.endpoint, timeoutMs: 30_000 });
    clients.push(images);
    expect((await images.imageStatus({ image: { image: "busybox:1.36" } })).image?.id).toMatch(/^sha256:/);
    const pods = (await rt.listPodSandbox({})).items;
    expect(pods.map((p) => [p.id, p.state, p.metadata?.name])).toEqual([[podSandboxId, "SANDBOX_READY", "ns1"]]);
    const sandbox = (await rt.podSandboxStatus({ podSandboxId })).status;
    // The pod network namespace (when the host has one) survived the kill and keeps its IP.
    expect(sandbox?.network?.ip).not.toBe("");
    const byId = new Map((await rt.listContainers({})).containers.map((c) => [c.id, c.state]));
    expect(byId.get(created)).toBe("CONTAINER_CREATED");
    // bubblewrap dies with the server (--die-with-parent), so the container is gone: its status
    // cannot be observed any more, as containerd reports a task lost while it was down.
    const status = (await rt.containerStatus({ containerId: running })).status;
    expect([status?.state, status?.exitCode, status?.reason]).toEqual(["CONTAINER_EXITED", 255, "Unknown"]);
    expect(BigInt(status?.finishedAt ?? "0")).toBeGreaterThan(0n);
    // The name stays reserved, as containerd's name index after recovery.
    await expect(rt.runPodSandbox({ config })).rejects.toThrow(/reserved/);
    // The sandbox runs containers again (what the node agent does to converge).
    await rt.startContainer({ containerId: created });
    expect((await rt.containerStatus({ containerId: created })).status?.state).toBe("CONTAINER_RUNNING");

    await rt.stopPodSandbox({ podSandboxId });
    await rt.removePodSandbox({ podSandboxId });
    expect(mountsUnder(workDir)).toEqual([]);
    const state = join(workDir, "state");
    expect(readdirSync(join(state, "sandboxes"))).toEqual([]);
    expect(readdirSync(join(state, "containers"))).toEqual([]);
    expect(existsSync(join(state, "netns")) ? readdirSync(join(state, "netns")) : []).toEqual([]);
    expect((await rt.listPodSandbox({})).items).toEqual([]);
    await stopCleanly(second);
    expect(bridgeExists(workDir)).toBe(false);
  }, 180_000);

  it("a kill before the records of a new sandbox exist leaves nothing behind after the restart", async () => {
    const workDir = await mkdtemp(join(tmpdir(), "skiff-cri-recover-"));
    workDirs.push(workDir);
    const first = await startServer(workDir, "namespaces");
    const { podSandboxId } = await podWithSleep(first.endpoint, workDir, "ns2");
    await sigkill(first);
    // As if the kill came in the middle of RunPodSandbox: the record is not there yet.
    await rm(join(workDir, "state", "sandboxes", podSandboxId, "sandbox.json"));
    const second = await startServer(workDir, "namespaces");
    const rt = client(second.endpoint);
    expect((await rt.listPodSandbox({})).items).toEqual([]);
    expect((await rt.listContainers({})).containers).toEqual([]);
    expect(mountsUnder(workDir)).toEqual([]);
    expect(readdirSync(join(workDir, "state", "sandboxes"))).toEqual([]);
    expect(readdirSync(join(workDir, "state", "containers"))).toEqual([]);
    await stopCleanly(second);
    expect(bridgeExists(workDir)).toBe(false);
  }, 180_000);

  it("a restart without pod networks still unmounts a recovered sandbox's namespace on StopPodSandbox", async () => {
    const workDir = await mkdtemp(join(tmpdir(), "skiff-cri-recover-"));
    workDirs.push(workDir);
    const first = await startServer(workDir, "namespaces");
    const { podSandboxId } = await podWithSleep(first.endpoint, workDir, "ns3");
    await sigkill(first);
    const second = await startServer(workDir, "namespaces", "host");
    const rt = client(second.endpoint);
    expect((await rt.podSandboxStatus({ podSandboxId })).status?.state).toBe("SANDBOX_READY");
    await rt.stopPodSandbox({ podSandboxId });
    expect(mountsUnder(workDir)).toEqual([]);
    await rt.removePodSandbox({ podSandboxId });
    expect(readdirSync(join(workDir, "state", "sandboxes"))).toEqual([]);
    // The killed run's bridge goes when this run stops, though it has no pod networks itself.
    await stopCleanly(second);
    expect(bridgeExists(workDir)).toBe(false);
  }, 180_000);
});

describe("process runtime: restart after SIGKILL (isolation none)", () => {
  it("re-adopts a container whose process survived (RUNNING, same PID); StopContainer kills it, reported EXITED 255 Unknown", async () => {
    const workDir = await mkdtemp(join(tmpdir(), "skiff-cri-recover-"));
    workDirs.push(workDir);
    const first = await startServer(workDir, "none");
    const { rt: rt1, podSandboxId, running } = await podWithSleep(first.endpoint, workDir, "plain1");
    const pid = pidOf((await rt1.containerStatus({ containerId: running, verbose: true })).info);
    expect(pid).toBeGreaterThan(0);
    const startTime = (await processStartTime(pid)) ?? "";
    await sigkill(first);
    // Plain processes outlive the server.
    expect(await processAlive({ pid, startTime })).toBe(true);

    const second = await startServer(workDir, "none");
    const rt = client(second.endpoint);
    const status = await rt.containerStatus({ containerId: running, verbose: true });
    expect(status.status?.state).toBe("CONTAINER_RUNNING");
    expect(pidOf(status.info)).toBe(pid);
    expect((await rt.execSync({ containerId: running, cmd: ["true"], timeout: "10" })).exitCode).toBe(0);
    await rt.stopContainer({ containerId: running, timeout: "1" });
    const after = (await rt.containerStatus({ containerId: running })).status;
    expect([after?.state, after?.exitCode, after?.reason]).toEqual(["CONTAINER_EXITED", 255, "Unknown"]);
    // Gone (a zombie at most, until whoever inherited it reaps it).
    expect(await processAlive({ pid, startTime })).toBe(false);
    await rt.removePodSandbox({ podSandboxId });
    expect(readdirSync(join(workDir, "state", "sandboxes"))).toEqual([]);
    expect(readdirSync(join(workDir, "state", "containers"))).toEqual([]);
  }, 180_000);

  it("after a clean stop, a restart lists the containers EXITED with their exit codes and the sandboxes NOTREADY", async () => {
    const workDir = await mkdtemp(join(tmpdir(), "skiff-cri-recover-"));
    workDirs.push(workDir);
    const first = await startServer(workDir, "none");
    const { podSandboxId, running } = await podWithSleep(first.endpoint, workDir, "plain2");
    await stopCleanly(first);
    const second = await startServer(workDir, "none");
    const rt = client(second.endpoint);
    expect((await rt.podSandboxStatus({ podSandboxId })).status?.state).toBe("SANDBOX_NOTREADY");
    const status = (await rt.containerStatus({ containerId: running })).status;
    expect([status?.state, status?.exitCode, status?.reason]).toEqual(["CONTAINER_EXITED", 137, "Error"]);
    await rt.removePodSandbox({ podSandboxId });
    expect(readdirSync(join(workDir, "state", "containers"))).toEqual([]);
  }, 180_000);
});
