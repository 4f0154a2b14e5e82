// Probes end to end on the process CRI server: exec probes run through ExecSync, httpGet and
// tcpSocket probes reach a small node HTTP server the container runs (containers are host
// processes, so the pod IP is 127.0.0.1).
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import { freePort } from "@skiff/test-support";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { findPod, waitFor } from "./pods-helpers.js";

const nodeName = "node-p";

const serverScript = (port: number, readyFile: string) => `
const http = require("node:http"); const fs = require("node:fs");
http.createServer((req, res) => {
  if (req.url === "/ready") { res.statusCode = fs.existsSync(${JSON.stringify(readyFile)}) ? 200 : 503; res.end("r"); return; }
  res.end("ok");
}).listen(${port}, "127.0.0.1", () => console.log("listening"));
process.on("SIGTERM", () => process.exit(0));
`;

describe("probes on the process CRI server", () => {
  let dir: string;
  let flags: string;
  let runtime: ProcessRuntime;
  let pods: PodRuntime;
  let webPort: number;
  const events: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-pp-"));
    flags = join(dir, "flags");
    mkdirSync(flags);
    webPort = await freePort();
    runtime = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "state") });
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    const web: Pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web" },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: "server",
            image: "busybox",
            command: [process.execPath, "-e", serverScript(webPort, join(flags, "ready"))],
            ports: [{ name: "http", containerPort: webPort }],
            readinessProbe: { httpGet: { path: "/ready", port: "http" }, periodSeconds: 1, failureThreshold: 1 },
            livenessProbe: { tcpSocket: { port: webPort }, periodSeconds: 1 },
          },
        ],
      },
    };
    const live: Pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "live" },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"], livenessProbe: { exec: { command: ["sh", "-c", `test ! -e ${join(flags, "kill")}`] }, periodSeconds: 1, failureThreshold: 2 } }],
      },
    };
    const slow: Pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "slow" },
      spec: {
        containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"], startupProbe: { exec: { command: ["test", "-e", join(flags, "started")] }, periodSeconds: 1, failureThreshold: 600 } }],
      },
    };
    writeFileSync(join(manifests, "web.json"), JSON.stringify(web));
    writeFileSync(join(manifests, "live.json"), JSON.stringify(live));
    writeFileSync(join(manifests, "slow.json"), JSON.stringify(slow));
    pods = createPodRuntime({
      nodeName,
      rootDir: join(dir, "root"),
      podLogsDir: join(dir, "logs"),
      containerRuntimeEndpoint: runtime.endpoint,
      runtimeRequestTimeoutMs: 10_000,
      staticPodPath: manifests,
      fileCheckFrequencyMs: 300,
      syncFrequencyMs: 5_000,
      backOffInitialMs: 300,
      backOffMaxMs: 1_000,
      relistPeriodMs: 200,
      runtimeCheckPeriodMs: 300,
      onEvent: (pod, type, reason, message) => events.push(`${pod.metadata?.name ?? ""} ${type} ${reason} ${message}`),
    });
    await pods.start();
  });

  afterAll(async () => {
    await pods?.stop();
    await runtime?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps a running container unready until its httpGet readiness probe passes", async () => {
    const running = await waitFor("web running", () => {
      const p = findPod(pods.listPods(), "web");
      return p?.status?.containerStatuses?.[0]?.state?.running ? p : undefined;
    });
    expect(running.status?.containerStatuses?.[0]?.ready).toBe(false);
    await waitFor("Unhealthy readiness event", () => (events.some((e) => e.startsWith("web-") && e.includes("Warning Unhealthy Readiness probe failed: HTTP probe failed with statuscode: 503")) ? true : undefined));
    const notReady = findPod(pods.listPods(), "web");
    expect(notReady?.status?.phase).toBe("Running");
    expect(notReady?.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "False", reason: "ContainersNotReady", message: "containers with unready status: [server]" });
    writeFileSync(join(flags, "ready"), "");
    const ready = await waitFor("web ready", () => {
      const p = findPod(pods.listPods(), "web");
      return p?.status?.containerStatuses?.[0]?.ready === true ? p : undefined;
    });
    expect(ready.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(ready.status?.conditions?.find((c) => c.type === "ContainersReady")?.status).toBe("True");
    expect(ready.status?.containerStatuses?.[0]?.started).toBe(true);
    expect(ready.status?.containerStatuses?.[0]?.restartCount).toBe(0); // the tcpSocket liveness probe passes
    unlinkSync(join(flags, "ready"));
    await waitFor("web unready again", () => (findPod(pods.listPods(), "web")?.status?.containerStatuses?.[0]?.ready === false ? true : undefined));
  });

  it("kills and restarts a container whose exec liveness probe fails", async () => {
    await waitFor("live running", () => (findPod(pods.listPods(), "live")?.status?.containerStatuses?.[0]?.ready ? true : undefined));
    writeFileSync(join(flags, "kill"), "");
    const restarted = await waitFor("live restarted", () => {
      const p = findPod(pods.listPods(), "live");
      return (p?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1 ? p : undefined;
    });
    unlinkSync(join(flags, "kill"));
    expect(events).toContain(`live-${nodeName} Normal Killing Container main failed liveness probe, will be restarted`);
    expect(events.some((e) => e.startsWith(`live-${nodeName} Warning Unhealthy Liveness probe failed:`))).toBe(true);
    expect(restarted.status?.containerStatuses?.[0]?.lastState?.terminated).toBeDefined();
    // The kubelet's container events, once per start: image check, Created, Started.
    const mine = events.filter((e) => e.startsWith(`live-${nodeName} `));
    expect(mine.some((e) => / Normal Pulled (Container image ".*" already present on machine|Successfully pulled image ".*" in \S+)$/.test(e))).toBe(true);
    expect(mine.filter((e) => e.endsWith("Normal Created Created container main")).length).toBeGreaterThanOrEqual(2);
    expect(mine.filter((e) => e.endsWith("Normal Started Started container main")).length).toBeGreaterThanOrEqual(2);
    await waitFor("live running again", () => (findPod(pods.listPods(), "live")?.status?.containerStatuses?.[0]?.state?.running ? true : undefined));
  });

  it("reports started=false until the startup probe passes", async () => {
    const p = await waitFor("slow running", () => {
      const x = findPod(pods.listPods(), "slow");
      return x?.status?.containerStatuses?.[0]?.state?.running ? x : undefined;
    });
    expect(p.status?.containerStatuses?.[0]).toMatchObject({ started: false, ready: false });
    writeFileSync(join(flags, "started"), "");
    const started = await waitFor("slow started", () => {
      const x = findPod(pods.listPods(), "slow");
      return x?.status?.containerStatuses?.[0]?.started === true ? x : undefined;
    });
    expect(started.status?.containerStatuses?.[0]?.ready).toBe(true); // no readiness probe: ready once started
  });
});
