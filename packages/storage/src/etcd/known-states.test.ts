import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KnownStates } from "./known-states.js";

const state = (text: string, revision: number) => ({ text, revision });
// What the cache counts for one entry (see entryBytes).
const size = (key: string, text: string) => text.length + key.length + 64;

describe("KnownStates", () => {
  it("keeps the newest revision of each key: a late answer with an older one is ignored", () => {
    const k = new KnownStates(1 << 20);
    k.remember("/a", state("v2", 2));
    k.remember("/a", state("v1", 1));
    expect(k.get("/a")?.text).toBe("v2");
    k.remember("/a", state("v3", 3));
    expect(k.get("/a")).toMatchObject({ revision: 3 });
    expect(k.size).toBe(1);
    expect(k.bytes).toBe(size("/a", "v3"));
    k.forget("/a");
    k.forget("/missing");
    expect(k.get("/a")).toBeUndefined();
    expect(k.bytes).toBe(0);
  });

  it("drops the least recently used entries past the byte bound; get marks an entry used", () => {
    const one = size("/a", "xxxx");
    const k = new KnownStates(one * 3);
    k.remember("/a", state("xxxx", 1));
    k.remember("/b", state("xxxx", 1));
    k.remember("/c", state("xxxx", 1));
    expect(k.get("/a")).toBeDefined();
    k.remember("/d", state("xxxx", 1));
    expect(k.get("/b")).toBeUndefined();
    expect([k.get("/a"), k.get("/c"), k.get("/d")].every((s) => s !== undefined)).toBe(true);
    expect(k.bytes).toBe(one * 3);
    // Growing an entry evicts others, never the entry itself.
    k.remember("/a", state("x".repeat(4 + one), 2));
    expect(k.get("/a")).toMatchObject({ revision: 2 });
    expect(k.size).toBe(2);
    expect(k.bytes).toBeLessThanOrEqual(one * 3);
  });

  it("keeps nothing larger than the bound, and nothing at all with a bound of 0", () => {
    const k = new KnownStates(100);
    k.remember("/a", state("small", 1));
    k.remember("/a", state("x".repeat(200), 2));
    expect(k.get("/a")).toBeUndefined();
    expect(k.bytes).toBe(0);
    const none = new KnownStates(0);
    none.remember("/a", state("v", 1));
    expect(none.size).toBe(0);
  });
});

describe("KnownStates against a model (fast-check)", () => {
  type Op = { op: "remember"; key: string; text: string; revision: number } | { op: "get" | "forget"; key: string };
  const keys = fc.constantFrom("/a", "/b", "/c", "/d", "/e");
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ op: fc.constant("remember" as const), key: keys, text: fc.string({ maxLength: 60 }), revision: fc.integer({ min: 1, max: 20 }) }),
    fc.record({ op: fc.constantFrom("get" as const, "forget" as const), key: keys }),
  );

  it("holds what a plain LRU holds, within its bound, counting exactly its entries' bytes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.array(op, { maxLength: 80 }), (maxBytes, ops) => {
        const k = new KnownStates(maxBytes);
        // The model: entries in use order (least recent first).
        let model: { key: string; text: string; revision: number }[] = [];
        const bytes = () => model.reduce((a, e) => a + size(e.key, e.text), 0);
        for (const o of ops) {
          if (o.op === "remember") {
            k.remember(o.key, { text: o.text, revision: o.revision });
            const old = model.find((e) => e.key === o.key);
            if (maxBytes > 0 && !(old !== undefined && old.revision > o.revision)) {
              model = model.filter((e) => e.key !== o.key);
              if (size(o.key, o.text) <= maxBytes) model.push({ key: o.key, text: o.text, revision: o.revision });
              while (bytes() > maxBytes) model.shift();
            }
          } else if (o.op === "get") {
            const i = model.findIndex((e) => e.key === o.key);
            const got = k.get(o.key);
            if (i < 0) expect(got).toBeUndefined();
            else {
              const [e] = model.splice(i, 1);
              model.push(e!);
              expect(got).toEqual({ text: e!.text, revision: e!.revision });
            }
          } else if (o.op === "forget") {
            k.forget(o.key);
            model = model.filter((e) => e.key !== o.key);
          }
          expect(k.size).toBe(model.length);
          expect(k.bytes).toBe(bytes());
          expect(k.bytes).toBeLessThanOrEqual(maxBytes);
        }
      }),
      { numRuns: 300 },
    );
  });
});
