import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import {
  ApplyConflictError,
  ApplyRequestError,
  applyConfiguration as applyConfigurationRaw,
  decodeManagedFields,
  encodeManagedFields,
  fieldPathOf,
  recordUpdate as recordUpdateRaw,
} from "./field-manager.js";
import type { FieldManagerOptions } from "./field-manager.js";
import { parseFieldsV1 } from "./field-set.js";
import { deducedTypeSchema, typeSchemaFromOpenAPI } from "./type-schema.js";
import { TypedValueError, compareObjects, mergeApplied, toFieldSet } from "./typed.js";

const doc = JSON.parse(readFileSync(createRequire(import.meta.url).resolve("@skiff/api-types/openapi.json"), "utf8")) as unknown;
const jobSchema = typeSchemaFromOpenAPI(doc, "io.example.api.batch.v1.Job");
const driverSchema = typeSchemaFromOpenAPI(doc, "io.example.api.storage.v1.CSIDriver");
const t0 = new Date("2026-01-02T03:04:05.678Z");
const t1 = new Date("2026-01-02T03:05:00Z");
const jobOpts = (now = t0, subresource = ""): FieldManagerOptions => ({
  schema: jobSchema,
  apiVersion: "batch/v1",
  ignoredFields: subresource === "status" ? [fieldPathOf("spec")] : [fieldPathOf("status")],
  subresource,
  now,
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- probing JSON
type Json = Record<string, any>;

const recordUpdate = (...a: Parameters<typeof recordUpdateRaw>): Json => recordUpdateRaw(...a);
const applyConfiguration = (...a: Parameters<typeof applyConfigurationRaw>): Json => applyConfigurationRaw(...a);

const job = (parallelism: number, image = "busybox"): Json => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "pi", namespace: "default", labels: { app: "pi" } },
  spec: { parallelism, template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image }] } } },
});

describe("type schema from the api-types OpenAPI document (1.23 list/map types)", () => {
  it("derives list types from list-type, then patch strategy", () => {
    const pod = jobSchema.field("spec").field("template").field("spec");
    expect(pod.field("containers").listType).toBe("map");
    expect(pod.field("containers").listKeys).toEqual(["name"]);
    expect(pod.field("containers").element().field("ports").listKeys).toEqual(["containerPort", "protocol"]);
    expect(pod.field("containers").element().field("env").listKeys).toEqual(["name"]);
    expect(pod.field("volumes").listKeys).toEqual(["name"]); // merge,retainKeys
    expect(jobSchema.field("status").field("conditions").listType).toBe("atomic"); // list-type wins over patch strategy
    expect(jobSchema.field("metadata").field("finalizers").listType).toBe("set");
    expect(driverSchema.field("spec").field("volumeLifecycleModes").listType).toBe("set");
    expect(driverSchema.field("spec").field("tokenRequests").listType).toBe("atomic");
    expect(jobSchema.field("spec").field("selector").atomic).toBe(true);
    expect(jobSchema.field("metadata").field("labels").kind).toBe("map");
    expect(typeSchemaFromOpenAPI(doc, "nope")).toBe(deducedTypeSchema);
  });
});

describe("typed operations", () => {
  it("toFieldSet owns leaves and list items, not maps", () => {
    const s = toFieldSet(job(2), jobSchema);
    expect(s.toFieldsV1()).toEqual({
      "f:apiVersion": {},
      "f:kind": {},
      "f:metadata": { "f:labels": { "f:app": {} }, "f:name": {}, "f:namespace": {} },
      "f:spec": {
        "f:parallelism": {},
        "f:template": { "f:spec": { "f:containers": { 'k:{"name":"c"}': { ".": {}, "f:image": {}, "f:name": {} } }, "f:restartPolicy": {} } },
      },
    });
  });

  it("rejects duplicate and key-less associative items", () => {
    const dup = job(1);
    dup["spec"].template.spec.containers.push({ name: "c", image: "x" });
    expect(() => toFieldSet(dup, jobSchema)).toThrow(TypedValueError);
    expect(() => toFieldSet(dup, jobSchema)).toThrow(/duplicate entries for key \[name="c"\]/);
    const keyless = job(1);
    keyless["spec"].template.spec.containers = [{ image: "x" }];
    expect(() => toFieldSet(keyless, jobSchema)).toThrow(/omits key field "name"/);
  });

  it("uses the OpenAPI default for an omitted key field (ports protocol TCP)", () => {
    const j = job(1);
    j["spec"].template.spec.containers[0].ports = [{ containerPort: 80 }];
    const s = toFieldSet(j, jobSchema);
    expect(s.has(["f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"c"}', "f:ports", 'k:{"containerPort":80,"protocol":"TCP"}'])).toBe(true);
  });

  it("merges sets and associative lists, replaces atomic lists", () => {
    const live = { spec: { volumeLifecycleModes: ["Persistent"], tokenRequests: [{ audience: "a" }, { audience: "b" }] } };
    const cfg = { spec: { volumeLifecycleModes: ["Ephemeral"], tokenRequests: [{ audience: "c" }] } };
    expect(mergeApplied(live, cfg, driverSchema)).toEqual({ spec: { volumeLifecycleModes: ["Persistent", "Ephemeral"], tokenRequests: [{ audience: "c" }] } });
    const l = { spec: { template: { spec: { containers: [{ name: "a", image: "1" }, { name: "b", image: "2" }, { name: "c", image: "3" }] } } } };
    const r = { spec: { template: { spec: { containers: [{ name: "c", image: "33" }, { name: "a", image: "11" }] } } } };
    const merged = mergeApplied(l, r, jobSchema) as Json;
    expect(merged["spec"].template.spec.containers).toEqual([{ name: "b", image: "2" }, { name: "c", image: "33" }, { name: "a", image: "11" }]);
    expect(mergeApplied({ a: 1, b: 2 }, { b: null, c: 3 }, deducedTypeSchema)).toEqual({ a: 1, c: 3 });
  });

  it("compare reports added, modified and removed fields; maps added get their own path", () => {
    const before = { metadata: { name: "x" }, spec: { parallelism: 1, completions: 2 } };
    const after = { metadata: { name: "x", labels: { a: "b" } }, spec: { parallelism: 3 } };
    const c = compareObjects(before, after, jobSchema);
    expect(c.added.toFieldsV1()).toEqual({ "f:metadata": { "f:labels": { ".": {}, "f:a": {} } } });
    expect(c.modified.toFieldsV1()).toEqual({ "f:spec": { "f:parallelism": {} } });
    expect(c.removed.toFieldsV1()).toEqual({ "f:spec": { "f:completions": {} } });
  });
});

describe("recordUpdate", () => {
  it("a create records the manager's Update entry over the whole object", () => {
    const out = recordUpdate(null, job(2), "kubectl-create", jobOpts());
    expect(out["metadata"].managedFields).toEqual([
      {
        manager: "kubectl-create",
        operation: "Update",
        apiVersion: "batch/v1",
        time: "2026-01-02T03:04:05Z",
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
          "f:spec": {
            "f:parallelism": {},
            "f:template": { "f:spec": { "f:containers": { 'k:{"name":"c"}': { ".": {}, "f:image": {}, "f:name": {} } }, "f:restartPolicy": {} } },
          },
        },
      },
    ]);
  });

  it("adoptNext gives the same object without changing next; other managers' entries keep their JSON, a hand-written one is re-encoded", () => {
    const created = recordUpdate(null, job(2), "kubectl-create", jobOpts());
    const next = JSON.parse(JSON.stringify(created)) as Json;
    next["status"] = { active: 1 };
    next["metadata"].labels.tier = "x";
    const snapshot = JSON.stringify(next);
    const copied = recordUpdate(created, next, "job-controller", jobOpts(t1, "status"));
    const adopted = recordUpdate(created, next, "job-controller", { ...jobOpts(t1, "status"), adoptNext: true });
    expect(JSON.stringify(next)).toBe(snapshot);
    expect(adopted).toEqual(copied);
    expect(adopted["metadata"]).not.toBe(next["metadata"]);
    expect(adopted["status"]).toBe(next["status"]);
    // kubectl-create loses none of its fields: its entry is the JSON sent, not a copy.
    const entries = adopted["metadata"].managedFields as Json[];
    expect(entries.map((e) => e["manager"])).toEqual(["kubectl-create", "job-controller"]);
    expect(entries[0]!["fieldsV1"]).toBe((next["metadata"].managedFields as Json[])[0]!["fieldsV1"]);
    expect(entries[1]!["fieldsV1"]).toEqual({ "f:metadata": { "f:labels": { "f:tier": {} } }, "f:status": { "f:active": {} } });
    // An entry sent in another key order is written back in Kubernetes' order.
    const unordered = JSON.parse(JSON.stringify(created)) as Json;
    const f = (unordered["metadata"].managedFields as Json[])[0]!["fieldsV1"] as Json;
    (unordered["metadata"].managedFields as Json[])[0]!["fieldsV1"] = { "f:spec": f["f:spec"], "f:metadata": f["f:metadata"] };
    const rewritten = recordUpdate(created, unordered, "kubectl-edit", { ...jobOpts(t1), adoptNext: true });
    expect(Object.keys((rewritten["metadata"].managedFields as Json[])[0]!["fieldsV1"] as Json)).toEqual(["f:metadata", "f:spec"]);
  });

  it("an unchanged spec and metadata add nothing; a change deep inside them is still found", () => {
    const before = job(2);
    const after = JSON.parse(JSON.stringify(before)) as Json;
    after["status"] = { active: 1 };
    expect(compareObjects(before, after, jobSchema).added.toFieldsV1()).toEqual({ "f:status": { "f:active": {} } });
    after["spec"].template.spec.containers[0].image = "nginx";
    const cmp = compareObjects(before, after, jobSchema);
    expect(cmp.modified.toFieldsV1()).toEqual({ "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"c"}': { "f:image": {} } } } } } });
    expect(cmp.removed.empty()).toBe(true);
  });

  it("a pointer struct set to {} is the writer's field; value structs (metadata, spec, status, template) are not", () => {
    const j = job(2);
    j["spec"].template = { metadata: {}, spec: { ...j["spec"].template.spec, securityContext: {}, containers: [{ name: "c", image: "busybox", resources: {} }] } };
    j["status"] = {};
    const fields = (recordUpdate(null, j, "kubectl-create", jobOpts())["metadata"].managedFields as Json[])[0]!["fieldsV1"] as Json;
    const podSpec = fields["f:spec"]["f:template"];
    expect(Object.keys(podSpec)).toEqual(["f:spec"]);
    expect(podSpec["f:spec"]["f:securityContext"]).toEqual({});
    expect(podSpec["f:spec"]["f:containers"]["."]).toBeUndefined();
    expect(podSpec["f:spec"]["f:containers"]['k:{"name":"c"}']["f:resources"]).toEqual({});
    expect(fields["f:status"]).toBeUndefined();
  });

  it("an update takes the changed fields from their owner; a no-op changes nothing", () => {
    const created = recordUpdate(null, job(2), "a", jobOpts());
    const next = { ...created, spec: { ...created["spec"], parallelism: 5 } };
    const updated = recordUpdate(created, next, "b", jobOpts(t1));
    const mf = updated["metadata"].managedFields as Json[];
    expect(mf.map((e) => e["manager"])).toEqual(["a", "b"]);
    expect(mf[0]!["fieldsV1"]["f:spec"]["f:parallelism"]).toBeUndefined();
    expect(mf[1]!["fieldsV1"]).toEqual({ "f:spec": { "f:parallelism": {} } });
    expect(mf[1]!["time"]).toBe("2026-01-02T03:05:00Z");
    const again = recordUpdate(updated, updated, "c", jobOpts(t1));
    expect(again["metadata"].managedFields).toEqual(mf);
  });

  it("status is never owned through the main resource; spec never through status", () => {
    const created = recordUpdate(null, { ...job(1), status: { active: 1 } }, "a", jobOpts());
    expect(JSON.stringify(created["metadata"].managedFields)).not.toContain("f:status");
    const st = recordUpdate(created, { ...created, spec: { parallelism: 9 }, status: { active: 2 } }, "ctl", jobOpts(t1, "status"));
    const entry = (st["metadata"].managedFields as Json[]).find((e) => e["manager"] === "ctl")!;
    expect(entry).toMatchObject({ subresource: "status", operation: "Update", fieldsV1: { "f:status": { "f:active": {} } } });
  });

  it("honours managedFields in the request, keeps live ones when the request has none, resets with [{}]", () => {
    const created = recordUpdate(null, job(2), "a", jobOpts());
    const given = [{ manager: "z", operation: "Update", apiVersion: "batch/v1", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:parallelism": {} } } }];
    const honoured = recordUpdate(created, { ...created, metadata: { ...created["metadata"], managedFields: given } }, "b", jobOpts());
    expect(honoured["metadata"].managedFields).toEqual(given);
    const kept = recordUpdate(created, { ...created, metadata: { ...created["metadata"], managedFields: [] } }, "b", jobOpts());
    expect(kept["metadata"].managedFields).toEqual(created["metadata"].managedFields);
    const invalid = recordUpdate(created, { ...created, metadata: { ...created["metadata"], managedFields: [{ manager: "x", fieldsType: "bogus" }] } }, "b", jobOpts());
    expect(invalid["metadata"].managedFields).toEqual(created["metadata"].managedFields);
    const reset = recordUpdate(created, { ...created, metadata: { ...created["metadata"], managedFields: [{}] } }, "b", jobOpts());
    expect(reset["metadata"].managedFields).toBeUndefined();
  });

  it("an existing object without entries gets none from updates (1.23 tracks it again from its next apply)", () => {
    const created = recordUpdate(null, job(2), "a", jobOpts());
    const reset = recordUpdate(created, { ...created, spec: { ...created["spec"], parallelism: 3 }, metadata: { ...created["metadata"], managedFields: [{}] } }, "b", jobOpts());
    expect(reset["metadata"].managedFields).toBeUndefined();
    expect(reset["spec"].parallelism).toBe(3);
    const later = recordUpdate(reset, { ...reset, spec: { ...reset["spec"], parallelism: 4 } }, "c", jobOpts(t1));
    expect(later["metadata"].managedFields).toBeUndefined();
  });

  it("caps Update entries at 10: the oldest of each apiVersion fold into ancient-changes", () => {
    let o = recordUpdate(null, job(1), "m0", jobOpts(new Date("2026-01-01T00:00:00Z")));
    // Eleven more managers, each owning a label of its own, a second apart; m3 writes as batch/v2
    // (another version: its own bucket would only form with a second v2 entry).
    for (let i = 1; i <= 11; i++) {
      const now = new Date(Date.UTC(2026, 0, 1, 0, 0, i));
      const opts = i === 3 ? { ...jobOpts(now), apiVersion: "batch/v2" } : jobOpts(now);
      o = recordUpdate(o, { ...o, metadata: { ...o["metadata"], labels: { ...o["metadata"].labels, [`l${i}`]: "x" } } }, `m${i}`, opts);
      expect((o["metadata"].managedFields as Json[]).length).toBeLessThanOrEqual(10);
    }
    const entries = o["metadata"].managedFields as Json[];
    const managers = entries.map((e) => e["manager"] as string);
    expect(managers).toHaveLength(10);
    expect(managers).toContain("ancient-changes");
    expect(managers).toContain("m3");
    for (const gone of ["m0", "m1", "m2"]) expect(managers).not.toContain(gone);
    const ancient = entries.find((e) => e["manager"] === "ancient-changes")!;
    expect(ancient).toMatchObject({ operation: "Update", apiVersion: "batch/v1", time: "2026-01-01T00:00:02Z" });
    // The folded entries' fields are the bucket's: m0 created the Job, m1 and m2 added labels.
    expect(ancient["fieldsV1"]["f:spec"]).toBeDefined();
    expect(Object.keys(ancient["fieldsV1"]["f:metadata"]["f:labels"])).toEqual(expect.arrayContaining(["f:l1", "f:l2", "f:app"]));
  });
});

describe("applyConfiguration", () => {
  it("the first apply to an untracked object makes its fields before-first-apply's, which can conflict", () => {
    const created = recordUpdate(null, job(2), "a", jobOpts());
    const untracked = { ...created, metadata: { ...created["metadata"] } };
    delete untracked["metadata"].managedFields;
    const out = applyConfiguration(untracked, { apiVersion: "batch/v1", kind: "Job", metadata: { name: "pi", labels: { app: "pi", tier: "web" } } }, "kubectl", false, jobOpts(t1));
    const entries = out["metadata"].managedFields as Json[];
    expect(entries.map((e) => [e["manager"], e["operation"]])).toEqual([["kubectl", "Apply"], ["before-first-apply", "Update"]]);
    expect(entries[1]!["fieldsV1"]["f:spec"]["f:parallelism"]).toEqual({});
    expect(() => applyConfiguration(untracked, { ...job(5), metadata: { name: "pi" } }, "kubectl", false, jobOpts(t1))).toThrow(ApplyConflictError);
    expect(() => applyConfiguration(untracked, { ...job(5), metadata: { name: "pi" } }, "kubectl", false, jobOpts(t1))).toThrow(/before-first-apply/);
  });

  it("apply to a missing object creates it with an Apply entry", () => {
    const out = applyConfiguration(null, job(2), "kubectl", false, jobOpts());
    expect(out["spec"].parallelism).toBe(2);
    expect(out["metadata"].name).toBe("pi");
    expect(out["metadata"].managedFields).toHaveLength(1);
    expect(out["metadata"].managedFields[0]).toMatchObject({ manager: "kubectl", operation: "Apply", apiVersion: "batch/v1", fieldsType: "FieldsV1" });
    expect(out["metadata"].managedFields[0].fieldsV1["f:spec"]["f:parallelism"]).toEqual({});
  });

  it("conflicts with another manager's differing field, in Kubernetes' wording; force takes ownership", () => {
    const live = applyConfiguration(null, job(2), "a", false, jobOpts());
    let err: unknown;
    try {
      applyConfiguration(live, job(3), "b", false, jobOpts(t1));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApplyConflictError);
    expect((err as ApplyConflictError).message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.parallelism');
    expect((err as ApplyConflictError).conflicts).toEqual([{ manager: '"a"', field: ".spec.parallelism" }]);
    // Same values: shared ownership, no conflict.
    const shared = applyConfiguration(live, job(2), "b", false, jobOpts(t1));
    expect((shared["metadata"].managedFields as Json[]).map((e) => e["manager"])).toEqual(["a", "b"]);
    const forced = applyConfiguration(live, job(3), "b", true, jobOpts(t1));
    expect(forced["spec"].parallelism).toBe(3);
    const a = (forced["metadata"].managedFields as Json[]).find((e) => e["manager"] === "a")!;
    expect(a["fieldsV1"]["f:spec"]["f:parallelism"]).toBeUndefined();
  });

  it("names several conflicts by manager, Update managers with their apiVersion", () => {
    const live = recordUpdate(null, job(2, "x"), "kubectl-client-side-apply", jobOpts());
    expect(() => applyConfiguration(live, job(3, "y"), "b", false, jobOpts(t1))).toThrow(
      'Apply failed with 2 conflicts: conflicts with "kubectl-client-side-apply" using batch/v1:\n- .spec.parallelism\n- .spec.template.spec.containers[name="c"].image',
    );
  });

  it("removes fields the manager applied before and no longer applies, unless another owns them", () => {
    const withCompletions = { ...job(2), spec: { ...job(2)["spec"], completions: 4, backoffLimit: 1 } };
    let live = applyConfiguration(null, withCompletions, "a", false, jobOpts());
    live = recordUpdate(live, { ...live, spec: { ...live["spec"], backoffLimit: 2 } }, "editor", jobOpts(t1));
    const out = applyConfiguration(live, job(2), "a", false, jobOpts(t1));
    expect(out["spec"].completions).toBeUndefined();
    expect(out["spec"].backoffLimit).toBe(2);
    const cfgWithoutLabel = job(2);
    delete cfgWithoutLabel["metadata"].labels;
    const out2 = applyConfiguration(out, cfgWithoutLabel, "a", false, jobOpts(t1));
    expect(out2["metadata"].labels).toEqual({});
  });

  it("re-applying the same configuration keeps a list the manager owns as a member (f:env with '.')", () => {
    const cfg = job(1);
    cfg["spec"].template.spec.containers[0].env = [{ name: "A", value: "1" }];
    // Ownership as a client-side-apply migration leaves it: the env list itself is a member.
    const live = recordUpdate(null, cfg, "kubectl", jobOpts());
    const migrated = { ...live, metadata: { ...live["metadata"], managedFields: live["metadata"].managedFields.map((e: Json) => ({ ...e, operation: "Apply" })) } };
    expect(JSON.stringify(migrated["metadata"].managedFields)).toContain('"f:env":{".":{}');
    const out = applyConfiguration(migrated, cfg, "kubectl", false, jobOpts(t1));
    expect(out["spec"].template.spec.containers[0].env).toEqual([{ name: "A", value: "1" }]);
  });

  it("refuses managedFields in the configuration", () => {
    const cfg = { ...job(1), metadata: { name: "pi", managedFields: [] } };
    expect(() => applyConfiguration(null, cfg, "a", false, jobOpts())).toThrow(ApplyRequestError);
    expect(() => applyConfiguration(null, cfg, "a", false, jobOpts())).toThrow("metadata.managedFields must be nil");
  });

  it("sets: each applier owns its own items", () => {
    const opts: FieldManagerOptions = { schema: driverSchema, apiVersion: "storage.example.io/v1", now: t0 };
    const base = { apiVersion: "storage.example.io/v1", kind: "CSIDriver", metadata: { name: "d" } };
    const a = applyConfiguration(null, { ...base, spec: { volumeLifecycleModes: ["Persistent"] } }, "a", false, opts);
    const b = applyConfiguration(a, { ...base, spec: { volumeLifecycleModes: ["Ephemeral"] } }, "b", false, opts);
    expect((b["spec"] as Json)["volumeLifecycleModes"]).toEqual(["Persistent", "Ephemeral"]);
    const bEntry = (b["metadata"] as Json)["managedFields"].find((e: Json) => e["manager"] === "b");
    expect(bEntry.fieldsV1).toEqual({ "f:spec": { "f:volumeLifecycleModes": { 'v:"Ephemeral"': {} } } });
  });
});

describe("decode/encode managedFields", () => {
  it("sorts Apply before Update, then time, then manager", () => {
    const fields = parseFieldsV1({ "f:a": {} });
    const enc = encodeManagedFields([
      { manager: "z", operation: "Update", apiVersion: "v1", subresource: "", time: "2020-01-01T00:00:00Z", fields },
      { manager: "b", operation: "Update", apiVersion: "v1", subresource: "", time: "2019-01-01T00:00:00Z", fields },
      { manager: "y", operation: "Apply", apiVersion: "v1", subresource: "", time: "2021-01-01T00:00:00Z", fields },
      { manager: "empty", operation: "Apply", apiVersion: "v1", subresource: "", fields: parseFieldsV1({}) },
    ]);
    expect(enc.map((e) => e.manager)).toEqual(["y", "b", "z"]);
    const dec = decodeManagedFields(enc);
    expect(dec.ok && dec.value.map((r) => r.manager)).toEqual(["y", "b", "z"]);
    expect(decodeManagedFields("x").ok).toBe(false);
    expect(decodeManagedFields([{ manager: "a", operation: "Delete", fieldsType: "FieldsV1" }]).ok).toBe(false);
    expect(decodeManagedFields([{ manager: "a", operation: "Apply", fieldsType: "FieldsV1", fieldsV1: { bad: {} } }]).ok).toBe(false);
  });
});
