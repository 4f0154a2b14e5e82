// A conformance suite for what a container sees of its pod: bind mounts (shared, read-only), the
// sandbox's host name, /etc/resolv.conf written from the CRI DNSConfig, a kubelet-given /etc/hosts,
// the working directory and PID 1. Run against the process runtime with namespaces and against
// containerd, so both are held to the same behaviour.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createImageClient, createRuntimeClient, type ContainerConfig, type ImageClient, type PodSandboxConfig, type RuntimeClient } from "@skiff/cri-api";
import { readCRILog, waitFor, type RuntimeSuiteOptions, type RuntimeUnderTest } from "./runtime-suite.js";

/** Defines the tests; `runtime()` is called after the caller's beforeAll started the runtime. */
export function defineIsolationConformanceSuite(runtime: () => RuntimeUnderTest, options: RuntimeSuiteOptions = {}): void {
  const imageName = options.image ?? "busybox";
  const timeoutMs = options.timeoutMs ?? 30_000;
  let rt: RuntimeClient;
  let images: ImageClient;
  let dir: string;
  let imageRef = "";
  const sandboxes: string[] = [];

  beforeAll(async () => {
    rt = createRuntimeClient({ endpoint: runtime().endpoint, timeoutMs });
    images = createImageClient({ endpoint: runtime().endpoint, timeoutMs });
    dir = await mkdtemp(join(tmpdir(), "skiff-isolation-"));
    await chmod(dir, 0o755);
    imageRef = (await images.imageStatus({ image: { image: imageName } })).image?.id || (await images.pullImage({ image: { image: imageName } })).imageRef;
  });

  afterAll(async () => {
    for (const id of sandboxes) {
      await rt?.stopPodSandbox({ podSandboxId: id }).catch(() => undefined);
      await rt?.removePodSandbox({ podSandboxId: id }).catch(() => undefined);
    }
    rt?.close();
    images?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function runSandbox(name: string, extra: Partial<PodSandboxConfig> = {}): Promise<{ id: string; config: PodSandboxConfig }> {
    const uid = randomBytes(8).toString("hex");
    const config: PodSandboxConfig = {
      metadata: { name, namespace: "isolation", uid, attempt: 0 },
      hostname: name,
      logDirectory: join(dir, "logs", `isolation_${name}_${uid}`),
      linux: { securityContext: { namespaceOptions: { network: "POD", pid: "CONTAINER", ipc: "POD" } } },
      ...extra,
    };
    const { podSandboxId } = await rt.runPodSandbox({ config });
    sandboxes.push(podSandboxId);
    return { id: podSandboxId, config };
  }

  async function runToExit(sandbox: { id: string; config: PodSandboxConfig }, name: string, command: string[], extra: Partial<ContainerConfig> = {}) {
    const config: ContainerConfig = {
      metadata: { name, attempt: 0 },
      image: { image: imageRef },
      command,
      logPath: `${name}/0.log`,
      linux: { securityContext: { namespaceOptions: { network: "POD", pid: "CONTAINER", ipc: "POD" } } },
      ...extra,
    };
    const { containerId } = await rt.createContainer({ podSandboxId: sandbox.id, config, sandboxConfig: sandbox.config });
    await rt.startContainer({ containerId });
    const status = await waitFor(`${name} to exit`, async () => {
      const { status } = await rt.containerStatus({ containerId });
      return status?.state === "CONTAINER_EXITED" ? status : undefined;
    });
    const lines = await readCRILog(status.logPath);
    const out = (stream: string) => lines.filter((l) => l.stream === stream).map((l) => l.content);
    return { exitCode: status.exitCode, stdout: out("stdout"), stderr: out("stderr") };
  }

  it("shares a bind-mounted directory between the containers of a pod (an emptyDir)", async () => {
    const volume = join(dir, "input");
    await rm(volume, { recursive: true, force: true });
    await mkdir(volume, { mode: 0o777 });
    await chmod(volume, 0o777);
    const sandbox = await runSandbox("shared");
    const mounts = [{ containerPath: "/input", hostPath: volume }];
    const writer = await runToExit(sandbox, "input", ["sh", "-c", "echo bar > /input/data.txt"], { mounts });
    expect(writer.exitCode).toBe(0);
    const reader = await runToExit(sandbox, "worker", ["rev", "/input/data.txt"], { mounts });
    expect(reader).toEqual({ exitCode: 0, stdout: ["rab"], stderr: [] });
    expect(await readFile(join(volume, "data.txt"), "utf8")).toBe("bar\n");
  });

  it("refuses writes to a read-only mount", async () => {
    const ro = join(dir, "ro");
    await mkdir(ro, { recursive: true });
    await writeFile(join(ro, "file.txt"), "host data\n");
    const sandbox = await runSandbox("readonly");
    const r = await runToExit(sandbox, "main", ["sh", "-c", "cat /host/file.txt; echo changed > /host/file.txt"], { mounts: [{ containerPath: "/host", hostPath: ro, readonly: true }] });
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout).toEqual(["host data"]);
    expect(r.stderr.join("\n")).toMatch(/Read-only file system/);
    expect(await readFile(join(ro, "file.txt"), "utf8")).toBe("host data\n");
  });

  it("sets the sandbox's host name and runs the command as PID 1 in the working directory", async () => {
    const sandbox = await runSandbox("named-pod");
    const r = await runToExit(sandbox, "main", ["sh", "-c", "hostname; cat /etc/hostname; echo pid=$$; pwd"], { workingDir: "/var/skiff-made/work" });
    expect(r).toEqual({ exitCode: 0, stdout: ["named-pod", "named-pod", "pid=1", "/var/skiff-made/work"], stderr: [] });
  });

  it("writes /etc/resolv.conf from the sandbox's DNS config and binds a given /etc/hosts", async () => {
    const hosts = join(dir, "etc-hosts");
    await writeFile(hosts, "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n10.1.2.3\tweb\n");
    const sandbox = await runSandbox("dns", { dnsConfig: { servers: ["10.96.0.10", "10.96.0.11"], searches: ["ns.svc.cluster.local", "svc.cluster.local", "cluster.local"], options: ["ndots:5"] } });
    const r = await runToExit(sandbox, "main", ["sh", "-c", "cat /etc/resolv.conf; echo ---; cat /etc/hosts"], { mounts: [{ containerPath: "/etc/hosts", hostPath: hosts }] });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toEqual([
      "search ns.svc.cluster.local svc.cluster.local cluster.local",
      "nameserver 10.96.0.10",
      "nameserver 10.96.0.11",
      "options ndots:5",
      "---",
      "# Kubernetes-managed hosts file.",
      "127.0.0.1\tlocalhost",
      "10.1.2.3\tweb",
    ]);
  });

  it("makes a CRI device (a device plugin's) usable at its container path", async () => {
    const sandbox = await runSandbox("device");
    const r = await runToExit(sandbox, "main", ["sh", "-c", "test -c /dev/skiff-dev && echo written > /dev/skiff-dev && echo ok"], { devices: [{ containerPath: "/dev/skiff-dev", hostPath: "/dev/null", permissions: "rwm" }] });
    expect(r).toEqual({ exitCode: 0, stdout: ["ok"], stderr: [] });
  });

  // kubectl debug --target. Root only on the process runtime (joining a PID namespace needs it).
  const asRoot = process.getuid?.() === 0;
  (asRoot ? it : it.skip)(`a container with PID namespace TARGET sees the target's processes (PID 1 its command), not the host's, and a quick exit is its own${asRoot ? "" : " (skipped: needs root)"}`, async () => {
    const sandbox = await runSandbox("pid-target");
    const targetConfig: ContainerConfig = { metadata: { name: "target", attempt: 0 }, image: { image: imageRef }, command: ["sleep", "3602"], logPath: "target/0.log", linux: { securityContext: { namespaceOptions: { network: "POD", pid: "CONTAINER", ipc: "POD" } } } };
    const { containerId: targetId } = await rt.createContainer({ podSandboxId: sandbox.id, config: targetConfig, sandboxConfig: sandbox.config });
    await rt.startContainer({ containerId: targetId });
    // Several times: the command exits at once, which once raced the runtime's bookkeeping (a
    // StartError, exit code 128, for a command that had run).
    for (let i = 0; i < 3; i++) {
      const r = await runToExit(sandbox, `debug${i}`, ["sh", "-c", "ps -o pid,args"], { linux: { securityContext: { namespaceOptions: { network: "POD", pid: "TARGET", ipc: "POD", targetId } } } });
      expect(r.exitCode, r.stderr.join("\n")).toBe(0);
      expect(r.stdout.join("\n")).toMatch(/^\s*1\s+sleep 3602\s*$/m);
      expect(r.stdout.join("\n")).not.toMatch(/vitest|node /);
    }
  });
}
