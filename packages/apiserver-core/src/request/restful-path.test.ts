import { describe, expect, it } from "vitest";
import { trimRestfulTrailingSlashes } from "./restful-path.js";

describe("trimRestfulTrailingSlashes (1.23's director + go-restful CurlyRouter)", () => {
  it.each([
    ["/api/", "/api"],
    ["/api//", "/api"],
    ["/api/v1/", "/api/v1"],
    ["/apis/", "/apis"],
    ["/apis/batch/", "/apis/batch"],
    ["/apis/batch/v1/", "/apis/batch/v1"],
    ["/apis/batch/v1///", "/apis/batch/v1"],
    ["/apis/batch/v1/namespaces/default/jobs/?limit=1", "/apis/batch/v1/namespaces/default/jobs?limit=1"],
    ["/api/v1/namespaces/default/pods/p/log/?follow=1", "/api/v1/namespaces/default/pods/p/log?follow=1"],
    ["/version/", "/version"],
    ["/version//?x=/", "/version?x=/"],
  ])("%s → %s", (url, want) => {
    expect(trimRestfulTrailingSlashes(url)).toBe(want);
  });
  it.each(["/apis//", "/openapi/v2/", "/openapi/v3/", "/healthz/", "/livez/", "/readyz/", "/", "//api/", "/apix/", "/apis", "/api", "/versions/", "/api?x=/"])("%s stays (non-go-restful mux: exact match)", (url) => {
    expect(trimRestfulTrailingSlashes(url)).toBe(url);
  });
});
