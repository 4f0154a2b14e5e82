import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cgroupParentExists, cgroupPathSegments, containerCgroupDirs } from "./cgroups.js";

describe("cgroupPathSegments (runc's CleanPath)", () => {
  it.each([
    ["/kubepods/burstable/pod1", ["kubepods", "burstable", "pod1"]],
    ["kubepods//besteffort/", ["kubepods", "besteffort"]],
    ["../../etc", ["etc"]],
    ["/a/../../b", ["b"]],
    ["/kubepods/../..", []],
    ["./x/./y", ["x", "y"]],
    ["", []],
  ])("%j → %j", (path, segments) => {
    expect(cgroupPathSegments(path)).toEqual(segments);
  });
});

describe("a cgroup_parent with .. segments stays under the cgroup root", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  // A cgroup v2 layout in a temp dir: the root is recognised by its cgroup.controllers file.
  const v2Root = () => {
    const root = mkdtempSync(join(tmpdir(), "skiff-cgroups-"));
    dirs.push(root);
    writeFileSync(join(root, "cgroup.controllers"), "cpu memory pids\n");
    return root;
  };

  it("places the container's cgroup under the root, never beside it", () => {
    const root = v2Root();
    const [dir] = containerCgroupDirs(root, "../../../etc/kubepods", "c1", { memoryLimitInBytes: "1048576" } as never);
    expect(dir?.dir).toBe(join(root, "etc", "kubepods", "c1"));
    expect(containerCgroupDirs(root, "/ok", "../../c2", null)[0]?.dir).toBe(join(root, "ok", "c2"));
  });

  it("checks for the parent under the root", () => {
    const root = v2Root();
    // `..` from the root would be the temp dir, which exists; cleaned, it is the root itself.
    expect(cgroupParentExists(root, "../")).toBe(true);
    expect(cgroupParentExists(root, `../${root.split("/").pop() ?? ""}`)).toBe(false);
  });
});
