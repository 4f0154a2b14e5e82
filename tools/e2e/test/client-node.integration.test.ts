// The official JavaScript client (@kubernetes/client-node 2.x), loaded from the kubeconfig the test
// support writes, against the REAL skiff-apiserver process: typed APIs (batch/v1 Jobs, core v1
// PodTemplates, Pods, Nodes, Namespaces, Events), the generic KubernetesObjectApi and
// CustomObjectsApi for storage.example.io, Watch, makeInformer, and errors as ApiException.
import "./client-node-helpers.js";
import * as k8s from "@kubernetes/client-node";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAPIServer } from "@skiff/test-support";
import type { RunningAPIServer } from "@skiff/test-support";
import { runKubectl, waitFor } from "../src/index.js";
import { expectApiError, sleep } from "./client-node-helpers.js";

let server: RunningAPIServer;
let kc: k8s.KubeConfig;
let batch: k8s.BatchV1Api;
let core: k8s.CoreV1Api;
let objects: k8s.KubernetesObjectApi;
let custom: k8s.CustomObjectsApi;

const mergePatch = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);
const jsonPatch = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.JsonPatch);
const strategicPatch = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.StrategicMergePatch);
const applyPatch = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.ServerSideApply);

beforeAll(async () => {
  // Bookmarks every 300 ms, and watches without timeoutSeconds end after 2-4 s (--min-request-timeout),
  // so that the informer's reconnects happen within the test.
  process.env["SKIFF_WATCH_BOOKMARK_INTERVAL_MS"] = "300";
  server = await startAPIServer({ args: ["--min-request-timeout=2"], tempPrefix: "skiff-client-node-" });
  kc = new k8s.KubeConfig();
  kc.loadFromFile(server.kubeconfig);
  batch = kc.makeApiClient(k8s.BatchV1Api);
  core = kc.makeApiClient(k8s.CoreV1Api);
  objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  custom = kc.makeApiClient(k8s.CustomObjectsApi);
});

afterAll(async () => {
  delete process.env["SKIFF_WATCH_BOOKMARK_INTERVAL_MS"];
  await server?.stop();
});

function job(name: string, labels: Record<string, string> = {}): k8s.V1Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, labels },
    spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "main", image: "busybox", command: ["true"] }] } } },
  };
}

// makeInformer answers a ListWatch typed as its Informer interface, which omits this method.
function latestResourceVersion(informer: k8s.Informer<k8s.KubernetesObject>): string {
  return (informer as unknown as k8s.ListWatch<k8s.KubernetesObject>).latestResourceVersion();
}

function podTemplate(name: string, labels: Record<string, string> = {}): k8s.V1PodTemplate {
  return { metadata: { name, labels }, template: { spec: { containers: [{ name: "main", image: "busybox" }] } } };
}

describe("client-node BatchV1Api: Jobs", () => {
  it("creates, reads, lists, replaces and deletes a Job, with the server's defaults", async () => {
    const created = await batch.createNamespacedJob({ namespace: "default", body: job("crud", { app: "crud" }) });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(created.spec?.backoffLimit).toBe(6);
    expect(created.spec?.completions).toBe(1);
    expect(created.spec?.parallelism).toBe(1);
    expect(created.spec?.selector?.matchLabels?.["controller-uid"]).toBe(created.metadata?.uid);
    expect(created.spec?.template.metadata?.labels?.["job-name"]).toBe("crud");

    const read = await batch.readNamespacedJob({ namespace: "default", name: "crud" });
    expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    expect(read.kind).toBe("Job");
    expect(read.apiVersion).toBe("batch/v1");

    const list = await batch.listNamespacedJob({ namespace: "default", labelSelector: "app=crud" });
    expect(list.kind).toBe("JobList");
    expect(list.items.map((j) => j.metadata?.name)).toEqual(["crud"]);
    expect(Number(list.metadata?.resourceVersion)).toBeGreaterThanOrEqual(Number(created.metadata?.resourceVersion));

    read.metadata = { ...read.metadata, annotations: { note: "replaced" } };
    const replaced = await batch.replaceNamespacedJob({ namespace: "default", name: "crud", body: read });
    expect(replaced.metadata?.annotations).toEqual({ note: "replaced" });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(read.metadata.resourceVersion));

    // A replace carrying the old resourceVersion is a 409 Conflict.
    const stale = await expectApiError(k8s.ApiException, () => batch.replaceNamespacedJob({ namespace: "default", name: "crud", body: read }));
    expect(stale.code).toBe(409);
    expect(stale.status.reason).toBe("Conflict");

    const deleted = await batch.deleteNamespacedJob({ namespace: "default", name: "crud", propagationPolicy: "Background" });
    expect(deleted.status).toBe("Success");
    const gone = await expectApiError(k8s.ApiException, () => batch.readNamespacedJob({ namespace: "default", name: "crud" }));
    expect(gone.code).toBe(404);
  });

  it("patches a Job with merge, JSON, strategic merge patch and server-side apply", async () => {
    await batch.createNamespacedJob({ namespace: "default", body: job("patched", { app: "patched" }) });
    const merged = await batch.patchNamespacedJob({ namespace: "default", name: "patched", body: { metadata: { labels: { merge: "yes" } } } }, mergePatch);
    expect(merged.metadata?.labels).toEqual({ app: "patched", merge: "yes" });

    const jsoned = await batch.patchNamespacedJob(
      {
        namespace: "default",
        name: "patched",
        body: [
          { op: "test", path: "/metadata/labels/merge", value: "yes" },
          { op: "remove", path: "/metadata/labels/merge" },
          { op: "replace", path: "/spec/backoffLimit", value: 2 },
        ],
      },
      jsonPatch,
    );
    expect(jsoned.metadata?.labels).toEqual({ app: "patched" });
    expect(jsoned.spec?.backoffLimit).toBe(2);

    // The generated patch method sends application/json-patch+json unless told otherwise: an object
    // body is then a 400, as from Kubernetes.
    const notArray = await expectApiError(k8s.ApiException, () => batch.patchNamespacedJob({ namespace: "default", name: "patched", body: { metadata: { labels: { x: "y" } } } }));
    expect(notArray.code).toBe(400);
    expect(notArray.status.reason).toBe("BadRequest");

    // Job spec.template is immutable; a strategic merge patch on labels (null deletes).
    await batch.patchNamespacedJob({ namespace: "default", name: "patched", body: { metadata: { labels: { gone: "soon" } } } }, mergePatch);
    const strategic = await batch.patchNamespacedJob({ namespace: "default", name: "patched", body: { metadata: { labels: { gone: null, smp: "1" } } } }, strategicPatch);
    expect(strategic.metadata?.labels).toEqual({ app: "patched", smp: "1" });

    const applied = await batch.patchNamespacedJob(
      { namespace: "default", name: "patched", fieldManager: "client-node-test", force: true, body: { apiVersion: "batch/v1", kind: "Job", metadata: { name: "patched", labels: { applied: "1" } } } },
      applyPatch,
    );
    expect(applied.metadata?.labels).toEqual({ app: "patched", smp: "1", applied: "1" });
    expect(applied.metadata?.managedFields?.some((m) => m.manager === "client-node-test" && m.operation === "Apply")).toBe(true);

    // Another manager applying the same field without force conflicts (409 with causes).
    const conflict = await expectApiError(k8s.ApiException, () =>
      batch.patchNamespacedJob(
        { namespace: "default", name: "patched", fieldManager: "other", body: { apiVersion: "batch/v1", kind: "Job", metadata: { name: "patched", labels: { applied: "2" } } } },
        applyPatch,
      ),
    );
    expect(conflict.code).toBe(409);
    expect(conflict.status.reason).toBe("Conflict");
    expect(conflict.status.details?.causes?.some((c) => c.field === ".metadata.labels.applied")).toBe(true);

    const dry = await batch.patchNamespacedJob({ namespace: "default", name: "patched", dryRun: "All", body: { metadata: { labels: { dry: "run" } } } }, mergePatch);
    expect(dry.metadata?.labels?.["dry"]).toBe("run");
    expect((await batch.readNamespacedJob({ namespace: "default", name: "patched" })).metadata?.labels?.["dry"]).toBeUndefined();
  });

  it("reads and replaces /status, which ignores spec changes (and the main resource ignores status)", async () => {
    await batch.createNamespacedJob({ namespace: "default", body: job("statused") });
    const st = await batch.readNamespacedJobStatus({ namespace: "default", name: "statused" });
    expect(st.metadata?.name).toBe("statused");
    const startTime = new Date(Math.floor(Date.now() / 1000) * 1000);
    st.status = { active: 1, startTime };
    st.spec = { ...st.spec!, parallelism: 5 };
    const replaced = await batch.replaceNamespacedJobStatus({ namespace: "default", name: "statused", body: st });
    expect(replaced.status?.active).toBe(1);
    expect(replaced.status?.startTime?.toISOString()).toBe(startTime.toISOString());
    expect(replaced.spec?.parallelism).toBe(1);

    const patched = await batch.patchNamespacedJobStatus({ namespace: "default", name: "statused", body: { status: { succeeded: 1 } } }, mergePatch);
    expect(patched.status?.succeeded).toBe(1);
    expect(patched.status?.active).toBe(1);

    const main = await batch.readNamespacedJob({ namespace: "default", name: "statused" });
    main.status = { active: 9 };
    const viaMain = await batch.replaceNamespacedJob({ namespace: "default", name: "statused", body: main });
    expect(viaMain.status?.active).toBe(1);
  });

  it("lists Jobs in all namespaces with labelSelector, fieldSelector and limit/continue", async () => {
    await core.createNamespace({ body: { metadata: { name: "cn-other" } } });
    for (const ns of ["default", "cn-other"]) {
      for (let i = 0; i < 3; i++) await batch.createNamespacedJob({ namespace: ns, body: job(`paged-${String(i)}`, { suite: "paged", parity: i % 2 === 0 ? "even" : "odd" }) });
    }
    const all = await batch.listJobForAllNamespaces({ labelSelector: "suite=paged" });
    expect(all.items.map((j) => `${j.metadata?.namespace ?? ""}/${j.metadata?.name ?? ""}`)).toEqual([
      "cn-other/paged-0",
      "cn-other/paged-1",
      "cn-other/paged-2",
      "default/paged-0",
      "default/paged-1",
      "default/paged-2",
    ]);
    const odd = await batch.listJobForAllNamespaces({ labelSelector: "suite=paged,parity!=even" });
    expect(odd.items.map((j) => j.metadata?.namespace)).toEqual(["cn-other", "default"]);
    const inOther = await batch.listJobForAllNamespaces({ labelSelector: "suite=paged", fieldSelector: "metadata.namespace=cn-other,metadata.name!=paged-1" });
    expect(inOther.items.map((j) => j.metadata?.name)).toEqual(["paged-0", "paged-2"]);
    const unsucceeded = await batch.listJobForAllNamespaces({ labelSelector: "suite=paged", fieldSelector: "status.successful=0" });
    expect(unsucceeded.items).toHaveLength(6);
    const badField = await expectApiError(k8s.ApiException, () => batch.listJobForAllNamespaces({ fieldSelector: "spec.nope=1" }));
    expect(badField.code).toBe(400);

    // Pages of two, read at one revision even though a write happens between pages.
    const names: string[] = [];
    const revisions = new Set<string>();
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await batch.listJobForAllNamespaces({ labelSelector: "suite=paged", limit: 2, ...(token !== undefined ? { _continue: token } : {}) });
      pages++;
      names.push(...page.items.map((j) => `${j.metadata?.namespace ?? ""}/${j.metadata?.name ?? ""}`));
      revisions.add(page.metadata?.resourceVersion ?? "");
      // As in 1.23, remainingItemCount is only counted for lists without selectors.
      expect(page.metadata?.remainingItemCount).toBeUndefined();
      token = page.metadata?._continue;
      if (pages === 1) await batch.createNamespacedJob({ namespace: "default", body: job("paged-late", { suite: "paged" }) });
    } while (token !== undefined && token !== "");
    // With a selector a page is cut after `limit` matches whatever follows (an empty last page may
    // come), as in 1.23's etcd3 store.
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(names).toEqual(all.items.map((j) => `${j.metadata?.namespace ?? ""}/${j.metadata?.name ?? ""}`));
    expect(revisions.size).toBe(1);

    const firstOfOther = await batch.listNamespacedJob({ namespace: "cn-other", limit: 1 });
    expect(firstOfOther.items.map((j) => j.metadata?.name)).toEqual(["paged-0"]);
    expect(firstOfOther.metadata?.remainingItemCount).toBe(2);
    expect(firstOfOther.metadata?._continue).toMatch(/./);

    const badToken = await expectApiError(k8s.ApiException, () => batch.listJobForAllNamespaces({ limit: 2, _continue: "not-a-token" }));
    expect(badToken.code).toBe(400);
  });
});

describe("client-node CoreV1Api", () => {
  it("PodTemplates: create, read, list, replace, patch, delete", async () => {
    const created = await core.createNamespacedPodTemplate({ namespace: "default", body: podTemplate("tpl", { kind: "tpl" }) });
    expect(created.template?.spec?.containers[0]?.terminationMessagePath).toBe("/dev/termination-log");
    const list = await core.listNamespacedPodTemplate({ namespace: "default", labelSelector: "kind=tpl" });
    expect(list.items.map((t) => t.metadata?.name)).toEqual(["tpl"]);
    const read = await core.readNamespacedPodTemplate({ namespace: "default", name: "tpl" });
    read.template = { ...read.template, metadata: { labels: { role: "worker" } } };
    const replaced = await core.replaceNamespacedPodTemplate({ namespace: "default", name: "tpl", body: read });
    expect(replaced.template?.metadata?.labels).toEqual({ role: "worker" });
    const patched = await core.patchNamespacedPodTemplate({ namespace: "default", name: "tpl", body: { metadata: { annotations: { a: "b" } } } }, mergePatch);
    expect(patched.metadata?.annotations).toEqual({ a: "b" });
    const deleted = await core.deleteNamespacedPodTemplate({ namespace: "default", name: "tpl" });
    expect(deleted.metadata?.name).toBe("tpl");
    expect((await expectApiError(k8s.ApiException, () => core.readNamespacedPodTemplate({ namespace: "default", name: "tpl" }))).code).toBe(404);
  });

  it("Pods: create, status read/replace/patch, field selectors, delete", async () => {
    const pod = await core.createNamespacedPod({ namespace: "default", body: { metadata: { name: "pod-a", labels: { app: "pods" } }, spec: { containers: [{ name: "main", image: "busybox" }] } } });
    expect(pod.status?.phase).toBe("Pending");
    expect(pod.spec?.restartPolicy).toBe("Always");
    const st = await core.readNamespacedPodStatus({ namespace: "default", name: "pod-a" });
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    st.status = { phase: "Running", startTime: now, conditions: [{ type: "Ready", status: "True", lastTransitionTime: now }] };
    const running = await core.replaceNamespacedPodStatus({ namespace: "default", name: "pod-a", body: st });
    expect(running.status?.phase).toBe("Running");
    expect(running.status?.conditions?.[0]?.lastTransitionTime?.toISOString()).toBe(now.toISOString());
    const patched = await core.patchNamespacedPodStatus({ namespace: "default", name: "pod-a", body: { status: { message: "hello" } } }, mergePatch);
    expect(patched.status?.message).toBe("hello");
    // Strategic merge patch merges containers by name: the image changes, the rest stays.
    const strategic = await core.patchNamespacedPod({ namespace: "default", name: "pod-a", body: { spec: { containers: [{ name: "main", image: "busybox:1.36" }] } } }, strategicPatch);
    expect(strategic.spec?.containers.map((c) => [c.name, c.image, c.terminationMessagePath])).toEqual([["main", "busybox:1.36", "/dev/termination-log"]]);
    expect((await core.listNamespacedPod({ namespace: "default", fieldSelector: "status.phase=Running" })).items.map((p) => p.metadata?.name)).toEqual(["pod-a"]);
    expect((await core.listPodForAllNamespaces({ fieldSelector: "spec.nodeName=" })).items.map((p) => p.metadata?.name)).toContain("pod-a");
    // An unscheduled pod is deleted at once; the response is the pod.
    const deleted = await core.deleteNamespacedPod({ namespace: "default", name: "pod-a" });
    expect(deleted.kind).toBe("Pod");
    expect((await expectApiError(k8s.ApiException, () => core.readNamespacedPod({ namespace: "default", name: "pod-a" }))).code).toBe(404);
  });

  it("Nodes: create, list, status replace, delete", async () => {
    await core.createNode({ body: { metadata: { name: "node-cn", labels: { zone: "a" } }, spec: { unschedulable: true } } });
    expect((await core.listNode({ labelSelector: "zone=a" })).items.map((n) => n.metadata?.name)).toEqual(["node-cn"]);
    const st = await core.readNodeStatus({ name: "node-cn" });
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    st.status = { capacity: { pods: "110", cpu: "2" }, conditions: [{ type: "Ready", status: "True", reason: "Ok", lastHeartbeatTime: now, lastTransitionTime: now }] };
    const updated = await core.replaceNodeStatus({ name: "node-cn", body: st });
    expect(updated.status?.capacity).toEqual({ pods: "110", cpu: "2" });
    expect(updated.status?.conditions?.[0]?.lastHeartbeatTime?.toISOString()).toBe(now.toISOString());
    expect(updated.spec?.unschedulable).toBe(true);
    await core.deleteNode({ name: "node-cn" });
    expect((await expectApiError(k8s.ApiException, () => core.readNode({ name: "node-cn" }))).code).toBe(404);
  });

  it("Namespaces: create, list, delete → Terminating → gone with its objects", async () => {
    const ns = await core.createNamespace({ body: { metadata: { name: "cn-doomed" } } });
    expect(ns.status?.phase).toBe("Active");
    expect(ns.spec?.finalizers).toEqual(["kubernetes"]);
    await core.createNamespacedPodTemplate({ namespace: "cn-doomed", body: podTemplate("inside") });
    expect((await core.listNamespace()).items.map((n) => n.metadata?.name)).toContain("cn-doomed");
    await core.deleteNamespace({ name: "cn-doomed" });
    const terminating = await expectApiError(k8s.ApiException, () => core.createNamespacedPodTemplate({ namespace: "cn-doomed", body: podTemplate("late") })).catch(() => undefined);
    if (terminating) expect([403, 404]).toContain(terminating.code);
    await waitFor("namespace cn-doomed gone", async () => {
      try {
        await core.readNamespace({ name: "cn-doomed" });
        return undefined;
      } catch (e) {
        return e instanceof k8s.ApiException && e.code === 404 ? true : undefined;
      }
    }, 30_000, 200);
    expect((await core.listPodTemplateForAllNamespaces({ fieldSelector: "metadata.namespace=cn-doomed" })).items).toEqual([]);
  });

  it("Events: create, list by involvedObject, patch, delete", async () => {
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    await core.createNamespacedEvent({
      namespace: "default",
      body: { metadata: { name: "ev-1" }, involvedObject: { kind: "Job", name: "evjob", namespace: "default" }, reason: "Started", message: "started", type: "Normal", count: 1, firstTimestamp: now, lastTimestamp: now, source: { component: "client-node-test" } },
    });
    await core.createNamespacedEvent({ namespace: "default", body: { metadata: { name: "ev-2" }, involvedObject: { kind: "Job", name: "other", namespace: "default" }, reason: "Other", message: "x", type: "Warning" } });
    const mine = await core.listNamespacedEvent({ namespace: "default", fieldSelector: "involvedObject.name=evjob" });
    expect(mine.items.map((e) => [e.metadata?.name, e.reason, e.firstTimestamp?.toISOString()])).toEqual([["ev-1", "Started", now.toISOString()]]);
    expect((await core.listEventForAllNamespaces({ fieldSelector: "type=Warning" })).items.map((e) => e.metadata?.name)).toEqual(["ev-2"]);
    const bumped = await core.patchNamespacedEvent({ namespace: "default", name: "ev-1", body: { count: 2 } }, mergePatch);
    expect(bumped.count).toBe(2);
    await core.deleteNamespacedEvent({ namespace: "default", name: "ev-1" });
    await core.deleteNamespacedEvent({ namespace: "default", name: "ev-2" });
    expect((await core.listNamespacedEvent({ namespace: "default", fieldSelector: "involvedObject.name=evjob" })).items).toEqual([]);
  });

  it("an Event with eventTime written by client-node (milliseconds) stays readable by Go clients (kubectl describe)", async () => {
    const pod = await core.createNamespacedPod({ namespace: "default", body: { metadata: { name: "evpod" }, spec: { containers: [{ name: "main", image: "busybox" }] } } });
    const eventTime = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678));
    const created = await core.createNamespacedEvent({
      namespace: "default",
      body: {
        metadata: { name: "evpod.micro" },
        involvedObject: { apiVersion: "v1", kind: "Pod", name: "evpod", namespace: "default", uid: pod.metadata?.uid ?? "" },
        reason: "MicroTimed",
        message: "written by client-node",
        type: "Normal",
        eventTime,
        action: "Testing",
        reportingComponent: "client-node-test",
        reportingInstance: "client-node-test-1",
      },
    });
    // client-node types eventTime as Date but hands MicroTime back as the wire string.
    expect(new Date(String(created.eventTime)).getTime()).toBe(eventTime.getTime());
    // Stored as metav1.MicroTime: six fractional digits, which Go's fixed-layout decoder needs.
    const wire = await runKubectl(server.kubeconfig, ["get", "event", "evpod.micro", "-o", "jsonpath={.eventTime}"]);
    expect(wire.stdout).toBe("2024-01-02T03:04:05.678000Z");
    const described = await runKubectl(server.kubeconfig, ["describe", "pod", "evpod"]);
    expect(described.stderr).toBe("");
    expect(described.stdout).toMatch(/Normal\s+MicroTimed\s+.*written by client-node/);
    await core.deleteNamespacedEvent({ namespace: "default", name: "evpod.micro" });
    await core.deleteNamespacedPod({ namespace: "default", name: "evpod" });
  });
});

describe("client-node generic access to storage.example.io/v1", () => {
  const driver = (labels: Record<string, string> = {}): k8s.KubernetesObject & { spec: Record<string, unknown> } => ({
    apiVersion: "storage.example.io/v1",
    kind: "CSIDriver",
    metadata: { name: "fake.csi.example.io", labels },
    spec: { attachRequired: false, podInfoOnMount: true },
  });

  it("KubernetesObjectApi: CSIDriver create, read, list, patch (merge, apply), replace, delete", async () => {
    const created = await objects.create(driver({ a: "1" }));
    expect(created.kind).toBe("CSIDriver");
    expect(created.metadata?.uid).toBeDefined();
    const read = (await objects.read({ apiVersion: "storage.example.io/v1", kind: "CSIDriver", metadata: { name: "fake.csi.example.io" } })) as k8s.KubernetesObject & { spec?: Record<string, unknown> };
    expect(read.spec?.["podInfoOnMount"]).toBe(true);
    expect(read.spec?.["fsGroupPolicy"]).toBe("ReadWriteOnceWithFSType");
    const list = await objects.list("storage.example.io/v1", "CSIDriver", undefined, undefined, undefined, undefined, undefined, "a=1");
    expect(list.items.map((d) => d.metadata?.name)).toEqual(["fake.csi.example.io"]);
    const merged = await objects.patch(driver({ b: "2" }), undefined, undefined, undefined, undefined, k8s.PatchStrategy.MergePatch);
    expect(merged.metadata?.labels).toEqual({ a: "1", b: "2" });
    const applied = await objects.patch({ apiVersion: "storage.example.io/v1", kind: "CSIDriver", metadata: { name: "fake.csi.example.io", labels: { c: "3" } } }, undefined, undefined, "client-node-test", true, k8s.PatchStrategy.ServerSideApply);
    expect(applied.metadata?.labels).toEqual({ a: "1", b: "2", c: "3" });
    // spec is immutable for attachRequired: a 422 with 1.23's field path (its typo) in causes.
    const invalid = await expectApiError(k8s.ApiException, () => objects.replace({ ...applied, spec: { ...(applied as { spec?: object }).spec, attachRequired: true } } as k8s.KubernetesObject));
    expect(invalid.code).toBe(422);
    expect(invalid.status.reason).toBe("Invalid");
    expect(invalid.status.details?.causes?.some((c) => c.field === "spec.attachedRequired")).toBe(true);
    await objects.delete({ apiVersion: "storage.example.io/v1", kind: "CSIDriver", metadata: { name: "fake.csi.example.io" } });
    const gone = await expectApiError(k8s.ApiException, () => objects.read({ apiVersion: "storage.example.io/v1", kind: "CSIDriver", metadata: { name: "fake.csi.example.io" } }));
    expect(gone.code).toBe(404);
    expect(gone.status.details).toMatchObject({ name: "fake.csi.example.io", group: "storage.example.io", kind: "csidrivers" });
  });

  it("CustomObjectsApi: CSINode create, get, list, merge patch, delete", async () => {
    const node = { apiVersion: "storage.example.io/v1", kind: "CSINode", metadata: { name: "csinode-a" }, spec: { drivers: [{ name: "fake.csi.example.io", nodeID: "csinode-a", topologyKeys: ["example.io/hostname"] }] } };
    const created = (await custom.createClusterCustomObject({ group: "storage.example.io", version: "v1", plural: "csinodes", body: node })) as k8s.KubernetesObject;
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    const got = (await custom.getClusterCustomObject({ group: "storage.example.io", version: "v1", plural: "csinodes", name: "csinode-a" })) as typeof node;
    expect(got.spec.drivers[0]?.nodeID).toBe("csinode-a");
    const list = (await custom.listClusterCustomObject({ group: "storage.example.io", version: "v1", plural: "csinodes" })) as { kind: string; items: k8s.KubernetesObject[] };
    expect(list.kind).toBe("CSINodeList");
    expect(list.items.map((n) => n.metadata?.name)).toEqual(["csinode-a"]);
    const patched = (await custom.patchClusterCustomObject({ group: "storage.example.io", version: "v1", plural: "csinodes", name: "csinode-a", body: { metadata: { labels: { p: "1" } } } }, mergePatch)) as k8s.KubernetesObject;
    expect(patched.metadata?.labels).toEqual({ p: "1" });
    const dup = await expectApiError(k8s.ApiException, () => custom.createClusterCustomObject({ group: "storage.example.io", version: "v1", plural: "csinodes", body: node }));
    expect(dup.code).toBe(409);
    expect(dup.status.reason).toBe("AlreadyExists");
    await custom.deleteClusterCustomObject({ group: "storage.example.io", version: "v1", plural: "csinodes", name: "csinode-a" });
    expect((await expectApiError(k8s.ApiException, () => custom.getClusterCustomObject({ group: "storage.example.io", version: "v1", plural: "csinodes", name: "csinode-a" }))).code).toBe(404);
  });
});

describe("client-node errors", () => {
  it("404, 409 and 422 surface as ApiException carrying the Status body", async () => {
    const notFound = await expectApiError(k8s.ApiException, () => batch.readNamespacedJob({ namespace: "default", name: "missing" }));
    expect(notFound.code).toBe(404);
    expect(notFound.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'jobs.batch "missing" not found',
      reason: "NotFound",
      details: { name: "missing", group: "batch", kind: "jobs" },
      code: 404,
    });
    await batch.createNamespacedJob({ namespace: "default", body: job("twice") });
    const exists = await expectApiError(k8s.ApiException, () => batch.createNamespacedJob({ namespace: "default", body: job("twice") }));
    expect(exists.code).toBe(409);
    expect(exists.status).toMatchObject({ kind: "Status", status: "Failure", reason: "AlreadyExists", code: 409, message: 'jobs.batch "twice" already exists', details: { name: "twice", group: "batch", kind: "jobs" } });
    const bad = job("bad");
    bad.spec = { ...bad.spec!, parallelism: -1 };
    const invalid = await expectApiError(k8s.ApiException, () => batch.createNamespacedJob({ namespace: "default", body: bad }));
    expect(invalid.code).toBe(422);
    expect(invalid.status).toMatchObject({ kind: "Status", status: "Failure", reason: "Invalid", code: 422, details: { name: "bad", group: "batch", kind: "Job" } });
    expect(invalid.status.details?.causes).toContainEqual(expect.objectContaining({ reason: "FieldValueInvalid", field: "spec.parallelism" }));
    expect(invalid.status.message).toContain('Job.batch "bad" is invalid: spec.parallelism: Invalid value: -1');
  });
});

interface WireStatusLike {
  kind?: string;
  reason?: string;
  code?: number;
}

interface WatchEvent {
  type: string;
  name: string | undefined;
  resourceVersion: string | undefined;
  kind: string | undefined;
}

describe("client-node Watch", () => {
  it("streams ADDED/MODIFIED/DELETED from a list's resourceVersion, BOOKMARKs, and ends at timeoutSeconds", async () => {
    const list = await core.listNamespacedPodTemplate({ namespace: "default" });
    const events: WatchEvent[] = [];
    let doneWith: unknown = "not yet";
    const watch = new k8s.Watch(kc);
    await watch.watch(
      "/api/v1/namespaces/default/podtemplates",
      { resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 3 },
      (type: string, obj: k8s.KubernetesObject) => events.push({ type, name: obj.metadata?.name, resourceVersion: obj.metadata?.resourceVersion, kind: obj.kind }),
      (err: unknown) => (doneWith = err),
    );
    const a = await core.createNamespacedPodTemplate({ namespace: "default", body: podTemplate("watched") });
    const b = await core.patchNamespacedPodTemplate({ namespace: "default", name: "watched", body: { metadata: { labels: { v: "2" } } } }, mergePatch);
    await core.deleteNamespacedPodTemplate({ namespace: "default", name: "watched" });
    await waitFor("watch done", async () => (doneWith === "not yet" ? undefined : true), 10_000, 50);
    expect(doneWith).toBeNull();
    const changes = events.filter((e) => e.type !== "BOOKMARK");
    expect(changes.map((e) => [e.type, e.name, e.kind])).toEqual([
      ["ADDED", "watched", "PodTemplate"],
      ["MODIFIED", "watched", "PodTemplate"],
      ["DELETED", "watched", "PodTemplate"],
    ]);
    expect(changes[0]?.resourceVersion).toBe(a.metadata?.resourceVersion);
    expect(changes[1]?.resourceVersion).toBe(b.metadata?.resourceVersion);
    expect(Number(changes[2]?.resourceVersion)).toBeGreaterThan(Number(b.metadata?.resourceVersion));
    const bookmarks = events.filter((e) => e.type === "BOOKMARK");
    expect(bookmarks.length).toBeGreaterThan(0);
    for (const bm of bookmarks) {
      expect(bm.kind).toBe("PodTemplate");
      expect(bm.name).toBeUndefined();
      expect(bm.resourceVersion).toMatch(/^\d+$/);
    }
    const rvs = events.map((e) => Number(e.resourceVersion));
    expect([...rvs].sort((x, y) => x - y)).toEqual(rvs);
  });

  it("without a resourceVersion starts with ADDED for what exists; selectors filter; errors reach done", async () => {
    await core.createNamespacedPodTemplate({ namespace: "default", body: podTemplate("sel-a", { pick: "yes" }) });
    await core.createNamespacedPodTemplate({ namespace: "default", body: podTemplate("sel-b", { pick: "no" }) });
    const events: WatchEvent[] = [];
    let done = false;
    await new k8s.Watch(kc).watch(
      "/api/v1/podtemplates",
      { labelSelector: "pick=yes", timeoutSeconds: 2 },
      (type: string, obj: k8s.KubernetesObject) => events.push({ type, name: obj.metadata?.name, resourceVersion: obj.metadata?.resourceVersion, kind: obj.kind }),
      () => (done = true),
    );
    await core.patchNamespacedPodTemplate({ namespace: "default", name: "sel-b", body: { metadata: { labels: { pick: "yes" } } } }, mergePatch);
    await waitFor("watch done", async () => (done ? true : undefined), 10_000, 50);
    // sel-b entering the selector is an ADDED, as in Kubernetes.
    expect(events.map((e) => [e.type, e.name])).toEqual([
      ["ADDED", "sel-a"],
      ["ADDED", "sel-b"],
    ]);

    let failure: unknown;
    await new k8s.Watch(kc).watch("/api/v1/namespaces/default/podtemplates", { resourceVersion: "not-a-number" }, () => undefined, (err: unknown) => (failure = err));
    await waitFor("bad watch done", async () => (failure === undefined ? undefined : true), 10_000, 50);
    expect((failure as { statusCode?: number }).statusCode).toBe(400);
  });
});

describe("client-node makeInformer", () => {
  it("lists, then follows adds, updates and deletes across server-ended watches", async () => {
    const path = "/apis/batch/v1/namespaces/default/jobs";
    await batch.createNamespacedJob({ namespace: "default", body: job("inf-0", { informer: "yes" }) });
    const informer = k8s.makeInformer(kc, path, () => batch.listNamespacedJob({ namespace: "default", labelSelector: "informer=yes" }), "informer=yes");
    const seen: string[] = [];
    let connects = 0;
    const errors: unknown[] = [];
    informer.on(k8s.ADD, (j: k8s.V1Job) => seen.push(`add ${j.metadata?.name ?? ""}`));
    informer.on(k8s.UPDATE, (j: k8s.V1Job) => seen.push(`update ${j.metadata?.name ?? ""} ${JSON.stringify(j.metadata?.labels?.["step"] ?? null)}`));
    informer.on(k8s.DELETE, (j: k8s.V1Job) => seen.push(`delete ${j.metadata?.name ?? ""}`));
    informer.on(k8s.CONNECT, () => connects++);
    informer.on(k8s.ERROR, (e: unknown) => errors.push(e));
    await informer.start();
    try {
      expect(seen).toEqual(["add inf-0"]);
      await batch.createNamespacedJob({ namespace: "default", body: job("inf-1", { informer: "yes" }) });
      await batch.createNamespacedJob({ namespace: "default", body: job("not-mine", { informer: "no" }) });
      await batch.patchNamespacedJob({ namespace: "default", name: "inf-0", body: { metadata: { labels: { step: "1" } } } }, mergePatch);
      await waitFor("first changes", async () => (seen.length >= 3 ? true : undefined), 10_000, 50);
      // Watches end after 2-4 s (--min-request-timeout=2); writes keep landing while the informer reconnects.
      const deadline = connects + 2;
      let step = 2;
      while (connects < deadline) {
        await batch.patchNamespacedJob({ namespace: "default", name: "inf-1", body: { metadata: { labels: { step: String(step) } } } }, mergePatch);
        step++;
        await sleep(400);
      }
      await batch.deleteNamespacedJob({ namespace: "default", name: "inf-0" });
      await batch.createNamespacedJob({ namespace: "default", body: job("inf-2", { informer: "yes" }) });
      await waitFor("informer caught up", async () => (seen.includes("add inf-2") ? true : undefined), 15_000, 50);
      expect(errors).toEqual([]);
      expect(seen.slice(0, 3)).toEqual(["add inf-0", "add inf-1", 'update inf-0 "1"']);
      const updates = seen.filter((s) => s.startsWith("update inf-1"));
      expect(updates).toEqual(Array.from({ length: step - 2 }, (_, i) => `update inf-1 "${String(i + 2)}"`));
      expect(seen.slice(-2)).toEqual(["delete inf-0", "add inf-2"]);
      const server = await batch.listNamespacedJob({ namespace: "default", labelSelector: "informer=yes" });
      const cached = informer.list("default");
      expect(cached.map((j) => j.metadata?.name).sort()).toEqual(server.items.map((j) => j.metadata?.name).sort());
      expect(cached.map((j) => j.metadata?.resourceVersion).sort()).toEqual(server.items.map((j) => j.metadata?.resourceVersion).sort());
      expect(informer.get("inf-1", "default")?.metadata?.labels?.["step"]).toBe(String(step - 1));
      expect(Number(latestResourceVersion(informer))).toBeGreaterThanOrEqual(Number(server.metadata?.resourceVersion));
    } finally {
      await informer.stop();
    }
  });
});

describe("client-node against an apiserver that compacts every 500 ms", () => {
  let compacting: RunningAPIServer;
  let ckc: k8s.KubeConfig;
  let ccore: k8s.CoreV1Api;

  beforeAll(async () => {
    compacting = await startAPIServer({ preload: [fileURLToPath(new URL("./client-node-compaction-preload.ts", import.meta.url))], tempPrefix: "skiff-client-node-compact-" });
    ckc = new k8s.KubeConfig();
    ckc.loadFromFile(compacting.kubeconfig);
    ccore = ckc.makeApiClient(k8s.CoreV1Api);
  });

  afterAll(async () => {
    await compacting?.stop();
  });

  it("a watch from a compacted resourceVersion gets one ERROR event with the 410 Expired Status", async () => {
    const list = await ccore.listNamespacedPodTemplate({ namespace: "default" });
    await ccore.createNamespacedPodTemplate({ namespace: "default", body: podTemplate("bump") });
    // The watch cache (started with the apiserver, as 1.23's cacher) serves any revision still in
    // its window, compacted or not: push the list's revision out of it first (the preload keeps
    // the window at 1000 events).
    for (let i = 0; i < 1050; i += 25) {
      await Promise.all(Array.from({ length: 25 }, (_, j) => ccore.patchNamespacedPodTemplate({ namespace: "default", name: "bump", body: [{ op: "add", path: "/metadata/labels", value: { n: String(i + j) } }] }, jsonPatch)));
    }
    await waitFor("compaction past the list", async () => {
      const events: Array<{ type: string; obj: WireStatusLike }> = [];
      let done = false;
      const request = await new k8s.Watch(ckc).watch("/api/v1/namespaces/default/podtemplates", { resourceVersion: list.metadata?.resourceVersion }, (type: string, obj: WireStatusLike) => events.push({ type, obj }), () => (done = true));
      await waitFor("watch answered", async () => (done || events.length > 0 ? true : undefined), 10_000, 20);
      // Until compaction passes the list's resourceVersion, the watch replays `bump`: end it.
      if (!done) request.abort();
      return events[0]?.type === "ERROR" ? events : undefined;
    }, 20_000, 300).then((events) => {
      expect(events).toHaveLength(1);
      expect(events[0]?.obj).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410 });
    });
  });

  it("an informer restarted after its resourceVersion expired relists, reporting deletes it missed", async () => {
    await ccore.createNamespacedPodTemplate({ namespace: "default", body: podTemplate("keep", { relist: "yes" }) });
    await ccore.createNamespacedPodTemplate({ namespace: "default", body: podTemplate("vanish", { relist: "yes" }) });
    let lists = 0;
    const informer = k8s.makeInformer(ckc, "/api/v1/namespaces/default/podtemplates", () => {
      lists++;
      return ccore.listNamespacedPodTemplate({ namespace: "default", labelSelector: "relist=yes" });
    }, "relist=yes");
    const seen: string[] = [];
    informer.on(k8s.ADD, (o: k8s.V1PodTemplate) => seen.push(`add ${o.metadata?.name ?? ""}`));
    informer.on(k8s.DELETE, (o: k8s.V1PodTemplate) => seen.push(`delete ${o.metadata?.name ?? ""}`));
    await informer.start();
    expect(seen).toEqual(["add keep", "add vanish"]);
    await informer.stop();
    const stale = latestResourceVersion(informer);
    // While it is stopped: a delete, an add, then more writes than the watch cache's window holds
    // (1000 events) and compaction past its resourceVersion, so only a relist can catch it up.
    await ccore.deleteNamespacedPodTemplate({ namespace: "default", name: "vanish" });
    await ccore.createNamespacedPodTemplate({ namespace: "default", body: podTemplate("arrived", { relist: "yes" }) });
    await ccore.createNamespacedPodTemplate({ namespace: "default", body: podTemplate("churn") });
    for (let i = 0; i < 1050; i += 25) {
      await Promise.all(Array.from({ length: 25 }, (_, j) => ccore.patchNamespacedPodTemplate({ namespace: "default", name: "churn", body: [{ op: "add", path: "/metadata/labels", value: { n: String(i + j) } }] }, jsonPatch)));
    }
    await sleep(1500);
    await informer.start();
    try {
      await waitFor("relisted", async () => (seen.includes("delete vanish") && seen.includes("add arrived") ? true : undefined), 20_000, 50);
      expect(lists).toBe(2);
      expect(Number(latestResourceVersion(informer))).toBeGreaterThan(Number(stale));
      expect(informer.list("default").map((o) => o.metadata?.name).sort()).toEqual(["arrived", "keep"]);
      await ccore.createNamespacedPodTemplate({ namespace: "default", body: podTemplate("after", { relist: "yes" }) });
      await waitFor("follows after relist", async () => (seen.includes("add after") ? true : undefined), 10_000, 50);
    } finally {
      await informer.stop();
    }
  });
});
