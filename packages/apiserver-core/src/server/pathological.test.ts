// Issue 14 defect 1: pathological documents (deep nesting, YAML alias bombs and self-references,
// copy loops, random protobuf) reach every decoder and write route; the answer is always a Status
// with a 2xx/4xx code, never a 5xx, a crash or a hang, and a refused request leaves storage as it was.
// SKIFF_FUZZ_RUNS sets the fuzz runs (default 300, about 5 s here).
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invalid } from "@skiff/apimachinery";
import { MemoryStorage } from "@skiff/storage";
import type { ResourceInfo } from "@skiff/api-types";
import { alwaysAllowAuthorizer } from "../auth/auth.js";
import type { APIObject, ResourceStrategy } from "../registry/strategy.js";
import { createAPIServer } from "./server.js";
import type { APIServer } from "./server.js";

const resource: ResourceInfo = {
  group: "example.io", version: "v1", kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget",
  namespaced: true, shortNames: [], categories: [], subresources: ["status"],
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
};

const widgets: ResourceStrategy = {
  resource,
  applyDefaults(obj) { (obj["spec"] as Record<string, unknown> | undefined) ??= {}; if (!obj["spec"]) obj["spec"] = {}; },
  prepareForCreate(_ctx, obj) { delete obj["status"]; obj.metadata!.generation = 1; },
  validate(_ctx, obj) {
    const size = (obj["spec"] as { size?: unknown } | undefined)?.size;
    return typeof size === "number" && size < 0 ? [invalid("spec.size", size, "must be >= 0")] : [];
  },
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForUpdate(_ctx, obj, old) { obj["status"] = old["status"]; if (obj["status"] === undefined) delete obj["status"]; },
  validateUpdate() { return []; },
  status: { prepareForUpdate(_ctx, obj, old) { obj["spec"] = old["spec"]; }, validateUpdate() { return []; } },
  getAttrs(obj) { return { labels: obj.metadata?.labels ?? {}, fields: { "spec.color": String((obj["spec"] as { color?: string } | undefined)?.color ?? "") } }; },
  fieldSelectorKeys: ["spec.color"],
  defaultGarbageCollectionPolicy() { return "Background"; },
  returnDeletedObject: false,
  table: { columns: [{ name: "Name", type: "string", format: "name", description: "", priority: 0 }], cells: (o: APIObject) => [o.metadata?.name] },
};

// The same generic strategy serving Job (decoded and validated through @skiff/validation).
const jobs: ResourceStrategy = {
  ...widgets,
  resource: { ...resource, group: "batch", kind: "Job", listKind: "JobList", plural: "jobs", singular: "job" },
  applyDefaults() {},
  validate() { return []; },
};

let server: APIServer;
let base: string;
beforeAll(async () => {
  server = createAPIServer({ strategies: [widgets, jobs], storage: new MemoryStorage(), authenticator: () => ({ username: "admin", groups: ["system:masters"] }), authorizer: alwaysAllowAuthorizer, insecureHTTP: true });
  base = await server.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(async () => { await server.close(); });

const wpath = "/apis/example.io/v1/namespaces/default/widgets";
const jpath = "/apis/batch/v1/namespaces/default/jobs";
async function send(method: string, p: string, body: string | Buffer, contentType: string) {
  const res = await fetch(base + p, { method, headers: { "content-type": contentType }, body });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try { json = JSON.parse(text) as Record<string, unknown>; } catch { /* not JSON */ }
  return { status: res.status, json, text };
}
const snapshot = async () => (await fetch(base + wpath)).text().then(async (w) => w.replace(/"resourceVersion":"\d+",?/g, "") + (await (await fetch(base + jpath)).text()).replace(/"resourceVersion":"\d+",?/g, ""));

const deepArr = (d: number) => "[".repeat(d) + "]".repeat(d);
const deepObj = (d: number) => '{"a":'.repeat(d) + "1" + "}".repeat(d);
const job = (name: string, labelValue = '"x"', extra = "") =>
  `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"${name}"${extra}},"spec":{"template":{"metadata":{"labels":{"a":${labelValue}}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}}`;
const widget = (name: string, extra = "") => `{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"${name}"},"spec":{"color":"red"}${extra}}`;
const laughs = "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" +
  Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(",")}]`).join("\n") + "\n";

function expectStatus4xx(r: { status: number; json: Record<string, unknown>; text: string }, what: string) {
  expect(r.status, `${what}: ${r.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
  expect(r.status, `${what}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
  expect(r.json["kind"], what).toBe("Status");
}

describe("pathological documents answer 4xx Status (issue 14)", () => {
  beforeAll(async () => {
    expect((await send("POST", wpath, widget("w0"), "application/json")).status).toBe(201);
    expect((await send("POST", jpath, job("j0"), "application/json")).status).toBe(201);
  });
  for (const d of [100, 1000, 5000, 20000, 100000]) {
    it(`nesting ${d} deep in every position and decoder`, async () => {
      const before = await snapshot();
      const v = d % 2 === 0 ? deepArr(d) : deepObj(d);
      const cases: [string, string, string, string][] = [
        ["POST", wpath, widget("w1", `,"unknown":${v}`), "application/json"],
        ["POST", wpath, widget("w1", `,"spec2":{"free":${v}}`), "application/json"],
        ["POST", jpath, job("j1", v), "application/json"],
        ["POST", jpath, job("j1", '"x"', `,"annotations":{"a":"b"},"neighbour":${v}`), "application/json"],
        ["POST", jpath, `apiVersion: batch/v1\nkind: Job\nmetadata: {name: j1}\nx: ${v}\n`, "application/yaml"],
        ["PUT", `${wpath}/w0`, widget("w0", `,"unknown":${v}`), "application/json"],
        ["PATCH", `${wpath}/w0`, `[{"op":"add","path":"/spec/deep","value":${v}}]`, "application/json-patch+json"],
        ["PATCH", `${wpath}/w0`, `{"spec":{"deep":${v}}}`, "application/merge-patch+json"],
        ["PATCH", `${jpath}/j0`, `{"spec":{"template":{"metadata":{"labels":{"a":${v}}}}}}`, "application/strategic-merge-patch+json"],
        ["PATCH", `${wpath}/w0?fieldManager=m`, widget("w0", `,"unknown":${v}`), "application/apply-patch+yaml"],
        ["PATCH", `${wpath}/w0?fieldManager=m`, `apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w0}\nspec: {deep: ${v}}\n`, "application/apply-patch+yaml"],
        ["PATCH", `${jpath}/j0`, `[{"op":"add","path":"/metadata/labels","value":${v}}]`, "application/json-patch+json"],
      ];
      for (const [method, p, body, type] of cases) {
        const r = await send(method, p, body, type);
        expectStatus4xx(r, `${method} ${type} depth ${d}`);
        expect(r.json["message"]).toMatch(d > 100 ? /exceeded max depth of 100|error converting YAML/ : /./);
      }
      expect(await snapshot()).toBe(before);
    });
  }
  it("YAML alias bombs, self-referencing aliases and block nesting", async () => {
    const before = await snapshot();
    const bodies = [
      `apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w2}\n${laughs}`,
      "apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w2}\nspec: &a [*a]\n",
      "apiVersion: example.io/v1\nkind: Widget\nmetadata: &m {name: w2, labels: {x: *m}}\n",
      "apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w2}\nspec:\n" + Array.from({ length: 3000 }, (_, i) => `${" ".repeat(i + 1)}a:`).join("\n") + " 1\n",
      "apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w2}\nspec:\n" + "- ".repeat(5000) + "1\n",
    ];
    for (const b of bodies) {
      expectStatus4xx(await send("POST", wpath, b, "application/yaml"), `POST yaml ${b.slice(60, 90)}`);
      expectStatus4xx(await send("PATCH", `${wpath}/w0?fieldManager=m`, b.replace("w2", "w0"), "application/apply-patch+yaml"), `apply ${b.slice(60, 90)}`);
    }
    const self = await send("POST", wpath, bodies[1]!, "application/yaml");
    expect(self.status).toBe(400);
    expect(self.json["message"]).toMatch(/refers to itself/);
    expect(await snapshot()).toBe(before);
  });
  it("a JSON Patch copy loop is bounded (422), and so is a patched object's size (413)", async () => {
    const before = await snapshot();
    const ops = [{ op: "add", path: "/spec/x", value: ["y".repeat(1000)] }, ...Array.from({ length: 40 }, () => ({ op: "copy", from: "/spec/x", path: "/spec/x/-" }))];
    const r = await send("PATCH", `${wpath}/w0`, JSON.stringify(ops), "application/json-patch+json");
    expectStatus4xx(r, "copy loop");
    expect([400, 413, 422]).toContain(r.status);
    const flat = [{ op: "add", path: "/spec/x", value: "y".repeat(1 << 20) }, ...Array.from({ length: 2 }, (_, i) => ({ op: "copy", from: "/spec/x", path: `/spec/y${i}` }))];
    const big = await send("PATCH", `${wpath}/w0`, JSON.stringify(flat), "application/json-patch+json");
    expect(big.status).toBe(413);
    expect(big.json["reason"]).toBe("RequestEntityTooLarge");
    expect(await snapshot()).toBe(before);
  });
  it("an object at the bound is taken by every route and round-trips through GET and PUT", async () => {
    const nested = (n: number): string => '{"a":'.repeat(n) + "1" + "}".repeat(n);
    // The object is depth 1, so spec nested 94 deep makes it maxObjectDepth (95) deep.
    const atBound = (name: string) => `{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"${name}"},"spec":${nested(94)}}`;
    expect((await send("PATCH", `${wpath}/b1?fieldManager=m`, atBound("b1"), "application/apply-patch+yaml")).status).toBe(201);
    expect((await send("POST", wpath, atBound("b2"), "application/json")).status).toBe(201);
    for (const name of ["b1", "b2"]) {
      const got = await (await fetch(`${base}${wpath}/${name}`)).text();
      expect((await send("PUT", `${wpath}/${name}`, got, "application/json")).status).toBe(200);
      const y = await fetch(`${base}${wpath}/${name}`, { headers: { accept: "application/yaml" } });
      expect(y.status).toBe(200);
      expect((await send("PUT", `${wpath}/${name}`, await y.text(), "application/yaml")).status).toBe(200);
      expect((await send("PATCH", `${wpath}/${name}`, `{"metadata":{"labels":{"x":"y"}}}`, "application/merge-patch+json")).status).toBe(200);
      expect((await send("PATCH", `${wpath}/${name}`, `{"metadata":{"labels":{"x":"z"}}}`, "application/strategic-merge-patch+json")).status).toBe(200);
      expect((await send("PATCH", `${wpath}/${name}`, `[{"op":"replace","path":"/metadata/labels/x","value":"w"}]`, "application/json-patch+json")).status).toBe(200);
      expect((await send("PATCH", `${wpath}/${name}?fieldManager=m`, atBound(name), "application/apply-patch+yaml")).status).toBe(200);
    }
    const over = await send("POST", wpath, atBound("b3").replace('"spec":{"a":', '"spec":{"a":{"a":').replace(/}$/, "}}"), "application/json");
    expect(over.status).toBe(400);
    expect(over.json["message"]).toMatch(/exceeded max depth of 95/);
    // A Job (decoded by @skiff/validation, unknown fields reported) with an unknown field at the bound.
    const deepJob = job("b4").replace(/}$/, `,"unknownField":${nested(93)}}`);
    const created = await send("POST", `${jpath}?fieldValidation=Warn`, deepJob, "application/json");
    expect(created.status, created.text.slice(0, 200)).toBe(201);
    expect((await fetch(`${base}${jpath}/b4`, { headers: { accept: "application/yaml" } })).status).toBe(200);
    expect((await send("PATCH", `${jpath}/b4`, `{"spec":{"template":{"metadata":{"labels":{"b":"c"}}}}}`, "application/strategic-merge-patch+json")).status).toBe(200);
    expect((await send("POST", `${jpath}?fieldValidation=Strict`, deepJob.replace('"b4"', '"b5"'), "application/json")).status).toBe(400);
    await fetch(`${base}${jpath}/b4`, { method: "DELETE" });
    for (const name of ["b1", "b2"]) await fetch(`${base}${wpath}/${name}`, { method: "DELETE" });
  });
  it("a response at the bound renders as YAML (no stack overflow in the stringifier)", async () => {
    const r = await send("POST", wpath, widget("w3", `,"spec2":${deepArr(94)}`), "application/json");
    expect(r.status).toBe(201);
    const y = await fetch(`${base}${wpath}/w3`, { headers: { accept: "application/yaml" } });
    expect(y.status).toBe(200);
  });
});

describe("fuzz: every decoder and write route (issue 14)", () => {
  const runs = Number(process.env["SKIFF_FUZZ_RUNS"] ?? 300);
  let requests = 0;
  let fivexx = 0;
  const deep = fc.tuple(fc.integer({ min: 0, max: 12000 }), fc.constantFrom("[", '{"a":', '{"a":[')).map(([n, open]) => {
    const close = open === "[" ? "]" : open === '{"a":' ? "}" : "]}";
    return open.repeat(n) + "1" + close.repeat(n);
  });
  const yamlish = fc.oneof(
    fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.constantFrom("- ", "a:\n ", "[", "{a: ", "&x [*x, ", "? ")).map(([n, t]) => `apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: f}\nspec: ${t.repeat(n)}1\n`),
    fc.string({ maxLength: 300 }),
    fc.constant(laughs),
  );
  const value = fc.oneof(deep, fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)));
  const request = fc.oneof(
    value.map((v) => ["POST", wpath, widget("f", `,"spec3":${v}`), "application/json"] as const),
    value.map((v) => ["POST", jpath, job("f", v), "application/json"] as const),
    value.map((v) => ["PUT", `${wpath}/w0`, widget("w0", `,"spec3":${v}`), "application/json"] as const),
    yamlish.map((y) => ["POST", wpath, y, "application/yaml"] as const),
    yamlish.map((y) => ["PATCH", `${wpath}/w0?fieldManager=f`, y.replace("name: f", "name: w0"), "application/apply-patch+yaml"] as const),
    fc.tuple(fc.constantFrom("add", "copy", "move", "replace", "test"), fc.constantFrom("/spec/x", "/spec", "/metadata/labels", "/spec/x/-", ""), value).map(([op, path, v]) =>
      ["PATCH", `${wpath}/w0`, `[{"op":"${op}","path":"${path}","from":"/spec","value":${v}}]`, "application/json-patch+json"] as const),
    value.map((v) => ["PATCH", `${wpath}/w0`, `{"spec":{"m":${v}}}`, "application/merge-patch+json"] as const),
    value.map((v) => ["PATCH", `${jpath}/j0`, `{"spec":{"template":{"metadata":{"labels":${v}}}}}`, "application/strategic-merge-patch+json"] as const),
    fc.uint8Array({ maxLength: 400 }).map((b) => ["POST", jpath, Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), Buffer.from(b)]), "application/vnd.kubernetes.protobuf"] as const),
  );
  it(`never answers 5xx and leaves storage unchanged when refusing (${runs} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(request, async ([method, p, body, type]) => {
        const before = await snapshot();
        const r = await send(method, p, body, type);
        requests++;
        if (r.status >= 500) fivexx++;
        expect(r.status, `${method} ${p} ${type}: ${r.text.slice(0, 300)}`).toBeLessThan(500);
        if (r.status >= 400) {
          expect(r.json["kind"]).toBe("Status");
          expect(await snapshot()).toBe(before);
        } else if (method === "POST") {
          await fetch(`${base}${p}/f`, { method: "DELETE" });
        }
      }),
      { numRuns: runs, seed: Number(process.env["SKIFF_FUZZ_SEED"] ?? 14) },
    );
    console.log(`fuzz: ${requests} requests, ${fivexx} 5xx`);
  }, 600_000);
});

describe("other bodies with nesting (issue 14)", () => {
  it("a deep DeleteOptions body answers 400", async () => {
    const r = await send("DELETE", `${wpath}/w0`, `{"kind":"DeleteOptions","apiVersion":"v1","x":${deepArr(20000)}}`, "application/json");
    expect(r.status).toBe(400);
    expect(r.json["message"]).toMatch(/exceeded max depth of 100/);
  });
});
