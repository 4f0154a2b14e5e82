// 1.23's PLEG relists sandboxes as well as containers: a pod whose sandbox dies (its pause process
// killed) while its container keeps running is synced at the next relist, and the agent creates a
// new sandbox ("Pod sandbox changed, it will be killed and re-created"), not at the next periodic
// resync. Real containerd + runc (tools/containerd/setup.sh); with CI=true it must run, elsewhere
// it is skipped with the reason when setup fails (no root or apt).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { createRuntimeClient } from "@skiff/cri-api";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { criLabels } from "../src/pods/runtime-manager.js";
import { findPod, waitFor } from "./pods-helpers.js";

const setup = setUpContainerd({ prefix: "skiff-sr-", suite: "sandbox relist suite" });

let pods: PodRuntime | undefined;
afterAll(async () => {
  await pods?.stop();
  tearDownContainerd(setup);
});

describe.skipIf(setup.endpoint === undefined)("a dead sandbox on containerd", () => {
  it("is re-created at the next relist, long before the periodic resync", async () => {
    const endpoint = setup.endpoint ?? "";
    const manifests = join(setup.dir, "manifests");
    mkdirSync(manifests, { recursive: true });
    writeFileSync(
      join(manifests, "sleeper.yaml"),
      `apiVersion: v1
kind: Pod
metadata: {name: sleeper}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - {name: main, image: "busybox:1.36", imagePullPolicy: IfNotPresent, command: ["sleep", "3600"]}
`,
    );
    pods = createPodRuntime({
      nodeName: "node-sr",
      rootDir: join(setup.dir, "agent"),
      podLogsDir: join(setup.dir, "pod-logs"),
      containerRuntimeEndpoint: endpoint,
      runtimeRequestTimeoutMs: 60_000,
      staticPodPath: manifests,
      fileCheckFrequencyMs: 500,
      // Far beyond the test's wait: only the relist can notice the dead sandbox in time.
      syncFrequencyMs: 600_000,
      relistPeriodMs: 500,
      runtimeCheckPeriodMs: 1_000,
    });
    await pods.start();
    const running = await waitFor("sleeper Running", () => {
      const p = findPod(pods?.listPods() ?? [], "sleeper");
      return p?.status?.phase === "Running" ? p : undefined;
    }, 120_000);
    const uid = running.metadata?.uid ?? "";
    const rt = createRuntimeClient({ endpoint, timeoutMs: 30_000 });
    try {
      const sandboxesOf = async () => (await rt.listPodSandbox({ filter: { labelSelector: { [criLabels.podUID]: uid } } })).items;
      const [first] = await sandboxesOf();
      expect(first?.state).toBe("SANDBOX_READY");
      const info = JSON.parse((await rt.podSandboxStatus({ podSandboxId: first?.id ?? "", verbose: true })).info.info ?? "{}") as { pid?: number };
      expect(info.pid).toBeGreaterThan(0);
      process.kill(info.pid ?? 0, "SIGKILL");
      const replaced = await waitFor("a new ready sandbox", async () => (await sandboxesOf()).find((s) => s.id !== first?.id && s.state === "SANDBOX_READY"), 30_000);
      expect(replaced.metadata?.attempt).toBe(1);
      await waitFor("sleeper Running in the new sandbox", async () => {
        const { containers } = await rt.listContainers({ filter: { podSandboxId: replaced.id, state: { state: "CONTAINER_RUNNING" } } });
        return containers.length === 1 ? true : undefined;
      }, 30_000);
    } finally {
      rt.close();
    }
  }, 240_000);
});
