// The node agent whose identity may not list or watch Nodes (RBAC): its node informer never
// syncs, and after a bounded wait it runs pods anyway, admitting them against the Node built from
// its flags. The REAL apiserver with --authorization-mode=RBAC, the agent in-process in API-server
// mode on the project's process CRI server.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClusterRole, Pod } from "@skiff/api-types";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { startAPIServer, writeKubeconfig, type RunningAPIServer } from "@skiff/test-support";
import { startAPIModeAgent, textSink } from "./api-mode-agent.js";
import { apiCall } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";

const nodeName = "node-rbac";
const agentToken = "agent-token";

describe("node agent that may not list Nodes", () => {
  let dir: string;
  let api: RunningAPIServer;
  let cri: ProcessRuntime;
  const stop = new AbortController();
  let agentDone: Promise<number> | undefined;
  const agentOut = textSink();
  const agentErr = textSink();
  const getPod = async (name: string): Promise<Pod | undefined> => {
    const r = await apiCall(api, "GET", `/api/v1/namespaces/default/pods/${name}`);
    return r.status === 200 ? (r.json() as Pod) : undefined;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-nrbac-"));
    api = await startAPIServer({ dir: join(dir, "apiserver"), args: ["--authorization-mode=RBAC"], tokens: [`${agentToken},agent,3`] });
    // The agent's role: 1.23's system:node without list and watch on nodes.
    const nodeRole = (await apiCall(api, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:node")).json() as ClusterRole;
    const rules = (nodeRole.rules ?? []).map((r) => ((r.resources ?? []).includes("nodes") ? { ...r, verbs: r.verbs.filter((v) => v !== "list" && v !== "watch") } : r));
    expect(rules.some((r) => (r.resources ?? []).includes("nodes") && r.verbs.includes("get"))).toBe(true);
    expect((await apiCall(api, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", { metadata: { name: "agent-no-node-list" }, rules })).status).toBe(201);
    const binding = { metadata: { name: "agent" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "agent-no-node-list" }, subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "agent" }] };
    expect((await apiCall(api, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding)).status).toBe(201);
    const kubeconfig = join(dir, "agent.kubeconfig");
    await writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${String(api.port)}`, token: agentToken, caPEM: api.ca });
    cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state") });
    agentDone = (
      await startAPIModeAgent({
        kubeconfig,
        nodeName,
        rootDir: join(dir, "agent"),
        certDir: join(dir, "agent-pki"),
        endpoint: cri.endpoint,
        args: ["--node-labels=team=a"],
        stdout: agentOut,
        stderr: agentErr,
        stopSignal: stop.signal,
      })
    ).done;
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await agentDone?.catch(() => 1);
    await cri?.stop();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("says so, then runs pods admitted against the flags' Node: --node-labels match, another label does not", async () => {
    const pod = (name: string, team: string) => ({
      metadata: { name, namespace: "default" },
      spec: { nodeName, restartPolicy: "Never", nodeSelector: { team }, containers: [{ name: "main", image: "busybox", command: ["sh", "-c", "exit 0"] }] },
    });
    expect((await apiCall(api, "POST", "/api/v1/namespaces/default/pods", pod("team-a", "a"))).status).toBe(201);
    expect((await apiCall(api, "POST", "/api/v1/namespaces/default/pods", pod("team-b", "b"))).status).toBe(201);
    const phase = (name: string, want: string) => waitFor(`${name} ${want}`, async () => ((await getPod(name))?.status?.phase === want ? true : undefined), 90_000);
    await phase("team-a", "Succeeded");
    await phase("team-b", "Failed");
    expect((await getPod("team-b"))?.status).toMatchObject({ reason: "NodeAffinity", message: "Pod Predicate NodeAffinity failed" });
    const logs = agentOut.text() + agentErr.text();
    expect(logs).toContain(`the node informer has not listed Node ${nodeName} after 10s; admitting pods against the Node built from the flags until it does`);
    expect(logs).toMatch(/node watch \(list failed\): nodes is forbidden: User .{0,2}agent.{0,2} cannot list resource .{0,2}nodes/);
  }, 120_000);
});
