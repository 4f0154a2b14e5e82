// The process runtime applies what a plain process can of a container's security context (uid,
// gid, supplementary groups, no_new_privs, through util-linux setpriv) and logs what it cannot.
// Changing the uid needs root: without it the suite is skipped (it runs as root in CI).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImageClient, createRuntimeClient, type ImageClient, type LinuxContainerSecurityContext, type RuntimeClient } from "@skiff/cri-api";
import { startProcessRuntime, type ProcessRuntime } from "../src/index.js";
import { expectCRIError, readCRILog, waitFor } from "./runtime-suite.js";

const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)("process runtime: security context (needs root to change uid)", () => {
  let workDir: string;
  let runtime: ProcessRuntime;
  let rt: RuntimeClient;
  let images: ImageClient;
  const logs: string[] = [];
  let n = 0;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), "skiff-cri-identity-"));
    runtime = await startProcessRuntime({ socketPath: join(workDir, "cri.sock"), stateDir: join(workDir, "state"), log: (m) => logs.push(m) });
    rt = createRuntimeClient({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
    images = createImageClient({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
    await images.pullImage({ image: { image: "busybox:1.36" } });
  });

  afterAll(async () => {
    rt?.close();
    images?.close();
    await runtime?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  async function create(securityContext: LinuxContainerSecurityContext, command: string[]) {
    n++;
    const config = { metadata: { name: `p${n}`, namespace: "identity", uid: `uid-${n}`, attempt: 0 }, logDirectory: join(workDir, "logs", `p${n}`) };
    const { podSandboxId } = await rt.runPodSandbox({ config });
    return { podSandboxId, create: () => rt.createContainer({ podSandboxId, sandboxConfig: config, config: { metadata: { name: "c" }, image: { image: "busybox:1.36" }, command, logPath: "c/0.log", linux: { securityContext } } }), logPath: join(workDir, "logs", `p${n}`, "c/0.log") };
  }

  it("runs the process with run_as_user, run_as_group, supplemental_groups and no_new_privs", async () => {
    const c = await create(
      { runAsUser: { value: 1000 }, runAsGroup: { value: 2000 }, supplementalGroups: [4000, 3000], noNewPrivs: true, capabilities: { dropCapabilities: ["ALL"] }, readonlyRootfs: true, seccomp: { profileType: "RuntimeDefault" } },
      ["sh", "-c", "grep -E '^(Uid|Gid|Groups|NoNewPrivs):' /proc/self/status"],
    );
    const { containerId } = await c.create();
    await rt.startContainer({ containerId });
    await waitFor("exit", async () => ((await rt.containerStatus({ containerId })).status?.state === "CONTAINER_EXITED" ? true : undefined));
    const text = (await readCRILog(c.logPath)).map((l) => l.content).join("\n").replace(/[ \t]+/g, " ");
    expect(text).toContain("Uid: 1000 1000 1000 1000");
    expect(text).toContain("Gid: 2000 2000 2000 2000");
    expect(text).toContain("Groups: 3000 4000");
    expect(text).toContain("NoNewPrivs: 1");
    expect(logs.some((m) => m.includes("not applied by the process runtime (no isolation): capabilities, readonly_rootfs, seccomp"))).toBe(true);
  });

  it("execs with the container's identity", async () => {
    const c = await create({ runAsUser: { value: 1001 }, noNewPrivs: false }, ["sleep", "30"]);
    const { containerId } = await c.create();
    await rt.startContainer({ containerId });
    const r = await rt.execSync({ containerId, cmd: ["id", "-u"], timeout: 10 });
    expect(r.stdout.toString().trim()).toBe("1001");
    await rt.stopContainer({ containerId, timeout: 0 });
  });

  it("refuses run_as_username, which it cannot resolve", async () => {
    const c = await create({ runAsUsername: "nobody" }, ["true"]);
    await expectCRIError(c.create(), "InvalidArgument");
  });

  it("logs the sandbox sysctls it cannot set", async () => {
    await rt.runPodSandbox({ config: { metadata: { name: "s", namespace: "identity", uid: "uid-s", attempt: 0 }, linux: { sysctls: { "kernel.msgmax": "1" } } } });
    expect(logs.some((m) => m.includes("sandbox identity/s: not applied by the process runtime (no isolation): sysctls"))).toBe(true);
  });
});
