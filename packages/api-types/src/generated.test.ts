import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { documentPath, renderGenerated, schemaPath } from "../scripts/generate.mjs";

// Generated artifacts are committed; this fails when they are stale. Fix: run
// `pnpm --filter @skiff/api-types run generate` and commit the result.
describe("generated files", () => {
  it("openapi.json and src/generated/schema.ts equal a fresh generation", async () => {
    const { documentJson, schemaTs } = await renderGenerated();
    expect(readFileSync(documentPath, "utf8"), "openapi.json is stale: run the generate script").toBe(documentJson);
    expect(readFileSync(schemaPath, "utf8"), "src/generated/schema.ts is stale: run the generate script").toBe(schemaTs);
  }, 60_000);

  it("schema.ts carries the do-not-edit header and keeps optional members free of `| undefined`", () => {
    const text = readFileSync(schemaPath, "utf8");
    expect(text.split("\n", 1)[0]).toMatch(/^\/\/ Code generated .* DO NOT EDIT\.$/);
    expect(text).not.toMatch(/\?: [^;\n]*\| undefined/);
  });
});

describe("package.json", () => {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    files: string[];
    exports: Record<string, unknown>;
    publishConfig: { exports: Record<string, unknown> };
    dependencies?: Record<string, string>;
  };

  it("publishes the document as @skiff/api-types/openapi.json, with no runtime dependencies", () => {
    expect(pkg.exports["./openapi.json"]).toBe("./openapi.json");
    expect(pkg.publishConfig.exports["./openapi.json"]).toBe("./openapi.json");
    expect(pkg.files).toContain("openapi.json");
    expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);
  });
});
