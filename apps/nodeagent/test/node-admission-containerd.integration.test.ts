// Admission's node checks (1.23's generalFilter: NodeAffinity, NodePorts, TaintToleration) on real
// containerd + runc: the REAL apiserver, the node agent in-process in API-server mode, real kubectl
// to label and taint the Node. A refused pod is Failed with the check's name, a Warning event, and
// no sandbox or container on containerd; the agent reads the Node from its informer, so a label or
// taint added after registration counts. With CI=true it must run; elsewhere it is skipped (with the
// reason) when containerd cannot be set up.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Event, Pod } from "@skiff/api-types";
import { createRuntimeClient } from "@skiff/cri-api";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { startAPIModeAgent, textSink } from "./api-mode-agent.js";
import { apiCall, startAPIServer, writeAdminKubeconfig, type APIServerProcess } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";

const run = promisify(execFile);
const nodeName = "node-adm";
const setup = setUpContainerd({ prefix: "skiff-adm-", suite: "containerd node admission suite" });

describe.skipIf(setup.endpoint === undefined)("node admission on containerd", () => {
  let api: APIServerProcess;
  let kubeconfig: string;
  const stop = new AbortController();
  let agentDone: Promise<number> | undefined;
  const agentErr = textSink();

  const kubectl = async (...args: string[]) => run("kubectl", ["--kubeconfig", kubeconfig, ...args], { timeout: 60_000 });
  const getPod = async (name: string): Promise<Pod | undefined> => {
    const r = await apiCall(api, "GET", `/api/v1/namespaces/default/pods/${name}`);
    return r.status === 200 ? (r.json() as Pod) : undefined;
  };
  const events = async (name: string): Promise<Event[]> => ((await apiCall(api, "GET", `/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=${name}`)).json() as { items: Event[] }).items;
  const podOf = (name: string, spec: Record<string, unknown>, command = "true") => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      nodeName,
      restartPolicy: "Never",
      terminationGracePeriodSeconds: 1,
      containers: [{ name: "main", image: "busybox:1.36", imagePullPolicy: "IfNotPresent", command: ["sh", "-c", command] }],
      ...spec,
    },
  });
  /** Creates the pod and resolves with it once its phase is one of `phases`. */
  const create = async (name: string, spec: Record<string, unknown>, phases: readonly string[] = ["Succeeded", "Failed"], command?: string): Promise<Pod> => {
    const r = await apiCall(api, "POST", "/api/v1/namespaces/default/pods", podOf(name, spec, command));
    expect(r.status, r.body).toBe(201);
    return waitFor(`${name} ${phases.join("/")}`, async () => {
      const p = await getPod(name);
      return p?.status?.phase !== undefined && phases.includes(p.status.phase) ? p : undefined;
    }, 120_000);
  };
  /** Asserts `pod` was refused by `check`: Failed with 1.23's reason and message, a Warning event, nothing on containerd. */
  const expectRefused = async (pod: Pod, check: string) => {
    const name = pod.metadata?.name ?? "";
    expect(pod.status).toMatchObject({ phase: "Failed", reason: check, message: `Pod Predicate ${check} failed` });
    expect(pod.status?.containerStatuses ?? []).toEqual([]);
    const ev = await waitFor(`${name} ${check} event`, async () => (await events(name)).find((e) => e.reason === check));
    expect(ev).toMatchObject({ type: "Warning", message: `Predicate ${check} failed`, source: { component: "nodeagent", host: nodeName } });
    const rt = createRuntimeClient({ endpoint: setup.endpoint ?? "", timeoutMs: 30_000 });
    try {
      const labelSelector = { "io.example.pod.uid": pod.metadata?.uid ?? "" };
      expect((await rt.listPodSandbox({ filter: { labelSelector } })).items).toEqual([]);
      expect((await rt.listContainers({ filter: { labelSelector } })).containers).toEqual([]);
    } finally {
      rt.close();
    }
  };
  /**
   * Creates pods named `<prefix>-<n>` until one ends in `phase` (the agent's node informer sees a
   * label or taint just written a moment later than kubectl returns); at most 10.
   */
  const eventually = async (prefix: string, spec: Record<string, unknown>, phase: "Succeeded" | "Failed"): Promise<Pod> => {
    for (let n = 0; n < 10; n++) {
      const p = await create(`${prefix}-${n}`, spec);
      if (p.status?.phase === phase) return p;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`no ${prefix} pod ended ${phase}`);
  };

  beforeAll(async () => {
    api = await startAPIServer(setup.dir);
    kubeconfig = await writeAdminKubeconfig(api);
    agentDone = (
      await startAPIModeAgent({
        kubeconfig,
        nodeName,
        rootDir: join(setup.dir, "agent"),
        certDir: join(setup.dir, "agent-pki"),
        endpoint: setup.endpoint ?? "",
        // --max-pods=3: the critical pod preemption case fills the node.
        args: ["--runtime-request-timeout=1m", "--node-labels=team=a,tier=7", "--register-with-taints=soft=yes:NoSchedule", "--max-pods=3"],
        stderr: agentErr,
        stopSignal: stop.signal,
      })
    ).done;
  }, 180_000);

  afterAll(async () => {
    stop.abort();
    await agentDone?.catch(() => 1);
    await api?.stop();
    tearDownContainerd(setup);
  }, 120_000);

  it("runs a pod whose nodeSelector and required node affinity match --node-labels; a NoSchedule taint is not the node's business", async () => {
    const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "tier", operator: "Gt", values: ["5"] }] }] } } };
    const pod = await create("fits", { nodeSelector: { team: "a", "example.io/hostname": nodeName }, affinity }, ["Succeeded", "Failed"], "echo fits");
    expect(pod.status?.phase, JSON.stringify(pod.status)).toBe("Succeeded");
    expect((await kubectl("logs", "fits")).stdout).toBe("fits\n");
  }, 180_000);

  it("refuses a pod whose nodeSelector, or whose required node affinity, the Node does not match: NodeAffinity", async () => {
    await expectRefused(await create("wrong-team", { nodeSelector: { team: "b" } }), "NodeAffinity");
    const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "tier", operator: "Lt", values: ["5"] }] }, { matchFields: [{ key: "metadata.name", operator: "In", values: ["node-other"] }] }] } } };
    await expectRefused(await create("wrong-affinity", { affinity }), "NodeAffinity");
  }, 180_000);

  it("sees a label added to the Node after registration (the node informer), and its removal", async () => {
    await kubectl("label", "node", nodeName, "gpu=true");
    const admitted = await eventually("gpu", { nodeSelector: { gpu: "true" } }, "Succeeded");
    expect(admitted.status?.phase).toBe("Succeeded");
    await kubectl("label", "node", nodeName, "gpu-");
    await expectRefused(await eventually("no-gpu", { nodeSelector: { gpu: "true" } }, "Failed"), "NodeAffinity");
  }, 300_000);

  it("refuses a pod asking for a host port a running pod holds (same protocol): NodePorts; another protocol is free", async () => {
    const port = (protocol: string) => [{ name: "main", image: "busybox:1.36", imagePullPolicy: "IfNotPresent", command: ["sh", "-c", "sleep 3600"], ports: [{ containerPort: 18181, hostPort: 18181, protocol }] }];
    await create("port-holder", { containers: port("TCP") }, ["Running"]);
    await expectRefused(await create("port-taker", { containers: port("TCP") }), "NodePorts");
    await create("port-udp", { containers: port("UDP") }, ["Running"]);
    await kubectl("delete", "pod", "port-holder", "port-udp", "--grace-period=1", "--wait=true", "--timeout=120s");
  }, 300_000);

  it("a critical pod on a full node preempts a pod (BestEffort before Burstable): Failed, Preempting, killed on containerd; it then runs", async () => {
    const sleeper = (requests?: Record<string, string>) => [{ name: "main", image: "busybox:1.36", imagePullPolicy: "IfNotPresent", command: ["sh", "-c", "sleep 3600"], ...(requests ? { resources: { requests } } : {}) }];
    await create("fill-burstable-1", { containers: sleeper({ cpu: "10m" }) }, ["Running"]);
    await create("fill-best-effort", { containers: sleeper() }, ["Running"]);
    await create("fill-burstable-2", { containers: sleeper({ cpu: "10m" }) }, ["Running"]);
    // A fourth ordinary pod finds no slot.
    const extra = await create("no-slot", {});
    expect(extra.status).toMatchObject({ phase: "Failed", reason: "OutOfpods", message: "Pod Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3" });
    // system-node-critical (priority 2000001000) in kube-system is a critical pod.
    const r = await apiCall(api, "POST", "/api/v1/namespaces/kube-system/pods", { ...podOf("critical", { priorityClassName: "system-node-critical", containers: sleeper() }), metadata: { name: "critical", namespace: "kube-system" } });
    expect(r.status, r.body).toBe(201);
    const victim = await waitFor("fill-best-effort Failed", async () => {
      const p = await getPod("fill-best-effort");
      return p?.status?.phase === "Failed" ? p : undefined;
    }, 120_000);
    expect(victim.status).toMatchObject({ reason: "Preempting", message: "Preempted in order to admit critical pod" });
    expect(await waitFor("Preempting event", async () => (await events("fill-best-effort")).find((e) => e.reason === "Preempting"))).toMatchObject({ type: "Warning", message: "Preempted in order to admit critical pod" });
    await waitFor("critical Running", async () => {
      const c = await apiCall(api, "GET", "/api/v1/namespaces/kube-system/pods/critical");
      return c.status === 200 && (c.json() as Pod).status?.phase === "Running" ? true : undefined;
    }, 120_000);
    for (const name of ["fill-burstable-1", "fill-burstable-2"]) expect((await getPod(name))?.status?.phase).toBe("Running");
    const rt = createRuntimeClient({ endpoint: setup.endpoint ?? "", timeoutMs: 30_000 });
    try {
      const { containers } = await rt.listContainers({ filter: { labelSelector: { "io.example.pod.uid": victim.metadata?.uid ?? "" }, state: { state: "CONTAINER_RUNNING" } } });
      expect(containers).toEqual([]);
    } finally {
      rt.close();
    }
    await kubectl("delete", "pod", "fill-burstable-1", "fill-burstable-2", "--grace-period=1", "--wait=true", "--timeout=120s");
    await kubectl("delete", "pod", "-n", "kube-system", "critical", "--grace-period=1", "--wait=true", "--timeout=120s");
  }, 300_000);

  it("refuses a pod that does not tolerate a NoExecute taint of the Node: TaintToleration; a tolerating pod runs", async () => {
    await kubectl("taint", "node", nodeName, "evict=now:NoExecute");
    try {
      await expectRefused(await eventually("untolerating", {}, "Failed"), "TaintToleration");
      const tolerating = await create("tolerating", { tolerations: [{ key: "evict", operator: "Equal", value: "now", effect: "NoExecute" }] });
      expect(tolerating.status?.phase, JSON.stringify(tolerating.status)).toBe("Succeeded");
    } finally {
      await kubectl("taint", "node", nodeName, "evict-");
    }
  }, 300_000);
});
