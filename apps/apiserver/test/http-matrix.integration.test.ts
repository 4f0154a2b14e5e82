// The HTTP bad-input matrix of the real skiff-apiserver: every malformed or mismatched request gets
// the Kubernetes status code, reason and message, and leaves storage unchanged (the lists of all
// four kinds, their contents and the global resourceVersion are compared before and after).
// Positive rows (YAML bodies, fieldValidation=Warn/Ignore, pretty) are checked too.
import { request } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, startServer } from "./harness.js";
import type { RunningServer } from "./harness.js";

const J = "/apis/batch/v1/namespaces/default/jobs";
const D = "/apis/storage.example.io/v1/csidrivers";
const N = "/apis/storage.example.io/v1/csinodes";
const T = "/api/v1/namespaces/default/podtemplates";
const lists = ["/apis/batch/v1/jobs", D, N, "/api/v1/podtemplates"];

const podSpec = { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] };
const job = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: "batch/v1", kind: "Job", metadata: { name }, spec: { template: { spec: podSpec } }, ...extra });
const driver = (name: string) => ({ apiVersion: "storage.example.io/v1", kind: "CSIDriver", metadata: { name }, spec: {} });
const csiNode = (name: string) => ({ apiVersion: "storage.example.io/v1", kind: "CSINode", metadata: { name }, spec: { drivers: [] } });
const template = (name: string) => ({ apiVersion: "v1", kind: "PodTemplate", metadata: { name }, template: { spec: podSpec } });
const json = (o: unknown) => JSON.stringify(o);

interface Row {
  readonly title: string;
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  readonly status: number;
  readonly reason?: string;
  /** Exact message, or a list of substrings that must all appear. */
  readonly message?: string | readonly string[];
}

const bigAnnotation = "x".repeat(4 * 1024 * 1024);
const yaml = { "content-type": "application/yaml" };
const notSupportedRV = "Unsupported value: \"Bogus\": supported values: \"Exact\", \"NotOlderThan\", \"\"";

const rows: readonly Row[] = [
  // Undecodable bodies.
  { title: "malformed JSON (Job create)", method: "POST", path: J, body: "{not json", status: 400, reason: "BadRequest" },
  { title: "malformed JSON (CSIDriver create)", method: "POST", path: D, body: "{\"apiVersion\":", status: 400, reason: "BadRequest" },
  { title: "malformed JSON (CSINode replace)", method: "PUT", path: `${N}/seed-node`, body: "{\"a\":1,}", status: 400, reason: "BadRequest" },
  { title: "malformed JSON (PodTemplate create)", method: "POST", path: T, body: "[1,2", status: 400, reason: "BadRequest" },
  { title: "a JSON array is not an object", method: "POST", path: T, body: "[]", status: 400, reason: "BadRequest" },
  { title: "an empty body", method: "POST", path: J, body: "", status: 400, reason: "BadRequest" },
  { title: "malformed YAML", method: "POST", path: J, body: "apiVersion: batch/v1\nkind: Job\nmetadata: {name: [x\n", headers: yaml, status: 400, reason: "BadRequest", message: ["error converting YAML to JSON"] },
  { title: "YAML that is a list, not an object", method: "POST", path: D, body: "- a\n- b\n", headers: yaml, status: 400, reason: "BadRequest" },
  // Wrong group/version/kind.
  { title: "wrong apiVersion", method: "POST", path: J, body: json({ ...job("v2"), apiVersion: "batch/v2" }), status: 400, reason: "BadRequest", message: ["Job in version \"v2\" cannot be handled as a Job"] },
  { title: "wrong kind", method: "POST", path: J, body: json({ ...job("cj"), kind: "CronJob" }), status: 400, reason: "BadRequest", message: ["CronJob in version \"v1\" cannot be handled as a Job"] },
  { title: "another kind's body (PodTemplate to jobs)", method: "POST", path: J, body: json(template("pt")), status: 400, reason: "BadRequest", message: ["PodTemplate in version \"v1\" cannot be handled as a Job"] },
  { title: "another kind's body (CSIDriver to csinodes)", method: "POST", path: N, body: json(driver("d.example.io")), status: 400, reason: "BadRequest", message: ["CSIDriver in version \"v1\" cannot be handled as a CSINode"] },
  { title: "wrong kind on replace", method: "PUT", path: `${T}/seed`, body: json({ ...template("seed"), kind: "Pod" }), status: 400, reason: "BadRequest", message: ["Pod in version \"v1\" cannot be handled as a PodTemplate"] },
  // Path/body mismatches.
  { title: "body namespace ≠ path namespace (create)", method: "POST", path: J, body: json({ ...job("ns"), metadata: { name: "ns", namespace: "kube-system" } }), status: 400, reason: "BadRequest", message: "the namespace of the provided object does not match the namespace sent on the request" },
  { title: "body namespace ≠ path namespace (replace)", method: "PUT", path: `${T}/seed`, body: json({ ...template("seed"), metadata: { name: "seed", namespace: "kube-public" } }), status: 400, reason: "BadRequest", message: "the namespace of the provided object does not match the namespace sent on the request" },
  { title: "body name ≠ path name (Job)", method: "PUT", path: `${J}/seed`, body: json(job("other")), status: 400, reason: "BadRequest", message: "the name of the object (other) does not match the name on the URL (seed)" },
  { title: "body name ≠ path name (CSIDriver)", method: "PUT", path: `${D}/seed.example.io`, body: json(driver("other.example.io")), status: 400, reason: "BadRequest", message: "the name of the object (other.example.io) does not match the name on the URL (seed.example.io)" },
  { title: "create in a namespace that does not exist", method: "POST", path: "/apis/batch/v1/namespaces/nope/jobs", body: json(job("x")), status: 404, reason: "NotFound", message: "namespaces \"nope\" not found" },
  // Size, media types, methods.
  { title: "4 MiB body → 413", method: "POST", path: T, body: json({ ...template("big"), metadata: { name: "big", annotations: { a: bigAnnotation } } }), status: 413, reason: "RequestEntityTooLarge", message: "Request entity too large: limit is 3145728" },
  { title: "4 MiB body on replace → 413", method: "PUT", path: `${T}/seed`, body: json({ ...template("seed"), metadata: { name: "seed", annotations: { a: bigAnnotation } } }), status: 413, reason: "RequestEntityTooLarge" },
  { title: "unsupported media type → 415", method: "POST", path: J, body: json(job("tp")), headers: { "content-type": "text/plain" }, status: 415, reason: "UnsupportedMediaType", message: ["the body of the request was in an unknown format - accepted media types include: application/json, application/yaml"] },
  { title: "PATCH with a non-patch media type → 415", method: "PATCH", path: `${J}/seed`, body: "{}", headers: { "content-type": "application/json" }, status: 415, reason: "UnsupportedMediaType", message: ["application/merge-patch+json"] },
  { title: "bad Accept on GET → 406", method: "GET", path: `${J}/seed`, headers: { accept: "application/xml" }, status: 406, reason: "NotAcceptable", message: ["only the following media types are accepted: application/json"] },
  { title: "bad Accept on create → 406", method: "POST", path: J, body: json(job("acc")), headers: { accept: "text/html" }, status: 406, reason: "NotAcceptable" },
  { title: "PUT on a collection → 405", method: "PUT", path: J, body: json(job("m")), status: 405, reason: "MethodNotAllowed" },
  { title: "POST on an item → 405", method: "POST", path: `${D}/seed.example.io`, body: json(driver("seed.example.io")), status: 405, reason: "MethodNotAllowed" },
  { title: "PATCH on a collection → 405", method: "PATCH", path: T, body: "{}", headers: { "content-type": "application/merge-patch+json" }, status: 405, reason: "MethodNotAllowed" },
  // Selectors.
  { title: "bad labelSelector", method: "GET", path: `${J}?labelSelector=${encodeURIComponent("a in ((")}`, status: 400, reason: "BadRequest", message: ["unable to parse requirement"] },
  { title: "bad labelSelector on deletecollection", method: "DELETE", path: `${T}?labelSelector=${encodeURIComponent("!!")}`, status: 400, reason: "BadRequest" },
  { title: "unsupported fieldSelector (Job)", method: "GET", path: `${J}?fieldSelector=spec.parallelism%3D1`, status: 400, reason: "BadRequest", message: "field label \"spec.parallelism\" not supported for batchv1.Job" },
  { title: "unsupported fieldSelector (CSIDriver)", method: "GET", path: `${D}?fieldSelector=spec.attachRequired%3Dtrue`, status: 400, reason: "BadRequest", message: "\"spec.attachRequired\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"" },
  { title: "unsupported fieldSelector (CSINode)", method: "GET", path: `${N}?fieldSelector=spec.drivers%3Dx`, status: 400, reason: "BadRequest", message: "\"spec.drivers\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"" },
  { title: "unsupported fieldSelector (PodTemplate, deletecollection)", method: "DELETE", path: `${T}?fieldSelector=template.spec%3Dx`, status: 400, reason: "BadRequest", message: "\"template.spec\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"" },
  { title: "malformed fieldSelector", method: "GET", path: `${J}?fieldSelector=metadata.name`, status: 400, reason: "BadRequest" },
  // Paging and resource versions.
  // 1.23 converts limit as an int64 and answers a failed conversion with strconv.ParseInt's words
  // (a negative limit is no paging, not an error: see apiserver-core's query-conversion test).
  { title: "non-numeric limit", method: "GET", path: `${D}?limit=abc`, status: 400, reason: "BadRequest", message: 'strconv.ParseInt: parsing "abc": invalid syntax' },
  { title: "garbage continue", method: "GET", path: `${T}?limit=1&continue=garbage!!`, status: 400, reason: "BadRequest", message: ["invalid continue token"] },
  { title: "continue with resourceVersion", method: "GET", path: `${T}?limit=1&continue=CONTINUE&resourceVersion=1`, status: 400, reason: "BadRequest", message: "specifying resource version is not allowed when using continue" },
  { title: "non-numeric resourceVersion", method: "GET", path: `${N}?resourceVersion=abc`, status: 400, reason: "BadRequest", message: ["abc"] },
  { title: "non-numeric resourceVersion on get", method: "GET", path: `${J}/seed?resourceVersion=x1`, status: 400, reason: "BadRequest" },
  { title: "resourceVersion newer than the store → 504 Too large resource version", method: "GET", path: `${J}?resourceVersion=99999999`, status: 504, reason: "Timeout", message: ["Too large resource version"] },
  { title: "resourceVersionMatch without resourceVersion", method: "GET", path: `${J}?resourceVersionMatch=NotOlderThan`, status: 422, reason: "Invalid", message: ["resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"] },
  { title: "resourceVersionMatch unknown value", method: "GET", path: `${D}?resourceVersionMatch=Bogus&resourceVersion=1`, status: 422, reason: "Invalid", message: [notSupportedRV] },
  { title: "resourceVersionMatch=Exact with resourceVersion 0", method: "GET", path: `${D}?resourceVersionMatch=Exact&resourceVersion=0`, status: 422, reason: "Invalid", message: ["resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""] },
  { title: "non-numeric timeoutSeconds", method: "GET", path: `${J}?timeoutSeconds=soon`, status: 400, reason: "BadRequest" },
  // Write options.
  { title: "unknown fieldValidation value", method: "POST", path: `${J}?fieldValidation=Bogus`, body: json(job("fv")), status: 400, reason: "BadRequest", message: ["fieldValidation"] },
  { title: "dryRun=Bogus", method: "POST", path: `${D}?dryRun=Bogus`, body: json(driver("dry.example.io")), status: 400, reason: "BadRequest", message: ["dryRun"] },
  { title: "dryRun=Bogus on delete", method: "DELETE", path: `${T}/seed?dryRun=Bogus`, status: 400, reason: "BadRequest", message: ["dryRun"] },
  { title: "non-numeric gracePeriodSeconds", method: "DELETE", path: `${T}/seed?gracePeriodSeconds=later`, status: 400, reason: "BadRequest" },
  { title: "unknown propagationPolicy", method: "DELETE", path: `${J}/seed`, body: json({ kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Sideways" }), status: 422, reason: "Invalid", message: ["propagationPolicy"] },
  { title: "Strict: unknown field", method: "POST", path: `${J}?fieldValidation=Strict`, body: json(job("st", { spec: { foo: 1, template: { spec: podSpec } } })), status: 400, reason: "BadRequest", message: "strict decoding error: unknown field \"spec.foo\"" },
  { title: "Strict: duplicate field", method: "POST", path: `${D}?fieldValidation=Strict`, body: "{\"apiVersion\":\"storage.example.io/v1\",\"kind\":\"CSIDriver\",\"metadata\":{\"name\":\"dup.example.io\"},\"spec\":{},\"spec\":{}}", status: 400, reason: "BadRequest", message: "strict decoding error: duplicate field \"spec\"" },
  { title: "Strict: unknown and duplicate fields together, on replace", method: "PUT", path: `${N}/seed-node?fieldValidation=Strict`, body: "{\"apiVersion\":\"storage.example.io/v1\",\"kind\":\"CSINode\",\"metadata\":{\"name\":\"seed-node\",\"colour\":\"red\"},\"spec\":{\"drivers\":[]},\"spec\":{\"drivers\":[]}}", status: 400, reason: "BadRequest", message: ["strict decoding error: ", "unknown field \"metadata.colour\"", "duplicate field \"spec\""] },
  { title: "Strict: unknown field in a YAML body", method: "POST", path: `${T}?fieldValidation=Strict`, body: "apiVersion: v1\nkind: PodTemplate\nmetadata:\n  name: y\ntemplate:\n  spec:\n    containers:\n    - name: c\n      image: b\n      colour: red\n", headers: yaml, status: 400, reason: "BadRequest", message: ["unknown field \"template.spec.containers[0].colour\""] },
];

interface Snapshot { readonly rvs: string[]; readonly items: string }

describe("HTTP bad-input matrix (storage unchanged after each)", () => {
  let s: RunningServer;
  let continueToken = "";
  beforeAll(async () => {
    s = await startServer();
    for (const [path, body] of [[J, job("seed")], [D, driver("seed.example.io")], [N, csiNode("seed-node")], [T, template("seed")], [T, template("seed-2")]] as const) {
      const r = await call(s, "POST", path, body);
      if (r.status !== 201) throw new Error(`seeding ${path}: ${r.body}`);
    }
    const page = (await call(s, "GET", `${T}?limit=1`)).json() as { metadata: { continue: string } };
    continueToken = page.metadata.continue;
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  async function snapshot(): Promise<Snapshot> {
    const rs = await Promise.all(lists.map((p) => call(s, "GET", p)));
    const bodies = rs.map((r) => r.json() as { metadata: { resourceVersion: string }; items: unknown[] });
    return { rvs: bodies.map((b) => b.metadata.resourceVersion), items: JSON.stringify(bodies.map((b) => b.items)) };
  }

  // A raw request that tolerates the server closing the socket after answering a huge body. The
  // server answers 413 and closes while a 4 MiB upload may still be under way: the client's write
  // can then fail (EPIPE, ECONNRESET) before it has read the answer (Go's transport returns the
  // response it got; Node's request does not). Such an attempt is tried again, at most 3 times.
  async function send(row: Row): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await sendOnce(row);
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        if (attempt >= 3 || (code !== "EPIPE" && code !== "ECONNRESET")) throw e;
      }
    }
  }

  function sendOnce(row: Row): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const path = row.path.replace("CONTINUE", encodeURIComponent(continueToken));
      const req = request(
        {
          host: "127.0.0.1", servername: "localhost", port: s.port, path, method: row.method, ca: s.ca,
          // Node's client sends a DELETE body unframed unless a length is given; the 4 MiB bodies go
          // chunked, so the server reads up to its limit and answers instead of racing our upload.
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json", ...(row.body !== undefined && row.body.length < 1024 * 1024 ? { "content-length": String(Buffer.byteLength(row.body)) } : {}), ...row.headers },
        },
        (res) => {
          answered = true;
          let text = "";
          res.on("data", (d: Buffer) => (text += d.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      req.on("error", (e) => {
        if (!answered) reject(e);
      });
      if (row.body !== undefined) req.write(row.body);
      req.end();
    });
  }

  it.each(rows.map((r) => [r.title, r] as const))("%s", async (_t, row) => {
    const before = await snapshot();
    const r = await send(row);
    expect(r.status, r.body.slice(0, 500)).toBe(row.status);
    const st = JSON.parse(r.body) as { kind: string; status: string; code: number; reason: string; message: string };
    expect(st).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code: row.status });
    if (row.reason !== undefined) expect(st.reason).toBe(row.reason);
    if (typeof row.message === "string") expect(st.message).toBe(row.message);
    else for (const m of row.message ?? []) expect(st.message).toContain(m);
    const after = await snapshot();
    expect(after).toEqual(before);
  });

  it("the server is still healthy after the matrix", async () => {
    expect((await call(s, "GET", "/readyz")).status).toBe(200);
  });

  it("YAML bodies are accepted on create and replace", async () => {
    const c = await call(s, "POST", D, "apiVersion: storage.example.io/v1\nkind: CSIDriver\nmetadata:\n  name: yaml.example.io\nspec:\n  podInfoOnMount: true\n", yaml);
    expect(c.status, c.body).toBe(201);
    const stored = c.json() as { metadata: { resourceVersion: string } };
    const u = await call(
      s, "PUT", `${D}/yaml.example.io`,
      `apiVersion: storage.example.io/v1\nkind: CSIDriver\nmetadata:\n  name: yaml.example.io\n  resourceVersion: "${stored.metadata.resourceVersion}"\n  labels: {via: yaml}\nspec:\n  podInfoOnMount: true\n  requiresRepublish: true\n`,
      yaml,
    );
    expect(u.status, u.body).toBe(200);
    expect(u.json()).toMatchObject({ metadata: { labels: { via: "yaml" } }, spec: { requiresRepublish: true, podInfoOnMount: true } });
  });

  it("fieldValidation=Warn stores the object and names the problems in Warning headers", async () => {
    const body = "{\"apiVersion\":\"v1\",\"kind\":\"PodTemplate\",\"metadata\":{\"name\":\"warned\"},\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"b\",\"colour\":1}]}},\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"b\",\"colour\":1}]}}}";
    const r = await call(s, "POST", `${T}?fieldValidation=Warn`, body);
    expect(r.status, r.body).toBe(201);
    const warning = String(r.headers["warning"]);
    expect(warning).toContain("299 - \"unknown field \\\"template.spec.containers[0].colour\\\"\"");
    expect(warning).toContain("duplicate field \\\"template\\\"");
  });

  it("fieldValidation=Ignore (and the default) drop unknown fields silently", async () => {
    for (const [q, name] of [["?fieldValidation=Ignore", "ignored"], ["", "defaulted"]] as const) {
      const r = await call(s, "POST", `${T}${q}`, json({ ...template(name), colour: "red" }));
      expect(r.status, r.body).toBe(201);
      expect(r.headers["warning"]).toBeUndefined();
      expect(r.json()).not.toHaveProperty("colour");
    }
  });

  it("pretty=true indents JSON; a continue token from another resource is a start key, as in 1.23", async () => {
    const r = await call(s, "GET", `${T}/seed?pretty=true`);
    expect(r.status).toBe(200);
    expect(r.body).toContain("\n  \"kind\": \"PodTemplate\"");
    const cross = await call(s, "GET", `${J}?limit=1&continue=${encodeURIComponent(continueToken)}`);
    expect(cross.status, cross.body).toBe(200);
  });
});
