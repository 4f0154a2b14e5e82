// The same acceptance as exec-containerd on the process CRI server (`pnpm start`'s default
// runtime): its own SPDY/3.1 streaming server serves exec, attach (output only) and port-forward.
// Its containers share the host's filesystem and network, so kubectl cp's remote side and the
// HTTP server's port are the host's.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
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
    cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state") });
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
    remoteDir: dir,
    get httpPort() {
      return httpPort;
    },
    attachStdin: false,
  });
});
