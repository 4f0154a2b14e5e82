// kubectl exec, exec -i, exec -it, cp, attach and port-forward as a user runs them, through the
// REAL apiserver (pods/exec, pods/attach, pods/portforward), the node agent's /exec, /attach,
// /portForward and containerd's streaming server; with the kubectl dispatcher and kubectl 1.27.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { defineStreamingAcceptance, startStreamingCluster, type StreamingCluster } from "./streaming-helpers.js";

const setup = setUpContainerd({ prefix: "skiff-ex-", suite: "containerd streaming suite" });

describe.skipIf(setup.endpoint === undefined)("kubectl streaming on containerd", () => {
  const dir = mkdtempSync(join(tmpdir(), "skiff-exs-"));
  let cluster: StreamingCluster | undefined;

  beforeAll(async () => {
    cluster = await startStreamingCluster(dir, setup.endpoint ?? "");
    await cluster.runPod({
      metadata: { name: "box" },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [
          { name: "main", image: "busybox:1.36", imagePullPolicy: "Never", command: ["sh", "-c", "i=0; while true; do echo tick $i; i=$((i+1)); sleep 1; done"] },
          { name: "web", image: "busybox:1.36", imagePullPolicy: "Never", command: ["sh", "-c", "mkdir -p /www && echo hello-httpd > /www/index.html && exec busybox httpd -f -p 8080 -h /www"] },
          { name: "reader", image: "busybox:1.36", imagePullPolicy: "Never", stdin: true, command: ["sh", "-c", "while read line; do echo got:$line; done"] },
        ],
      },
    });
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    tearDownContainerd(setup);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  defineStreamingAcceptance({
    cluster: () => {
      if (!cluster) throw new Error("cluster not started");
      return cluster;
    },
    localDir: dir,
    remoteDir: "/tmp",
    httpPort: 8080,
  });
});
