import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mkdirAll } from "./mkdir-all.js";

const root = mkdtempSync(join(tmpdir(), "skiff-mkdir-all-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("mkdirAll", () => {
  it("creates missing parents and accepts an existing folder", async () => {
    const dir = join(root, "a", "b", "c");
    await mkdirAll(dir, 0o755);
    expect(statSync(dir).isDirectory()).toBe(true);
    await expect(mkdirAll(dir)).resolves.toBeUndefined();
  });

  it("names the real cause when a level is a file (not Node's ENOENT)", async () => {
    writeFileSync(join(root, "file"), "");
    await expect(mkdirAll(join(root, "file", "x", "y"))).rejects.toMatchObject({ code: "ENOTDIR" });
  });
});
