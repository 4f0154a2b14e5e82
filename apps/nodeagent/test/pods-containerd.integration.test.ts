// The two-pod static-pod scenario on real containerd + runc, set up by tools/containerd/setup.sh in
// a temporary directory and stopped again afterwards. With CI=true it must run; elsewhere it is
// skipped (with the reason) when setup fails, e.g. without root or apt.
import { mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { createRuntimeClient } from "@skiff/cri-api";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { alwaysManifest, findPod, neverManifest, readAll, waitFor } from "./pods-helpers.js";

const nodeName = "node-c";

const setup = setUpContainerd({ prefix: "skiff-pc-", suite: "containerd pods suite" });

let pods: PodRuntime | undefined;
afterAll(async () => {
  await pods?.stop();
  tearDownContainerd(setup);
});

describe.skipIf(setup.endpoint === undefined)("pods on containerd", () => {
  const endpoint = setup.endpoint ?? "";
  const manifests = join(setup.dir, "manifests");

  it("runs an Always and a Never pod from a static-pod directory", async () => {
    mkdirSync(manifests, { recursive: true });
    writeFileSync(join(manifests, "always.yaml"), alwaysManifest("busybox:1.36"));
    writeFileSync(join(manifests, "never.json"), neverManifest("busybox:1.36"));
    writeFileSync(join(manifests, "broken.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: broken}\nspec: [not, a, spec]\n");
    pods = createPodRuntime({
      nodeName,
      rootDir: join(setup.dir, "agent"),
      podLogsDir: join(setup.dir, "pod-logs"),
      containerRuntimeEndpoint: endpoint,
      runtimeRequestTimeoutMs: 60_000,
      staticPodPath: manifests,
      fileCheckFrequencyMs: 500,
      syncFrequencyMs: 10_000,
      backOffInitialMs: 500,
      backOffMaxMs: 2_000,
      relistPeriodMs: 300,
      runtimeCheckPeriodMs: 1_000,
    });
    await pods.start();
    expect(pods.runtimeState()).toMatchObject({ ready: true, runtimeName: "containerd" });
    await waitFor("two pods", () => (pods?.listPods().length === 2 ? true : undefined));

    const always = await waitFor(
      "always restartCount ≥ 2",
      () => {
        const p = findPod(pods?.listPods() ?? [], "always");
        return (p?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2 ? p : undefined;
      },
      90_000,
    );
    const acs = always.status?.containerStatuses?.[0];
    expect((acs?.lastState?.terminated ?? acs?.state?.terminated)?.exitCode).toBe(3);
    expect(acs?.containerID).toMatch(/^containerd:\/\//);
    expect(always.status?.phase).toBe("Running");
    expect(always.status?.podIP).toBeTruthy();

    const never = await waitFor("never Failed", () => {
      const p = findPod(pods?.listPods() ?? [], "never");
      return p?.status?.phase === "Failed" ? p : undefined;
    }, 60_000);
    expect(never.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(7);
    expect(never.status?.containerStatuses?.[0]?.restartCount).toBe(0);
  });

  it("serves the containers' logs", async () => {
    if (!pods) throw new Error("no pods");
    // stdout and stderr come through separate pipes: their lines may interleave either way.
    const lines = (await readAll(await pods.containerLogs("default", `never-${nodeName}`, "main", {}))).split("\n").filter((l) => l !== "");
    expect(lines.sort()).toEqual(["done", "oops"]);
    expect(await readAll(await pods.containerLogs("default", `always-${nodeName}`, "main", { previous: true }))).toBe("hello always\n");
  });

  it("stops and removes a pod whose file is deleted", async () => {
    if (!pods) throw new Error("no pods");
    const uid = findPod(pods.listPods(), "always")?.metadata?.uid ?? "";
    unlinkSync(join(manifests, "always.yaml"));
    await waitFor("always pod gone", () => (findPod(pods?.listPods() ?? [], "always") ? undefined : true), 60_000);
    const rt = createRuntimeClient({ endpoint, timeoutMs: 30_000 });
    try {
      await waitFor("sandbox removed", async () => {
        const { items } = await rt.listPodSandbox({ filter: { labelSelector: { "io.example.pod.uid": uid } } });
        return items.length === 0 ? true : undefined;
      }, 60_000);
    } finally {
      rt.close();
    }
  });
});
