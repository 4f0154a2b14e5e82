// The committed src/generated/ must be what scripts/generate.mjs makes of proto/ now: regenerate
// into a temporary directory and compare every file.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const committedDir = join(packageDir, "src/generated");
const freshDir = mkdtempSync(join(tmpdir(), "skiff-cri-generated-"));

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

afterAll(() => rmSync(freshDir, { recursive: true, force: true }));

describe("src/generated", () => {
  it("is up to date with proto/runtime/v1/api.proto (run `pnpm --filter @skiff/cri-api run generate`)", () => {
    execFileSync(process.execPath, [join(packageDir, "scripts/generate.mjs"), freshDir], { stdio: "pipe" });
    const fresh = listFiles(freshDir);
    expect(listFiles(committedDir)).toEqual(fresh);
    for (const file of fresh) {
      expect(readFileSync(join(committedDir, file), "utf8"), file).toBe(readFileSync(join(freshDir, file), "utf8"));
    }
  });

  it("marks every generated file as generated", () => {
    for (const file of listFiles(committedDir)) {
      expect(readFileSync(join(committedDir, file), "utf8").split("\n")[0], file).toContain("DO NOT EDIT");
    }
  });
});
