// `pnpm start` asked for the isolated process runtime (SKIFF_PROCESS_ISOLATION=namespaces) without
// bubblewrap: it says what to install and starts nothing. (Without the variable it says the same and
// starts with plain processes, so the README's first command still gives a working cluster.)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "skiff-noisol-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("pnpm start without bubblewrap", () => {
  it("names the package to install and the SKIFF_PROCESS_ISOLATION=none way out, and starts nothing", () => {
    const bin = join(dir, "bin");
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, "node"));
    const state = join(dir, "state");
    const r = spawnSync(process.execPath, [join(import.meta.dirname, "../start.mjs")], {
      env: { PATH: bin, SKIFF_RUNTIME: "process", SKIFF_PROCESS_ISOLATION: "namespaces", SKIFF_STATE_DIR: state },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("skiff: bubblewrap (bwrap) is not installed");
    expect(r.stderr).toContain("sudo apt-get install -y bubblewrap");
    expect(r.stderr).toContain("SKIFF_PROCESS_ISOLATION=none pnpm start");
    expect(existsSync(state)).toBe(false);
  });
});
