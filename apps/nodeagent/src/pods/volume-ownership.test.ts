import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { csiSupportsFSGroup, setVolumeOwnership } from "./volume-ownership.js";

const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)("setVolumeOwnership (chown needs root)", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "fsgroup-"));
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", "f"), "x");
    chmodSync(join(dir, "sub", "f"), 0o600);
    chmodSync(join(dir, "sub"), 0o700);
    chmodSync(dir, 0o755);
    symlinkSync("sub/f", join(dir, "link"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("gives every entry the group, rw for files, rwx + setgid for directories; symlinks are not chmod-ed", async () => {
    await setVolumeOwnership(dir, 4000, { readOnly: false });
    expect(statSync(dir).gid).toBe(4000);
    expect(statSync(dir).mode & 0o7777).toBe(0o2775);
    expect(statSync(join(dir, "sub")).mode & 0o7777).toBe(0o2770);
    expect(statSync(join(dir, "sub", "f")).mode & 0o7777).toBe(0o660);
    expect(statSync(join(dir, "sub", "f")).gid).toBe(4000);
    expect(lstatSync(join(dir, "link")).gid).toBe(4000);
  });

  it("read-only volumes get r--r----- (plus x and setgid on directories)", async () => {
    await setVolumeOwnership(dir, 4000, { readOnly: true });
    expect(statSync(join(dir, "sub")).mode & 0o7777).toBe(0o2750);
    expect(statSync(join(dir, "sub", "f")).mode & 0o7777).toBe(0o640);
  });

  it("OnRootMismatch skips a volume whose root already matches, Always walks it", async () => {
    chownSync(dir, 0, 4000);
    chmodSync(dir, 0o2770);
    await setVolumeOwnership(dir, 4000, { readOnly: false, fsGroupChangePolicy: "OnRootMismatch" });
    expect(statSync(join(dir, "sub", "f")).gid).toBe(0);
    await setVolumeOwnership(dir, 4000, { readOnly: false, fsGroupChangePolicy: "Always" });
    expect(statSync(join(dir, "sub", "f")).gid).toBe(4000);
  });

  it("OnRootMismatch walks when the root's group differs", async () => {
    await setVolumeOwnership(dir, 4000, { readOnly: false, fsGroupChangePolicy: "OnRootMismatch" });
    expect(statSync(join(dir, "sub", "f")).gid).toBe(4000);
  });

  it("does nothing without an fsGroup", async () => {
    await setVolumeOwnership(dir, undefined, { readOnly: false });
    expect(statSync(dir).mode & 0o7777).toBe(0o755);
  });
});

describe("csiSupportsFSGroup (inline CSI volumes, 1.23)", () => {
  it.each([
    [4000, "File", false, "", true],
    [4000, undefined, false, "ext4", true],
    [4000, "ReadWriteOnceWithFSType", false, "", false],
    [4000, "None", false, "ext4", false],
    [4000, "File", true, "", false],
    [undefined, "File", false, "", false],
  ])("fsGroup %s, policy %s, readOnly %s, fsType %j → %s", (fsGroup, policy, readOnly, fsType, want) => {
    expect(csiSupportsFSGroup(fsGroup, policy, readOnly, fsType)).toBe(want);
  });
});
