import { describe, expect, it } from "vitest";
import { parseRequestInfo } from "./request-info.js";

describe("parseRequestInfo", () => {
  it.each([
    ["GET", "/apis/batch/v1/namespaces/d/jobs", {}, { verb: "list", apiGroup: "batch", namespace: "d", resource: "jobs", name: "" }],
    ["GET", "/apis/batch/v1/namespaces/d/jobs", { watch: "true" }, { verb: "watch" }],
    ["GET", "/apis/batch/v1/watch/namespaces/d/jobs", {}, { verb: "watch", resource: "jobs" }],
    ["PUT", "/apis/batch/v1/namespaces/d/jobs/p/status", {}, { verb: "update", name: "p", subresource: "status" }],
    ["DELETE", "/api/v1/namespaces/d/pods", {}, { verb: "deletecollection", apiGroup: "", resource: "pods" }],
    ["GET", "/api/v1/namespaces/d", {}, { verb: "get", resource: "namespaces", name: "d", namespace: "d" }],
    ["PUT", "/api/v1/namespaces/d/finalize", {}, { resource: "namespaces", name: "d", subresource: "finalize" }],
    ["GET", "/api/v1/nodes/n1", {}, { verb: "get", resource: "nodes", name: "n1", namespace: "" }],
  ])("%s %s", (method, path, query, want) => {
    const info = parseRequestInfo(method, path, query);
    expect(info.isResourceRequest).toBe(true);
    expect(info).toMatchObject(want);
  });
  it("ignores empty segments, decodes percent-escapes and keeps a malformed escape as it is", () => {
    expect(parseRequestInfo("GET", "//api//v1/namespaces/d//pods/a%3Ab/", {})).toMatchObject({ isResourceRequest: true, verb: "get", namespace: "d", resource: "pods", name: "a:b", parts: ["pods", "a:b"] });
    expect(parseRequestInfo("GET", "/api/v1/namespaces/d/pods/a%zz", {})).toMatchObject({ name: "a%zz" });
  });
  it("non-resource requests carry the lowercased method as verb and empty facts", () => {
    expect(parseRequestInfo("post", "/healthz", {})).toEqual({ isResourceRequest: false, path: "/healthz", verb: "post", apiPrefix: "", apiGroup: "", apiVersion: "", namespace: "", resource: "", subresource: "", name: "", parts: [] });
  });
  it("non-resource paths", () => {
    for (const p of ["/", "/api", "/apis/batch", "/healthz", "/api/v1"]) expect(parseRequestInfo("GET", p, {}).isResourceRequest).toBe(false);
  });
});
