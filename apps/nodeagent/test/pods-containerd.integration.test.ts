// The two-pod static-pod scenario on real containerd + runc, set up by tools/containerd/setup.sh in
// a temporary directory and stopped again afterwards. With CI=true it must run; elsewhere it is
// skipped (with the reason) when setup fails, e.g. without root or apt.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createRuntimeClient } from "@skiff/cri-api";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { alwaysManifest, findPod, neverManifest, readAll, waitFor } from "./pods-helpers.js";

const toolsDir = join(dirname(fileURLToPath(import.meta.url)), "../../../tools/containerd");
const ci = process.env.CI === "true";
const nodeName = "node-c";

interface Setup {
  dir: string;
  endpoint?: string;
  error?: string;
}

function setUpContainerd(): Setup {
  // Short: the socket path must fit a unix socket address.
  const dir = mkdtempSync(join(tmpdir(), "skiff-pc-"));
  if (process.getuid?.() !== 0) return { dir, error: "not running as root (containerd and runc need it)" };
  const result = spawnSync("bash", [join(toolsDir, "setup.sh"), "--dir", dir], { encoding: "utf8", timeout: 600_000 });
  if (result.status !== 0) {
    return { dir, error: `setup.sh exited ${result.status ?? result.signal}: ${result.stderr.trim().split("\n").slice(-15).join("\n")}` };
  }
  const endpoint = result.stdout.trim().split("\n").at(-1) ?? "";
  if (!endpoint.startsWith("unix://")) return { dir, error: `setup.sh printed no endpoint: ${result.stdout}` };
  return { dir, endpoint };
}

const setup = setUpContainerd();
if (setup.error && !ci) {
  console.warn(`containerd pods suite skipped: ${setup.error}`);
}

let pods: PodRuntime | undefined;
afterAll(async () => {
  await pods?.stop();
  spawnSync("bash", [join(toolsDir, "stop.sh"), "--dir", setup.dir, "--purge"], { stdio: "inherit", timeout: 120_000 });
  rmSync(setup.dir, { recursive: true, force: true });
});

if (ci && setup.error !== undefined) {
  describe("containerd setup (CI)", () => {
    it("sets up containerd", () => {
      expect(setup.error).toBeUndefined();
    });
  });
}

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
    expect(await readAll(await pods.containerLogs("default", `never-${nodeName}`, "main", {}))).toBe("done\noops\n");
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
