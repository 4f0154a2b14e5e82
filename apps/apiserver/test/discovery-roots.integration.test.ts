// Every discovery and API root of the real skiff-apiserver with and without trailing slashes, as
// 1.23 serves them: go-restful WebService roots (/api, /api/v1, /apis/<group>, /apis/<group>/<version>,
// /version) ignore any number of trailing slashes; the non-go-restful mux matches exactly (/apis
// and /apis/ only; /openapi/v2/, /healthz/ are not found). Resource paths take trailing slashes too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startServer } from "./harness.js";
import type { RunningServer } from "./harness.js";

let s: RunningServer;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- discovery JSON is probed freely
type Json = Record<string, any>;
let groups: { name: string; versions: string[] }[] = [];

beforeAll(async () => {
  s = await startServer();
  const list = (await call(s, "GET", "/apis")).json() as Json;
  groups = (list["groups"] as Json[]).map((g) => ({ name: g["name"] as string, versions: (g["versions"] as Json[]).map((v) => v["version"] as string) }));
}, 60_000);
afterAll(async () => {
  await s.stop();
});

const kindAt = async (path: string) => {
  const r = await call(s, "GET", path, undefined, { accept: "application/json" });
  return { status: r.status, kind: r.status === 200 ? ((r.json() as Json)["kind"] as string | undefined) : undefined };
};

describe("discovery roots", () => {
  it.each([
    ["/api", "APIVersions"], ["/api/", "APIVersions"], ["/api//", "APIVersions"],
    ["/api/v1", "APIResourceList"], ["/api/v1/", "APIResourceList"], ["/api/v1//", "APIResourceList"],
    ["/apis", "APIGroupList"], ["/apis/", "APIGroupList"],
  ])("%s → 200 %s", async (path, kind) => {
    expect(await kindAt(path)).toEqual({ status: 200, kind });
  });

  it("every served group and version, with and without trailing slashes", async () => {
    expect(groups.map((g) => g.name)).toEqual(expect.arrayContaining(["batch", "storage.example.io", "coordination.k8s.io"]));
    for (const g of groups) {
      for (const suffix of ["", "/", "//"]) {
        expect(await kindAt(`/apis/${g.name}${suffix}`)).toEqual({ status: 200, kind: "APIGroup" });
        for (const v of g.versions) expect(await kindAt(`/apis/${g.name}/${v}${suffix}`)).toEqual({ status: 200, kind: "APIResourceList" });
      }
    }
  });

  it.each([
    "/apis//", "/apis/nosuch.example.io", "/apis/nosuch.example.io/", "/apis/batch/v9", "/apis/batch/v9/", "/api/v9", "/api/v9/",
    "/openapi/v2/", "/healthz/", "//api", "/apis/batch/v1/nosuch/",
  ])("%s → 404", async (path) => {
    expect((await call(s, "GET", path)).status).toBe(404);
  });

  it.each(["/version", "/version/", "/version//"])("%s → 200 version.Info", async (path) => {
    const r = await call(s, "GET", path);
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ major: "1", minor: "23" });
  });

  it("/openapi/v2 is served only without a trailing slash", async () => {
    expect((await call(s, "GET", "/openapi/v2")).status).toBe(200);
  });
});

describe("resource paths", () => {
  it.each([
    ["/apis/batch/v1/namespaces/default/jobs/", "JobList"],
    ["/apis/batch/v1/jobs/", "JobList"],
    ["/apis/storage.example.io/v1/csidrivers/", "CSIDriverList"],
    ["/apis/storage.example.io/v1/csinodes//", "CSINodeList"],
    ["/api/v1/namespaces/default/podtemplates/", "PodTemplateList"],
    ["/api/v1/namespaces/", "NamespaceList"],
    ["/api/v1/namespaces/default/", "Namespace"],
  ])("%s → 200 %s", async (path, kind) => {
    expect(await kindAt(path)).toEqual({ status: 200, kind });
  });
});
