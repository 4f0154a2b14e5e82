import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { kindSchemas } from "./index.js";
import type { KindName } from "./index.js";
import { goTypeOf } from "./primitives.js";

const names = Object.keys(kindSchemas) as KindName[];
const lists = names.filter((n) => n.endsWith("List"));
const kinds = names.filter((n) => !n.endsWith("List") && n !== "DeleteOptions");
const shapeOf = (n: KindName) => (kindSchemas[n] as unknown as z.ZodObject).shape;

describe("kind and list envelopes", () => {
  it("every kind opens with apiVersion, kind, metadata; Event alone requires metadata", () => {
    expect(kinds).toHaveLength(18);
    for (const n of kinds) {
      expect(Object.keys(shapeOf(n)).slice(0, 3)).toEqual(["apiVersion", "kind", "metadata"]);
      expect(goTypeOf(kindSchemas[n])).toBe(n);
    }
    expect(Object.keys(shapeOf("DeleteOptions")).slice(0, 2)).toEqual(["apiVersion", "kind"]);
    const noMeta = kindSchemas.Event.safeParse({ involvedObject: {} });
    expect(noMeta.success ? [] : noMeta.error.issues.map((i) => i.path)).toEqual([["metadata"]]);
    expect(kindSchemas.Pod.safeParse({}).success).toBe(true);
    expect(kindSchemas.Job.safeParse({ apiVersion: 1 }).success).toBe(false);
  });

  it("every list is apiVersion, kind, ListMeta metadata and required items, in that order, strict", () => {
    expect(lists).toHaveLength(17);
    for (const n of lists) {
      expect(Object.keys(shapeOf(n))).toEqual(["apiVersion", "kind", "metadata", "items"]);
      expect(goTypeOf(kindSchemas[n])).toBe(n);
      const parsed = kindSchemas[n].safeParse({ items: [], metadata: { resourceVersion: "5", continue: "c" }, kind: n, apiVersion: "v1" });
      expect(parsed.success && Object.keys(parsed.data)).toEqual(["apiVersion", "kind", "metadata", "items"]);
      const noItems = kindSchemas[n].safeParse({ kind: n });
      expect(noItems.success ? [] : noItems.error.issues.map((i) => i.path)).toEqual([["items"]]);
      const objectMeta = kindSchemas[n].safeParse({ items: [], metadata: { name: "x" } });
      expect(objectMeta.success ? [] : objectMeta.error.issues.map((i) => i.code)).toEqual(["unrecognized_keys"]);
    }
  });
});
