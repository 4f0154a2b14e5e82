// Object semantics per served kind over HTTP, one table row per kind listing 1.23's behaviour
// (pkg/registry/*/strategy.go and the generic store, kubernetes/kubernetes v1.23):
// - metadata.generation: set on create and bumped only by what the kind's PrepareForUpdate bumps it
//   for (Job: spec; PodTemplate: template; CSIDriver: spec, with no generation on create; the
//   others never); never by labels, a status write or a client's own generation (rest.BeforeUpdate);
//   compared as apiequality.Semantic.DeepEqual (key order does not count).
// - AllowUnconditionalUpdate: a PUT without resourceVersion is applied, or refused with 1.23's 422.
// - Job status validation: exactly validateJobStatus (counters ≥ 0, uncounted UIDs), nothing more.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startServer } from "./harness.js";
import type { RunningServer } from "./harness.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- objects are probed freely
type Obj = Record<string, any>;

interface KindCase {
  readonly kind: string;
  /** The collection path; objects are at `${collection}/${name}`. */
  readonly collection: string;
  /** `<resource>` or `<resource>.<group>`: how 1.23 names the kind in the unconditional-update 422. */
  readonly qualifiedResource: string;
  readonly body: (name: string) => Obj;
  /** metadata.generation right after create (undefined: none). */
  readonly generationOnCreate: number | undefined;
  /** A change of the kind's spec-like part that validation allows. */
  readonly specChange: (o: Obj) => void;
  /** Whether 1.23 bumps generation for `specChange`. */
  readonly specChangeBumps: boolean;
  /** A write through /status (kinds that have it). */
  readonly statusWrite?: (o: Obj) => void;
  readonly allowUnconditionalUpdate: boolean;
}

const podSpec = { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] };

const kinds: readonly KindCase[] = [
  {
    kind: "Job", collection: "/apis/batch/v1/namespaces/default/jobs", qualifiedResource: "jobs.batch",
    body: (name) => ({ apiVersion: "batch/v1", kind: "Job", metadata: { name }, spec: { parallelism: 1, template: { spec: podSpec } } }),
    generationOnCreate: 1, specChange: (o) => (o["spec"].parallelism = 2), specChangeBumps: true,
    statusWrite: (o) => (o["status"] = { active: 1 }), allowUnconditionalUpdate: true,
  },
  {
    kind: "CSIDriver", collection: "/apis/storage.example.io/v1/csidrivers", qualifiedResource: "csidrivers.storage.example.io",
    body: (name) => ({ apiVersion: "storage.example.io/v1", kind: "CSIDriver", metadata: { name }, spec: {} }),
    generationOnCreate: undefined, specChange: (o) => (o["spec"].requiresRepublish = true), specChangeBumps: true, allowUnconditionalUpdate: false,
  },
  {
    kind: "CSINode", collection: "/apis/storage.example.io/v1/csinodes", qualifiedResource: "csinodes.storage.example.io",
    body: (name) => ({ apiVersion: "storage.example.io/v1", kind: "CSINode", metadata: { name }, spec: { drivers: [] } }),
    generationOnCreate: undefined, specChange: (o) => (o["spec"].drivers = [{ name: "d.example.io", nodeID: "n" }]), specChangeBumps: false, allowUnconditionalUpdate: false,
  },
  {
    kind: "PodTemplate", collection: "/api/v1/namespaces/default/podtemplates", qualifiedResource: "podtemplates",
    body: (name) => ({ apiVersion: "v1", kind: "PodTemplate", metadata: { name }, template: { spec: podSpec } }),
    generationOnCreate: 1, specChange: (o) => (o["template"].spec.containers[0].image = "nginx"), specChangeBumps: true, allowUnconditionalUpdate: true,
  },
  {
    kind: "Pod", collection: "/api/v1/namespaces/default/pods", qualifiedResource: "pods",
    body: (name) => ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: podSpec }),
    generationOnCreate: undefined, specChange: (o) => (o["spec"].activeDeadlineSeconds = 30), specChangeBumps: false,
    statusWrite: (o) => (o["status"] = { ...o["status"], message: "m" }), allowUnconditionalUpdate: true,
  },
  {
    kind: "Node", collection: "/api/v1/nodes", qualifiedResource: "nodes",
    body: (name) => ({ apiVersion: "v1", kind: "Node", metadata: { name } }),
    generationOnCreate: undefined, specChange: (o) => (o["spec"] = { ...o["spec"], unschedulable: true }), specChangeBumps: false,
    statusWrite: (o) => (o["status"] = { ...o["status"], phase: "Running" }), allowUnconditionalUpdate: true,
  },
  {
    kind: "Namespace", collection: "/api/v1/namespaces", qualifiedResource: "namespaces",
    body: (name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } }),
    generationOnCreate: undefined, specChange: (o) => (o["metadata"].annotations = { a: "1" }), specChangeBumps: false, allowUnconditionalUpdate: true,
  },
  {
    kind: "Event", collection: "/api/v1/namespaces/default/events", qualifiedResource: "events",
    body: (name) => ({ apiVersion: "v1", kind: "Event", metadata: { name }, involvedObject: { kind: "Pod", namespace: "default", name: "p" }, reason: "R", message: "m" }),
    generationOnCreate: undefined, specChange: (o) => (o["message"] = "changed"), specChangeBumps: false, allowUnconditionalUpdate: true,
  },
  {
    kind: "Lease", collection: "/apis/coordination.k8s.io/v1/namespaces/default/leases", qualifiedResource: "leases.coordination.k8s.io",
    body: (name) => ({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name }, spec: { holderIdentity: "a" } }),
    generationOnCreate: undefined, specChange: (o) => (o["spec"].holderIdentity = "b"), specChangeBumps: false, allowUnconditionalUpdate: false,
  },
];

let s: RunningServer;
beforeAll(async () => {
  // With the gate off 1.23 drops status.uncountedTerminatedPods from a status write; on, it is validated.
  s = await startServer({ extraArgs: ["--feature-gates=JobTrackingWithFinalizers=true"] });
}, 60_000);
afterAll(async () => {
  await s.stop();
});

const generation = (o: Obj): number | undefined => o["metadata"]?.generation as number | undefined;

async function put(c: KindCase, name: string, o: Obj, sub = ""): Promise<Obj> {
  const r = await call(s, "PUT", `${c.collection}/${name}${sub}`, o);
  expect(r.status, r.body).toBe(200);
  return r.json() as Obj;
}

describe.each(kinds.map((c) => [c.kind, c] as const))("%s", (_kind, c) => {
  const name = `sem-${c.kind.toLowerCase()}`;

  it(`generation: ${String(c.generationOnCreate ?? "none")} on create, ${c.specChangeBumps ? "bumped" : "kept"} by a spec change, kept by labels, status and a client's own value`, async () => {
    const created = await call(s, "POST", c.collection, c.body(name));
    expect(created.status, created.body).toBe(201);
    let o = created.json() as Obj;
    expect(generation(o)).toBe(c.generationOnCreate);
    const g0 = generation(o);

    o["metadata"].labels = { relabelled: "yes" };
    o = await put(c, name, o);
    expect(generation(o)).toBe(g0);

    if (c.statusWrite) {
      c.statusWrite(o);
      o = await put(c, name, o, "/status");
      expect(generation(o)).toBe(g0);
    }

    o["metadata"].generation = 42;
    o = await put(c, name, o);
    expect(generation(o)).toBe(g0);

    c.specChange(o);
    o = await put(c, name, o);
    const g1 = c.specChangeBumps ? (g0 ?? 0) + 1 : g0;
    expect(generation(o)).toBe(g1);

    // The same content with its keys in another order is no change (Semantic.DeepEqual).
    const reordered = Object.fromEntries(Object.entries(o).reverse().map(([k, v]) => [k, v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Obj).reverse()) : v]));
    o = await put(c, name, reordered);
    expect(generation(o)).toBe(g1);
  });

  it(`update without resourceVersion: ${c.allowUnconditionalUpdate ? "applied (AllowUnconditionalUpdate)" : "422 must be specified for an update"}`, async () => {
    const current = (await call(s, "GET", `${c.collection}/${name}`)).json() as Obj;
    delete current["metadata"].resourceVersion;
    current["metadata"].labels = { unconditional: "yes" };
    const r = await call(s, "PUT", `${c.collection}/${name}`, current);
    if (c.allowUnconditionalUpdate) {
      expect(r.status, r.body).toBe(200);
      expect((r.json() as Obj)["metadata"].labels).toMatchObject({ unconditional: "yes" });
      return;
    }
    expect(r.status, r.body).toBe(422);
    const [resource, ...group] = c.qualifiedResource.split(".");
    expect(r.json()).toMatchObject({
      reason: "Invalid",
      message: `${c.qualifiedResource} "${name}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
      details: { name, group: group.join("."), kind: resource, causes: [{ reason: "FieldValueInvalid", message: "Invalid value: 0x0: must be specified for an update", field: "metadata.resourceVersion" }] },
    });
  });
});

describe("Job status validation is 1.23's validateJobStatus, nothing more", () => {
  const path = "/apis/batch/v1/namespaces/default/jobs/sem-status";
  it("accepts what 1.23 accepts (completedIndexes and conditions are not checked) and refuses what it refuses", async () => {
    expect((await call(s, "POST", "/apis/batch/v1/namespaces/default/jobs", kinds[0]!.body("sem-status"))).status).toBe(201);
    const job = (await call(s, "GET", path)).json() as Obj;
    job["status"] = { completedIndexes: "3,1,x", conditions: [{ type: "Bogus", status: "Maybe" }, { type: "Bogus", status: "" }], startTime: "2024-01-01T00:00:00Z" };
    const ok = await call(s, "PUT", `${path}/status`, job);
    expect(ok.status, ok.body).toBe(200);
    const bad = ok.json() as Obj;
    bad["status"] = { active: -1, ready: -1, uncountedTerminatedPods: { succeeded: ["a", ""], failed: ["a"] } };
    const r = await call(s, "PUT", `${path}/status`, bad);
    expect(r.status, r.body).toBe(422);
    expect(((r.json() as Obj)["details"].causes as Obj[]).map((x) => `${String(x["field"])} ${String(x["reason"])}`)).toEqual([
      "status.active FieldValueInvalid",
      "status.ready FieldValueInvalid",
      "status.uncountedTerminatedPods.succeeded[1] FieldValueInvalid",
      "status.uncountedTerminatedPods.failed[0] FieldValueDuplicate",
    ]);
  });
});

describe("a null map value is stored as Go stores it (the value type's zero), a null field is unset", () => {
  it("labels and nodeSelector keep the key with \"\", a limit is the zero Quantity, and a label selector finds the key", async () => {
    const body = {
      apiVersion: "v1", kind: "Pod", metadata: { name: "sem-nulls", labels: { app: "web", tier: null }, annotations: { note: null } },
      spec: { ...podSpec, nodeSelector: { disk: null }, activeDeadlineSeconds: null, containers: [{ name: "c", image: "busybox", resources: { limits: { cpu: null, memory: "64Mi" } } }] },
    };
    const r = await call(s, "POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", body);
    expect(r.status, r.body).toBe(201);
    const pod = r.json() as Obj;
    expect(pod["metadata"].labels).toEqual({ app: "web", tier: "" });
    expect(pod["metadata"].annotations).toEqual({ note: "" });
    expect(pod["spec"].nodeSelector).toEqual({ disk: "" });
    expect(pod["spec"].activeDeadlineSeconds).toBeUndefined();
    expect(pod["spec"].containers[0].resources.limits).toEqual({ cpu: "0", memory: "64Mi" });
    const list = (await call(s, "GET", "/api/v1/namespaces/default/pods?labelSelector=tier")).json() as Obj;
    expect((list["items"] as Obj[]).map((p) => p["metadata"].name)).toEqual(["sem-nulls"]);
  });
});

describe("volumeDevices is a known container field (1.23 block mode)", () => {
  it("a pod mapping a claim volume's device is accepted under Strict and keeps the field", async () => {
    const body = {
      apiVersion: "v1", kind: "Pod", metadata: { name: "sem-block" },
      spec: { ...podSpec, volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }], containers: [{ name: "c", image: "busybox", volumeDevices: [{ name: "data", devicePath: "/dev/xvda" }] }] },
    };
    const r = await call(s, "POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", body);
    expect(r.status, r.body).toBe(201);
    expect((r.json() as Obj)["spec"].containers[0].volumeDevices).toEqual([{ name: "data", devicePath: "/dev/xvda" }]);
  });
});

describe("spec.os and windowsOptions are known pod fields (1.23 with IdentifyPodOS on)", () => {
  it("a windows pod with Windows options is accepted under Strict and keeps them; a linux pod with them is 422", async () => {
    const body = {
      apiVersion: "v1", kind: "Pod", metadata: { name: "sem-os" },
      spec: { ...podSpec, os: { name: "windows" }, securityContext: { windowsOptions: { runAsUserName: "ContainerUser" } }, containers: [{ name: "c", image: "busybox", securityContext: { windowsOptions: { gmsaCredentialSpecName: "gmsa" } } }] },
    };
    const r = await call(s, "POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", body);
    expect(r.status, r.body).toBe(201);
    const spec = (r.json() as Obj)["spec"];
    expect(spec.os).toEqual({ name: "windows" });
    expect(spec.securityContext.windowsOptions).toEqual({ runAsUserName: "ContainerUser" });
    expect(spec.containers[0].securityContext.windowsOptions).toEqual({ gmsaCredentialSpecName: "gmsa" });
    const linux = await call(s, "POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", { ...body, metadata: { name: "sem-os-linux" }, spec: { ...body.spec, os: { name: "linux" } } });
    expect(linux.status, linux.body).toBe(422);
    expect((linux.json() as Obj)["details"].causes).toEqual([
      { reason: "FieldValueForbidden", message: "Forbidden: windows options cannot be set for a linux pod", field: "spec.securityContext.windowsOptions" },
      { reason: "FieldValueForbidden", message: "Forbidden: windows options cannot be set for a linux pod", field: "spec.containers[0].securityContext.windowsOptions" },
    ]);
  });
});

describe("--feature-gates=IdentifyPodOS=false,WindowsHostProcessContainers=false (1.23's dropDisabledFields and HostProcess option)", () => {
  let off: RunningServer;
  beforeAll(async () => {
    off = await startServer({ extraArgs: ["--feature-gates=IdentifyPodOS=false,WindowsHostProcessContainers=false"] });
  }, 60_000);
  afterAll(async () => {
    await off.stop();
  });

  it("drops spec.os from a pod and a Job's template, and refuses hostProcess naming the gate", async () => {
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "gated-os" }, spec: { ...podSpec, os: { name: "linux" } } };
    const r = await call(off, "POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", pod);
    expect(r.status, r.body).toBe(201);
    expect((r.json() as Obj)["spec"].os).toBeUndefined();
    const job = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "gated-os" }, spec: { template: { spec: { ...podSpec, os: { name: "linux" } } } } };
    const j = await call(off, "POST", "/apis/batch/v1/namespaces/default/jobs", job);
    expect(j.status, j.body).toBe(201);
    expect((j.json() as Obj)["spec"].template.spec.os).toBeUndefined();
    const hp = { apiVersion: "v1", kind: "Pod", metadata: { name: "gated-hp" }, spec: { ...podSpec, hostNetwork: true, securityContext: { windowsOptions: { hostProcess: true } } } };
    const refused = await call(off, "POST", "/api/v1/namespaces/default/pods", hp);
    expect(refused.status, refused.body).toBe(422);
    expect((refused.json() as Obj)["details"].causes).toEqual([
      { reason: "FieldValueForbidden", message: "Forbidden: not allowed when feature gate 'WindowsHostProcessContainers' is not enabled", field: "spec.securityContext.windowsOptions.hostProcess" },
    ]);
  });
});
