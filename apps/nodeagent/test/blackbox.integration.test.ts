// The node agent as a black box: the REAL binary (from source) in standalone mode on the project's
// process CRI server, driven only through its command line, config file, manifest directory and
// ports. Containers write their logs under /var/log/pods as the kubelet's do (not a flag), so the
// suite needs that directory writable (root); with CI=true it must run.
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import { createRuntimeClient } from "@skiff/cri-api";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import type { HarnessAgent, TLSClient } from "./agent-harness.js";
import { eventually, get, podLogsRoot, podNamed, removePodLogs, startHarnessAgent } from "./agent-harness.js";
import { runAgent } from "./cli-helpers.js";
import { alwaysManifest, neverManifest } from "./pods-helpers.js";

const ci = process.env.CI === "true";

function podLogsWritable(): string | undefined {
  try {
    mkdirSync(podLogsRoot, { recursive: true });
    accessSync(podLogsRoot, constants.W_OK);
    return undefined;
  } catch (err) {
    return `${podLogsRoot} is not writable (${err instanceof Error ? err.message : String(err)}); the agent writes container logs there`;
  }
}

const skipReason = podLogsWritable();
if (skipReason !== undefined && !ci) console.warn(`nodeagent black-box suite skipped: ${skipReason}`);
if (ci && skipReason !== undefined) {
  describe("nodeagent black-box prerequisites (CI)", () => {
    it("can write container logs", () => {
      expect(skipReason).toBeUndefined();
    });
  });
}

const suffix = Math.random().toString(36).slice(2, 8);
const tmp = mkdtempSync(join(tmpdir(), "skiff-bb-"));
const dirsToRemove = [tmp];
const nodeNames: string[] = [];
const agents: HarnessAgent[] = [];
const runtimes: ProcessRuntime[] = [];

afterAll(async () => {
  await Promise.all(agents.map((a) => a.stop(5_000)));
  await Promise.all(runtimes.map((r) => r.stop()));
  await Promise.all(nodeNames.map((n) => removePodLogs(n)));
  for (const d of dirsToRemove) rmSync(d, { recursive: true, force: true });
}, 60_000);

const phaseOf = (p: Pod | undefined) => p?.status?.phase;
const mainStatus = (p: Pod | undefined) => p?.status?.containerStatuses?.find((c) => c.name === "main");

interface ClientPKI {
  readonly caCert: string;
  readonly cert: string;
  readonly key: string;
  readonly strangerCert: string;
  readonly strangerKey: string;
}

async function makeClientPKI(): Promise<ClientPKI> {
  const caExt = [
    { name: "basicConstraints" as const, cA: true, critical: true },
    { name: "keyUsage" as const, keyCertSign: true, digitalSignature: true, critical: true },
  ];
  const clientExt = [
    { name: "basicConstraints" as const, cA: false },
    { name: "keyUsage" as const, digitalSignature: true, keyEncipherment: true },
    { name: "extKeyUsage" as const, clientAuth: true },
  ];
  const ca = await generate([{ name: "commonName", value: "bb-client-ca" }], { keySize: 2048, algorithm: "sha256", extensions: caExt });
  const client = await generate([{ name: "commonName", value: "alice" }], { keySize: 2048, algorithm: "sha256", ca: { key: ca.private, cert: ca.cert }, extensions: clientExt });
  const otherCA = await generate([{ name: "commonName", value: "other-ca" }], { keySize: 2048, algorithm: "sha256", extensions: caExt });
  const stranger = await generate([{ name: "commonName", value: "mallory" }], { keySize: 2048, algorithm: "sha256", ca: { key: otherCA.private, cert: otherCA.cert }, extensions: clientExt });
  return { caCert: ca.cert, cert: client.cert, key: client.private, strangerCert: stranger.cert, strangerKey: stranger.private };
}

describe.skipIf(skipReason !== undefined)("nodeagent binary on the process CRI server", () => {
  const nodeName = `bb-${suffix}`;
  const dir = join(tmp, "a");
  const manifests = join(dir, "manifests");
  let runtime: ProcessRuntime;
  let agent: HarnessAgent;
  let pki: ClientPKI;
  let tls: TLSClient;
  const context = () => agent.logs();

  beforeAll(async () => {
    nodeNames.push(nodeName);
    mkdirSync(manifests, { recursive: true });
    pki = await makeClientPKI();
    writeFileSync(join(dir, "ca.crt"), pki.caCert);
    writeFileSync(join(manifests, "always.yaml"), alwaysManifest("busybox"));
    writeFileSync(join(manifests, "never.json"), neverManifest("busybox"));
    writeFileSync(join(manifests, "broken.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: broken}\nspec: [not, a, spec]\n");
    writeFileSync(join(manifests, ".hidden.yaml"), "not: a pod\n");
    // The file's values; flags override two of them (anonymous auth, file check frequency).
    // Relative paths resolve against the file's directory.
    writeFileSync(
      join(dir, "config.yaml"),
      [
        "apiVersion: nodeagent.config.example.io/v1beta1",
        "kind: NodeAgentConfiguration",
        "staticPodPath: manifests",
        "maxPods: 42",
        "fileCheckFrequency: 20s",
        "authentication:",
        "  anonymous: {enabled: true}",
        "  webhook: {enabled: false}",
        "  x509: {clientCAFile: ca.crt}",
        "authorization: {mode: AlwaysAllow}",
        "",
      ].join("\n"),
    );
    runtime = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state") });
    runtimes.push(runtime);
    agent = await startHarnessAgent({
      dir,
      nodeName,
      runtimeEndpoint: runtime.endpoint,
      // --node-labels and --register-with-taints make the flags' Node that admission checks static pods against.
      args: [`--config=${join(dir, "config.yaml")}`, "--anonymous-auth=false", "--file-check-frequency=1s", "--node-labels=team=a", "--register-with-taints=evict=now:NoExecute"],
    });
    agents.push(agent);
    tls = { ca: await agent.servingCert(), servername: nodeName, cert: pki.cert, key: pki.key };
  });

  it("answers on the three ports: healthz, read-only /pods without auth, HTTPS main port with the generated certificate", async () => {
    expect(await get(agent.ports.healthz, "/healthz")).toMatchObject({ status: 200, body: "ok" });
    const ro = await get(agent.ports.readOnly, "/pods");
    expect(ro.status).toBe(200);
    expect(ro.json<{ kind: string }>().kind).toBe("PodList");
    expect(await get(agent.ports.readOnly, "/healthz")).toMatchObject({ status: 200, body: "ok" });
    // The certificate in --cert-dir verifies for the node name.
    expect(existsSync(join(agent.certDir, "nodeagent.key"))).toBe(true);
    expect(await get(agent.ports.main, "/healthz", tls)).toMatchObject({ status: 200, body: "ok" });
    // The main port speaks TLS only.
    await expect(get(agent.ports.main, "/healthz")).rejects.toThrow();
  });

  it("401s without a client certificate (--anonymous-auth=false) or with an untrusted one; a certificate from --client-ca-file gets through", async () => {
    const noCert: TLSClient = { ca: tls.ca ?? "", servername: nodeName };
    expect(await get(agent.ports.main, "/pods", noCert)).toMatchObject({ status: 401, body: "Unauthorized" });
    expect(await get(agent.ports.main, "/configz", noCert)).toMatchObject({ status: 401 });
    expect(await get(agent.ports.main, "/pods", { ...noCert, cert: pki.strangerCert, key: pki.strangerKey })).toMatchObject({ status: 401, body: "Unauthorized" });
    const ok = await get(agent.ports.main, "/pods", tls);
    expect(ok.status).toBe(200);
    expect(ok.json<{ kind: string }>().kind).toBe("PodList");
  });

  it("/configz reflects the config file and the flags that override it", async () => {
    const r = await get(agent.ports.main, "/configz", tls);
    expect(r.status).toBe(200);
    const c = r.json<{ nodeagentconfig: Record<string, unknown> & { authentication: { anonymous: { enabled: boolean }; x509: { clientCAFile: string } } } }>().nodeagentconfig;
    expect(c.maxPods).toBe(42); // file only
    expect(c.fileCheckFrequency).toBe("1s"); // flag over the file's 20s
    expect(c.authentication.anonymous.enabled).toBe(false); // flag over the file's true
    expect(c.staticPodPath).toBe(manifests); // relative to the file
    expect(c.authentication.x509.clientCAFile).toBe(join(dir, "ca.crt"));
    expect(c.readOnlyPort).toBe(agent.ports.readOnly); // flag over the file's default 0
    expect(c.syncFrequency).toBe("1m0s"); // default
  });

  it("runs the static pods, reports and skips the malformed manifest", async () => {
    const pods = await eventually("two pods", async () => {
      const p = await agent.pods();
      return p.length === 2 ? p : undefined;
    }, 60_000, context);
    expect(pods.map((p) => p.metadata?.name).sort()).toEqual([`always-${nodeName}`, `never-${nodeName}`]);
    await eventually("broken.yaml reported", () => agent.logs().includes(join(manifests, "broken.yaml")), 30_000, context);
    expect(agent.logs()).not.toContain(".hidden.yaml");
  });

  it("reports the Never pod Failed with its exit code in containerStatuses, never restarted", async () => {
    const never = await eventually("never Failed", async () => {
      const p = podNamed(await agent.pods(), "never", nodeName);
      return phaseOf(p) === "Failed" ? p : undefined;
    }, 60_000, context);
    expect(mainStatus(never)?.state?.terminated).toMatchObject({ exitCode: 7, reason: "Error" });
    expect(mainStatus(never)?.restartCount).toBe(0);
  });

  it("restarts the Always pod (exit 3) with a rising restartCount", async () => {
    const first = await eventually("always restarted once", async () => {
      const p = podNamed(await agent.pods(), "always", nodeName);
      return (mainStatus(p)?.restartCount ?? 0) >= 1 ? p : undefined;
    }, 60_000, context);
    const second = await eventually("always restarted again", async () => {
      const p = podNamed(await agent.pods(), "always", nodeName);
      return (mainStatus(p)?.restartCount ?? 0) > (mainStatus(first)?.restartCount ?? 0) ? p : undefined;
    }, 90_000, context);
    const cs = mainStatus(second);
    expect((cs?.lastState?.terminated ?? cs?.state?.terminated)?.exitCode).toBe(3);
    expect(phaseOf(second)).toBe("Running");
    expect(second.metadata?.uid).toBe(first.metadata?.uid);
  }, 180_000);

  it("serves the containers' logs through /containerLogs", async () => {
    const never = await get(agent.ports.main, `/containerLogs/default/never-${nodeName}/main`, tls);
    // stdout and stderr come through separate pipes: their lines may interleave either way.
    expect(never.status).toBe(200);
    expect(never.body.split("\n").filter((l) => l !== "").sort()).toEqual(["done", "oops"]);
    const previous = await get(agent.ports.main, `/containerLogs/default/always-${nodeName}/main?previous=true`, tls);
    expect(previous).toMatchObject({ status: 200, body: "hello always\n" });
    const tail = await get(agent.ports.main, `/containerLogs/default/never-${nodeName}/main?tailLines=1`, tls);
    expect(tail.body).toBe("oops\n");
    expect((await get(agent.ports.main, `/containerLogs/default/never-${nodeName}/nope`, tls)).status).toBe(404);
    expect((await get(agent.ports.main, `/containerLogs/default/missing-${nodeName}/main`, tls)).status).toBe(404);
  });

  it("a malformed manifest dropped in later is reported and skipped; the running pods are not disturbed", async () => {
    const before = podNamed(await agent.pods(), "always", nodeName);
    writeFileSync(join(manifests, "late.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: Late_Bad}\nspec: {containers: []}\n");
    await eventually("late.yaml reported", () => agent.logs().includes(join(manifests, "late.yaml")), 30_000, context);
    const pods = await agent.pods();
    expect(pods.map((p) => p.metadata?.name).sort()).toEqual([`always-${nodeName}`, `never-${nodeName}`]);
    const after = podNamed(pods, "always", nodeName);
    expect(after?.metadata?.uid).toBe(before?.metadata?.uid);
    expect(mainStatus(after)?.restartCount ?? 0).toBeGreaterThanOrEqual(mainStatus(before)?.restartCount ?? 0);
    expect(phaseOf(podNamed(pods, "never", nodeName))).toBe("Failed");
    unlinkSync(join(manifests, "late.yaml"));
  });

  it("refuses a pod for another OS (spec.os windows): Failed with PodOSNotSupported, never given to the runtime", async () => {
    writeFileSync(
      join(manifests, "windows.yaml"),
      "apiVersion: v1\nkind: Pod\nmetadata: {name: win}\nspec: {os: {name: windows}, containers: [{name: main, image: busybox, command: [sh, -c, 'exit 0']}]}\n",
    );
    const win = await eventually("win Failed", async () => {
      const p = podNamed(await agent.pods(), "win", nodeName);
      return phaseOf(p) === "Failed" ? p : undefined;
    }, 60_000, context);
    expect(win?.status).toMatchObject({ reason: "PodOSNotSupported", message: "Pod Failed to admit pod as the OS field doesn't match node OS" });
    expect(win?.spec?.os).toEqual({ name: "windows" });
    const rt = createRuntimeClient({ endpoint: runtime.endpoint, timeoutMs: 10_000 });
    try {
      const { items } = await rt.listPodSandbox({ filter: { labelSelector: { "io.example.pod.uid": win?.metadata?.uid ?? "" } } });
      expect(items).toEqual([]);
    } finally {
      rt.close();
    }
    unlinkSync(join(manifests, "windows.yaml"));
    await eventually("win gone from /pods", async () => (podNamed(await agent.pods(), "win", nodeName) ? undefined : true), 60_000, context);
  });

  it("admits static pods against the Node built from the flags: nodeSelector on --node-labels and the hostname label; the registered NoExecute taint does not refuse them", async () => {
    const manifest = (name: string, selector: string) => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec: {restartPolicy: Never, nodeSelector: {${selector}}, containers: [{name: main, image: busybox, command: [sh, -c, 'exit 0']}]}\n`;
    writeFileSync(join(manifests, "selected.yaml"), manifest("selected", `team: a, example.io/hostname: ${nodeName}`));
    writeFileSync(join(manifests, "unselected.yaml"), manifest("unselected", "team: b"));
    await eventually("selected Succeeded", async () => {
      const p = podNamed(await agent.pods(), "selected", nodeName);
      return phaseOf(p) === "Succeeded" ? p : undefined;
    }, 60_000, context);
    const unselected = await eventually("unselected Failed", async () => {
      const p = podNamed(await agent.pods(), "unselected", nodeName);
      return phaseOf(p) === "Failed" ? p : undefined;
    }, 60_000, context);
    expect(unselected?.status).toMatchObject({ reason: "NodeAffinity", message: "Pod Predicate NodeAffinity failed" });
    const rt = createRuntimeClient({ endpoint: runtime.endpoint, timeoutMs: 10_000 });
    try {
      const { items } = await rt.listPodSandbox({ filter: { labelSelector: { "io.example.pod.uid": unselected?.metadata?.uid ?? "" } } });
      expect(items).toEqual([]);
    } finally {
      rt.close();
    }
    unlinkSync(join(manifests, "selected.yaml"));
    unlinkSync(join(manifests, "unselected.yaml"));
    await eventually("selected and unselected gone from /pods", async () => (podNamed(await agent.pods(), "selected", nodeName) || podNamed(await agent.pods(), "unselected", nodeName) ? undefined : true), 60_000, context);
  });

  it("deleting a manifest file stops and removes its pod: gone from /pods, /runningpods/ and the runtime", async () => {
    const running = await get(agent.ports.main, "/runningpods/", tls);
    expect(running.status).toBe(200);
    const uid = podNamed(await agent.pods(), "always", nodeName)?.metadata?.uid ?? "";
    expect(uid).not.toBe("");
    expect((running.json<{ items: Pod[] | null }>().items ?? []).some((p) => p.metadata?.uid === uid)).toBe(true);

    unlinkSync(join(manifests, "always.yaml"));
    await eventually("always gone from /pods", async () => (podNamed(await agent.pods(), "always", nodeName) ? undefined : true), 60_000, context);
    await eventually("always gone from /runningpods/", async () => {
      const r = await get(agent.ports.main, "/runningpods/", tls);
      return r.status === 200 && !(r.json<{ items: Pod[] | null }>().items ?? []).some((p) => p.metadata?.uid === uid);
    }, 60_000, context);
    const rt = createRuntimeClient({ endpoint: runtime.endpoint, timeoutMs: 10_000 });
    try {
      await eventually("sandbox and containers removed from the runtime", async () => {
        const { items } = await rt.listPodSandbox({ filter: { labelSelector: { "io.example.pod.uid": uid } } });
        const { containers } = await rt.listContainers({ filter: { labelSelector: { "io.example.pod.uid": uid } } });
        return items.length === 0 && containers.length === 0;
      }, 60_000, context);
    } finally {
      rt.close();
    }
    // Its container logs go with it (kubelet: /var/log/pods/<ns>_<name>_<uid>).
    await eventually("log directory removed", () => !existsSync(join(podLogsRoot, `default_always-${nodeName}_${uid}`)), 30_000, context);
    // The other pod stays, logs included.
    expect(phaseOf(podNamed(await agent.pods(), "never", nodeName))).toBe("Failed");
    expect(existsSync(join(podLogsRoot, `default_never-${nodeName}_${podNamed(await agent.pods(), "never", nodeName)?.metadata?.uid ?? ""}`))).toBe(true);
  });

  it("stops on SIGTERM with exit 0", async () => {
    expect(await agent.stop()).toBe(0);
    expect(agent.logs()).toContain("Shutting down");
  });
});

describe.skipIf(skipReason !== undefined)("nodeagent binary with an unreachable runtime", () => {
  const nodeName = `bbr-${suffix}`;
  const dir = join(tmp, "r");
  const manifests = join(dir, "manifests");
  const socketPath = join(dir, "late.sock");
  let agent: HarnessAgent;
  const context = () => agent.logs();

  beforeAll(async () => {
    nodeNames.push(nodeName);
    mkdirSync(manifests, { recursive: true });
    writeFileSync(
      join(manifests, "web.yaml"),
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n  - {name: main, image: busybox, command: [sh, -c, 'echo up; sleep 3600']}\n",
    );
    agent = await startHarnessAgent({ dir, nodeName, runtimeEndpoint: `unix://${socketPath}`, manifests, args: ["--file-check-frequency=1s"] });
    agents.push(agent);
  });

  it("stays up and healthy, reporting the runtime not ready, with the static pod pending", async () => {
    expect(await get(agent.ports.healthz, "/healthz")).toMatchObject({ status: 200, body: "ok" });
    // Never answered yet: 1.23's "may not have completed yet" (not "down", which needs an earlier
    // success), with each failed check logged.
    await eventually("runtime reported not checked yet", () => agent.logs().includes("container runtime status check may not have completed yet"), 30_000, context);
    await eventually("failed check logged", () => agent.logs().includes("Container runtime sanity check failed"), 30_000, context);
    expect(agent.logs()).not.toContain("container runtime is down");
    const web = await eventually("web listed", async () => podNamed(await agent.pods(), "web", nodeName), 30_000, context);
    expect(phaseOf(web)).toBe("Pending");
    expect(mainStatus(web)?.state?.running).toBeUndefined();
    expect(agent.child.exitCode).toBeNull();
    // Anonymous (no --config): /runningpods/ asks the runtime, which is not there.
    expect((await get(agent.ports.main, "/runningpods/", {})).status).toBe(500);
  });

  it("recovers when the runtime socket appears: the pod runs", async () => {
    const runtime = await startProcessRuntime({ socketPath, stateDir: join(dir, "cri-state") });
    runtimes.push(runtime);
    await eventually("runtime reported ready", () => agent.logs().includes("container runtime is ready"), 60_000, context);
    const web = await eventually("web Running", async () => {
      const p = podNamed(await agent.pods(), "web", nodeName);
      return mainStatus(p)?.state?.running ? p : undefined;
    }, 60_000, context);
    expect(phaseOf(web)).toBe("Running");
    const logs = await get(agent.ports.main, `/containerLogs/default/web-${nodeName}/main`, {});
    expect(logs).toMatchObject({ status: 200, body: "up\n" });
    expect(await get(agent.ports.healthz, "/healthz")).toMatchObject({ status: 200, body: "ok" });
  });

  it("survives the runtime going away under a running pod, reports it down, and runs the pod again when it returns", async () => {
    const before = mainStatus(podNamed(await agent.pods(), "web", nodeName))?.containerID;
    expect(before).toBeTruthy();
    const downBefore = agent.logs().split("container runtime is down").length;
    const readyBefore = agent.logs().split("container runtime is ready").length;
    // The runtime stops: its socket goes and every container process is killed (as a containerd
    // restart that loses its tasks).
    await runtimes.pop()?.stop();
    // Down only after 30 s without a successful check (1.23's maxWaitForContainerRuntime).
    await eventually("runtime reported down again", () => agent.logs().split("container runtime is down").length > downBefore, 60_000, context);
    expect(agent.child.exitCode).toBeNull();
    expect(await get(agent.ports.healthz, "/healthz")).toMatchObject({ status: 200, body: "ok" });
    // /runningpods/ asks the runtime: an error answer, not a hang or a crash.
    expect((await get(agent.ports.main, "/runningpods/", {})).status).toBe(500);

    const runtime = await startProcessRuntime({ socketPath, stateDir: join(dir, "cri-state") });
    runtimes.push(runtime);
    await eventually("runtime reported ready again", () => agent.logs().split("container runtime is ready").length > readyBefore, 60_000, context);
    // The returned runtime has lost the sandbox: the pod gets a new one and a new container (the
    // restart count comes from the runtime's containers, as the kubelet's does, so it starts over).
    const web = await eventually("web Running again in a new container", async () => {
      const p = podNamed(await agent.pods(), "web", nodeName);
      const s = mainStatus(p);
      return s?.state?.running && s.containerID !== before ? p : undefined;
    }, 90_000, context);
    expect(phaseOf(web)).toBe("Running");
    expect(agent.child.exitCode).toBeNull();
    // Not duplicated: one ready sandbox and one running container for the pod.
    const rt = createRuntimeClient({ endpoint: runtime.endpoint, timeoutMs: 10_000 });
    try {
      const uid = web.metadata?.uid ?? "";
      const { items } = await rt.listPodSandbox({ filter: { labelSelector: { "io.example.pod.uid": uid }, state: { state: "SANDBOX_READY" } } });
      const { containers } = await rt.listContainers({ filter: { labelSelector: { "io.example.pod.uid": uid }, state: { state: "CONTAINER_RUNNING" } } });
      expect(items).toHaveLength(1);
      expect(containers).toHaveLength(1);
    } finally {
      rt.close();
    }
  }, 240_000);
});

describe.skipIf(skipReason !== undefined)("nodeagent binary with a runtime that accepts connections and never answers", () => {
  const nodeName = `bbh-${suffix}`;
  const dir = join(tmp, "h");
  const manifests = join(dir, "manifests");
  const socketPath = join(dir, "silent.sock");
  let agent: HarnessAgent;
  let silent: Server | undefined;
  const held: Socket[] = [];
  const context = () => agent.logs();

  beforeAll(async () => {
    nodeNames.push(nodeName);
    mkdirSync(manifests, { recursive: true });
    writeFileSync(join(manifests, "web.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - {name: main, image: busybox}\n");
    // A CRI endpoint that takes the connection and says nothing: no HTTP/2 preface, no answer.
    silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent?.listen(socketPath, resolve));
    agent = await startHarnessAgent({ dir, nodeName, runtimeEndpoint: `unix://${socketPath}`, manifests, args: ["--runtime-request-timeout=2s", "--file-check-frequency=1s"] });
    agents.push(agent);
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    await new Promise<void>((resolve) => (silent ? silent.close(() => resolve()) : resolve()));
  });

  it("reports each check timed out after --runtime-request-timeout, the runtime not ready, stays healthy, and answers runtime-backed requests with an error instead of hanging", async () => {
    await eventually("check timed out", () => /Container runtime sanity check failed: .*DeadlineExceeded/.test(agent.logs()), 60_000, context);
    expect(agent.logs()).toContain("container runtime status check may not have completed yet");
    expect(agent.child.exitCode).toBeNull();
    expect(await get(agent.ports.healthz, "/healthz")).toMatchObject({ status: 200, body: "ok" });
    const web = await eventually("web listed", async () => podNamed(await agent.pods(), "web", nodeName), 30_000, context);
    expect(phaseOf(web)).toBe("Pending");
    // Answered once the 2 s request timeout passes; a hang would run into the test's timeout.
    expect((await get(agent.ports.main, "/runningpods/", {})).status).toBe(500);
  });
});

const canMount = process.getuid?.() === 0;
describe.skipIf(skipReason !== undefined || !canMount)(`nodeagent binary with a full --root-dir${canMount ? "" : " (skipped: mounting a tmpfs needs root)"}`, () => {
  const nodeName = `bbf-${suffix}`;
  const dir = join(tmp, "f");
  const manifests = join(dir, "manifests");
  const rootDir = join(dir, "root");
  let runtime: ProcessRuntime;
  let agent: HarnessAgent;
  const context = () => agent.logs();

  beforeAll(async () => {
    nodeNames.push(nodeName);
    mkdirSync(manifests, { recursive: true });
    mkdirSync(rootDir, { recursive: true });
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1024k,nr_inodes=400", "tmpfs", rootDir]);
    runtime = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state") });
    runtimes.push(runtime);
    agent = await startHarnessAgent({ dir, nodeName, runtimeEndpoint: runtime.endpoint, manifests, args: ["--file-check-frequency=1s"] });
    agents.push(agent);
    await eventually("runtime ready", () => agent.logs().includes("container runtime is ready"), 60_000, context);
  });
  afterAll(async () => {
    await agent.stop(5_000);
    try {
      execFileSync("umount", ["-l", rootDir]);
    } catch {
      // already gone
    }
  });

  it("stays up when --root-dir fills: the pod that needs it waits with an error, and runs once space is freed", async () => {
    // Fill the file system to the last block and the last inode.
    try {
      execFileSync("dd", ["if=/dev/zero", `of=${join(rootDir, "filler")}`, "bs=64k"], { stdio: "ignore" });
    } catch {
      // dd stops with ENOSPC: no block left
    }
    const inodes = join(rootDir, "inodes");
    mkdirSync(inodes);
    for (let i = 0; ; i++) {
      try {
        writeFileSync(join(inodes, String(i)), "");
      } catch {
        break; // ENOSPC: no inode left
      }
    }
    writeFileSync(
      join(manifests, "scratch.yaml"),
      "apiVersion: v1\nkind: Pod\nmetadata: {name: scratch}\nspec:\n  volumes: [{name: work, emptyDir: {}}]\n  containers:\n  - {name: main, image: busybox, command: [sh, -c, 'echo ok > /work/f; sleep 3600'], volumeMounts: [{name: work, mountPath: /work}]}\n",
    );
    await eventually("the failure logged", () => /no space left on device|ENOSPC/i.test(agent.logs()), 60_000, context);
    expect(agent.child.exitCode).toBeNull();
    expect(await get(agent.ports.healthz, "/healthz")).toMatchObject({ status: 200, body: "ok" });
    const pending = podNamed(await agent.pods(), "scratch", nodeName);
    expect(phaseOf(pending)).toBe("Pending");

    unlinkSync(join(rootDir, "filler"));
    rmSync(inodes, { recursive: true, force: true });
    const running = await eventually("scratch Running after space is freed", async () => {
      const p = podNamed(await agent.pods(), "scratch", nodeName);
      return mainStatus(p)?.state?.running ? p : undefined;
    }, 90_000, context);
    expect(phaseOf(running)).toBe("Running");
  });
});

describe.skipIf(skipReason !== undefined)("nodeagent binary --runonce", () => {
  const nodeName = `bbo-${suffix}`;
  const dir = join(tmp, "o");
  const manifests = join(dir, "manifests");
  const marker = join(dir, "marker");

  it("runs the static pods once and exits 0, leaving them to the runtime", async () => {
    nodeNames.push(nodeName);
    mkdirSync(manifests, { recursive: true });
    writeFileSync(
      join(manifests, "once.yaml"),
      `apiVersion: v1\nkind: Pod\nmetadata: {name: once}\nspec:\n  restartPolicy: Never\n  containers:\n  - {name: main, image: busybox, command: [sh, -c, 'echo ran > ${marker}']}\n`,
    );
    writeFileSync(
      join(manifests, "svc.yaml"),
      "apiVersion: v1\nkind: Pod\nmetadata: {name: svc}\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n  - {name: main, image: busybox, command: [sh, -c, 'sleep 3600']}\n",
    );
    const runtime = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state") });
    runtimes.push(runtime);
    const r = await runAgent([
      "--runonce",
      `--hostname-override=${nodeName}`,
      `--root-dir=${join(dir, "root")}`,
      `--container-runtime-endpoint=${runtime.endpoint}`,
      `--pod-manifest-path=${manifests}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`"Started pod" pod="default/once-${nodeName}" phase="Succeeded"`);
    expect(r.stderr).toContain(`"Started pod" pod="default/svc-${nodeName}" phase="Running"`);
    expect(readFileSync(marker, "utf8")).toBe("ran\n");
    const rt = createRuntimeClient({ endpoint: runtime.endpoint, timeoutMs: 10_000 });
    try {
      const { containers } = await rt.listContainers({ filter: { state: { state: "CONTAINER_RUNNING" } } });
      expect(containers.map((c) => c.labels["io.example.pod.name"])).toContain(`svc-${nodeName}`);
    } finally {
      rt.close();
    }
  });

  it("exits 1 when a pod cannot run", async () => {
    const badDir = join(tmp, "o2");
    const badManifests = join(badDir, "manifests");
    mkdirSync(badManifests, { recursive: true });
    writeFileSync(
      join(badManifests, "fails.yaml"),
      // A pod admission refuses (a static pod short of CPU, nothing to preempt): a container that exits at once could be seen running
      // first, which counts as started for --runonce (as 1.23's isPodRunning), so the test would race.
      "apiVersion: v1\nkind: Pod\nmetadata: {name: fails}\nspec:\n  restartPolicy: Never\n  containers:\n  - {name: main, image: busybox, command: [sh, -c, 'exit 4'], resources: {requests: {cpu: '100000'}}}\n",
    );
    const runtime = await startProcessRuntime({ socketPath: join(badDir, "cri.sock"), stateDir: join(badDir, "cri-state") });
    runtimes.push(runtime);
    const r = await runAgent(["--runonce", `--hostname-override=${nodeName}`, `--root-dir=${join(badDir, "root")}`, `--container-runtime-endpoint=${runtime.endpoint}`, `--pod-manifest-path=${badManifests}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`"Failed to start pod" pod="default/fails-${nodeName}" phase="Failed"`);
  });
});
