import { describe, expect, it } from "vitest";
import { Store, keyOf, splitKey } from "./store.js";

interface Obj {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
}
const o = (ns: string, name: string, node = ""): Obj => ({ metadata: { name, namespace: ns, labels: { node } } });

describe("Store", () => {
  it("keys objects by namespace/name and splits keys", () => {
    expect(keyOf(o("default", "a"))).toBe("default/a");
    expect(keyOf({ metadata: { name: "n1" } })).toBe("n1");
    expect(splitKey("default/a")).toEqual({ namespace: "default", name: "a" });
    expect(splitKey("n1")).toEqual({ namespace: "", name: "n1" });
  });

  it("keeps indexes in step with set and delete; indexers added later cover existing objects", () => {
    const s = new Store<Obj>({ node: (x) => (x.metadata?.labels?.node ? [x.metadata.labels.node] : []) });
    s.set(o("a", "p1", "n1"));
    s.set(o("a", "p2", "n1"));
    s.set(o("b", "p3", "n2"));
    expect(s.byIndex("node", "n1").map(keyOf).sort()).toEqual(["a/p1", "a/p2"]);
    expect(s.byIndex("namespace", "b").map(keyOf)).toEqual(["b/p3"]);
    const old = s.set(o("a", "p2", "n2"));
    expect(old?.metadata?.labels?.node).toBe("n1");
    expect(s.byIndex("node", "n1").map(keyOf)).toEqual(["a/p1"]);
    expect(s.byIndex("node", "n2").map(keyOf).sort()).toEqual(["a/p2", "b/p3"]);
    expect(s.delete("a/p1")).toBeDefined();
    expect(s.delete("a/p1")).toBeUndefined();
    expect(s.byIndex("node", "n1")).toEqual([]);
    s.addIndexers({ name: (x) => [x.metadata?.name ?? ""] });
    expect(s.byIndex("name", "p3").map(keyOf)).toEqual(["b/p3"]);
    expect(() => s.addIndexers({ name: () => [] })).toThrow(/already exists/);
    expect(() => s.byIndex("nope", "x")).toThrow(/does not exist/);
    expect(s.size).toBe(2);
    expect(s.listKeys().sort()).toEqual(["a/p2", "b/p3"]);
  });
});
