// Issue 14 defect 1: pathological manifests (deep nesting, YAML alias bombs and self-references)
// from every static-pod source are refused with an error, never a throw, a crash or a hang.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readStaticPodPath } from "./file-source.js";
import { decodeManifest } from "./static-pod.js";
import type { StaticPodOrigin } from "./static-pod.js";

const origins: StaticPodOrigin[] = [{ kind: "file", path: "/m/x.yaml" }, { kind: "url", url: "http://x/pods" }, { kind: "manifest" }];
const deepJSON = (d: number) => `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]},"x":${"[".repeat(d)}${"]".repeat(d)}}`;
const deepFlowYAML = (d: number) => `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i}]}\nx: ${"[".repeat(d)}${"]".repeat(d)}\n`;
const deepBlockYAML = (d: number) => `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i}]}\nx:\n${Array.from({ length: d }, (_, i) => `${" ".repeat(i + 1)}a:`).join("\n")} 1\n`;
const laughs = `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i}]}\n` +
  `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n` +
  Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(",")}]`).join("\n") + "\n";
const selfRef = [`apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i}]}\nx: &a [*a]\n`, `apiVersion: v1\nkind: Pod\nmetadata: &m {name: p, labels: {self: *m}}\nspec: {containers: [{name: c, image: i}]}\n`];

describe("decodeManifest bounds (issue 14)", () => {
  for (const d of [1000, 5000, 20000, 100000]) {
    it(`refuses JSON and YAML nested ${d} deep from every source`, () => {
      for (const origin of origins) {
        for (const text of [deepJSON(d), deepFlowYAML(d), ...(d <= 5000 ? [deepBlockYAML(d)] : [])]) {
          const r = decodeManifest(text, "n", origin);
          expect(r.ok).toBe(false);
          if (!r.ok) expect(r.errors.join(" ")).toMatch(/exceeded max depth|larger than/);
        }
      }
    });
  }
  it("still takes a pod with ordinary nesting", () => {
    expect(decodeManifest(deepJSON(20).replace(/,"x":.*}$/, "}"), "n", origins[0]!).ok).toBe(true);
  });
  it("refuses a billion-laughs alias bomb and self-referencing aliases", () => {
    for (const origin of origins) {
      const bomb = decodeManifest(laughs, "n", origin);
      expect(bomb.ok).toBe(false);
      for (const text of selfRef) {
        const r = decodeManifest(text, "n", origin);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.errors.join(" ")).toMatch(/refers to itself/);
      }
    }
  });
  it("never throws on random deep or aliased text (fuzz)", () => {
    const text = fc.oneof(
      fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.constantFrom("[", "{\"a\":", "- ", "a:\n ", "&a [*a, ")).map(([n, open]) => `apiVersion: v1\nkind: Pod\nx: ${open.repeat(n)}1`),
      fc.string({ maxLength: 200 }),
      fc.jsonValue({ maxDepth: 8 }).map((v) => JSON.stringify(v)),
    );
    fc.assert(fc.property(text, (t) => { decodeManifest(t, "n", origins[0]!); }), { numRuns: Number(process.env["SKIFF_FUZZ_RUNS"] ?? 200), seed: 14 });
  }, 60_000); // 200 runs of up to 3,000-deep text: about 3 s alone, past vitest's 10 s default on a loaded machine
});

describe("static pod path with a pathological file (issue 14)", () => {
  it("skips the bad file with a clear error and keeps reading the good ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skiff-deep-"));
    try {
      writeFileSync(join(dir, "a-good.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: good}\nspec: {containers: [{name: c, image: i}]}\n");
      writeFileSync(join(dir, "b-deep.json"), deepJSON(100000));
      writeFileSync(join(dir, "c-self.yaml"), selfRef[0]!);
      writeFileSync(join(dir, "d-laughs.yaml"), laughs);
      const r = await readStaticPodPath({ path: dir, nodeName: "n" });
      expect(r.pods.map((p) => p.metadata?.name)).toEqual(["good-n"]);
      expect(r.errors.find((e) => e.includes("b-deep.json"))).toMatch(/exceeded max depth of 100/);
      expect(r.errors.find((e) => e.includes("c-self.yaml"))).toMatch(/refers to itself/);
      expect(r.errors.some((e) => e.includes("d-laughs.yaml"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
