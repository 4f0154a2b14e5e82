import type { Binding, Event, Namespace, Node, Pod } from "@skiff/api-types";
import type { RequestContext } from "@skiff/apiserver-core";
import { describe, expect, it } from "vitest";
import { canonicalMicroTime, createEventStrategy, eventTable } from "./event/strategy.js";
import { createNamespaceStrategy, namespaceTable } from "./namespace/strategy.js";
import { createNodeStrategy, nodeRoles, nodeTable } from "./node/strategy.js";
import { bindPod } from "./pod/binding.js";
import { createPodStrategy, podTable } from "./pod/strategy.js";

const ctx: RequestContext = { namespace: "default", user: { username: "u", groups: [] }, now: new Date(), dryRun: false, warnings: [] };
const now = new Date("2024-01-01T01:00:00Z");
const created = "2024-01-01T00:00:00Z";

type P = Pod & Record<string, unknown>;
const pod = (): P => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default", creationTimestamp: created, resourceVersion: "1" },
  spec: { containers: [{ name: "c", image: "busybox" }, { name: "d", image: "busybox" }] },
});

describe("Pod", () => {
  const s = createPodStrategy();
  it("create sets Pending and validates", () => {
    const p = pod();
    p.status = { phase: "Running" };
    s.applyDefaults(p);
    s.prepareForCreate(ctx, p);
    expect(p.status).toEqual({ phase: "Pending" });
    expect(s.validate(ctx, p)).toEqual([]);
    expect(s.returnDeletedObject).toBe(true);
    expect(s.fieldSelectorKeys).toContain("spec.nodeName");
    expect(s.fieldSelectorKeys).toContain("status.phase");
  });
  it("update keeps status; status update keeps spec", () => {
    const old = pod();
    s.applyDefaults(old);
    old.status = { phase: "Pending" };
    const u = structuredClone(old);
    u.status = { phase: "Failed" };
    s.prepareForUpdate(ctx, u, old);
    expect(u.status).toEqual({ phase: "Pending" });
    const st = structuredClone(old);
    st.spec!.containers[0]!.image = "x";
    st.status = { phase: "Running" };
    s.status!.prepareForUpdate(ctx, st, old);
    expect(st.spec).toEqual(old.spec);
    expect(st.status).toEqual({ phase: "Running" });
  });
  it("binding sets nodeName once, then 409", () => {
    const p = pod();
    const b: Binding = { apiVersion: "v1", kind: "Binding", metadata: { name: "p", annotations: { a: "b" } }, target: { kind: "Node", name: "n1" } };
    expect(bindPod(p, b)).toEqual({ ok: true });
    expect(p.spec?.nodeName).toBe("n1");
    expect(p.metadata?.annotations).toEqual({ a: "b" });
    expect(bindPod(p, b)).toMatchObject({ ok: false, reason: "Conflict" });
    expect(bindPod(pod(), { ...b, target: { kind: "Node" } } as Binding)).toMatchObject({ ok: false, reason: "Invalid" });
  });
  it("printer: pending, running with restarts, completed, terminating", () => {
    expect(podTable.cells(pod(), now)).toEqual(["p", "0/2", "", "0", "60m", "<none>", "<none>", "<none>", "<none>"]);
    const p = pod();
    p.spec!.nodeName = "n1";
    p.status = {
      phase: "Running",
      podIP: "10.0.0.1",
      containerStatuses: [
        { name: "c", ready: true, restartCount: 2, image: "busybox", imageID: "", state: { running: { startedAt: created } }, lastState: { terminated: { exitCode: 1, finishedAt: "2024-01-01T00:55:00Z" } } },
        { name: "d", ready: false, restartCount: 0, image: "busybox", imageID: "", state: { waiting: { reason: "CrashLoopBackOff" } } },
      ],
    } as NonNullable<Pod["status"]>;
    expect(podTable.cells(p, now)).toEqual(["p", "1/2", "CrashLoopBackOff", "2 (5m ago)", "60m", "10.0.0.1", "n1", "<none>", "<none>"]);
    const done = pod();
    done.status = { phase: "Succeeded", containerStatuses: [{ name: "c", ready: false, restartCount: 0, image: "", imageID: "", state: { terminated: { exitCode: 0, reason: "Completed" } } }] } as NonNullable<Pod["status"]>;
    expect(podTable.cells(done, now)[2]).toBe("Completed");
    const term = pod();
    term.metadata!.deletionTimestamp = created;
    expect(podTable.cells(term, now)[2]).toBe("Terminating");
  });
});

describe("Node", () => {
  const s = createNodeStrategy();
  const node = (): Node & Record<string, unknown> => ({ apiVersion: "v1", kind: "Node", metadata: { name: "n1", creationTimestamp: created, resourceVersion: "1" } });
  it("identity and validation", () => {
    expect(s.resource).toMatchObject({ plural: "nodes", namespaced: false });
    const n = node();
    s.applyDefaults(n);
    s.prepareForCreate(ctx, n);
    expect(s.validate(ctx, n)).toEqual([]);
    expect(s.status).toBeDefined();
  });
  it("printer", () => {
    const n = node();
    n.metadata!.labels = { "node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/master": "" };
    n.spec = { unschedulable: true };
    n.status = {
      conditions: [{ type: "Ready", status: "True" }],
      addresses: [{ type: "InternalIP", address: "10.0.0.2" }],
      nodeInfo: { kubeletVersion: "v1.23.0", osImage: "Debian", kernelVersion: "6.1", containerRuntimeVersion: "skiff://0.1" },
    } as NonNullable<Node["status"]>;
    expect(nodeTable.cells(n, now)).toEqual(["n1", "Ready,SchedulingDisabled", "control-plane,master", "60m", "v1.23.0", "10.0.0.2", "<none>", "Debian", "6.1", "skiff://0.1"]);
    expect(nodeTable.cells(node(), now).slice(0, 3)).toEqual(["n1", "Unknown", "<none>"]);
    // 1.23 prints "Not" + type for every status but True: an unreachable node (Unknown) is NotReady.
    for (const status of ["False", "Unknown"]) {
      const down = node();
      down.status = { conditions: [{ type: "Ready", status }] } as NonNullable<Node["status"]>;
      expect(nodeTable.cells(down, now)[1]).toBe("NotReady");
    }
    expect(nodeRoles({ "kubernetes.io/role": "worker" })).toBe("worker");
  });
});

describe("Namespace", () => {
  const s = createNamespaceStrategy();
  it("create: Active and the kubernetes finalizer; update keeps spec and status", () => {
    const ns: Namespace & Record<string, unknown> = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a", creationTimestamp: created } };
    s.applyDefaults(ns);
    s.prepareForCreate(ctx, ns);
    expect(ns.status).toEqual({ phase: "Active" });
    expect(ns.spec?.finalizers).toEqual(["kubernetes"]);
    expect(s.validate(ctx, ns)).toEqual([]);
    expect(namespaceTable.cells(ns, now)).toEqual(["team-a", "Active", "60m"]);
    const u = structuredClone(ns);
    u.spec = { finalizers: [] };
    u.status = { phase: "Terminating" };
    s.prepareForUpdate(ctx, u, ns);
    expect(u.spec).toEqual({ finalizers: ["kubernetes"] });
    expect(u.status).toEqual({ phase: "Active" });
  });
});

describe("Event", () => {
  const s = createEventStrategy();
  it("stores eventTime and series.lastObservedTime as MicroTime: UTC, six fractional digits", () => {
    // JavaScript clients send toISOString() (three digits); Go readers need exactly six.
    const e = { metadata: { name: "e" }, eventTime: "2024-01-02T03:04:05.678Z", series: { count: 2, lastObservedTime: "2024-01-02T03:04:05Z" } } as Event & Record<string, unknown>;
    s.canonicalize?.(e);
    expect(e.eventTime).toBe("2024-01-02T03:04:05.678000Z");
    expect(e.series?.lastObservedTime).toBe("2024-01-02T03:04:05.000000Z");
    const none = { metadata: { name: "e" } } as Event & Record<string, unknown>;
    s.canonicalize?.(none);
    expect(none).toEqual({ metadata: { name: "e" } });
  });
  it("canonicalMicroTime truncates to microseconds, converts offsets to UTC, leaves junk alone", () => {
    expect(canonicalMicroTime("2024-01-02T03:04:05.123456Z")).toBe("2024-01-02T03:04:05.123456Z");
    expect(canonicalMicroTime("2024-01-02T03:04:05.123456789Z")).toBe("2024-01-02T03:04:05.123456Z");
    expect(canonicalMicroTime("2024-01-02T00:30:05.5+01:00")).toBe("2024-01-01T23:30:05.500000Z");
    expect(canonicalMicroTime("2024-01-02T03:04:05.1z")).toBe("2024-01-02T03:04:05.100000Z");
    expect(canonicalMicroTime("yesterday")).toBe("yesterday");
    expect(canonicalMicroTime("2024-13-45T03:04:05+01:00")).toBe("2024-13-45T03:04:05+01:00");
  });
  it("validates an update with the create rules, then the object-meta update rules (rest.BeforeUpdate)", () => {
    const old = {
      metadata: { name: "p.1", namespace: "default", resourceVersion: "1", deletionTimestamp: created },
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
      reason: "Started",
    } as Event & Record<string, unknown>;
    const same = structuredClone(old);
    expect(s.validateUpdate(ctx, same, old)).toEqual([]);
    const finalized = structuredClone(old);
    finalized.metadata = { ...finalized.metadata, finalizers: ["example.io/keep"] };
    expect(s.validateUpdate(ctx, finalized, old).map((e) => e.field)).toEqual(["metadata.finalizers"]);
    const wrongNamespace = structuredClone(old);
    wrongNamespace.involvedObject = { ...wrongNamespace.involvedObject, namespace: "other" };
    expect(s.validateUpdate(ctx, wrongNamespace, old).map((e) => e.field)).toEqual(["involvedObject.namespace"]);
  });
  it("identity and printer", () => {
    expect(s.resource).toMatchObject({ plural: "events", namespaced: true });
    const e = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "p.1", namespace: "default" },
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
      reason: "Started",
      message: "Started container c ",
      type: "Normal",
      count: 3,
      firstTimestamp: "2024-01-01T00:00:00Z",
      lastTimestamp: "2024-01-01T00:50:00Z",
      source: { component: "nodeagent", host: "n1" },
    } as Event & Record<string, unknown>;
    expect(eventTable.cells(e, now)).toEqual(["10m (x3 over 60m)", "Normal", "Started", "pod/p", "Started container c", "", "nodeagent, n1", "60m", 3, "p.1"]);
    expect(s.getAttrs(e).fields["involvedObject.name"]).toBe("p");
  });
  it("selects by 1.23's Event field set (pkg/apis/core/v1/conversion.go)", () => {
    const e = {
      metadata: { name: "j.1", namespace: "default" },
      involvedObject: { kind: "Job", name: "j", namespace: "default", uid: "u1", apiVersion: "batch/v1", resourceVersion: "7", fieldPath: "spec" },
      reason: "Completed",
      type: "Normal",
      source: { component: "job-controller" },
    } as Event & Record<string, unknown>;
    expect([...s.fieldSelectorKeys].sort()).toEqual(
      ["involvedObject.apiVersion", "involvedObject.fieldPath", "involvedObject.kind", "involvedObject.name", "involvedObject.namespace", "involvedObject.resourceVersion", "involvedObject.uid", "reason", "source", "type"],
    );
    expect(s.getAttrs(e).fields).toMatchObject({
      "involvedObject.kind": "Job",
      "involvedObject.namespace": "default",
      "involvedObject.name": "j",
      "involvedObject.uid": "u1",
      "involvedObject.apiVersion": "batch/v1",
      "involvedObject.resourceVersion": "7",
      "involvedObject.fieldPath": "spec",
      reason: "Completed",
      source: "job-controller",
      type: "Normal",
    });
    expect(s.getAttrs({ metadata: { name: "x" } } as Event & Record<string, unknown>).fields["involvedObject.apiVersion"]).toBe("");
  });
});
