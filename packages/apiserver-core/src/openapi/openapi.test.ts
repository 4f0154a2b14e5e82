import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { buildOpenAPIV3, handleOpenAPIV3 } from "./index.js";
import type { OpenAPIDocument } from "./index.js";

const require = createRequire(import.meta.url);
const doc = JSON.parse(readFileSync(require.resolve("@skiff/api-types/openapi.json"), "utf8")) as OpenAPIDocument;
const svc = buildOpenAPIV3(doc);

function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out);
  else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refs(v, out);
    }
  return out;
}

describe("openapi v3", () => {
  it("indexes every served group/version", () => {
    expect(Object.keys(svc.index.paths)).toEqual(expect.arrayContaining(["api/v1", "apis/batch/v1", "apis/storage.example.io/v1"]));
    const entry = svc.index.paths["apis/batch/v1"];
    expect(entry?.serverRelativeURL).toMatch(/^\/openapi\/v3\/apis\/batch\/v1\?hash=[0-9A-F]{128}$/);
  });
  it("every $ref resolves inside its document; kinds carry GVK; PATCH has fieldValidation", () => {
    for (const [key, { body }] of svc.documents) {
      const d = JSON.parse(body) as { paths: Record<string, Record<string, Record<string, unknown>>>; components: { schemas: Record<string, unknown> } };
      for (const r of refs(d)) expect(d.components.schemas[r.replace("#/components/schemas/", "")], `${key}: ${r}`).toBeDefined();
      for (const [path, item] of Object.entries(d.paths)) {
        expect(path.startsWith(`/${key}`)).toBe(true);
        const patch = item["patch"];
        if (patch) {
          expect(patch["x-kubernetes-group-version-kind"], path).toBeDefined();
          expect((patch["parameters"] as { name: string }[]).map((p) => p.name), path).toContain("fieldValidation");
          expect(Object.keys((patch["requestBody"] as { content: object }).content).sort()).toEqual([
            "application/apply-patch+yaml",
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
          ]);
        }
      }
    }
    const batch = JSON.parse(svc.documents.get("apis/batch/v1")?.body ?? "{}") as { components: { schemas: Record<string, Record<string, unknown>> } };
    expect(batch.components.schemas["io.example.api.batch.v1.Job"]?.["x-kubernetes-group-version-kind"]).toBeDefined();
    expect(Object.keys(batch.components.schemas).some((n) => n.includes("CSIDriver"))).toBe(false);
  });
  it("serves index and documents with caching headers", () => {
    expect(handleOpenAPIV3(svc, "/openapi/v3", undefined)?.status).toBe(200);
    const url = svc.index.paths["apis/batch/v1"]?.serverRelativeURL ?? "";
    const hash = url.split("hash=")[1];
    const r = handleOpenAPIV3(svc, "/openapi/v3/apis/batch/v1", hash);
    expect(r?.headers["cache-control"]).toBe("public, immutable");
    expect(handleOpenAPIV3(svc, "/openapi/v3/apis/batch/v1", "stale")?.status).toBe(301);
    expect(handleOpenAPIV3(svc, "/openapi/v3/apis/batch/v1", undefined)?.headers["cache-control"]).toBe("no-cache, private");
    expect(handleOpenAPIV3(svc, "/openapi/v3/apis/nope/v1", undefined)).toBeUndefined();
    expect(buildOpenAPIV3(doc).index).toEqual(svc.index);
  });
});
