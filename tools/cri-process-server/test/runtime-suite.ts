// A CRI runtime conformance suite: drives any runtime.v1 endpoint through @skiff/cri-api the way
// a kubelet-like agent does, so the process runtime and real containerd are held to the same
// behaviour. Call defineRuntimeConformanceSuite inside a describe block whose beforeAll provides
// the endpoint.
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createImageClient,
  createRuntimeClient,
  isCRIError,
  parseCRILogLine,
  type ContainerConfig,
  type ContainerStatus__Output,
  type CRIErrorCode,
  type CRILogLine,
  type ImageClient,
  type PodSandboxConfig,
  type RuntimeClient,
} from "@skiff/cri-api";

/** What the suite needs from the runtime under test. */
export interface RuntimeUnderTest {
  /** `unix:///...` endpoint of the runtime. */
  endpoint: string;
}

export interface RuntimeSuiteOptions {
  /** The image every container runs; must have `sh` and `sleep`. @defaultValue "busybox" */
  image?: string;
  /** Per-call deadline of the clients. @defaultValue 30_000 */
  timeoutMs?: number;
}

/** Polls `probe` until it returns a value other than undefined; fails after `limitMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, limitMs = 30_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Asserts that `promise` rejects with a CRIError of `code` and returns it. */
export async function expectCRIError(promise: Promise<unknown>, code: CRIErrorCode): Promise<void> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected a CRIError ${code}`).toBeDefined();
  expect(isCRIError(caught), String(caught)).toBe(true);
  expect((caught as { code: string }).code, String(caught)).toBe(code);
}

export function randomId(): string {
  return randomBytes(32).toString("hex");
}

/** Reads a CRI log file into parsed lines (fails the test on a malformed line). */
export async function readCRILog(path: string): Promise<CRILogLine[]> {
  const text = await readFile(path, "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const parsed = parseCRILogLine(line);
      if (!parsed.ok) throw new Error(`malformed CRI log line ${JSON.stringify(line)}: ${parsed.errors.join("; ")}`);
      return parsed.value;
    });
}

/**
 * Defines the conformance tests. `runtime()` is called inside the tests (after the caller's
 * beforeAll has started the runtime).
 */
export function defineRuntimeConformanceSuite(runtime: () => RuntimeUnderTest, options: RuntimeSuiteOptions = {}): void {
  const imageName = options.image ?? "busybox";
  const timeoutMs = options.timeoutMs ?? 30_000;
  let rt: RuntimeClient;
  let images: ImageClient;
  let logRoot: string;
  let imageRef = "";
  const sandboxes: string[] = [];

  function sandboxConfig(name: string): PodSandboxConfig {
    const uid = randomBytes(8).toString("hex");
    return {
      metadata: { name, namespace: "conformance", uid, attempt: 0 },
      hostname: name,
      logDirectory: join(logRoot, `conformance_${name}_${uid}`),
      labels: { "suite.skiff.example.io/pod": name },
      annotations: { "suite.skiff.example.io/note": "kept verbatim" },
      linux: { securityContext: { namespaceOptions: { network: "POD", pid: "CONTAINER", ipc: "POD" } } },
    };
  }

  function containerConfig(name: string, command: string[], extra: Partial<ContainerConfig> = {}): ContainerConfig {
    return {
      metadata: { name, attempt: 0 },
      image: { image: imageRef },
      command,
      logPath: `${name}/0.log`,
      labels: { "suite.skiff.example.io/container": name },
      linux: { securityContext: { namespaceOptions: { network: "POD", pid: "CONTAINER", ipc: "POD" } } },
      ...extra,
    };
  }

  async function runSandbox(name: string): Promise<{ id: string; config: PodSandboxConfig }> {
    const config = sandboxConfig(name);
    const { podSandboxId } = await rt.runPodSandbox({ config });
    sandboxes.push(podSandboxId);
    return { id: podSandboxId, config };
  }

  async function startContainer(sandbox: { id: string; config: PodSandboxConfig }, config: ContainerConfig): Promise<string> {
    const { containerId } = await rt.createContainer({ podSandboxId: sandbox.id, config, sandboxConfig: sandbox.config });
    await rt.startContainer({ containerId });
    return containerId;
  }

  async function waitExited(containerId: string): Promise<ContainerStatus__Output> {
    return waitFor(`container ${containerId} to exit`, async () => {
      const { status } = await rt.containerStatus({ containerId });
      return status?.state === "CONTAINER_EXITED" ? status : undefined;
    });
  }

  // Kubelet's EnsureImageExists with IfNotPresent: pull only when ImageStatus finds nothing (no
  // registry is reachable from the test machines; containerd has the image imported).
  async function ensureImage(name: string): Promise<string> {
    const { image } = await images.imageStatus({ image: { image: name } });
    if (image) return image.id;
    const { imageRef: ref } = await images.pullImage({ image: { image: name } });
    return ref;
  }

  beforeAll(async () => {
    const { endpoint } = runtime();
    rt = createRuntimeClient({ endpoint, timeoutMs });
    images = createImageClient({ endpoint, timeoutMs });
    logRoot = await mkdtemp(join(tmpdir(), "skiff-cri-logs-"));
  });

  afterAll(async () => {
    for (const id of sandboxes) {
      await rt?.stopPodSandbox({ podSandboxId: id }).catch(() => undefined);
      await rt?.removePodSandbox({ podSandboxId: id }).catch(() => undefined);
    }
    rt?.close();
    images?.close();
    if (logRoot) await rm(logRoot, { recursive: true, force: true });
  });

  describe("runtime", () => {
    it("reports its version and the v1 API", async () => {
      const version = await rt.version({ version: "0.1.0" });
      expect(version.runtimeApiVersion).toBe("v1");
      expect(version.runtimeName).not.toBe("");
    });

    it("reports RuntimeReady and NetworkReady", async () => {
      const { status } = await rt.status({});
      const conditions = Object.fromEntries((status?.conditions ?? []).map((c) => [c.type, c.status]));
      expect(conditions).toMatchObject({ RuntimeReady: true, NetworkReady: true });
    });
  });

  describe("images", () => {
    it("pulls the image if missing and reports it by name and by ID", async () => {
      imageRef = await ensureImage(imageName);
      expect(imageRef).toMatch(/^sha256:[0-9a-f]{64}$/);
      const byName = await images.imageStatus({ image: { image: imageName } });
      expect(byName.image?.id).toBe(imageRef);
      expect(Number(byName.image?.size)).toBeGreaterThan(0);
      expect(byName.image?.repoTags).toContain("docker.io/library/busybox:latest");
      const byId = await images.imageStatus({ image: { image: imageRef } });
      expect(byId.image?.id).toBe(imageRef);
      const listed = await images.listImages({});
      expect(listed.images.map((i) => i.id)).toContain(imageRef);
    });

    it("reports an absent image as null and removes absent images without error", async () => {
      const ghost = "docker.io/library/skiff-never-pulled:0";
      expect((await images.imageStatus({ image: { image: ghost } })).image).toBeNull();
      await images.removeImage({ image: { image: ghost } });
    });

    it("reports the image filesystem", async () => {
      const { imageFilesystems } = await images.imageFsInfo();
      expect(imageFilesystems.length).toBeGreaterThan(0);
      expect(imageFilesystems[0]?.fsId?.mountpoint).not.toBe("");
      expect(BigInt(imageFilesystems[0]?.timestamp ?? "0")).toBeGreaterThan(0n);
    });
  });

  describe("pod lifecycle", () => {
    it("runs a sandbox, a container to exit code 3 and writes CRI logs for both streams", async () => {
      expect(imageRef).not.toBe("");
      const sandbox = await runSandbox("lifecycle");
      const { status: sandboxStatus } = await rt.podSandboxStatus({ podSandboxId: sandbox.id });
      expect(sandboxStatus).toMatchObject({
        id: sandbox.id,
        state: "SANDBOX_READY",
        metadata: sandbox.config.metadata,
        labels: sandbox.config.labels,
        annotations: sandbox.config.annotations,
      });
      expect(BigInt(sandboxStatus?.createdAt ?? "0")).toBeGreaterThan(0n);
      expect(sandboxStatus?.network?.ip).not.toBe("");

      const listed = await rt.listPodSandbox({ filter: { id: sandbox.id } });
      expect(listed.items.map((s) => s.id)).toEqual([sandbox.id]);
      const byLabel = await rt.listPodSandbox({ filter: { labelSelector: sandbox.config.labels ?? {} } });
      expect(byLabel.items.map((s) => s.id)).toEqual([sandbox.id]);

      const config = containerConfig("main", ["sh", "-c", "echo hello; echo oops >&2; exit 3"]);
      const { containerId } = await rt.createContainer({ podSandboxId: sandbox.id, config, sandboxConfig: sandbox.config });
      const created = await rt.containerStatus({ containerId });
      expect(created.status?.state).toBe("CONTAINER_CREATED");
      await rt.startContainer({ containerId });

      const status = await waitExited(containerId);
      expect(status.exitCode).toBe(3);
      expect(status.reason).toBe("Error");
      expect(status.imageRef).toBe(imageRef);
      expect(status.metadata).toMatchObject({ name: "main", attempt: 0 });
      // containerd takes finished_at from the exit event and started_at after the task started,
      // so a quick process may appear to finish before it started: only order against created_at.
      const createdAt = BigInt(status.createdAt);
      expect(createdAt).toBeGreaterThan(0n);
      expect(BigInt(status.startedAt)).toBeGreaterThanOrEqual(createdAt);
      expect(BigInt(status.finishedAt)).toBeGreaterThanOrEqual(createdAt);
      expect(status.logPath).toBe(join(sandbox.config.logDirectory ?? "", "main/0.log"));

      const lines = await readCRILog(status.logPath);
      expect(lines.map(({ stream, partial, content }) => ({ stream, partial, content }))).toEqual(
        expect.arrayContaining([
          { stream: "stdout", partial: false, content: "hello" },
          { stream: "stderr", partial: false, content: "oops" },
        ]),
      );

      const inSandbox = await rt.listContainers({ filter: { podSandboxId: sandbox.id } });
      expect(inSandbox.containers.map((c) => [c.id, c.state])).toEqual([[containerId, "CONTAINER_EXITED"]]);
      const running = await rt.listContainers({ filter: { podSandboxId: sandbox.id, state: { state: "CONTAINER_RUNNING" } } });
      expect(running.containers).toEqual([]);
      const byLabels = await rt.listContainers({ filter: { labelSelector: { "suite.skiff.example.io/container": "main" }, podSandboxId: sandbox.id } });
      expect(byLabels.containers.map((c) => c.id)).toEqual([containerId]);

      await rt.removeContainer({ containerId });
      await expectCRIError(rt.containerStatus({ containerId }), "NotFound");
      await rt.removeContainer({ containerId });

      await rt.stopPodSandbox({ podSandboxId: sandbox.id });
      expect((await rt.podSandboxStatus({ podSandboxId: sandbox.id })).status?.state).toBe("SANDBOX_NOTREADY");
      await rt.stopPodSandbox({ podSandboxId: sandbox.id });
      await rt.removePodSandbox({ podSandboxId: sandbox.id });
      await expectCRIError(rt.podSandboxStatus({ podSandboxId: sandbox.id }), "NotFound");
      await rt.removePodSandbox({ podSandboxId: sandbox.id });
    });

    it("exits 0 with reason Completed", async () => {
      const sandbox = await runSandbox("completed");
      const containerId = await startContainer(sandbox, containerConfig("ok", ["true"]));
      const status = await waitExited(containerId);
      expect(status.exitCode).toBe(0);
      expect(status.reason).toBe("Completed");
    });

    it("honours env and working_dir", async () => {
      const sandbox = await runSandbox("env");
      const config = containerConfig("env", ["sh", "-c", 'echo "greeting=$GREETING"; echo "dir=$(pwd)"'], {
        envs: [{ key: "GREETING", value: "hello there" }],
        workingDir: "/tmp",
      });
      const containerId = await startContainer(sandbox, config);
      const status = await waitExited(containerId);
      expect(status.exitCode).toBe(0);
      const contents = (await readCRILog(status.logPath)).filter((l) => l.stream === "stdout").map((l) => l.content);
      expect(contents).toEqual(["greeting=hello there", "dir=/tmp"]);
    });

    it("runs ExecSync in a running container and stops it by signal after the grace period", async () => {
      const sandbox = await runSandbox("long");
      // Ignoring SIGTERM (inherited by sleep) makes the stop wait for the grace period, then SIGKILL.
      const containerId = await startContainer(sandbox, containerConfig("sleeper", ["sh", "-c", 'trap "" TERM; sleep 1000'], { envs: [{ key: "FOO", value: "bar" }] }));
      await waitFor("the container to run", async () => {
        const { status } = await rt.containerStatus({ containerId });
        return status?.state === "CONTAINER_RUNNING" ? true : undefined;
      });

      const exec = await rt.execSync({ containerId, cmd: ["sh", "-c", 'echo "foo=$FOO"; echo err >&2; exit 7'], timeout: 10 });
      expect(exec.exitCode).toBe(7);
      expect(Buffer.from(exec.stdout).toString()).toBe("foo=bar\n");
      expect(Buffer.from(exec.stderr).toString()).toBe("err\n");

      await rt.stopContainer({ containerId, timeout: 1 });
      const status = await rt.containerStatus({ containerId });
      expect(status.status?.state).toBe("CONTAINER_EXITED");
      expect(status.status?.exitCode).toBe(137);
      expect(status.status?.reason).toBe("Error");
      await rt.stopContainer({ containerId, timeout: 1 });
    });

    it("stops a container that exits on SIGTERM with 128 + 15", async () => {
      const sandbox = await runSandbox("term");
      const containerId = await startContainer(sandbox, containerConfig("polite", ["sh", "-c", 'trap "exit 143" TERM; echo trapping; while true; do sleep 0.1; done']));
      // As PID 1 of its namespace, the shell ignores SIGTERM until its trap is set: wait for it.
      await waitFor("the trap to be set", async () => {
        const { status } = await rt.containerStatus({ containerId });
        if (status?.state !== "CONTAINER_RUNNING") return undefined;
        const lines = await readCRILog(status.logPath).catch(() => []);
        return lines.some((l) => l.content === "trapping") ? true : undefined;
      });
      await rt.stopContainer({ containerId, timeout: 30 });
      const status = await rt.containerStatus({ containerId });
      expect(status.status?.state).toBe("CONTAINER_EXITED");
      expect(status.status?.exitCode).toBe(143);
    });
  });

  describe("stats", () => {
    it("reports a running container's CPU time and working set in ContainerStats and ListContainerStats", async () => {
      const sandbox = await runSandbox("stats");
      const containerId = await startContainer(sandbox, containerConfig("busy", ["sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; echo done; sleep 1000"]));
      const listed = await waitFor("the container's CPU time in ListContainerStats", async () => {
        const { stats } = await rt.listContainerStats({ filter: { podSandboxId: sandbox.id } });
        const s = stats.find((x) => x.attributes?.id === containerId);
        return Number(s?.cpu?.usageCoreNanoSeconds?.value ?? 0) > 0 && Number(s?.memory?.workingSetBytes?.value ?? 0) > 0 ? s : undefined;
      });
      expect(listed.attributes?.metadata?.name).toBe("busy");
      expect(Number(listed.cpu?.timestamp)).toBeGreaterThan(0);
      const { stats } = await rt.containerStats({ containerId });
      expect(stats?.attributes?.id).toBe(containerId);
      expect(Number(stats?.memory?.workingSetBytes?.value ?? 0)).toBeGreaterThan(0);
      expect(Number(stats?.cpu?.usageCoreNanoSeconds?.value ?? 0)).toBeGreaterThanOrEqual(Number(listed.cpu?.usageCoreNanoSeconds?.value ?? 0));
      const { stats: others } = await rt.listContainerStats({ filter: { podSandboxId: randomId() } });
      expect(others).toEqual([]);
    });
  });

  describe("errors", () => {
    it("answers NotFound for unknown ids and tolerates removing them", async () => {
      const id = randomId();
      await expectCRIError(rt.containerStatus({ containerId: id }), "NotFound");
      await expectCRIError(rt.startContainer({ containerId: id }), "NotFound");
      await expectCRIError(rt.stopContainer({ containerId: id, timeout: 0 }), "NotFound");
      await expectCRIError(rt.podSandboxStatus({ podSandboxId: id }), "NotFound");
      await expectCRIError(rt.stopPodSandbox({ podSandboxId: id }), "NotFound");
      await expectCRIError(rt.createContainer({ podSandboxId: id, config: containerConfig("orphan", ["true"]) }), "NotFound");
      await rt.removeContainer({ containerId: id });
      await rt.removePodSandbox({ podSandboxId: id });
    });

    it("surfaces an overrun deadline as DeadlineExceeded", async () => {
      const sandbox = await runSandbox("deadline");
      const containerId = await startContainer(sandbox, containerConfig("stubborn", ["sh", "-c", 'trap "" TERM; echo trapped; sleep 1000']));
      // Running is not enough: SIGTERM before the shell ran `trap` would end it at once (a flake
      // seen on a loaded machine). Wait until it says the trap is set.
      await waitFor("the container to ignore SIGTERM", async () => {
        const status = (await rt.containerStatus({ containerId })).status;
        if (status?.state !== "CONTAINER_RUNNING" || !status.logPath) return undefined;
        const lines = await readCRILog(status.logPath).catch(() => []);
        return lines.some((l) => l.content === "trapped") ? true : undefined;
      });
      // The runtime waits out the 5 s grace period; the client gives up after 200 ms.
      await expectCRIError(rt.stopContainer({ containerId, timeout: 5 }, { timeoutMs: 200 }), "DeadlineExceeded");
      await rt.stopContainer({ containerId, timeout: 0 });
      expect((await rt.containerStatus({ containerId })).status?.state).toBe("CONTAINER_EXITED");
    });

    it("surfaces an unreachable endpoint as Unavailable", async () => {
      const nowhere = createRuntimeClient({ endpoint: join(logRoot, "nothing-listens.sock"), timeoutMs: 2_000 });
      try {
        await expectCRIError(nowhere.version({}), "Unavailable");
      } finally {
        nowhere.close();
      }
    });
  });
}
