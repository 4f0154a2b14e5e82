import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import { VolumeStatsCache } from "./volume-stats.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("VolumeStatsCache", () => {
  it("a pass with no pods does not stop later passes (the cache once kept the first, settled pass forever)", async () => {
    const root = mkdtempSync(join(tmpdir(), "skiff-volstats-"));
    dirs.push(root);
    let pods: Pod[] = [];
    const cache = new VolumeStatsCache({ rootDir: root, periodMs: 1000, pods: () => pods });
    await cache.refresh();
    expect(cache.has("u1")).toBe(false);
    const dir = join(root, "pods", "u1", "volumes", "kubernetes.io~empty-dir", "scratch");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "f"), Buffer.alloc(64 * 1024, 1));
    pods = [{ metadata: { uid: "u1", name: "p", namespace: "default" } } as Pod];
    await cache.refresh();
    expect(cache.has("u1")).toBe(true);
    expect(cache.get("u1")[0]?.name).toBe("scratch");
    expect(cache.get("u1")[0]?.usedBytes).toBeGreaterThanOrEqual(64 * 1024);
  });
});
