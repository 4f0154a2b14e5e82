// The process runtime with `isolation: "namespaces"` (bubblewrap): the CRI conformance suite, the
// isolation suite shared with containerd, and what only the process runtime promises (the host's
// root read-only, a private /tmp, signals reaching PID 1 as in a container).
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImageClient, createRuntimeClient, type ContainerConfig, type ImageClient, type RuntimeClient } from "@skiff/cri-api";
import { startProcessRuntime, type ProcessRuntime } from "../src/index.js";
import { defineIsolationConformanceSuite } from "./isolation-suite.js";
import { defineRuntimeConformanceSuite, expectCRIError, readCRILog, waitFor } from "./runtime-suite.js";

let workDir: string;
let runtime: ProcessRuntime;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "skiff-cri-ns-"));
  runtime = await startProcessRuntime({ socketPath: join(workDir, "cri.sock"), stateDir: join(workDir, "state"), isolation: "namespaces" });
});

afterAll(async () => {
  await runtime?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("process runtime with namespaces: CRI conformance", () => {
  defineRuntimeConformanceSuite(() => ({ endpoint: runtime.endpoint }));
});

describe("process runtime with namespaces: isolation conformance", () => {
  defineIsolationConformanceSuite(() => ({ endpoint: runtime.endpoint }));
});

describe("process runtime with namespaces: specifics", () => {
  let rt: RuntimeClient;
  let images: ImageClient;
  let n = 0;

  beforeAll(async () => {
    rt = createRuntimeClient({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
    images = createImageClient({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
    await images.pullImage({ image: { image: "busybox" } });
  });

  afterAll(() => {
    rt?.close();
    images?.close();
  });

  async function start(command: string[], extra: Partial<ContainerConfig> = {}, hostNetwork = false) {
    n++;
    const config = {
      metadata: { name: `p${n}`, namespace: "specifics", uid: `uid-${n}`, attempt: 0 },
      hostname: `p${n}`,
      logDirectory: join(workDir, "logs", `p${n}`),
      ...(hostNetwork ? { linux: { securityContext: { namespaceOptions: { network: "NODE" as const } } } } : {}),
    };
    const { podSandboxId } = await rt.runPodSandbox({ config });
    const { containerId } = await rt.createContainer({ podSandboxId, sandboxConfig: config, config: { metadata: { name: "c" }, image: { image: "busybox" }, command, logPath: "c/0.log", ...extra } });
    await rt.startContainer({ containerId });
    return containerId;
  }

  async function output(containerId: string) {
    const status = await waitFor("exit", async () => {
      const { status } = await rt.containerStatus({ containerId });
      return status?.state === "CONTAINER_EXITED" ? status : undefined;
    });
    return { exitCode: status.exitCode, lines: (await readCRILog(status.logPath)).map((l) => `${l.stream}: ${l.content}`) };
  }

  it("keeps the host's root read-only and /tmp private", async () => {
    const marker = join(tmpdir(), `skiff-ns-marker-${process.pid}`);
    const id = await start(["sh", "-c", `touch /skiff-root-write 2>&1; echo x > ${marker} && echo wrote-tmp; ls -A /tmp | wc -l`]);
    const r = await output(id);
    expect(r.lines).toHaveLength(3);
    expect(r.lines[0]).toMatch(/^stdout: touch: .*skiff-root-write.*: Read-only file system$/);
    expect(r.lines.slice(1)).toEqual(["stdout: wrote-tmp", "stdout: 1"]);
    expect(await stat(marker).catch(() => undefined)).toBeUndefined();
    expect(await stat("/skiff-root-write").catch(() => undefined)).toBeUndefined();
  });

  it("shares the host's host name for host-network sandboxes", async () => {
    const host = (await readFile("/proc/sys/kernel/hostname", "utf8")).trim();
    const r = await output(await start(["hostname"], {}, true));
    expect(r.lines).toEqual([`stdout: ${host}`]);
  });

  it("runs ExecSync inside the container's namespaces", async () => {
    const id = await start(["sh", "-c", "echo inside > /tmp/only-here; exec sleep 1000"]);
    const r = await waitFor("exec", async () => {
      const e = await rt.execSync({ containerId: id, cmd: ["sh", "-c", "cat /tmp/only-here; hostname; echo $$"], timeout: 10 });
      return Buffer.from(e.stdout).toString().startsWith("inside") ? e : undefined;
    });
    expect(Buffer.from(r.stdout).toString().split("\n").slice(0, 2)).toEqual(["inside", `p${n}`]);
    await rt.stopContainer({ containerId: id, timeout: 0 });
    expect((await rt.containerStatus({ containerId: id })).status?.exitCode).toBe(137);
  });

  it("runs the command as run_as_user inside the namespaces, still as PID 1", async () => {
    const r = await output(await start(["sh", "-c", "id -u; echo $$"], { linux: { securityContext: { runAsUser: { value: 65534 }, runAsGroup: { value: 65534 } } } }));
    expect(r).toEqual({ exitCode: 0, lines: ["stdout: 65534", "stdout: 1"] });
  });

  it("refuses Bidirectional propagation and reports a missing mount source at start", async () => {
    n++;
    const config = { metadata: { name: `p${n}`, namespace: "specifics", uid: `uid-${n}`, attempt: 0 }, logDirectory: join(workDir, "logs", `p${n}`) };
    const { podSandboxId } = await rt.runPodSandbox({ config });
    await expectCRIError(
      rt.createContainer({ podSandboxId, config: { metadata: { name: "b" }, image: { image: "busybox" }, command: ["true"], mounts: [{ containerPath: "/m", hostPath: workDir, propagation: "PROPAGATION_BIDIRECTIONAL" }] } }),
      "InvalidArgument",
    );
    const { containerId } = await rt.createContainer({ podSandboxId, config: { metadata: { name: "m" }, image: { image: "busybox" }, command: ["true"], mounts: [{ containerPath: "/m", hostPath: join(workDir, "absent") }] } });
    await expectCRIError(rt.startContainer({ containerId }), "Unknown");
    const status = (await rt.containerStatus({ containerId })).status;
    expect(status?.reason).toBe("StartError");
    expect(status?.message).toContain(`stat ${join(workDir, "absent")}: no such file or directory`);
  });
});
