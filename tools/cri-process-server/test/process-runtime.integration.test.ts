import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImageClient, createRuntimeClient, type ImageClient, type PodSandboxConfig, type RuntimeClient } from "@skiff/cri-api";
import { startProcessRuntime, type ProcessRuntime } from "../src/index.js";
import { defineRuntimeConformanceSuite, expectCRIError, readCRILog, waitFor } from "./runtime-suite.js";

let workDir: string;
let runtime: ProcessRuntime;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "skiff-cri-process-"));
  runtime = await startProcessRuntime({ socketPath: join(workDir, "cri.sock"), stateDir: join(workDir, "state") });
});

afterAll(async () => {
  await runtime?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("process runtime: CRI conformance", () => {
  defineRuntimeConformanceSuite(() => ({ endpoint: runtime.endpoint }));
});

describe("process runtime: specifics", () => {
  let rt: RuntimeClient;
  let images: ImageClient;
  let busybox: string;
  let n = 0;

  beforeAll(async () => {
    rt = createRuntimeClient({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
    images = createImageClient({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
    busybox = (await images.pullImage({ image: { image: "busybox:1.36" } })).imageRef;
  });

  afterAll(() => {
    rt?.close();
    images?.close();
  });

  function sandboxConfig(extra: Partial<PodSandboxConfig> = {}): PodSandboxConfig {
    n++;
    return { metadata: { name: `p${n}`, namespace: "specifics", uid: `uid-${n}`, attempt: 0 }, logDirectory: join(workDir, "logs", `p${n}`), ...extra };
  }

  async function run(command: string[], extra: { workingDir?: string; image?: string; args?: string[] } = {}) {
    const config = sandboxConfig();
    const { podSandboxId } = await rt.runPodSandbox({ config });
    const { containerId } = await rt.createContainer({
      podSandboxId,
      sandboxConfig: config,
      config: { metadata: { name: "c" }, image: { image: extra.image ?? busybox }, command, args: extra.args ?? [], logPath: "c/0.log", workingDir: extra.workingDir ?? "" },
    });
    return { podSandboxId, containerId };
  }

  async function exited(containerId: string) {
    return waitFor("exit", async () => {
      const { status } = await rt.containerStatus({ containerId });
      return status?.state === "CONTAINER_EXITED" ? status : undefined;
    });
  }

  it("reports its name and a loopback sandbox IP, and none for host-network sandboxes", async () => {
    expect((await rt.version({})).runtimeName).toBe("skiff-process");
    const config = sandboxConfig();
    const { podSandboxId } = await rt.runPodSandbox({ config });
    expect((await rt.podSandboxStatus({ podSandboxId })).status?.network?.ip).toBe("127.0.0.1");
    const host = sandboxConfig({ linux: { securityContext: { namespaceOptions: { network: "NODE" } } } });
    const { podSandboxId: hostId } = await rt.runPodSandbox({ config: host });
    const status = (await rt.podSandboxStatus({ podSandboxId: hostId, verbose: true })).status;
    expect(status?.network?.ip).toBe("");
    expect(status?.linux?.namespaces?.options?.network).toBe("NODE");
  });

  it("runs the image default (busybox: sh) when command and args are empty, and args alone as the command", async () => {
    const { containerId } = await run([]);
    await rt.startContainer({ containerId });
    expect((await exited(containerId)).exitCode).toBe(0);
    const withArgs = await run([], { args: ["sh", "-c", "exit 4"] });
    await rt.startContainer({ containerId: withArgs.containerId });
    expect((await exited(withArgs.containerId)).exitCode).toBe(4);
  });

  it("answers ContainerStats for an unknown id with NotFound, and for a stopped container with zero usage", async () => {
    await expectCRIError(rt.containerStats({ containerId: "nope" }), "NotFound");
    const { containerId } = await run(["true"]);
    const { stats } = await rt.containerStats({ containerId });
    expect(stats?.cpu?.usageCoreNanoSeconds?.value).toBe("0");
    expect(stats?.writableLayer?.usedBytes?.value).toBe("0");
  });

  it("pulls any name under sha256 of the normalised name", async () => {
    const a = await images.pullImage({ image: { image: "example.com/team/app:v1" } });
    const b = await images.pullImage({ image: { image: "example.com/team/app:v1" } });
    expect(a.imageRef).toBe(b.imageRef);
    expect((await images.pullImage({ image: { image: "nginx" } })).imageRef).toBe((await images.pullImage({ image: { image: "docker.io/library/nginx:latest" } })).imageRef);
    await images.removeImage({ image: { image: a.imageRef } });
    expect((await images.imageStatus({ image: { image: "example.com/team/app:v1" } })).image).toBeNull();
    await expectCRIError(images.pullImage({ image: { image: "Not/A/Valid:Name!" } }), "InvalidArgument");
    await expectCRIError(images.pullImage({ image: { image: "" } }), "InvalidArgument");
  });

  it("rejects a container whose image was not pulled, or has no command", async () => {
    const config = sandboxConfig();
    const { podSandboxId } = await rt.runPodSandbox({ config });
    await expectCRIError(
      rt.createContainer({ podSandboxId, config: { metadata: { name: "x" }, image: { image: "docker.io/library/never-pulled:1" }, command: ["true"] } }),
      "NotFound",
    );
    const { imageRef } = await images.pullImage({ image: { image: "example.com/no-defaults:1" } });
    await expectCRIError(rt.createContainer({ podSandboxId, config: { metadata: { name: "x" }, image: { image: imageRef } } }), "InvalidArgument");
  });

  it("rejects invalid requests with InvalidArgument and duplicates with AlreadyExists", async () => {
    await expectCRIError(rt.runPodSandbox({}), "InvalidArgument");
    await expectCRIError(rt.runPodSandbox({ config: { metadata: { name: "x", namespace: "y" } } }), "InvalidArgument");
    await expectCRIError(rt.runPodSandbox({ config: sandboxConfig(), runtimeHandler: "kata" }), "InvalidArgument");
    await expectCRIError(rt.containerStatus({ containerId: "" }), "InvalidArgument");
    const config = sandboxConfig();
    const { podSandboxId } = await rt.runPodSandbox({ config });
    await expectCRIError(rt.runPodSandbox({ config }), "AlreadyExists");
    await expectCRIError(rt.createContainer({ podSandboxId, config: { image: { image: busybox }, command: ["true"] } }), "InvalidArgument");
    await expectCRIError(rt.createContainer({ podSandboxId, config: { metadata: { name: "c" }, command: ["true"] } }), "InvalidArgument");
    await expectCRIError(rt.createContainer({ podSandboxId, config: { metadata: { name: "c" }, image: { image: busybox }, command: ["true"], logPath: "relative.log" }, sandboxConfig: config }).then(async () => {
      // The sandbox has a log directory, so a relative log path is fine; a second create with the
      // same name and attempt is the duplicate.
      await rt.createContainer({ podSandboxId, config: { metadata: { name: "c" }, image: { image: busybox }, command: ["true"] } });
    }), "AlreadyExists");
    await expectCRIError(rt.execSync({ containerId: (await run(["true"])).containerId, cmd: [] }), "InvalidArgument");
  });

  it("fails StartContainer for a missing working directory and records StartError", async () => {
    const { containerId } = await run(["true"], { workingDir: join(workDir, "does-not-exist") });
    await expectCRIError(rt.startContainer({ containerId }), "Unknown");
    const { status } = await rt.containerStatus({ containerId });
    expect(status).toMatchObject({ state: "CONTAINER_EXITED", exitCode: 128, reason: "StartError" });
    expect(status?.message).toContain("does-not-exist");
    await expectCRIError(rt.startContainer({ containerId }), "FailedPrecondition");
  });

  it("fails StartContainer for a command that does not exist", async () => {
    const { containerId } = await run(["/nonexistent/binary"]);
    await expectCRIError(rt.startContainer({ containerId }), "Unknown");
    expect((await rt.containerStatus({ containerId })).status?.reason).toBe("StartError");
  });

  it("runs in the sandbox's scratch directory by default", async () => {
    const { containerId } = await run(["sh", "-c", "touch marker; pwd"]);
    await rt.startContainer({ containerId });
    const status = await exited(containerId);
    const [line] = await readCRILog(status.logPath);
    expect(line?.content).toContain(join("state", "sandboxes"));
    expect(existsSync(join(line?.content ?? "", "marker"))).toBe(true);
  });

  it("writes P lines for output without a final newline and for lines over 16 KiB", async () => {
    const { containerId } = await run(["sh", "-c", "head -c 20000 /dev/zero | tr '\\0' a; echo; printf tail"]);
    await rt.startContainer({ containerId });
    const lines = await readCRILog((await exited(containerId)).logPath);
    expect(lines.map((l) => [l.partial, l.content.length])).toEqual([
      [true, 16384],
      [false, 20000 - 16384],
      [true, 4],
    ]);
    expect(lines[2]?.content).toBe("tail");
  });

  it("reopens the log file after rotation", async () => {
    const { containerId } = await run(["sh", "-c", "echo before; while [ ! -e go ]; do sleep 0.05; done; echo after"]);
    await rt.startContainer({ containerId });
    const { status } = await rt.containerStatus({ containerId, verbose: true });
    const logPath = status?.logPath ?? "";
    await waitFor("first line", async () => ((await readFile(logPath, "utf8").catch(() => "")).includes("before") ? true : undefined));
    const { rename } = await import("node:fs/promises");
    await rename(logPath, `${logPath}.1`);
    await rt.reopenContainerLog({ containerId });
    const info = JSON.parse((await rt.containerStatus({ containerId, verbose: true })).info.info ?? "{}") as { cwd: string };
    await writeFile(join(info.cwd, "go"), "");
    await exited(containerId);
    expect((await readCRILog(logPath)).map((l) => l.content)).toEqual(["after"]);
    expect((await readCRILog(`${logPath}.1`)).map((l) => l.content)).toEqual(["before"]);
    await expectCRIError(rt.reopenContainerLog({ containerId }), "FailedPrecondition");
  });

  it("kills the container's whole process group when the main process exits", async () => {
    const pidFile = join(workDir, "orphan.pid");
    const { containerId } = await run(["sh", "-c", `sleep 1000 & echo $! > ${pidFile}; exit 0`]);
    await rt.startContainer({ containerId });
    await exited(containerId);
    const pid = Number(await readFile(pidFile, "utf8"));
    await waitFor("the background sleep to die", async () => (isAlive(pid) ? undefined : true), 5_000);
  });

  it("times out ExecSync with DeadlineExceeded and discards logs without a log path", async () => {
    const config = sandboxConfig();
    const { podSandboxId } = await rt.runPodSandbox({ config });
    const { containerId } = await rt.createContainer({ podSandboxId, config: { metadata: { name: "quiet" }, image: { image: busybox }, command: ["sleep", "1000"] } });
    await rt.startContainer({ containerId });
    await expectCRIError(rt.execSync({ containerId, cmd: ["sleep", "10"], timeout: 1 }), "DeadlineExceeded");
    expect((await rt.containerStatus({ containerId })).status?.logPath).toBe("");
    await rt.removePodSandbox({ podSandboxId });
    await expectCRIError(rt.containerStatus({ containerId }), "NotFound");
  });

  it("handles hundreds of pods at once", async () => {
    const count = 300;
    const pods = await Promise.all(
      Array.from({ length: count }, async () => {
        const { podSandboxId, containerId } = await run(["sh", "-c", "echo $HOSTNAME"]);
        await rt.startContainer({ containerId });
        return { podSandboxId, containerId };
      }),
    );
    const statuses = await Promise.all(pods.map((p) => exited(p.containerId)));
    expect(statuses.every((s) => s.exitCode === 0)).toBe(true);
    expect((await rt.listContainers({ filter: { state: { state: "CONTAINER_EXITED" } } })).containers.length).toBeGreaterThanOrEqual(count);
    await Promise.all(pods.map((p) => rt.removePodSandbox({ podSandboxId: p.podSandboxId })));
    const remaining = new Set((await rt.listPodSandbox({})).items.map((s) => s.id));
    expect(pods.some((p) => remaining.has(p.podSandboxId))).toBe(false);
  });
});

describe("skiff-cri-process-server CLI", () => {
  const here = dirname(fileURLToPath(import.meta.url));
  const tsx = join(here, "../../../node_modules/.bin/tsx");

  it("serves CRI, and on SIGTERM kills its containers, removes the socket and exits 0", async () => {
    const dir = await mkdtemp(join(tmpdir(), "skiff-cri-cli-"));
    const socket = join(dir, "cri.sock");
    const child = spawn(tsx, ["--conditions=@skiff/source", join(here, "../src/main.ts"), "--listen", `unix://${socket}`, "--state-dir", join(dir, "state"), "--isolation", "none"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      await waitFor("the socket", async () => ((await stat(socket).catch(() => undefined)) ? true : undefined));
      const rt = createRuntimeClient({ endpoint: socket, timeoutMs: 10_000 });
      const im = createImageClient({ endpoint: socket, timeoutMs: 10_000 });
      const image = (await im.pullImage({ image: { image: "busybox" } })).imageRef;
      const config = { metadata: { name: "cli", namespace: "cli", uid: "cli" } };
      const { podSandboxId } = await rt.runPodSandbox({ config });
      const pidFile = join(dir, "pid");
      const { containerId } = await rt.createContainer({ podSandboxId, config: { metadata: { name: "c" }, image: { image }, command: ["sh", "-c", `echo $$ > ${pidFile}; exec sleep 1000`] } });
      await rt.startContainer({ containerId });
      const pid = await waitFor("the container pid", async () => {
        const text = await readFile(pidFile, "utf8").catch(() => "");
        return text.trim() ? Number(text) : undefined;
      });
      rt.close();
      im.close();
      child.kill("SIGTERM");
      expect(await exit).toBe(0);
      expect(isAlive(pid)).toBe(false);
      expect(existsSync(socket)).toBe(false);
      expect(stderr).toContain("received SIGTERM");
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("exits 2 with usage on missing flags", async () => {
    const child = spawn(tsx, ["--conditions=@skiff/source", join(here, "../src/main.ts")], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain("usage: skiff-cri-process-server");
  });

  it("exits 2 on an unknown --isolation mode", async () => {
    const child = spawn(tsx, ["--conditions=@skiff/source", join(here, "../src/main.ts"), "--listen", "/tmp/x.sock", "--state-dir", "/tmp/x", "--isolation", "vm"], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--isolation must be namespaces or none, not "vm"');
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
