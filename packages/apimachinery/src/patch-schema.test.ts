import { describe, expect, it } from "vitest";
import { PatchSchemaError, emptyPatchSchema, patchSchemaFromOpenAPI } from "./patch-schema.js";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const doc = {
  openapi: "3.0.0",
  components: {
    schemas: {
      "io.example.Pod": {
        type: "object",
        properties: {
          metadata: { allOf: [ref("io.example.ObjectMeta")], default: {} },
          spec: { allOf: [ref("io.example.PodSpec")] },
        },
      },
      "io.example.ObjectMeta": {
        type: "object",
        properties: {
          finalizers: { type: "array", items: { type: "string" }, "x-kubernetes-patch-strategy": "merge", "x-kubernetes-list-type": "set" },
          labels: { type: "object", additionalProperties: { type: "string" } },
        },
      },
      "io.example.PodSpec": {
        type: "object",
        properties: {
          containers: {
            type: "array",
            items: { allOf: [ref("io.example.Container")], default: {} },
            "x-kubernetes-patch-merge-key": "name",
            "x-kubernetes-patch-strategy": "merge",
          },
          volumes: { type: "array", items: ref("io.example.Volume"), "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge,retainKeys" },
          tolerations: { type: "array", items: ref("io.example.Toleration") },
          modes: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
          gates: { type: "array", items: ref("io.example.Gate"), "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] },
          ports: { type: "array", items: { type: "object" }, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"] },
          atomic: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "atomic" },
          strategy: { allOf: [ref("io.example.Strategy")], "x-kubernetes-patch-strategy": "retainKeys" },
          overrides: { type: "object", additionalProperties: { type: "array", items: { type: "string" }, "x-kubernetes-patch-strategy": "merge" } },
        },
      },
      "io.example.Container": {
        type: "object",
        properties: {
          name: { type: "string" },
          env: { type: "array", items: ref("io.example.EnvVar"), "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge" },
        },
      },
      "io.example.EnvVar": { type: "object", properties: { name: { type: "string" }, value: { type: "string" } } },
      "io.example.Volume": { type: "object", properties: { name: { type: "string" } } },
      "io.example.Toleration": { type: "object", properties: { key: { type: "string" } } },
      "io.example.Gate": { type: "object", properties: { name: { type: "string" } } },
      "io.example.Strategy": { type: "object", properties: { type: { type: "string" } } },
      "io.example.Props": {
        type: "object",
        properties: {
          items: { allOf: [ref("io.example.Props")] },
          allOf: { type: "array", items: ref("io.example.Props"), "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "id" },
        },
      },
      "io.example.Broken": { type: "object", properties: { x: ref("io.example.Missing"), y: { $ref: "http://elsewhere/x" } } },
    },
  },
};

describe("patchSchemaFromOpenAPI", () => {
  const pod = patchSchemaFromOpenAPI(doc, "io.example.Pod");
  const spec = pod.lookup("spec").schema;

  it("reads patch strategy and merge key through $ref and allOf", () => {
    expect(spec.lookup("containers").meta).toEqual({ strategies: ["merge"], mergeKey: "name" });
    expect(spec.lookup("volumes").meta).toEqual({ strategies: ["merge", "retainKeys"], mergeKey: "name" });
    expect(spec.lookup("strategy").meta).toEqual({ strategies: ["retainKeys"] });
    expect(pod.lookup("metadata").schema.lookup("finalizers").meta).toEqual({ strategies: ["merge"] });
  });

  it("descends into list elements and nested lists", () => {
    const container = spec.lookup("containers").schema;
    expect(container.lookup("env").meta).toEqual({ strategies: ["merge"], mergeKey: "name" });
    expect(container.lookup("env").schema.lookup("value").meta).toEqual({ strategies: [] });
  });

  it("answers for map values through additionalProperties", () => {
    expect(pod.lookup("metadata").schema.lookup("labels").schema.lookup("anything").meta).toEqual({ strategies: [] });
    expect(spec.lookup("overrides").schema.lookup("any-key").meta).toEqual({ strategies: ["merge"] });
  });

  it("gives unknown fields no metadata and an empty schema", () => {
    expect(spec.lookup("nope")).toEqual({ schema: emptyPatchSchema, meta: { strategies: [] } });
    expect(spec.lookup("tolerations").meta).toEqual({ strategies: [] });
    expect(emptyPatchSchema.lookup("x").schema.lookup("y").meta).toEqual({ strategies: [] });
  });

  it("reads only the patch extensions by default, as Kubernetes 1.23 does", () => {
    expect(spec.lookup("modes").meta).toEqual({ strategies: [] });
    expect(spec.lookup("gates").meta).toEqual({ strategies: [] });
    expect(spec.lookup("containers").meta).toEqual({ strategies: ["merge"], mergeKey: "name" });
  });

  it("derives list metadata from x-kubernetes-list-type when asked", () => {
    const inferred = patchSchemaFromOpenAPI(doc, "io.example.Pod", { inferFromListType: true }).lookup("spec").schema;
    expect(inferred.lookup("modes").meta).toEqual({ strategies: ["merge"] });
    expect(inferred.lookup("gates").meta).toEqual({ strategies: ["merge"], mergeKey: "name" });
    expect(inferred.lookup("ports").meta).toEqual({ strategies: [] });
    expect(inferred.lookup("atomic").meta).toEqual({ strategies: [] });
    expect(inferred.lookup("containers").meta).toEqual({ strategies: ["merge"], mergeKey: "name" });
    expect(inferred.lookup("strategy").meta).toEqual({ strategies: ["retainKeys"] });
  });

  it("handles recursive types lazily", () => {
    const props = patchSchemaFromOpenAPI(doc, "io.example.Props");
    let s = props;
    for (let i = 0; i < 50; i++) s = s.lookup("items").schema;
    expect(s.lookup("allOf").meta).toEqual({ strategies: ["merge"], mergeKey: "id" });
    const items = props.lookup("items").schema;
    expect(items.lookup("items").schema).toBe(items);
  });

  it("reads Swagger 2 definitions too", () => {
    const v2 = {
      swagger: "2.0",
      definitions: {
        A: { properties: { list: { type: "array", items: { $ref: "#/definitions/B" }, "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "k" } } },
        B: { properties: { k: { type: "string" } } },
      },
    };
    expect(patchSchemaFromOpenAPI(v2, "A").lookup("list").meta).toEqual({ strategies: ["merge"], mergeKey: "k" });
  });

  it("throws typed errors for missing schemas and dangling references", () => {
    expect(() => patchSchemaFromOpenAPI(doc, "io.example.Nope")).toThrow(PatchSchemaError);
    expect(() => patchSchemaFromOpenAPI({}, "x")).toThrow('schema "x" not found in the OpenAPI document');
    expect(() => patchSchemaFromOpenAPI(null, "x")).toThrow(PatchSchemaError);
    const broken = patchSchemaFromOpenAPI(doc, "io.example.Broken");
    try {
      broken.lookup("x");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PatchSchemaError);
      expect((e as PatchSchemaError).reason).toBe("UnresolvableReference");
    }
    expect(() => broken.lookup("y")).toThrow('cannot resolve $ref "http://elsewhere/x"');
  });

  it("does not modify the document", () => {
    const copy = structuredClone(doc);
    const s = patchSchemaFromOpenAPI(copy, "io.example.Pod");
    s.lookup("spec").schema.lookup("containers").schema.lookup("env");
    expect(copy).toEqual(doc);
  });
});
