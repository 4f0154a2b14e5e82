import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkDataDir, markDataDir, versionMarkerFile } from "./data-dir.js";

const base = mkdtempSync(join(tmpdir(), "skiff-datadir-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(base, `d${n++}`);

describe("checkDataDir / markDataDir", () => {
  it("a missing or empty directory is usable; marking writes {\"skiff\": version}", () => {
    const d = fresh();
    expect(checkDataDir(d, "0.1.0")).toBeUndefined();
    mkdirSync(d);
    expect(checkDataDir(d, "0.1.0")).toBeUndefined();
    markDataDir(d, "0.1.0");
    expect(JSON.parse(readFileSync(join(d, versionMarkerFile), "utf8"))).toEqual({ skiff: "0.1.0" });
    expect(checkDataDir(d, "0.1.0")).toBeUndefined();
  });

  it("another version's directory is refused, naming both versions, and is left as it was", () => {
    const d = fresh();
    markDataDir(d, "0.1.0");
    writeFileSync(join(d, "data.db"), "x");
    const before = readdirSync(d).sort();
    const p = checkDataDir(d, "0.2.0");
    expect(p?.code).toBe("OtherVersion");
    expect(p?.message).toContain("holds data of Skiff 0.1.0; this is Skiff 0.2.0");
    expect(readdirSync(d).sort()).toEqual(before);
    expect(readFileSync(join(d, versionMarkerFile), "utf8")).toContain("0.1.0");
  });

  it("a non-empty directory without a marker, a bad marker and a file are refused", () => {
    const d = fresh();
    mkdirSync(d);
    writeFileSync(join(d, "notes.txt"), "mine");
    expect(checkDataDir(d, "0.1.0")?.code).toBe("NotSkiffData");
    const e = fresh();
    mkdirSync(e);
    writeFileSync(join(e, versionMarkerFile), "{");
    expect(checkDataDir(e, "0.1.0")?.code).toBe("BadMarker");
    writeFileSync(join(e, versionMarkerFile), "{}");
    expect(checkDataDir(e, "0.1.0")?.code).toBe("BadMarker");
    const f = fresh();
    writeFileSync(f, "");
    expect(checkDataDir(f, "0.1.0")?.code).toBe("NotADirectory");
  });
});
