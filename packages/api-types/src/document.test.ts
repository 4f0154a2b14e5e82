import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as constants from "./constants.js";
import type { GroupVersionKind } from "./constants.js";
import { apiVersionOf } from "./api-version.js";
import { findResource, resources } from "./resources.js";

interface Schema {
  type?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  allOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  default?: unknown;
  format?: string;
  $ref?: string;
  [extension: `x-${string}`]: unknown;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
  "x-kubernetes-action"?: string;
  "x-kubernetes-group-version-kind"?: GroupVersionKind;
}
interface Document {
  openapi: string;
  paths: Record<string, Partial<Record<"get" | "put" | "post" | "patch" | "delete", Operation>>>;
  components: { schemas: Record<string, Schema> };
}

const document = JSON.parse(readFileSync(new URL("../openapi.json", import.meta.url), "utf8")) as Document;
const schemas = document.components.schemas;
const GVK = "x-kubernetes-group-version-kind";
const refName = (ref: string) => ref.replace("#/components/schemas/", "");
const gvksOf = (schema: Schema) => (schema[GVK] as GroupVersionKind[] | undefined) ?? [];
const sameGVK = (a: GroupVersionKind, b: GroupVersionKind) => a.group === b.group && a.version === b.version && a.kind === b.kind;
const schemaWithGVK = (gvk: GroupVersionKind) => Object.entries(schemas).find(([, s]) => gvksOf(s).some((g) => sameGVK(g, gvk)));

function* walk(value: unknown, path: string): Generator<[string, Record<string, unknown>]> {
  if (value === null || typeof value !== "object") return;
  if (!Array.isArray(value)) yield [path, value as Record<string, unknown>];
  for (const [key, child] of Object.entries(value)) yield* walk(child, `${path}/${key}`);
}

function resolvePointer(pointer: string): unknown {
  if (!pointer.startsWith("#/")) return undefined;
  let node: unknown = document;
  for (const raw of pointer.slice(2).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ path, method, op: op as Operation })),
);

describe("document structure", () => {
  it("is OpenAPI 3.0 and every $ref resolves", () => {
    expect(document.openapi).toBe("3.0.0");
    const refs = [...walk(document, "#")].filter(([, node]) => typeof node.$ref === "string");
    expect(refs.length).toBeGreaterThan(300);
    const broken = refs.filter(([, node]) => resolvePointer(node.$ref as string) === undefined).map(([path, node]) => `${path}: ${String(node.$ref)}`);
    expect(broken).toEqual([]);
  });

  it("names schemas after Kubernetes' scheme with `example` for `k8s`", () => {
    for (const name of Object.keys(schemas)) expect(name).toMatch(/^io\.example\.(api\.[a-z]+\.v1|apimachinery\.pkg\.[a-z0-9.]+)\.[A-Za-z0-9]+$/);
    expect(schemas).toHaveProperty(["io.example.api.batch.v1.Job"]);
    expect(schemas).toHaveProperty(["io.example.api.storage.v1.CSIDriver"]);
    expect(schemas).toHaveProperty(["io.example.apimachinery.pkg.apis.meta.v1.ObjectMeta"]);
  });

  // A kind schema has `apiVersion` and `kind` members; the two reference types have them too but
  // describe the object they point at.
  const references = new Set(["io.example.apimachinery.pkg.apis.meta.v1.OwnerReference", "io.example.api.core.v1.ObjectReference"]);
  const isKind = (name: string, schema: Schema) => !references.has(name) && schema.properties?.kind !== undefined && schema.properties.apiVersion !== undefined;

  it("gives every kind schema its x-kubernetes-group-version-kind", () => {
    const kinds = Object.entries(schemas).filter(([name, s]) => isKind(name, s));
    expect(kinds.length).toBeGreaterThanOrEqual(30);
    for (const [name, schema] of kinds) {
      const gvks = gvksOf(schema);
      expect(gvks.length, name).toBeGreaterThan(0);
      for (const g of gvks) {
        expect(Object.keys(g).sort(), name).toEqual(["group", "kind", "version"]);
        expect(name.endsWith(`.${g.kind}`), `${name} is tagged ${g.kind}`).toBe(true);
      }
      // apiVersion and kind stay optional, as in Kubernetes.
      expect(schema.required ?? [], name).not.toContain("apiVersion");
      expect(schema.required ?? [], name).not.toContain("kind");
    }
    // Other schemas carry none.
    for (const [name, schema] of Object.entries(schemas)) if (!isKind(name, schema)) expect(schema[GVK], name).toBeUndefined();
  });

  it("keeps the core group as \"\" and the review groups verbatim", () => {
    expect(gvksOf(schemas["io.example.api.core.v1.Pod"]!)).toEqual([{ group: "", version: "v1", kind: "Pod" }]);
    expect(gvksOf(schemas["io.example.api.authentication.v1.TokenReview"]!)[0]?.group).toBe("authentication.k8s.io");
    expect(gvksOf(schemas["io.example.apimachinery.pkg.apis.meta.v1.Table"]!)[0]?.group).toBe("meta.k8s.io");
  });

  it("describes every schema and every property, and links schemas through allOf", () => {
    const problems: string[] = [];
    for (const [name, schema] of Object.entries(schemas)) {
      if (!schema.description) problems.push(`${name}: no description`);
      for (const [prop, p] of Object.entries(schema.properties ?? {})) {
        const at = `${name}.${prop}`;
        if (!p.description) problems.push(`${at}: no description`);
        if (p.$ref) problems.push(`${at}: bare $ref (write allOf: [{$ref}] so it can carry a description)`);
        if (p.allOf && (p.allOf.length !== 1 || !p.allOf[0]?.$ref)) problems.push(`${at}: allOf must hold exactly one $ref`);
        if (!p.allOf && !p.type) problems.push(`${at}: neither a type nor a link`);
      }
      for (const req of schema.required ?? []) if (!schema.properties?.[req]) problems.push(`${name}: required ${req} is not a property`);
    }
    expect(problems).toEqual([]);
  });

  it("uses the Kubernetes formats and keeps enums and defaults consistent", () => {
    const problems: string[] = [];
    for (const [at, node] of walk(schemas, "")) {
      if (node.type === "integer" && node.format !== "int32" && node.format !== "int64") problems.push(`${at}: integer without int32/int64`);
      if (typeof node.format === "string" && !["int32", "int64", "date-time", "byte"].includes(node.format)) problems.push(`${at}: format ${node.format}`);
      if (Array.isArray(node.enum) && node.default !== undefined && !node.enum.includes(node.default)) problems.push(`${at}: default not in enum`);
    }
    expect(problems).toEqual([]);
    expect(schemas["io.example.apimachinery.pkg.apis.meta.v1.Time"]).toMatchObject({ type: "string", format: "date-time" });
    expect(schemas["io.example.apimachinery.pkg.api.resource.Quantity"]).toMatchObject({ "x-kubernetes-int-or-string": true });
  });

  it("marks the required fields Kubernetes 1.23 requires", () => {
    const required = (name: string) => schemas[name]?.required ?? [];
    expect(required("io.example.api.batch.v1.JobSpec")).toEqual(["template"]);
    expect(required("io.example.api.batch.v1.JobCondition")).toEqual(["type", "status"]);
    expect(required("io.example.api.batch.v1.JobList")).toEqual(["items"]);
    expect(required("io.example.api.storage.v1.CSIDriver")).toEqual(["spec"]);
    expect(required("io.example.api.storage.v1.CSINode")).toEqual(["spec"]);
    expect(required("io.example.api.storage.v1.CSINodeSpec")).toEqual(["drivers"]);
    expect(required("io.example.api.storage.v1.CSINodeDriver")).toEqual(["name", "nodeID"]);
    expect(required("io.example.api.storage.v1.TokenRequest")).toEqual(["audience"]);
    expect(required("io.example.api.core.v1.PodSpec")).toEqual(["containers"]);
    expect(required("io.example.api.core.v1.Container")).toEqual(["name"]);
    expect(required("io.example.api.core.v1.Event")).toEqual(["metadata", "involvedObject"]);
    expect(required("io.example.apimachinery.pkg.apis.meta.v1.OwnerReference")).toEqual(["apiVersion", "kind", "name", "uid"]);
    expect(required("io.example.api.batch.v1.Job")).toEqual([]);
    expect(required("io.example.apimachinery.pkg.apis.meta.v1.ObjectMeta")).toEqual([]);
  });
});

describe("merge rules (Kubernetes 1.23)", () => {
  const extensionsOf = (schema: Schema | undefined) =>
    Object.fromEntries(Object.entries(schema ?? {}).filter(([k]) => k.startsWith("x-kubernetes-") && k !== GVK && k !== "x-kubernetes-int-or-string"));
  const prop = (schema: string, property: string) => extensionsOf(schemas[schema]?.properties?.[property]);
  const merge = (key: string) => ({ "x-kubernetes-patch-merge-key": key, "x-kubernetes-patch-strategy": "merge" });

  it.each([
    ["io.example.api.batch.v1.JobStatus", "conditions", { ...merge("type"), "x-kubernetes-list-type": "atomic" }],
    ["io.example.api.batch.v1.UncountedTerminatedPods", "succeeded", { "x-kubernetes-list-type": "set" }],
    ["io.example.api.batch.v1.UncountedTerminatedPods", "failed", { "x-kubernetes-list-type": "set" }],
    ["io.example.api.storage.v1.CSINodeSpec", "drivers", merge("name")],
    ["io.example.api.storage.v1.CSIDriverSpec", "volumeLifecycleModes", { "x-kubernetes-list-type": "set" }],
    ["io.example.api.storage.v1.CSIDriverSpec", "tokenRequests", { "x-kubernetes-list-type": "atomic" }],
    ["io.example.api.core.v1.PodSpec", "containers", merge("name")],
    ["io.example.api.core.v1.PodSpec", "initContainers", merge("name")],
    ["io.example.api.core.v1.PodSpec", "volumes", { "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge,retainKeys" }],
    ["io.example.api.core.v1.PodSpec", "tolerations", {}],
    ["io.example.api.core.v1.PodSpec", "nodeSelector", { "x-kubernetes-map-type": "atomic" }],
    ["io.example.api.core.v1.Container", "env", merge("name")],
    [
      "io.example.api.core.v1.Container",
      "ports",
      { ...merge("containerPort"), "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["containerPort", "protocol"] },
    ],
    ["io.example.api.core.v1.Container", "volumeMounts", merge("mountPath")],
    ["io.example.api.core.v1.PodStatus", "conditions", merge("type")],
    ["io.example.api.core.v1.PodStatus", "podIPs", merge("ip")],
    ["io.example.api.core.v1.NodeStatus", "conditions", merge("type")],
    ["io.example.api.core.v1.NodeStatus", "addresses", merge("type")],
    ["io.example.api.core.v1.NodeSpec", "taints", {}],
    ["io.example.api.core.v1.NodeSpec", "podCIDRs", { "x-kubernetes-patch-strategy": "merge" }],
    ["io.example.apimachinery.pkg.apis.meta.v1.ObjectMeta", "finalizers", { "x-kubernetes-patch-strategy": "merge" }],
    ["io.example.apimachinery.pkg.apis.meta.v1.ObjectMeta", "ownerReferences", merge("uid")],
    ["io.example.apimachinery.pkg.apis.meta.v1.ObjectMeta", "managedFields", {}],
  ] as const)("%s.%s", (schema, property, expected) => {
    expect(prop(schema, property)).toEqual(expected);
  });

  it("marks atomic structs as Kubernetes 1.23 does", () => {
    for (const name of [
      "io.example.apimachinery.pkg.apis.meta.v1.LabelSelector",
      "io.example.apimachinery.pkg.apis.meta.v1.OwnerReference",
      "io.example.api.core.v1.ObjectReference",
      "io.example.api.core.v1.LocalObjectReference",
      "io.example.api.core.v1.NodeSelector",
      "io.example.api.core.v1.NodeSelectorTerm",
      "io.example.api.core.v1.ObjectFieldSelector",
    ])
      expect(extensionsOf(schemas[name]), name).toEqual({ "x-kubernetes-map-type": "atomic" });
  });

  it("uses only valid merge-rule values", () => {
    const problems: string[] = [];
    for (const [at, node] of walk(schemas, "")) {
      const strategy = node["x-kubernetes-patch-strategy"];
      const key = node["x-kubernetes-patch-merge-key"];
      const listType = node["x-kubernetes-list-type"];
      if (strategy !== undefined && !["merge", "retainKeys", "merge,retainKeys", "replace"].includes(strategy as string)) problems.push(`${at}: strategy ${String(strategy)}`);
      if (key !== undefined && !String(strategy).includes("merge")) problems.push(`${at}: merge key without merge strategy`);
      if (key !== undefined && typeof (node.items as Schema | undefined)?.$ref !== "string") problems.push(`${at}: merge key on a list of scalars`);
      if (listType !== undefined && !["atomic", "set", "map"].includes(listType as string)) problems.push(`${at}: list type ${String(listType)}`);
      if ((listType === "map") !== (node["x-kubernetes-list-map-keys"] !== undefined)) problems.push(`${at}: list-map-keys must go with list type map`);
      const mapType = node["x-kubernetes-map-type"];
      if (mapType !== undefined && mapType !== "atomic" && mapType !== "granular") problems.push(`${at}: map type ${String(mapType)}`);
    }
    expect(problems).toEqual([]);
  });
});

describe("GroupVersionKind constants", () => {
  const gvkConstants = Object.entries(constants).filter(([name]) => name.endsWith("GVK")) as [string, GroupVersionKind][];

  it("each appears in the document, on the schema of its kind", () => {
    expect(gvkConstants.length).toBeGreaterThanOrEqual(30);
    for (const [name, gvk] of gvkConstants) {
      expect(name).toBe(`${gvk.kind}GVK`);
      const found = schemaWithGVK(gvk);
      expect(found, `${name} ${apiVersionOf(gvk)} ${gvk.kind}`).toBeDefined();
      expect(found?.[0].endsWith(`.${gvk.kind}`)).toBe(true);
      expect(Object.isFrozen(gvk)).toBe(true);
    }
  });

  it("every kind of the document has its constant", () => {
    const byName = new Map(gvkConstants);
    for (const [name, schema] of Object.entries(schemas)) {
      const gvks = gvksOf(schema);
      if (gvks.length === 0) continue;
      const constant = byName.get(`${gvks[0]!.kind}GVK`);
      expect(constant, `no constant for ${name}`).toBeDefined();
      expect(gvks.some((g) => sameGVK(g, constant!)), name).toBe(true);
    }
  });
});

describe("resource table ↔ document", () => {
  const prefixOf = (group: string, version: string) => (group === "" ? `/api/${version}` : `/apis/${group}/${version}`);
  const reviewKinds = new Set(["TokenReview", "SelfSubjectReview", "SubjectAccessReview", "SelfSubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectRulesReview"]);

  it.each(resources.map((r) => [r.plural, r] as const))("%s: kind and list kind have schemas with their GVK", (_, r) => {
    expect(schemaWithGVK(r)).toBeDefined();
    expect(schemaWithGVK({ group: r.group, version: r.version, kind: r.listKind })).toBeDefined();
    const list = schemaWithGVK({ group: r.group, version: r.version, kind: r.listKind })![1];
    expect(list.properties?.items?.items?.$ref).toBe(`#/components/schemas/${schemaWithGVK(r)![0]}`);
  });

  it.each(resources.map((r) => [r.plural, r] as const))("%s: paths and operations match scope, verbs and subresources", (_, r) => {
    const base = r.namespaced ? `${prefixOf(r.group, r.version)}/namespaces/{namespace}/${r.plural}` : `${prefixOf(r.group, r.version)}/${r.plural}`;
    const collection = document.paths[base];
    const item = document.paths[`${base}/{name}`];
    expect(collection, base).toBeDefined();
    expect(item, `${base}/{name}`).toBeDefined();
    expect(document.paths[`${prefixOf(r.group, r.version)}/${r.plural}`]?.get !== undefined).toBe(r.verbs.includes("list"));
    const verbs = new Map([
      ["list", collection?.get],
      ["create", collection?.post],
      ["deletecollection", collection?.delete],
      ["get", item?.get],
      ["update", item?.put],
      ["patch", item?.patch],
      ["delete", item?.delete],
    ] as const);
    for (const [verb, op] of verbs) {
      expect(op !== undefined, `${r.plural} ${verb}`).toBe(r.verbs.includes(verb));
      if (op) expect(op["x-kubernetes-group-version-kind"]).toEqual({ group: r.group, version: r.version, kind: r.kind });
    }
    const listParams = collection?.get?.parameters?.map((p) => p.name) ?? [];
    expect(listParams.includes("watch")).toBe(r.verbs.includes("watch"));
    for (const sub of r.subresources) expect(document.paths[`${base}/{name}/${sub}`], sub).toBeDefined();
    const subPaths = Object.keys(document.paths).filter((p) => p.startsWith(`${base}/{name}/`));
    expect(subPaths.map((p) => p.slice(`${base}/{name}/`.length)).sort()).toEqual([...r.subresources].sort());
    for (const op of operations.filter((o) => o.path === base || o.path.startsWith(`${base}/{name}`)).map((o) => o.op))
      expect(op.parameters?.some((p) => p.name === "namespace" && p.in === "path")).toBe(r.namespaced);
  });

  it("every resource operation of the document belongs to a table entry (or a review kind, or the pod binding, eviction or connect options)", () => {
    for (const { path, op } of operations) {
      const gvk = op["x-kubernetes-group-version-kind"];
      if (!gvk) {
        expect(path.endsWith("/"), `${path} has no GVK`).toBe(true);
        continue;
      }
      if (reviewKinds.has(gvk.kind) || (gvk.kind === "Binding" && path.endsWith("/binding")) || (gvk.kind === "Eviction" && path.endsWith("/eviction"))) continue;
      if (/^Pod(Exec|Attach|PortForward)Options$/.test(gvk.kind) && /\/pods\/\{name\}\/(exec|attach|portforward)$/.test(path)) continue;
      expect(findResource({ kind: gvk.kind, group: gvk.group, version: gvk.version }), path).toBeDefined();
      expect(path.startsWith(prefixOf(gvk.group, gvk.version))).toBe(true);
    }
  });

  it("describes every review kind the apiserver serves, LocalSubjectAccessReview in a namespace (1.23's paths and operation ids)", () => {
    const post = (path: string) => document.paths[path]?.post as { operationId?: string; parameters?: Array<{ name: string }>; requestBody?: unknown } | undefined;
    for (const [path, id] of [
      ["/apis/authentication.k8s.io/v1/tokenreviews", "createAuthenticationV1TokenReview"],
      ["/apis/authorization.k8s.io/v1/subjectaccessreviews", "createAuthorizationV1SubjectAccessReview"],
      ["/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "createAuthorizationV1SelfSubjectAccessReview"],
      ["/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", "createAuthorizationV1SelfSubjectRulesReview"],
      ["/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews", "createAuthorizationV1NamespacedLocalSubjectAccessReview"],
    ] as const) {
      expect(post(path)?.operationId, path).toBe(id);
    }
    expect(post("/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews")?.parameters?.map((p) => p.name)).toContain("namespace");
    expect(schemas["io.example.api.authorization.v1.SubjectRulesReviewStatus"]?.required).toEqual(["resourceRules", "nonResourceRules", "incomplete"]);
    expect(schemas["io.example.api.authentication.v1.TokenReviewStatus"]?.properties).toHaveProperty("audiences");
  });

  it("offers what kubectl needs: GVK and fieldValidation on every patch, the spec's query groups", () => {
    const patches = operations.filter((o) => o.method === "patch");
    expect(patches.length).toBeGreaterThan(10);
    for (const { path, op } of patches) {
      expect(op["x-kubernetes-group-version-kind"], path).toBeDefined();
      expect(op.parameters?.map((p) => p.name).sort(), path).toEqual(expect.arrayContaining(["dryRun", "fieldManager", "fieldValidation", "force", "pretty"]));
      expect(Object.keys(op.requestBody?.content ?? {}).sort()).toEqual([
        "application/apply-patch+yaml",
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
      ]);
    }
    const list = document.paths["/apis/batch/v1/namespaces/{namespace}/jobs"]?.get;
    expect(list?.parameters?.filter((p) => p.in === "query").map((p) => p.name)).toEqual([
      "allowWatchBookmarks",
      "continue",
      "fieldSelector",
      "labelSelector",
      "limit",
      "pretty",
      "resourceVersion",
      "resourceVersionMatch",
      "timeoutSeconds",
      "watch",
    ]);
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { op } of operations) expect(op.responses["401"]?.description).toBe("Unauthorized");
  });

  it("answers DELETE as Kubernetes 1.23: Status for jobs and leases, the object for CSIDrivers, pods and pod templates", () => {
    const deleted = (path: string) => refName(document.paths[path]?.delete?.responses["200"]?.content?.["application/json"]?.schema.$ref ?? "");
    expect(deleted("/apis/batch/v1/namespaces/{namespace}/jobs/{name}")).toBe("io.example.apimachinery.pkg.apis.meta.v1.Status");
    expect(deleted("/apis/storage.example.io/v1/csidrivers/{name}")).toBe("io.example.api.storage.v1.CSIDriver");
    expect(deleted("/apis/storage.example.io/v1/csinodes/{name}")).toBe("io.example.api.storage.v1.CSINode");
    expect(deleted("/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}")).toBe("io.example.apimachinery.pkg.apis.meta.v1.Status");
    expect(deleted("/api/v1/namespaces/{namespace}/podtemplates/{name}")).toBe("io.example.api.core.v1.PodTemplate");
    expect(deleted("/api/v1/namespaces/{namespace}/pods/{name}")).toBe("io.example.api.core.v1.Pod");
  });
});

describe("src/types.ts", () => {
  const typesSource = readFileSync(new URL("./types.ts", import.meta.url), "utf8");
  const indexSource = readFileSync(new URL("./index.ts", import.meta.url), "utf8");
  const aliases = [...typesSource.matchAll(/^export type (\w+) = Schemas\["([^"]+)"\];$/gm)].map((m) => [m[1]!, m[2]!] as const);

  it("has one alias per schema, named after the schema's last segment", () => {
    expect(aliases.map(([, full]) => full).sort()).toEqual(Object.keys(schemas).sort());
    for (const [short, full] of aliases) expect(full.endsWith(`.${short}`), full).toBe(true);
    expect(new Set(aliases.map(([short]) => short)).size).toBe(aliases.length);
  });

  it("every alias (and the raw OpenAPI types) is exported by name from index.ts", () => {
    for (const name of [...aliases.map(([short]) => short), "OpenAPIComponents", "OpenAPIPaths", "OpenAPIOperations"])
      expect(indexSource, name).toMatch(new RegExp(`^  ${name},$`, "m"));
  });
});
