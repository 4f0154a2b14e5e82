// The resolver file's limits are checked once, when the sync loop starts, and a breach is a Warning
// event on the Node (1.23's syncLoop and dns.go CheckLimitsForResolvConf).
//
// A runtime whose network is not ready (Status says NetworkReady=false, as containerd without a CNI
// config): 1.23's syncPod starts only pods on the host network and records NetworkNotReady on the
// others. The CRI runtime is an in-memory fake here (no real runtime can be told to report its
// network not ready); it records the calls and refuses RunPodSandbox, which is as far as a sync
// needs to get to show the pod was let through.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import type { ImageClient, RuntimeClient } from "@skiff/cri-api";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createPodRuntime } from "./pod-runtime.js";
import type { PodRuntime } from "./types.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function fakeRuntime(sandboxesAsked: string[], networkReady = false): RuntimeClient {
  return {
    status: async () => ({
      status: {
        conditions: [
          { type: "RuntimeReady", status: true, reason: "", message: "" },
          networkReady
            ? { type: "NetworkReady", status: true, reason: "", message: "" }
            : { type: "NetworkReady", status: false, reason: "NetworkPluginNotReady", message: "Network plugin returns error: cni plugin not initialized" },
        ],
      },
      info: {},
    }),
    version: async () => ({ version: "0.1.0", runtimeName: "fake", runtimeVersion: "1", runtimeApiVersion: "v1" }),
    listPodSandbox: async () => ({ items: [] }),
    listContainers: async () => ({ containers: [] }),
    runPodSandbox: async (req: { config?: { metadata?: { name?: string } } }) => {
      sandboxesAsked.push(req.config?.metadata?.name ?? "");
      throw new Error("fake runtime: no sandboxes here");
    },
    close: () => undefined,
  } as unknown as RuntimeClient;
}

function pod(name: string, hostNetwork: boolean): Pod {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", uid: `uid-${name}` }, spec: { nodeName: "n1", hostNetwork, containers: [{ name: "main", image: "busybox:1.36" }] } };
}

// A started pod runtime on the fake runtime (its network ready or not), recording the sandboxes
// asked for and the pod events as `<pod> <type> <reason>: <message>`; cleaned up after the test.
async function startOnFakeRuntime(prefix: string, networkReady: boolean): Promise<{ runtime: PodRuntime; sandboxesAsked: string[]; events: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const sandboxesAsked: string[] = [];
  const events: string[] = [];
  const runtime: PodRuntime = createPodRuntime({
    nodeName: "n1",
    rootDir: join(dir, "root"),
    podLogsDir: join(dir, "logs"),
    containerRuntimeEndpoint: "unix:///unused.sock",
    criDialer: () => ({ runtime: fakeRuntime(sandboxesAsked, networkReady), images: { close: () => undefined } as unknown as ImageClient }),
    onEvent: (p, type, reason, message) => events.push(`${p.metadata?.name ?? ""} ${type} ${reason}: ${message}`),
  });
  cleanups.push(() => runtime.stop());
  await runtime.start();
  return { runtime, sandboxesAsked, events };
}

describe("pod runtime with the runtime's network not ready", () => {
  it("starts only host-network pods, records NetworkNotReady on the others, and reports the runtime ready with the network error", async () => {
    const { runtime, sandboxesAsked, events } = await startOnFakeRuntime("podrt-net-", false);
    expect(runtime.runtimeState()).toMatchObject({
      ready: true,
      networkError: "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized",
    });
    runtime.setApiPods([pod("host", true), pod("web", false)]);
    const deadline = Date.now() + 10_000;
    while (!(sandboxesAsked.includes("host") && events.some((e) => e.startsWith("web ")))) {
      if (Date.now() > deadline) throw new Error(`timed out: sandboxes ${JSON.stringify(sandboxesAsked)}, events ${JSON.stringify(events)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(sandboxesAsked).not.toContain("web");
    expect(events).toContain("web Warning NetworkNotReady: network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized");
    expect(events.filter((e) => e.startsWith("host ") && e.includes("NetworkNotReady"))).toEqual([]);
  });
});

describe("pod runtime and RuntimeClasses", () => {
  it("never creates a sandbox for a pod naming a RuntimeClass (none exists), with 1.23's FailedCreatePodSandBox event", async () => {
    const { runtime, sandboxesAsked, events } = await startOnFakeRuntime("podrt-rc-", true);
    const gvisor = pod("sandboxed", false);
    gvisor.spec = { ...gvisor.spec, containers: gvisor.spec?.containers ?? [], runtimeClassName: "gvisor" };
    runtime.setApiPods([gvisor, pod("plain", false)]);
    const deadline = Date.now() + 10_000;
    while (!(sandboxesAsked.includes("plain") && events.some((e) => e.startsWith("sandboxed ")))) {
      if (Date.now() > deadline) throw new Error(`timed out: sandboxes ${JSON.stringify(sandboxesAsked)}, events ${JSON.stringify(events)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(sandboxesAsked).not.toContain("sandboxed");
    expect(events).toContain('sandboxed Warning FailedCreatePodSandBox: Failed to create pod sandbox: runtimeclass.node.k8s.io "gvisor" not found');
  });
});

// A pod runtime on the fake runtime with its network ready, cluster domain `cluster.local`.
function networkReadyRuntime(dir: string, resolvConf: string, log?: (m: string) => void): PodRuntime {
  return createPodRuntime({
    nodeName: "n1",
    rootDir: join(dir, "root"),
    podLogsDir: join(dir, "logs"),
    containerRuntimeEndpoint: "unix:///unused.sock",
    clusterDomain: "cluster.local",
    resolvConf,
    criDialer: () => ({ runtime: fakeRuntime([], true), images: { close: () => undefined } as unknown as ImageClient }),
    ...(log ? { log } : {}),
  });
}

describe("pod runtime's resolver file check", () => {
  it("checks --resolv-conf once at start (not periodically) and records the breach as a Warning event on the Node", async () => {
    const dir = mkdtempSync(join(tmpdir(), "podrt-resolv-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const resolvConf = join(dir, "resolv.conf");
    // Four search domains: with a cluster domain only 6 - 3 = 3 are left for the host's.
    writeFileSync(resolvConf, "nameserver 10.0.0.1\nsearch a.example b.example c.example d.example\n");
    const nodeEvents: string[] = [];
    const logged: string[] = [];
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    cleanups.push(() => void vi.useRealTimers());
    const runtime = networkReadyRuntime(dir, resolvConf, (m) => logged.push(m));
    cleanups.push(() => runtime.stop());
    // Before the recorder is set (standalone mode) the event is only logged; here it is set first,
    // as API-server mode does when it builds the node reference.
    runtime.setNodeEventRecorder((type, reason, message) => nodeEvents.push(`${type} ${reason}: ${message}`));
    await runtime.start();
    const want = `Warning CheckLimitsForResolvConf: Resolv.conf file '${resolvConf}' contains search line consisting of more than 3 domains!`;
    expect(nodeEvents).toEqual([want]);
    // Two and a half minutes of the agent's loops: still the one event (it used to repeat every 30 s).
    await vi.advanceTimersByTimeAsync(150_000);
    expect(nodeEvents).toEqual([want]);
    expect(logged.filter((m) => m.includes("CheckLimitsForResolvConf"))).toEqual([`event ${want.replace(" CheckLimitsForResolvConf:", " CheckLimitsForResolvConf on node n1:")}`]);
  });

  it("records nothing when the file is within the limits, or when --resolv-conf is empty", async () => {
    const dir = mkdtempSync(join(tmpdir(), "podrt-resolv-ok-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const resolvConf = join(dir, "resolv.conf");
    writeFileSync(resolvConf, "nameserver 10.0.0.1\nsearch a.example b.example c.example\n");
    for (const file of [resolvConf, ""]) {
      const nodeEvents: string[] = [];
      const runtime = networkReadyRuntime(dir, file);
      runtime.setNodeEventRecorder((type, reason, message) => nodeEvents.push(`${type} ${reason}: ${message}`));
      await runtime.start();
      await runtime.stop();
      expect(nodeEvents).toEqual([]);
    }
  });
});
