// The same acceptance as exec-containerd on the process CRI server as `pnpm start` runs it
// (`isolation: "namespaces"`): its own SPDY/3.1 streaming server serves exec, attach (output only)
// and port-forward. Exec enters the container's namespaces, so kubectl cp's remote side is the
// container's private /tmp; containers share the host's network, so the HTTP server's port is the host's.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { freePort } from "./cli-helpers.js";
import { defineStreamingAcceptance, startStreamingCluster, type StreamingCluster } from "./streaming-helpers.js";

describe("kubectl streaming on the process runtime", () => {
  const dir = mkdtempSync(join(tmpdir(), "skiff-exp-"));
  let cri: ProcessRuntime | undefined;
  let cluster: StreamingCluster | undefined;
  let httpPort = 0;

  beforeAll(async () => {
    httpPort = await freePort();
    cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state"), isolation: "namespaces" });
    cluster = await startStreamingCluster(join(dir, "cluster"), cri.endpoint);
    const www = join(dir, "www");
    await cluster.runPod({
      metadata: { name: "box" },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [
          { name: "main", image: "busybox:1.36", command: ["sh", "-c", "i=0; while true; do echo tick $i; i=$((i+1)); sleep 1; done"] },
          { name: "web", image: "busybox:1.36", command: ["sh", "-c", `mkdir -p ${www} && echo hello-httpd > ${www}/index.html && exec busybox httpd -f -p ${httpPort} -h ${www}`] },
        ],
      },
    });
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    await cri?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  defineStreamingAcceptance({
    cluster: () => {
      if (!cluster) throw new Error("cluster not started");
      return cluster;
    },
    localDir: dir,
    remoteDir: "/tmp",
    get httpPort() {
      return httpPort;
    },
    attachStdin: false,
  });

  it("exec enters the container: its PID 1 is the container's command and its /tmp is the container's own", async () => {
    if (!cluster) throw new Error("cluster not started");
    const r = await cluster.kubectl(["exec", "box", "-c", "main", "--", "sh", "-c", "tr '\\0' ' ' < /proc/1/cmdline; echo; ls /tmp | wc -l"]);
    expect(r.code).toBe(0);
    const [cmdline, tmpCount] = r.stdout.split("\n");
    expect(cmdline).toMatch(/^sh -c i=0; while true; do echo tick/);
    // The host's /tmp holds this test's own folder; the container's private /tmp does not.
    expect(existsSync(dir)).toBe(true);
    expect(Number(tmpCount)).toBeLessThan(readdirSync(tmpdir()).length);
  });
});
