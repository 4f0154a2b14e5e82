import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TokenFileError, loadTokenFile, parseTokenFile } from "./token-file.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe("parseTokenFile", () => {
  it("parses tokens, quoted groups, optional groups and blank lines", () => {
    const m = parseTokenFile('abc,alice,1,"dev,ops"\n\nxyz,bob,2\nq,"c,d",3, g1 \n');
    expect(m.get("abc")).toEqual({ username: "alice", uid: "1", groups: ["dev", "ops"] });
    expect(m.get("xyz")).toEqual({ username: "bob", uid: "2", groups: [] });
    expect(m.get("q")).toEqual({ username: "c,d", uid: "3", groups: ["g1"] });
  });
  it("names the line with fewer than 3 columns", () => {
    expect(() => parseTokenFile("a,b,c\nonly,two\n", "t.csv")).toThrow(/line 2/);
    expect(() => parseTokenFile("only,two\n")).toThrow(TokenFileError);
  });
  it("rejects unterminated quotes and empty tokens", () => {
    expect(() => parseTokenFile('a,b,c,"g1\n')).toThrow(/unterminated/);
    expect(() => parseTokenFile(",b,c\n")).toThrow(/empty token/);
  });
  it("loads from disk and reports unreadable files", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tok-"));
    dirs.push(dir);
    await writeFile(join(dir, "t.csv"), "t1,u,1\n");
    expect((await loadTokenFile(join(dir, "t.csv"))).get("t1")?.username).toBe("u");
    await expect(loadTokenFile(join(dir, "missing.csv"))).rejects.toThrow(TokenFileError);
  });
});
