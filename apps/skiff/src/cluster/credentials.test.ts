import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { clusterUsers, ensureTokens } from "./credentials.js";

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("local cluster credentials", () => {
  it("each component has 1.23's identity", () => {
    expect(clusterUsers("node-a")).toEqual({
      admin: { user: "admin", groups: "system:masters" },
      "job-controller": { user: "system:kube-controller-manager", groups: "" },
      scheduler: { user: "system:kube-scheduler", groups: "" },
      nodeagent: { user: "system:node:node-a", groups: "system:nodes" },
    });
  });

  it("keeps the tokens of an older token file, drops the retired system:skiff-* users and adds the missing ones", () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-creds-"));
    const file = join(dir, "tokens.csv");
    writeFileSync(file, 'adm1n,admin,admin,"system:masters"\nold1,system:skiff-job-controller,system:skiff-job-controller,"system:authenticated"\nold2,system:skiff-scheduler,system:skiff-scheduler,"system:authenticated"\nmine,alice,alice,""\n');
    const tokens = ensureTokens(file, "node-a");
    expect(tokens.admin).toBe("adm1n");
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines.some((l) => l.includes("system:skiff-"))).toBe(false);
    expect(lines).toContain("mine,alice,alice,\"\"");
    expect(lines).toContain(`${tokens["job-controller"]},system:kube-controller-manager,system:kube-controller-manager,""`);
    expect(lines).toContain(`${tokens.nodeagent},system:node:node-a,system:node:node-a,"system:nodes"`);
    expect(ensureTokens(file, "node-a")).toEqual(tokens);
  });
});
