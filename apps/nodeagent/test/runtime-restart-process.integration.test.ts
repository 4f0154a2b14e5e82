// The node agent's pods converge after the process CRI server is killed (SIGKILL) under it and
// started again on the same state dir, as the 1.23 kubelet's do after containerd restarts: the
// runtime lists the sandbox again; with namespaces the container died with the server and is
// reported EXITED (exit code 255, reason Unknown), so the restartPolicy Always pod gets its
// container restarted in the same sandbox (restartCount 1, same pod IP) and the Never pod ends
// Failed with that exit code. With --isolation=none the processes outlive the server and are
// re-adopted: both pods keep running in the same containers (restartCount 0), as with containerd,
// whose shims keep the containers. The server runs as its own process (from source) so it can be
// killed.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { findPod, waitFor } from "./pods-helpers.js";

const nodeName = "node-crashy";
const repoRoot = join(import.meta.dirname, "..", "..", "..");
const canRun = process.getuid?.() === 0 && ["/usr/bin/bwrap", "/bin/bwrap"].some((p) => existsSync(p));

const manifest = (name: string, restartPolicy: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  restartPolicy: ${restartPolicy}
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox
    imagePullPolicy: IfNotPresent
    command: ["sleep", "3600"]
`;

function defineSuite(isolation: "namespaces" | "none", body: (ctx: { pods: () => PodRuntime; kill: () => Promise<void>; stateDir: () => string }) => void): void {
  let dir: string;
  let pods: PodRuntime;
  let server: ChildProcess | undefined;
  let serverLog = "";

  async function startServer(): Promise<void> {
    const socket = join(dir, "cri.sock");
    const child = spawn(process.execPath, ["--conditions=@skiff/source", "--import", "tsx", join(repoRoot, "tools/cri-process-server/src/main.ts"), "--listen", socket, "--state-dir", join(dir, "state"), "--isolation", isolation], { stdio: ["ignore", "ignore", "pipe"] });
    server = child;
    child.stderr?.on("data", (d: Buffer) => (serverLog += d.toString()));
    const before = serverLog.split("listening on").length;
    await waitFor("the CRI server listening", () => (serverLog.split("listening on").length > before ? true : undefined), 60_000);
  }

  async function stopServer(signal: NodeJS.Signals): Promise<void> {
    const child = server;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill(signal);
    });
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-crashy-"));
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    writeFileSync(join(manifests, "always.yaml"), manifest("always", "Always"));
    writeFileSync(join(manifests, "never.yaml"), manifest("never", "Never"));
    await startServer();
    pods = createPodRuntime({
      nodeName,
      rootDir: join(dir, "root"),
      podLogsDir: join(dir, "logs"),
      containerRuntimeEndpoint: `unix://${join(dir, "cri.sock")}`,
      runtimeRequestTimeoutMs: 10_000,
      staticPodPath: manifests,
      fileCheckFrequencyMs: 300,
      syncFrequencyMs: 2_000,
      backOffInitialMs: 300,
      backOffMaxMs: 1_000,
      relistPeriodMs: 200,
      runtimeCheckPeriodMs: 300,
    });
    await pods.start();
  }, 120_000);

  afterAll(async () => {
    await pods?.stop();
    await stopServer("SIGTERM");
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  body({
    pods: () => pods,
    stateDir: () => join(dir, "state"),
    kill: async () => {
      await stopServer("SIGKILL");
      await startServer();
    },
  });
}

const runningPod = (pods: PodRuntime, name: string) => {
  const p = findPod(pods.listPods(), name);
  return p?.status?.phase === "Running" && p.status.containerStatuses?.[0]?.state?.running ? p : undefined;
};

describe.skipIf(!canRun)(canRun ? "pods after the process CRI server is killed (namespaces)" : "pods after the process CRI server is killed (namespaces; skipped: needs root and bubblewrap)", () => {
  defineSuite("namespaces", (ctx) => {
    it("restarts the Always pod's container in its sandbox and fails the Never pod with exit code 255", async () => {
      const pods = ctx.pods();
      const running = (name: string) => () => runningPod(pods, name);
      const always = await waitFor("always running", running("always"), 60_000);
      await waitFor("never running", running("never"), 60_000);
      const ip = always.status?.podIP;

      await ctx.kill();

      const restarted = await waitFor(
        "always restarted",
        () => {
          const p = running("always")();
          return p && (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1 ? p : undefined;
        },
        90_000,
      );
      const last = restarted.status?.containerStatuses?.[0]?.lastState?.terminated;
      expect([last?.exitCode, last?.reason]).toEqual([255, "Unknown"]);
      // Same sandbox: its network namespace survived the kill.
      expect(restarted.status?.podIP).toBe(ip);
      const never = await waitFor("never failed", () => {
        const p = findPod(pods.listPods(), "never");
        return p?.status?.phase === "Failed" ? p : undefined;
      }, 90_000);
      const terminated = never.status?.containerStatuses?.[0]?.state?.terminated;
      expect([terminated?.exitCode, terminated?.reason]).toEqual([255, "Unknown"]);
      // Nothing of the server's own left mounted but the two pods' network namespaces.
      const mounts = readFileSync("/proc/self/mountinfo", "utf8").split("\n").filter((l) => l.includes(ctx.stateDir()));
      expect(mounts.length).toBeLessThanOrEqual(2);
    }, 240_000);
  });
});

describe("pods after the process CRI server is killed (isolation none)", () => {
  defineSuite("none", (ctx) => {
    it("keeps both pods running in the same containers: the processes survived and are re-adopted", async () => {
      const pods = ctx.pods();
      const always = await waitFor("always running", () => runningPod(pods, "always"), 60_000);
      const never = await waitFor("never running", () => runningPod(pods, "never"), 60_000);
      await ctx.kill();
      // Give the agent a few relists against the restarted runtime.
      await new Promise((r) => setTimeout(r, 3_000));
      for (const [name, before] of [["always", always], ["never", never]] as const) {
        const now = await waitFor(`${name} running`, () => runningPod(pods, name), 30_000);
        const s = now.status?.containerStatuses?.[0];
        expect([s?.containerID, s?.restartCount]).toEqual([before.status?.containerStatuses?.[0]?.containerID, 0]);
      }
    }, 240_000);
  });
});
