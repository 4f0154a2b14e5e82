import { describe, expect, it } from "vitest";
import { checkNamespaceIsolation, findExecutable, IsolationUnavailableError } from "./isolation-check.js";

describe("checkNamespaceIsolation", () => {
  it("says what to install when bwrap is not on PATH", async () => {
    expect(findExecutable("bwrap", "/nonexistent-dir")).toBeUndefined();
    const saved = process.env.PATH;
    process.env.PATH = "/nonexistent-dir";
    try {
      await expect(checkNamespaceIsolation()).rejects.toThrow(/bubblewrap \(bwrap\) was not found on PATH: install bubblewrap \(Debian\/Ubuntu: apt-get install -y bubblewrap/);
    } finally {
      process.env.PATH = saved;
    }
  });

  it("refuses a bwrap that cannot create namespaces, naming the --isolation=none way out", async () => {
    const err = await checkNamespaceIsolation("/bin/false").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IsolationUnavailableError);
    expect((err as Error).message).toMatch(/^bubblewrap \(\/bin\/false\) cannot create namespaces here .*--isolation=none/);
  });
});
