// Image GC's Node events on the REAL apiserver, with the node agent in API-server mode on real
// containerd + runc whose root (the image fs) is a 64 MiB tmpfs (setUpContainerd rootTmpfsBytes,
// as the LRU suite). Before the agent starts, a sandbox and a running busybox:1.36 container are
// made over CRI, so at the agent's first collection (at its start) every image is in use: busybox
// by that container, the pause image as the sandbox image. The thresholds are set from the
// measured usage (over the high one, a low one that only removing everything would reach) with
// --minimum-image-ttl-duration=0s, so only "in use" keeps the images: the collection frees 0 bytes
// and 1.23's FreeDiskSpaceFailed Warning appears on the Node, with its message; nothing is removed.
// (ImageGCFailed needs a second failure in a row, one fixed ImageGCPeriod of 5 minutes later: it is
// pinned by the image-gc-manager unit test instead.)
// Skip rules as the other containerd suites: with CI=true it must run.
import { mkdirSync, statfsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImageClient, createRuntimeClient } from "@skiff/cri-api";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { startAPIModeAgent, textSink } from "./api-mode-agent.js";
import { apiCall, startAPIServer, writeAdminKubeconfig, type APIServerProcess } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";

const setup = setUpContainerd({ prefix: "skiff-gcev-", suite: "containerd image GC events suite", rootTmpfsBytes: 64 * 1024 * 1024 });
const nodeName = `gcev-${Math.random().toString(36).slice(2, 8)}`;

interface EventItem {
  type?: string;
  reason?: string;
  message?: string;
  involvedObject?: { kind?: string; name?: string };
  source?: { component?: string; host?: string };
}

describe.skipIf(setup.endpoint === undefined)("image GC events on the Node (containerd, small image fs)", () => {
  const endpoint = setup.endpoint ?? "";
  let api: APIServerProcess;
  const stop = new AbortController();
  let agentDone: Promise<number> | undefined;
  const agentOut = textSink();
  const agentErr = textSink();
  const rt = createRuntimeClient({ endpoint: endpoint || "unix:///nonexistent", timeoutMs: 60_000 });
  const images = createImageClient({ endpoint: endpoint || "unix:///nonexistent", timeoutMs: 60_000 });

  beforeAll(async () => {
    api = await startAPIServer(setup.dir);
  }, 180_000);

  afterAll(async () => {
    stop.abort();
    await agentDone?.catch(() => 1);
    await api?.stop();
    rt.close();
    images.close();
    tearDownContainerd(setup);
  }, 120_000);

  it("records FreeDiskSpaceFailed on the Node when the images in use keep the image fs above the high threshold", async () => {
    // A pod of the runtime's own, with host networking (no CNI needed): busybox:1.36 in use.
    const logDirectory = join(setup.dir, "holder-logs");
    mkdirSync(logDirectory, { recursive: true });
    const sandboxConfig = {
      metadata: { name: "holder", namespace: "default", uid: `holder-${nodeName}`, attempt: 0 },
      logDirectory,
      linux: { securityContext: { namespaceOptions: { network: "NODE" as const, pid: "CONTAINER" as const, ipc: "POD" as const } } },
    };
    const { podSandboxId } = await rt.runPodSandbox({ config: sandboxConfig, runtimeHandler: "" });
    const { containerId } = await rt.createContainer({
      podSandboxId,
      config: { metadata: { name: "main", attempt: 0 }, image: { image: "busybox:1.36" }, command: ["sleep", "3600"], logPath: "main.log", linux: {} },
      sandboxConfig,
    });
    await rt.startContainer({ containerId });
    const before = (await images.listImages({})).images.map((i) => i.id).sort();
    expect(before.length).toBeGreaterThan(0);

    // Over the high threshold now; the low threshold 1 %: everything would have to go.
    const s = statfsSync(join(setup.dir, "root"));
    const usedPercent = Math.floor(((s.blocks - s.bavail) * 100) / s.blocks);
    const high = Math.max(2, usedPercent - 1);
    expect(usedPercent).toBeGreaterThanOrEqual(high);

    const kubeconfig = await writeAdminKubeconfig(api);
    agentDone = (
      await startAPIModeAgent({
        kubeconfig,
        nodeName,
        rootDir: join(setup.dir, "agent"),
        certDir: join(setup.dir, "agent-pki"),
        endpoint,
        args: ["--runtime-request-timeout=1m", `--image-gc-high-threshold=${high}`, "--image-gc-low-threshold=1", "--minimum-image-ttl-duration=0s", "-v=1"],
        stdout: agentOut,
        stderr: agentErr,
        stopSignal: stop.signal,
      })
    ).done;

    const event = await waitFor(
      "the FreeDiskSpaceFailed event on the Node",
      async () => {
        const r = await apiCall(api, "GET", "/api/v1/events");
        if (r.status !== 200) return undefined;
        return (r.json() as { items: EventItem[] }).items.find((e) => e.reason === "FreeDiskSpaceFailed" && e.involvedObject?.kind === "Node" && e.involvedObject.name === nodeName);
      },
      90_000,
    ).catch((err: unknown) => {
      throw new Error(`${err instanceof Error ? err.message : String(err)}\nagent log:\n${agentErr.text().slice(-4000)}${agentOut.text().slice(-4000)}`, { cause: err });
    });
    expect(event.type).toBe("Warning");
    expect(event.message).toMatch(/^failed to garbage collect required amount of images\. Wanted to free \d+ bytes, but freed 0 bytes$/);
    expect(event.source?.host).toBe(nodeName);
    // Nothing was removed: every image is in use.
    expect((await images.listImages({})).images.map((i) => i.id).sort()).toEqual(before);
  }, 300_000);
});
