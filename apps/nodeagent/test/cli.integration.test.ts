import * as grpc from "@grpc/grpc-js";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentProcess } from "./cli-helpers.js";
import { freePort, runAgent, startAgent, waitHealthy } from "./cli-helpers.js";
import { loadPodResourcesAPI } from "../src/podresources/index.js";
import { waitFor } from "@skiff/test-support";

const started: AgentProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const a of started) a.child.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function agentArgs(dir: string): Promise<{ args: string[]; healthz: number }> {
  const [port, ro, healthz] = [await freePort(), await freePort(), await freePort()];
  return {
    healthz,
    args: [
      `--root-dir=${join(dir, "root")}`,
      `--cert-dir=${join(dir, "pki")}`,
      `--port=${port}`,
      `--read-only-port=${ro}`,
      `--healthz-port=${healthz}`,
      `--container-runtime-endpoint=unix://${join(dir, "no-runtime.sock")}`,
    ],
  };
}

describe("nodeagent binary", () => {
  it("--help prints every flag grouped by the spec's tables, exit 0", async () => {
    const r = await runAgent(["--help"]);
    expect(r.code).toBe(0);
    for (const f of ["--address", "--pod-manifest-path", "--container-runtime-endpoint", "--max-pods", "--eviction-hard", "--cluster-dns", "--cluster-api-qps", "--logging-format", "--tls-cipher-suites", "--lock-file", "--feature-gates"]) {
      expect(r.stdout).toContain(f);
    }
    expect(r.stdout).toContain("Authentication flags:");
  });

  it("--version and --version=raw, exit 0", async () => {
    expect(await runAgent(["--version"])).toMatchObject({ code: 0, stdout: "Kubernetes v1.23.0-skiff.0\n" });
    const raw = await runAgent(["--version=raw"]);
    expect(raw.code).toBe(0);
    expect(JSON.parse(raw.stdout)).toMatchObject({ gitVersion: "v1.23.0-skiff.0", major: "1", minor: "23" });
  });

  it("a bad flag exits 1 with pflag's error", async () => {
    const r = await runAgent(["--max-pods=lots"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('"Failed to parse nodeagent flag" err="invalid argument \\"lots\\" for \\"--max-pods\\" flag');
  });

  it("a bad config prints every error and exits 1 without starting", async () => {
    const dir = mkdtempSync(join(tmpdir(), "na-cli-"));
    dirs.push(dir);
    const config = join(dir, "config.yaml");
    writeFileSync(config, "apiVersion: nodeagent.config.example.io/v1beta1\nkind: NodeAgentConfiguration\noomScoreAdj: 5000\niptablesDropBit: 40\nevictionHard:\n  memory.free: 1Gi\n");
    const r = await runAgent([`--config=${config}`, "--image-gc-high-threshold=101"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("oomScoreAdj (--oom-score-adj) 5000 must be between -1000 and 1000, inclusive");
    expect(r.stderr).toContain("iptablesDropBit (--iptables-drop-bit) 40 must be between 0 and 31, inclusive");
    expect(r.stderr).toContain("unsupported eviction signal memory.free");
    expect(r.stderr).toContain("imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, inclusive");
    expect(r.stderr).not.toContain("Starting to listen");
  });

  it("--runonce with --enable-server is refused with a clear error", async () => {
    const r = await runAgent(["--runonce", "--enable-server"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("RunOnce (--runonce) is exclusive with EnableServer (--enable-server)");
  });

  it("lock-file contention: the holder exits, the waiter takes over", async () => {
    const dir = mkdtempSync(join(tmpdir(), "na-cli-"));
    dirs.push(dir);
    const lock = join(dir, "nodeagent.lock");
    const first = await agentArgs(join(dir, "a"));
    const a = startAgent([...first.args, `--lock-file=${lock}`, "--exit-on-lock-contention"]);
    started.push(a);
    await waitHealthy(first.healthz, a);
    const second = await agentArgs(join(dir, "b"));
    const b = startAgent([...second.args, `--lock-file=${lock}`, "--exit-on-lock-contention"]);
    started.push(b);
    expect(await a.exited).toBe(0);
    expect(a.stderr()).toContain('"Shutting down" reason="lock file contention"');
    await waitHealthy(second.healthz, b);
    b.child.kill("SIGTERM");
    expect(await b.exited).toBe(0);
  });

  it("serves the pod resources API on <root-dir>/pod-resources/kubelet.sock (gate NodeAgentPodResources), and not with the gate off", async () => {
    const dir = mkdtempSync(join(tmpdir(), "na-cli-"));
    dirs.push(dir);
    const on = await agentArgs(join(dir, "on"));
    const a = startAgent(on.args);
    started.push(a);
    await waitHealthy(on.healthz, a);
    const socket = join(dir, "on", "root", "pod-resources", "kubelet.sock");
    await waitFor(() => (existsSync(socket) ? true : undefined), { what: "pod resources socket", timeoutMs: 30_000 });
    const client = new (loadPodResourcesAPI().v1.PodResourcesLister)(`unix://${socket}`, grpc.credentials.createInsecure());
    const call = (method: string) =>
      new Promise<unknown>((resolve, reject) => (client as unknown as Record<string, (r: object, cb: (e: Error | null, v: unknown) => void) => void>)[method]?.call(client, {}, (e, v) => (e ? reject(e) : resolve(v))));
    expect(await call("List")).toEqual({ podResources: [] });
    // CPU manager policy none: no CPU is handed out exclusively.
    expect(await call("GetAllocatableResources")).toEqual({ devices: [], cpuIds: [], memory: [] });
    client.close();
    a.child.kill("SIGTERM");
    expect(await a.exited).toBe(0);
    expect(existsSync(socket)).toBe(false);

    const off = await agentArgs(join(dir, "off"));
    const b = startAgent([...off.args, "--feature-gates=NodeAgentPodResources=false"]);
    started.push(b);
    await waitHealthy(off.healthz, b);
    expect(existsSync(join(dir, "off", "root", "pod-resources", "kubelet.sock"))).toBe(false);
    b.child.kill("SIGTERM");
    expect(await b.exited).toBe(0);
  });

  it("--exit-on-lock-contention without --lock-file fails at start", async () => {
    const r = await runAgent(["--exit-on-lock-contention"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot exit on lock file contention: no lock file specified");
  });
});
