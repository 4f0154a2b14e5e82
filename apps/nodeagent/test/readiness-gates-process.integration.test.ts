// Pod readiness gates end to end: the REAL apiserver process, the node agent in-process in
// API-server mode on the process runtime. A pod with `spec.readinessGates` runs with its containers
// ready but stays Ready=False (reason ReadinessGatesNotReady, 1.23's messages) until a controller
// sets the gate's condition True through pods/status; the agent then writes Ready=True, and False
// again when the condition turns False, keeping the controller's condition. Real kubectl shows the
// gates in `get pods -o wide`.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod, PodCondition } from "@skiff/api-types";
import { apiCall } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";
import { startProcessNode, type ProcessNode } from "./process-node.js";

const nodeName = "gates-node";
const gate = "example.com/feature-1";

describe("readiness gates (spec.readinessGates) on the process runtime", () => {
  let node: ProcessNode;

  beforeAll(async () => {
    node = await startProcessNode({ prefix: "skiff-gates-", nodeName, args: ["--node-status-update-frequency=1s"] });
  }, 120_000);

  afterAll(() => node?.stop(), 60_000);

  const getPod = async (name: string): Promise<Pod | undefined> => {
    const r = await apiCall(node.api, "GET", `/api/v1/namespaces/default/pods/${name}`);
    return r.status === 200 ? (r.json() as Pod) : undefined;
  };
  const ready = (p: Pod | undefined): PodCondition | undefined => p?.status?.conditions?.find((c) => c.type === "Ready");
  const setGate = async (name: string, status: "True" | "False"): Promise<void> => {
    // As a controller: read, set the gate's condition, PUT pods/status (409: read again).
    for (;;) {
      const p = (await getPod(name))!;
      const others = (p.status?.conditions ?? []).filter((c) => c.type !== gate);
      const body = { ...p, status: { ...p.status, conditions: [...others, { type: gate, status, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z") }] } };
      const r = await apiCall(node.api, "PUT", `/api/v1/namespaces/default/pods/${name}/status`, body);
      if (r.status === 200) return;
      if (r.status !== 409) throw new Error(`PUT pods/status: ${r.status} ${r.body}`);
    }
  };

  it("holds Ready False until the gate's condition is True, and follows it", async () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "gated" },
      spec: { nodeName, readinessGates: [{ conditionType: gate }], containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"] }] },
    };
    const created = await apiCall(node.api, "POST", "/api/v1/namespaces/default/pods", pod);
    expect(created.status).toBe(201);
    expect((created.json() as Pod).spec?.readinessGates).toEqual([{ conditionType: gate }]);
    const running = await waitFor("the pod running with its containers ready", async () => {
      const p = await getPod("gated");
      return p?.status?.conditions?.find((c) => c.type === "ContainersReady")?.status === "True" && ready(p) ? p : undefined;
    }, 60_000);
    expect(ready(running)).toMatchObject({ status: "False", reason: "ReadinessGatesNotReady", message: `corresponding condition of pod readiness gate "${gate}" does not exist.` });

    await setGate("gated", "True");
    const readyPod = await waitFor("Ready=True", async () => {
      const p = await getPod("gated");
      return ready(p)?.status === "True" ? p : undefined;
    }, 30_000);
    expect(readyPod.status?.conditions?.find((c) => c.type === gate)?.status).toBe("True");
    expect(ready(readyPod)?.reason).toBeUndefined();
    const { stdout } = await promisify(execFile)("kubectl", ["--kubeconfig", join(node.dir, "kubeconfig"), "get", "pod", "gated", "-o", "wide"], { timeout: 60_000 });
    const [head = "", row = ""] = stdout.trim().split("\n");
    const column = (name: string): string => row.slice(head.indexOf(name)).split(/\s{2,}/)[0] ?? "";
    expect(column("READINESS GATES")).toBe("1/1");
    expect(column("READY")).toBe("1/1");

    await setGate("gated", "False");
    const unready = await waitFor("Ready=False again", async () => {
      const p = await getPod("gated");
      return ready(p)?.status === "False" ? p : undefined;
    }, 30_000);
    expect(ready(unready)).toMatchObject({ reason: "ReadinessGatesNotReady", message: `the status of pod readiness gate "${gate}" is not "True", but False` });
    expect(unready.status?.conditions?.find((c) => c.type === gate)?.status).toBe("False");
  }, 150_000);

  it("refuses a readiness gate whose conditionType is not a qualified name, naming the field", async () => {
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "bad-gate" }, spec: { readinessGates: [{ conditionType: "not a name!" }], containers: [{ name: "main", image: "busybox" }] } };
    const r = await apiCall(node.api, "POST", "/api/v1/namespaces/default/pods", pod);
    expect(r.status).toBe(422);
    const status = r.json() as { details?: { causes?: { field?: string }[] } };
    expect(status.details?.causes?.map((c) => c.field)).toContain("spec.readinessGates[0].conditionType");
  });
});
