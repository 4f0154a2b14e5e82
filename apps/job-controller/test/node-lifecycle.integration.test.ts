// The node lifecycle controller against the real apiserver: a node whose heartbeat stops gets
// Ready=Unknown and the unreachable taints, its pods are marked not ready and evicted by their
// toleration times (the apiserver's DefaultTolerationSeconds admission gives the pods without one
// the configured default), and a new heartbeat removes the taints. The NoSchedule taints follow
// the node's conditions and spec.unschedulable (TaintNodesByCondition).
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import type { Lease, Node, Pod, Toleration } from "@skiff/api-types";
import { isConflict } from "@skiff/apimachinery";
import { createSharedInformerFactory } from "@skiff/client";
import type { Client } from "@skiff/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeLifecycleController, NodeStatusUnknownMessage, NodeStatusUnknownReason } from "../src/controllers/nodelifecycle/node-lifecycle-controller.js";
import { newClient, repoRoot, startServer, waitFor } from "./harness.js";
import type { RunningServer } from "./harness.js";

let server: RunningServer;
let client: Client;

beforeAll(async () => {
  server = await startServer(["--default-unreachable-toleration-seconds=3"]);
  client = await newClient(server);
});
afterAll(async () => {
  client.close();
  await server.stop();
});

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Posts the Ready condition as a node agent does: a patch of `nodes/status`, which the controller's taint updates do not conflict with. */
async function heartbeat(name: string, ready: "True" | "False"): Promise<void> {
  const t = now();
  await client.nodes.patch(name, { status: { conditions: [{ type: "Ready", status: ready, reason: "NodeAgentReady", lastHeartbeatTime: t, lastTransitionTime: t }] } }, { subresource: "status" });
}

async function createPod(name: string, nodeName: string, tolerations: Toleration[]): Promise<Pod> {
  const pod = await client.pods.create(
    { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName, tolerations, containers: [{ name: "c", image: "busybox" }] } },
    { namespace: "default" },
  );
  const t = now();
  return client.pods.updateStatus({ ...pod, status: { phase: "Running", conditions: [{ type: "Ready", status: "True", lastTransitionTime: t }] } }, { namespace: "default" });
}

async function gone(name: string): Promise<boolean> {
  try {
    const p = await client.pods.get(name, { namespace: "default" });
    return p.metadata?.deletionTimestamp !== undefined;
  } catch {
    return true;
  }
}

describe("node lifecycle controller", () => {
  it("marks a silent node Unknown, taints it, evicts by toleration time and untaints on recovery", async () => {
    const node: Node = { apiVersion: "v1", kind: "Node", metadata: { name: "silent" }, spec: {} };
    await client.nodes.create(node);
    await heartbeat("silent", "True");
    await client.nodes.create({ apiVersion: "v1", kind: "Node", metadata: { name: "healthy" }, spec: {} });
    const admitted = await createPod("no-toleration", "silent", []);
    // DefaultTolerationSeconds (apiserver admission) added the two NoExecute tolerations.
    expect(admitted.spec?.tolerations).toEqual([
      { key: "node.example.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      { key: "node.example.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 3 },
    ]);
    await createPod("short", "silent", [{ key: "node.example.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 0 }]);
    await createPod("forever", "silent", [{ key: "node.example.io/unreachable", operator: "Exists", effect: "NoExecute" }]);
    await createPod("elsewhere", "healthy", []);

    const factory = createSharedInformerFactory({ onError: () => {} });
    const logs: string[] = [];
    const nlc = new NodeLifecycleController({
      client,
      nodeInformer: factory.informerFor(client.nodes),
      podInformer: factory.informerFor(client.pods),
      nodeMonitorPeriodMs: 100,
      nodeMonitorGracePeriodMs: 1500,
      nodeStartupGracePeriodMs: 600_000,
      defaultUnreachableTolerationSeconds: 3,
      log: (m) => logs.push(m),
    });
    factory.start();
    await nlc.run();
    // The healthy node keeps posting; the silent one does not.
    // A recovered node keeps posting too (set below): one heartbeat alone would go stale again
    // after the 1.5 s grace period, racing the controller on a loaded machine.
    let silentPosts: "True" | "False" | undefined;
    const keepAlive = setInterval(() => {
      void heartbeat("healthy", "True").catch(() => {});
      if (silentPosts !== undefined) void heartbeat("silent", silentPosts).catch(() => {});
    }, 300);
    try {
      await heartbeat("healthy", "True");
      const unknown = await waitFor("Ready=Unknown", async () => {
        const n = await client.nodes.get("silent");
        return n.status?.conditions?.find((c) => c.type === "Ready" && c.status === "Unknown") ? n : undefined;
      });
      const ready = unknown.status?.conditions?.find((c) => c.type === "Ready");
      expect(ready?.reason).toBe(NodeStatusUnknownReason);
      expect(ready?.message).toBe(NodeStatusUnknownMessage);
      expect(unknown.status?.conditions?.map((c) => `${c.type}=${c.status}`).sort()).toEqual(["DiskPressure=Unknown", "MemoryPressure=Unknown", "PIDPressure=Unknown", "Ready=Unknown"]);

      const tainted = await waitFor("taints", async () => {
        const n = await client.nodes.get("silent");
        return (n.spec?.taints ?? []).length === 2 ? n : undefined;
      });
      expect(tainted.spec?.taints?.map((x) => `${x.key}:${x.effect}`).sort()).toEqual(["node.example.io/unreachable:NoExecute", "node.example.io/unreachable:NoSchedule"]);

      // tolerationSeconds 0: evicted at once; no toleration: after the 3 s default; forever: stays.
      await waitFor("short evicted", async () => ((await gone("short")) ? true : undefined));
      await waitFor("no-toleration evicted", async () => ((await gone("no-toleration")) ? true : undefined), 30_000);
      expect(await gone("forever")).toBe(false);
      expect(await gone("elsewhere")).toBe(false);
      const forever = await client.pods.get("forever", { namespace: "default" });
      expect(forever.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("False");
      const healthy = await client.nodes.get("healthy");
      expect(healthy.spec?.taints ?? []).toEqual([]);
      expect(healthy.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");

      const events = await client.events.list({ namespace: "default" });
      const reasons = events.items.filter((e) => e.source?.component === "node-controller").map((e) => `${e.reason ?? ""}/${e.involvedObject.name ?? ""}`);
      expect(reasons).toContain("NodeNotReady/silent");
      expect(reasons).toContain("TaintManagerEviction/short");

      // Recovery: Ready=True again removes the taints.
      silentPosts = "True";
      await waitFor("untainted", async () => ((await client.nodes.get("silent")).spec?.taints ?? []).length === 0 || undefined);
      // Ready=False (the agent reports it) swaps in the not-ready taints.
      silentPosts = "False";
      const notReady = await waitFor("not-ready taints", async () => {
        const n = await client.nodes.get("silent");
        return n.spec?.taints?.some((x) => x.key === "node.example.io/not-ready") ? n : undefined;
      });
      expect(notReady.spec?.taints?.map((x) => `${x.key}:${x.effect}`).sort()).toEqual(["node.example.io/not-ready:NoExecute", "node.example.io/not-ready:NoSchedule"]);
    } finally {
      clearInterval(keepAlive);
      await nlc.stop();
      factory.stop();
    }
  });
});

describe("node lifecycle controller: taints by condition (TaintNodesByCondition)", () => {
  it("keeps the pressure, network and unschedulable NoSchedule taints in step with the node", async () => {
    const created = await client.nodes.create({ apiVersion: "v1", kind: "Node", metadata: { name: "pressured" }, spec: { taints: [{ key: "user", value: "x", effect: "NoSchedule" }] } });
    // The apiserver's TaintNodesByCondition admission: a new Node is not-ready:NoSchedule until the
    // controller sees it Ready (below, with the memory-pressure taint, it is gone).
    expect(created.spec?.taints).toEqual([{ key: "user", value: "x", effect: "NoSchedule" }, { key: "node.example.io/not-ready", effect: "NoSchedule" }]);
    // The controller writes the Node's taints meanwhile: a conflict is read again, as client-go's RetryOnConflict.
    const setConditions = async (conditions: Record<string, "True" | "False">) => {
      for (let attempt = 1; ; attempt++) {
        const n = await client.nodes.get("pressured");
        const t = now();
        try {
          await client.nodes.updateStatus({
            ...n,
            status: { ...n.status, conditions: Object.entries(conditions).map(([type, status]) => ({ type, status, reason: "Test", lastHeartbeatTime: t, lastTransitionTime: t })) },
          });
          return;
        } catch (e) {
          if (!isConflict(e) || attempt >= 5) throw e;
        }
      }
    };
    const taintsOf = async () => ((await client.nodes.get("pressured")).spec?.taints ?? []).map((x) => `${x.key}:${x.effect}`).sort();
    const until = (label: string, want: string[]) =>
      waitFor(label, async () => {
        const got = await taintsOf();
        return JSON.stringify(got) === JSON.stringify([...want].sort()) ? got : undefined;
      });
    await setConditions({ Ready: "True", MemoryPressure: "True", DiskPressure: "False", PIDPressure: "False" });

    const factory = createSharedInformerFactory({ onError: () => {} });
    const nlc = new NodeLifecycleController({
      client,
      nodeInformer: factory.informerFor(client.nodes),
      podInformer: factory.informerFor(client.pods),
      nodeMonitorPeriodMs: 200,
      nodeMonitorGracePeriodMs: 600_000,
      nodeStartupGracePeriodMs: 600_000,
    });
    factory.start();
    await nlc.run();
    try {
      await until("memory-pressure taint", ["node.example.io/memory-pressure:NoSchedule", "user:NoSchedule"]);
      const added = (await client.nodes.get("pressured")).spec?.taints?.find((x) => x.key === "node.example.io/memory-pressure");
      expect(added?.timeAdded).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

      await setConditions({ Ready: "True", MemoryPressure: "False", DiskPressure: "True", PIDPressure: "True", NetworkUnavailable: "True" });
      await until("disk, pid and network taints instead", [
        "node.example.io/disk-pressure:NoSchedule",
        "node.example.io/network-unavailable:NoSchedule",
        "node.example.io/pid-pressure:NoSchedule",
        "user:NoSchedule",
      ]);

      const n = await client.nodes.get("pressured");
      await client.nodes.update({ ...n, spec: { ...n.spec, unschedulable: true } });
      await setConditions({ Ready: "True", MemoryPressure: "False", DiskPressure: "False", PIDPressure: "False", NetworkUnavailable: "False" });
      await until("only the unschedulable taint of ours", ["node.example.io/unschedulable:NoSchedule", "user:NoSchedule"]);

      const cordoned = await client.nodes.get("pressured");
      await client.nodes.update({ ...cordoned, spec: { ...cordoned.spec, unschedulable: false } });
      await until("uncordoned", ["user:NoSchedule"]);
    } finally {
      await nlc.stop();
      factory.stop();
    }
  });
});

describe("node lifecycle controller with node leases", () => {
  it("a renewed lease is a heartbeat: the node stays Ready while only its lease moves, and goes Unknown once it stops", async () => {
    await client.nodes.create({ apiVersion: "v1", kind: "Node", metadata: { name: "leased" }, spec: {} });
    await heartbeat("leased", "True");
    const leases = client.resource<Lease>("leases.coordination.k8s.io");
    const micro = () => new Date().toISOString().replace(/Z$/, "000Z");
    let lease = await leases.create(
      { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "leased" }, spec: { holderIdentity: "leased", leaseDurationSeconds: 40, renewTime: micro() } },
      { namespace: "kube-node-lease" },
    );
    expect(lease.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const renew = async () => {
      lease = await leases.update({ ...lease, spec: { ...lease.spec, renewTime: micro() } }, { namespace: "kube-node-lease" });
    };

    const factory = createSharedInformerFactory({ onError: () => {} });
    const nlc = new NodeLifecycleController({
      client,
      nodeInformer: factory.informerFor(client.nodes),
      podInformer: factory.informerFor(client.pods),
      leaseInformer: factory.informerFor(leases, { namespace: "kube-node-lease" }),
      nodeMonitorPeriodMs: 100,
      nodeMonitorGracePeriodMs: 1500,
      nodeStartupGracePeriodMs: 600_000,
    });
    factory.start();
    await nlc.run();
    let renewing = true;
    const keepAlive = setInterval(() => void (renewing ? renew().catch(() => {}) : undefined), 300);
    try {
      // Twice the grace period with only the lease moving: still Ready.
      await new Promise((r) => setTimeout(r, 3000));
      const stillReady = await client.nodes.get("leased");
      expect(stillReady.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
      expect(stillReady.spec?.taints ?? []).toEqual([]);
      // The lease stops: the node goes Unknown.
      renewing = false;
      const unknown = await waitFor("Ready=Unknown", async () => {
        const n = await client.nodes.get("leased");
        return n.status?.conditions?.find((c) => c.type === "Ready" && c.status === "Unknown") ? n : undefined;
      });
      expect(unknown.status?.conditions?.find((c) => c.type === "Ready")?.reason).toBe(NodeStatusUnknownReason);
    } finally {
      clearInterval(keepAlive);
      await nlc.stop();
      factory.stop();
    }
  });
});

describe("skiff-job-controller with the node lifecycle flags", () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ["--conditions=@skiff/source", "--import", "tsx", join(repoRoot, "apps/job-controller/src/main.ts"), ...args], { encoding: "utf8", timeout: 60_000 });

  it("lists them in --help after the controller's own flags", () => {
    const r = run("--help");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/--concurrent-job-syncs[\s\S]*Node lifecycle controller flags:[\s\S]*--node-monitor-grace-period duration .*\(default 40s\)/);
  });

  it("rejects a bad value with exit code 2 before connecting", () => {
    const r = run("--clusterconfig=/nonexistent", "--node-monitor-grace-period=0s");
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("Error: --node-monitor-grace-period must be positive\n");
  });
});

describe("skiff-job-controller as the controller manager", () => {
  const main = join(repoRoot, "apps/job-controller/src/main.ts");
  const run = (...args: string[]) => spawnSync(process.execPath, ["--conditions=@skiff/source", "--import", "tsx", main, ...args], { encoding: "utf8", timeout: 60_000 });

  it("refuses an unknown --controllers name with exit code 2 before connecting", () => {
    const r = run("--clusterconfig=/nonexistent", "--controllers=*,-node-lifecycle");
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('Error: "node-lifecycle" is not in the list of known controllers\n');
  });

  it("--help names the controllers --controllers enables", () => {
    const r = run("--help", "--controllers=*,-nodelifecycle");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Enabled controllers: job, ttl-after-finished (of job, ttl-after-finished, nodelifecycle).");
  });

  it("starts only the enabled controllers, says which, and stops on SIGTERM", async () => {
    const proc = spawn(process.execPath, ["--conditions=@skiff/source", "--import", "tsx", main, `--clusterconfig=${server.kubeconfig}`, "--controllers=nodelifecycle"], { cwd: repoRoot, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
    try {
      await waitFor("started line", () => (/skiff-job-controller started \(controllers: nodelifecycle\)/.test(err) ? true : undefined), 30_000);
      expect(err).toContain("node lifecycle controller started");
      expect(err).not.toContain("job controller started");
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});
