// Issue 14 defect 1 against the real skiff-apiserver: deeply nested JSON and YAML, YAML alias bombs
// and self-references, JSON Patch copy loops and random protobuf bytes, on create, replace, every
// patch type and apply of a Job, answer a 4xx Status (never a 500) and store nothing.
import { request } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, startServer } from "./harness.js";
import type { RunningServer } from "./harness.js";

const jobs = "/apis/batch/v1/namespaces/default/jobs";
const job = (name: string, labelValue = '"x"') =>
  `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"${name}"},"spec":{"template":{"metadata":{"labels":{"a":${labelValue}}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`;
const laughs = "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" +
  Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(",")}]`).join("\n") + "\n";

function postBytes(s: RunningServer, path: string, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", servername: "localhost", port: s.port, path, method: "POST", ca: s.ca, headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/vnd.kubernetes.protobuf", accept: "application/json", "content-length": String(body.length) } },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("pathological bodies (issue 14)", () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer();
    expect((await call(s, "POST", jobs, job("base"))).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });
  const list = async () => (await call(s, "GET", jobs)).body.replace(/"resourceVersion":"\d+",?/g, "");

  it("answers 4xx Status for every decoder and route, stores nothing, and stays up", async () => {
    const before = await list();
    const cases: [string, string, string, string][] = [];
    for (const d of [1000, 5000, 20000, 100000]) {
      const v = "[".repeat(d) + "]".repeat(d);
      cases.push(
        ["POST", jobs, job("deep", v), "application/json"],
        ["POST", jobs, `apiVersion: batch/v1\nkind: Job\nmetadata: {name: deep}\nx: ${v}\n`, "application/yaml"],
        ["PUT", `${jobs}/base`, job("base", v), "application/json"],
        ["PATCH", `${jobs}/base`, `[{"op":"add","path":"/metadata/labels","value":${v}}]`, "application/json-patch+json"],
        ["PATCH", `${jobs}/base`, `{"metadata":{"labels":${v}}}`, "application/merge-patch+json"],
        ["PATCH", `${jobs}/base`, `{"spec":{"template":{"metadata":{"labels":{"a":${v}}}}}}`, "application/strategic-merge-patch+json"],
        ["PATCH", `${jobs}/base?fieldManager=m`, job("base", v), "application/apply-patch+yaml"],
      );
    }
    for (const y of [laughs, "x: &a [*a]\n", "metadata: &m {name: base, labels: {x: *m}}\n"]) {
      cases.push(["POST", jobs, `apiVersion: batch/v1\nkind: Job\n${y.startsWith("metadata") ? "" : "metadata: {name: y}\n"}${y}`, "application/yaml"]);
      cases.push(["PATCH", `${jobs}/base?fieldManager=m`, `apiVersion: batch/v1\nkind: Job\n${y.startsWith("metadata") ? "" : "metadata: {name: base}\n"}${y}`, "application/apply-patch+yaml"]);
    }
    const copyLoop = [{ op: "add", path: "/metadata/annotations", value: { a: "y".repeat(1000) } }, ...Array.from({ length: 40 }, (_, i) => ({ op: "copy", from: "/metadata/annotations", path: `/metadata/annotations/a${i}` }))];
    cases.push(["PATCH", `${jobs}/base`, JSON.stringify(copyLoop), "application/json-patch+json"]);
    for (const [method, path, body, type] of cases) {
      const r = await call(s, method, path, body, { "content-type": type });
      expect(r.status, `${method} ${type} ${body.slice(0, 60)}: ${r.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(r.status, `${method} ${type} ${body.slice(0, 60)}: ${r.body.slice(0, 200)}`).toBeLessThan(500);
      expect(r.json()).toMatchObject({ kind: "Status", status: "Failure" });
    }
    const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
    for (let i = 0; i < 50; i++) {
      const r = await postBytes(s, jobs, Buffer.concat([magic, Buffer.from(Array.from({ length: 1 + ((i * 37) % 300) }, (_, j) => (i * 131 + j * 17) % 256))]));
      expect(r.status, r.body.slice(0, 200)).toBeLessThan(500);
    }
    expect(await list()).toBe(before);
    expect((await call(s, "GET", "/healthz")).status).toBe(200);
  }, 120_000);
});
