/**
 * The per-verb handlers' order of work, through the real fastify adapter on loopback over a
 * MemoryStorage: admission in its two phases, defaulting once per request, and create-or-update in
 * one storage retry loop (concurrent applies and PUTs to a missing object).
 */
import { afterEach, describe, expect, it } from "vitest";
import { invalid, newForbidden } from "@skiff/apimachinery";
import { MemoryStorage } from "@skiff/storage";
import type { ResourceInfo } from "@skiff/api-types";
import { alwaysAllowAuthorizer } from "../auth/auth.js";
import type { APIObject, ResourceStrategy } from "../registry/strategy.js";
import { createAPIServer } from "../server/server.js";
import type { APIServer } from "../server/server.js";
import type { AdmissionAttributes, AdmissionPlugin } from "./admission.js";

const resource: ResourceInfo = {
  group: "example.io", version: "v1", kind: "Gadget", listKind: "GadgetList", plural: "gadgets", singular: "gadget",
  namespaced: true, shortNames: [], categories: [], subresources: ["status"],
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
};

type Json = Record<string, unknown>;
const spec = (o: APIObject) => (o["spec"] ??= {}) as Json;

/** A strategy that records each hook call (with what it saw) in `calls`. */
function recordingStrategy(calls: string[], allowCreateOnUpdate = false): ResourceStrategy {
  return {
    resource,
    applyDefaults(obj) {
      calls.push("default");
      spec(obj)["size"] ??= 1;
    },
    prepareForCreate(_ctx, obj) {
      calls.push("prepareForCreate");
      obj.metadata!.generation = 1;
    },
    validate(_ctx, obj) {
      calls.push("validate");
      const size = spec(obj)["size"];
      return typeof size === "number" && size < 0 ? [invalid("spec.size", size, "must be >= 0")] : [];
    },
    allowCreateOnUpdate,
    allowUnconditionalUpdate: true,
    prepareForUpdate(_ctx, obj, old) {
      calls.push("prepareForUpdate");
      if (old["status"] !== undefined) obj["status"] = old["status"];
    },
    validateUpdate(_ctx, obj) {
      calls.push("validateUpdate");
      const size = spec(obj)["size"];
      return typeof size === "number" && size < 0 ? [invalid("spec.size", size, "must be >= 0")] : [];
    },
    getAttrs: (obj) => ({ labels: obj.metadata?.labels ?? {}, fields: {} }),
    fieldSelectorKeys: [],
    defaultGarbageCollectionPolicy: () => "Background",
    returnDeletedObject: true,
    table: { columns: [{ name: "Name", type: "string", format: "name", description: "", priority: 0 }], cells: (o: APIObject) => [o.metadata?.name] },
  };
}

/** An admission plugin recording its phases and what each saw. */
function recordingPlugin(calls: string[]): AdmissionPlugin {
  return {
    name: "Recorder",
    mutate(a: AdmissionAttributes) {
      calls.push(`mutate:${a.operation}:size=${String(spec(a.object!)["size"])}:uid=${a.object!.metadata?.uid ? "set" : "unset"}`);
      (a.object!.metadata!.labels ??= {})["mutated"] = "yes";
    },
    validate(a: AdmissionAttributes) {
      calls.push(`validate:${a.operation}:generation=${String(a.object!.metadata?.generation)}:uid=${a.object!.metadata?.uid ? "set" : "unset"}`);
      if (a.object!.metadata?.labels?.["refuse"] === "yes") throw newForbidden({ group: resource.group, resource: resource.plural }, a.object!.metadata.name ?? "", new Error("refused by the validating phase"));
    },
  };
}

let server: APIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(strategy: ResourceStrategy, admission: AdmissionPlugin[] = []): Promise<string> {
  server = createAPIServer({ strategies: [strategy], storage: new MemoryStorage(), authenticator: () => ({ username: "alice", groups: ["system:authenticated"] }), authorizer: alwaysAllowAuthorizer, insecureHTTP: true, admission });
  return server.listen({ host: "127.0.0.1", port: 0 });
}

const path = "/apis/example.io/v1/namespaces/default/gadgets";
const gadget = (name: string, extra: Json = {}) => ({ apiVersion: "example.io/v1", kind: "Gadget", metadata: { name }, ...extra });

async function call(base: string, method: string, p: string, body?: unknown, contentType = "application/json") {
  const res = await fetch(base + p, {
    method,
    headers: body !== undefined ? { "content-type": contentType } : {},
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

describe("admission runs in two phases around the strategy", () => {
  it("create: defaults → mutating admission → prepareForCreate → validate → validating admission", async () => {
    const calls: string[] = [];
    const base = await start(recordingStrategy(calls), [recordingPlugin(calls)]);
    const r = await call(base, "POST", path, gadget("a"));
    expect(r.status).toBe(201);
    expect(calls).toEqual(["default", "mutate:CREATE:size=1:uid=unset", "prepareForCreate", "validate", "validate:CREATE:generation=1:uid=set"]);
    expect((r.json["metadata"] as Json)["labels"]).toEqual({ mutated: "yes" });
  });

  it("an object the strategy refuses never reaches validating admission (422)", async () => {
    const calls: string[] = [];
    const base = await start(recordingStrategy(calls), [recordingPlugin(calls)]);
    const r = await call(base, "POST", path, gadget("a", { spec: { size: -1 } }));
    expect(r.status).toBe(422);
    expect(calls.some((c) => c.startsWith("validate:"))).toBe(false);
  });

  it("the validating phase refuses after the strategy accepted, and nothing is stored", async () => {
    const calls: string[] = [];
    const base = await start(recordingStrategy(calls), [recordingPlugin(calls)]);
    const r = await call(base, "POST", path, gadget("a", { metadata: { name: "a", labels: { refuse: "yes" } } }));
    expect(r.status).toBe(403);
    expect((await call(base, "GET", `${path}/a`)).status).toBe(404);
  });

  it("update (PUT, merge patch): defaults → mutating admission (UPDATE) → prepareForUpdate → validateUpdate → validating admission", async () => {
    const calls: string[] = [];
    const base = await start(recordingStrategy(calls), [recordingPlugin(calls)]);
    const created = await call(base, "POST", path, gadget("a"));
    for (const write of [
      () => call(base, "PUT", `${path}/a`, { ...created.json, spec: { size: 2 } }),
      () => call(base, "PATCH", `${path}/a`, { spec: { size: 3 } }, "application/merge-patch+json"),
    ]) {
      calls.length = 0;
      const r = await write();
      expect(r.status).toBe(200);
      expect(calls).toEqual(["default", "mutate:UPDATE:size=" + String(spec(r.json as APIObject)["size"]) + ":uid=set", "prepareForUpdate", "validateUpdate", "validate:UPDATE:generation=1:uid=set"]);
    }
  });
});

describe("defaults run once per request", () => {
  it("create, PUT, every patch type and apply each call applyDefaults once", async () => {
    const calls: string[] = [];
    const base = await start(recordingStrategy(calls));
    const count = () => calls.filter((c) => c === "default").length;
    const created = await call(base, "POST", path, gadget("a"));
    expect(count()).toBe(1);
    const writes: Array<() => Promise<{ status: number; json: Json }>> = [
      () => call(base, "PUT", `${path}/a`, { ...created.json, metadata: { ...(created.json["metadata"] as Json), resourceVersion: undefined } }),
      () => call(base, "PATCH", `${path}/a`, { spec: { size: 4 } }, "application/merge-patch+json"),
      () => call(base, "PATCH", `${path}/a`, { spec: { size: 5 } }, "application/strategic-merge-patch+json"),
      () => call(base, "PATCH", `${path}/a`, [{ op: "replace", path: "/spec/size", value: 6 }], "application/json-patch+json"),
      () => call(base, "PATCH", `${path}/a?fieldManager=m&force=true`, JSON.stringify(gadget("a", { spec: { size: 7 } })), "application/apply-patch+yaml"),
      () => call(base, "PATCH", `${path}/b?fieldManager=m`, JSON.stringify(gadget("b", { spec: { size: 8 } })), "application/apply-patch+yaml"),
    ];
    for (const [i, write] of writes.entries()) {
      calls.length = 0;
      const r = await write();
      expect([i, r.status, r.status < 300 ? "" : JSON.stringify(r)]).toEqual([i, r.status < 300 ? r.status : 200, ""]);
      expect(count()).toBe(1);
    }
  });
});

/**
 * A mutating plugin that holds every CREATE until `n` of them are waiting (or 5 s pass): it makes
 * concurrent creates of one missing object overlap for certain, whatever the scheduling.
 */
function createBarrier(n: number): AdmissionPlugin {
  let waiting = 0;
  let release!: () => void;
  const all = new Promise<void>((resolve) => (release = resolve));
  return {
    name: "CreateBarrier",
    async mutate(a) {
      if (a.operation !== "CREATE") return;
      if (++waiting >= n) release();
      await Promise.race([all, new Promise((r) => setTimeout(r, 5000))]);
    },
  };
}

describe("create-or-update is one guaranteed update", () => {
  it("concurrent server-side applies to a missing object all succeed: one creates, the others update", async () => {
    const n = 8;
    const base = await start(recordingStrategy([]), [createBarrier(n)]);
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        call(base, "PATCH", `${path}/shared?fieldManager=manager-${String(i)}`, JSON.stringify(gadget("shared", { metadata: { name: "shared", labels: { [`by-${String(i)}`]: "yes" } } })), "application/apply-patch+yaml"),
      ),
    );
    expect(results.map((r) => r.status).sort((a, b) => b - a)).toEqual([201, ...Array<number>(n - 1).fill(200)]);
    const final = await call(base, "GET", `${path}/shared`);
    const labels = (final.json["metadata"] as Json)["labels"] as Json;
    for (let i = 0; i < n; i++) expect(labels[`by-${String(i)}`]).toBe("yes");
    const managers = ((final.json["metadata"] as Json)["managedFields"] as Json[]).map((m) => m["manager"]).sort();
    expect(managers).toEqual(Array.from({ length: n }, (_, i) => `manager-${String(i)}`).sort());
  });

  it("concurrent PUTs that create (a kind that creates on update) give one 201 and the rest 200", async () => {
    const n = 6;
    const base = await start(recordingStrategy([], true), [createBarrier(n)]);
    const results = await Promise.all(Array.from({ length: n }, (_, i) => call(base, "PUT", `${path}/x`, gadget("x", { spec: { size: i + 1 } }))));
    expect(results.map((r) => r.status).sort((a, b) => b - a)).toEqual([201, ...Array<number>(n - 1).fill(200)]);
  });

  it("concurrent unconditional PUTs of an existing object all succeed (each retry starts from the request's object)", async () => {
    const base = await start(recordingStrategy([]));
    await call(base, "POST", path, gadget("u"));
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => call(base, "PUT", `${path}/u`, gadget("u", { spec: { size: i + 1 } }))));
    expect(results.map((r) => r.status)).toEqual(Array<number>(6).fill(200));
  });

  it("a retried unconditional PUT starts from the body as sent, not from the copy the first attempt changed", async () => {
    // Every PUT reads the object before any commits (the barrier), so all but one retry; the
    // plugin appends to a list in place, as a strategy or admission plugin may change a body.
    let waiting = 0;
    let release!: () => void;
    const all = new Promise<void>((resolve) => (release = resolve));
    const n = 4;
    const appending: AdmissionPlugin = {
      name: "Appender",
      async mutate(a) {
        if (a.operation !== "UPDATE") return;
        ((spec(a.object!)["tags"] ??= []) as string[]).push("admitted");
        if (++waiting >= n) release();
        await Promise.race([all, new Promise((r) => setTimeout(r, 5000))]);
      },
    };
    const base = await start(recordingStrategy([]), [appending]);
    await call(base, "POST", path, gadget("r"));
    const results = await Promise.all(Array.from({ length: n }, (_, i) => call(base, "PUT", `${path}/r`, gadget("r", { spec: { size: i + 1, tags: ["sent"] } }))));
    expect(results.map((r) => r.status)).toEqual(Array<number>(n).fill(200));
    expect(waiting).toBeGreaterThan(n);
    for (const r of results) expect(spec(r.json as APIObject)["tags"]).toEqual(["sent", "admitted"]);
  });

  it("apply to a missing object's status answers 404 and creates nothing", async () => {
    const base = await start(recordingStrategy([]));
    const r = await call(base, "PATCH", `${path}/none/status?fieldManager=m`, JSON.stringify(gadget("none", { status: { ok: true } })), "application/apply-patch+yaml");
    expect(r.status).toBe(404);
    expect((await call(base, "GET", `${path}/none`)).status).toBe(404);
  });

  it("a dry-run apply to a missing object answers 201 and stores nothing", async () => {
    const base = await start(recordingStrategy([]));
    const r = await call(base, "PATCH", `${path}/dry?fieldManager=m&dryRun=All`, JSON.stringify(gadget("dry")), "application/apply-patch+yaml");
    expect(r.status).toBe(201);
    expect((await call(base, "GET", `${path}/dry`)).status).toBe(404);
  });
});

describe("delete admission and the verbs a resource takes", () => {
  /** Refuses the DELETE of any object labelled `protected=yes`. */
  const guard: AdmissionPlugin = {
    name: "Guard",
    validate(a) {
      if (a.operation === "DELETE" && a.oldObject?.metadata?.labels?.["protected"] === "yes") {
        throw newForbidden({ group: resource.group, resource: resource.plural }, a.oldObject.metadata.name ?? "", new Error("protected"));
      }
    },
  };

  it("a DELETE refused by admission changes nothing: single, dry-run, with finalizers, and in a collection", async () => {
    const base = await start(recordingStrategy([]), [guard]);
    await call(base, "POST", path, gadget("keep", { metadata: { name: "keep", labels: { protected: "yes" } } }));
    await call(base, "POST", path, gadget("fin", { metadata: { name: "fin", labels: { protected: "yes" }, finalizers: ["example.io/hold"] } }));
    await call(base, "POST", path, gadget("free"));
    for (const p of [`${path}/keep`, `${path}/keep?dryRun=All`, `${path}/fin`]) {
      const r = await call(base, "DELETE", p);
      expect([p, r.status, r.json["message"]]).toEqual([p, 403, `gadgets.example.io "${p.includes("fin") ? "fin" : "keep"}" is forbidden: protected`]);
    }
    expect(((await call(base, "GET", `${path}/fin`)).json["metadata"] as Json)["deletionTimestamp"]).toBeUndefined();
    const all = await call(base, "DELETE", path);
    expect(all.status).toBe(403);
    expect((await call(base, "GET", `${path}/keep`)).status).toBe(200);
  });

  it("routes only the verbs the resource's discovery entry lists (405 for the rest)", async () => {
    const noCollectionDelete: ResourceStrategy = { ...recordingStrategy([]), resource: { ...resource, verbs: resource.verbs.filter((v) => v !== "deletecollection") } };
    const base = await start(noCollectionDelete);
    await call(base, "POST", path, gadget("a"));
    const r = await call(base, "DELETE", path);
    expect(r.status).toBe(405);
    expect(r.json).toMatchObject({ kind: "Status", reason: "MethodNotAllowed", code: 405 });
    expect((await call(base, "GET", `${path}/a`)).status).toBe(200);
    expect((await call(base, "DELETE", `${path}/a`)).status).toBe(200);
  });
});

describe("get", () => {
  it("answers plain JSON from the stored text in the bytes of the object's serialisation; pretty and Table answers build the object", async () => {
    const base = await start(recordingStrategy([]));
    const created = await call(base, "POST", path, gadget("a", { spec: { size: 2, "k\"ey": "\u00e9\n" } }));
    const plain = await fetch(`${base}${path}/a`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toContain("application/json");
    const text = await plain.text();
    expect(text).toBe(JSON.stringify(created.json));
    // A resourceVersion on a GET means "not older than" (1.23): the latest, encoded the same way.
    const rv = String((created.json["metadata"] as Json)["resourceVersion"]);
    const patched = await call(base, "PATCH", `${path}/a`, { spec: { size: 3 } }, "application/merge-patch+json");
    expect(await (await fetch(`${base}${path}/a?resourceVersion=${rv}`)).text()).toBe(JSON.stringify(patched.json));
    expect((await fetch(`${base}${path}/a?resourceVersion=x`)).status).toBe(400);
    expect(await (await fetch(`${base}${path}/a?pretty=true`)).text()).toBe(JSON.stringify(JSON.parse(await (await fetch(`${base}${path}/a`)).text()), null, 2) + "\n");
    const table = (await (await fetch(`${base}${path}/a`, { headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } })).json()) as Json;
    expect(table["kind"]).toBe("Table");
    const missing = await fetch(`${base}${path}/nope`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as Json)["reason"]).toBe("NotFound");
  });
});
