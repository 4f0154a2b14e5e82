// NetworkReady=false on real containerd: removing the CNI conflist from containerd's conf_dir makes
// its Status say NetworkReady=false ("cni plugin not initialized"); writing it again makes it true
// (containerd watches the directory; a rename into it was not noticed in a manual check, a new
// file was). 1.23: only host-network pods start meanwhile; the others get NetworkNotReady.
import { readFileSync, mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { containerdRuntimeOptions, findPod, waitFor } from "./pods-helpers.js";

const nodeName = "node-net";
const setup = setUpContainerd({ prefix: "skiff-net-", suite: "containerd network readiness suite" });

let pods: PodRuntime | undefined;
afterAll(async () => {
  await pods?.stop();
  tearDownContainerd(setup);
});

const manifest = (name: string, hostNetwork: boolean) =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  hostNetwork: ${String(hostNetwork)}\n  terminationGracePeriodSeconds: 1\n  containers:\n  - {name: main, image: "busybox:1.36", command: [sleep, "3600"]}\n`;

describe.skipIf(setup.endpoint === undefined)("containerd with its network not ready", () => {
  it("starts only the host-network pod, records NetworkNotReady on the other, and starts it once the network is ready", async () => {
    const conflist = join(setup.dir, "cni", "net.d", "10-skiff.conflist");
    const saved = readFileSync(conflist, "utf8");
    unlinkSync(conflist);
    const options = containerdRuntimeOptions(setup);
    const manifests = options.staticPodPath;
    mkdirSync(manifests, { recursive: true });
    const events: string[] = [];
    pods = createPodRuntime({
      ...options,
      nodeName,
      runtimeCheckPeriodMs: 1_000,
      backOffInitialMs: 500,
      backOffMaxMs: 2_000,
      onEvent: (p, type, reason, message) => events.push(`${p.metadata?.name ?? ""} ${type} ${reason}: ${message}`),
    });
    await pods.start();
    await waitFor("network not ready", () => (pods?.runtimeState().networkError.includes("NetworkReady=false reason:NetworkPluginNotReady") ? true : undefined), 30_000);
    expect(pods.runtimeState().ready).toBe(true);
    writeFileSync(join(manifests, "hostnet.yaml"), manifest("hostnet", true));
    writeFileSync(join(manifests, "web.yaml"), manifest("web", false));
    await waitFor("hostnet running", () => (findPod(pods?.listPods() ?? [], "hostnet")?.status?.containerStatuses?.[0]?.state?.running ? true : undefined), 90_000);
    await waitFor("NetworkNotReady on web", () => (events.some((e) => e.startsWith(`web-${nodeName} Warning NetworkNotReady: network is not ready: container runtime network not ready: NetworkReady=false`)) ? true : undefined), 30_000);
    expect(findPod(pods.listPods(), "web")?.status?.containerStatuses?.[0]?.state?.running).toBeUndefined();
    writeFileSync(conflist, saved);
    await waitFor("network ready", () => (pods?.runtimeState().networkError === "" ? true : undefined), 30_000);
    await waitFor("web running", () => (findPod(pods?.listPods() ?? [], "web")?.status?.containerStatuses?.[0]?.state?.running ? true : undefined), 90_000);
  }, 240_000);
});
