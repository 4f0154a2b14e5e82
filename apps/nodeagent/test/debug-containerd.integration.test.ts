// kubectl debug on containerd: ephemeral containers through the REAL apiserver and the node agent;
// `--target` joins the target's PID namespace (CRI NamespaceMode TARGET, which containerd supports).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { debugTargetPod, defineDebugAcceptance } from "./debug-helpers.js";
import { startStreamingCluster, type StreamingCluster } from "./streaming-helpers.js";

const setup = setUpContainerd({ prefix: "skiff-dbg-", suite: "containerd kubectl debug suite" });

describe.skipIf(setup.endpoint === undefined)("kubectl debug on containerd", () => {
  const dir = mkdtempSync(join(tmpdir(), "skiff-dbgc-"));
  let cluster: StreamingCluster | undefined;

  beforeAll(async () => {
    cluster = await startStreamingCluster(dir, setup.endpoint ?? "");
    await cluster.runPod(debugTargetPod);
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    tearDownContainerd(setup);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  defineDebugAcceptance({
    cluster: () => {
      if (!cluster) throw new Error("cluster not started");
      return cluster;
    },
    targetSharesPIDNamespace: true,
  });
});
