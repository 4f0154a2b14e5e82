// kubectl debug on the process CRI server as `pnpm start` runs it (`isolation: "namespaces"`):
// ephemeral containers through the REAL apiserver and the node agent.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { debugTargetPod, defineDebugAcceptance } from "./debug-helpers.js";
import { startStreamingCluster, type StreamingCluster } from "./streaming-helpers.js";

describe("kubectl debug on the process runtime", () => {
  const dir = mkdtempSync(join(tmpdir(), "skiff-dbgp-"));
  let cri: ProcessRuntime | undefined;
  let cluster: StreamingCluster | undefined;

  beforeAll(async () => {
    cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state"), isolation: "namespaces" });
    cluster = await startStreamingCluster(join(dir, "cluster"), cri.endpoint);
    await cluster.runPod(debugTargetPod);
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    await cri?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  defineDebugAcceptance({
    cluster: () => {
      if (!cluster) throw new Error("cluster not started");
      return cluster;
    },
    targetSharesPIDNamespace: process.getuid?.() === 0,
  });
});
