import type { AuthenticatedUser } from "@skiff/apiserver-core";
import { describe, expect, it } from "vitest";
import { cachedTokenLookup } from "./token-cache.js";

const alice: AuthenticatedUser = { username: "alice", uid: "1", groups: ["system:authenticated"] };

describe("cachedTokenLookup (1.23's token cache: successes 10 s, failures not cached)", () => {
  it("trusts a success for the TTL without asking again, then asks again", async () => {
    let t = 0;
    const calls: string[] = [];
    const lookup = cachedTokenLookup(async (token) => (calls.push(token), token === "good" ? alice : undefined), { now: () => t });
    expect(await lookup("good", undefined)).toEqual(alice);
    t += 9_999;
    expect(await lookup("good", undefined)).toEqual(alice);
    expect(calls).toEqual(["good"]);
    t += 1;
    expect(await lookup("good", undefined)).toEqual(alice);
    expect(calls).toEqual(["good", "good"]);
  });

  it("never caches an unknown or invalid token", async () => {
    let n = 0;
    const unknown = cachedTokenLookup(async () => (n++, undefined));
    await unknown("x", undefined);
    await unknown("x", undefined);
    expect(n).toBe(2);
    let m = 0;
    const invalid = cachedTokenLookup(async () => {
      m++;
      throw new Error("expired");
    });
    await expect(invalid("y", undefined)).rejects.toThrow("expired");
    await expect(invalid("y", undefined)).rejects.toThrow("expired");
    expect(m).toBe(2);
  });

  it("keys by the requested audiences too", async () => {
    const seen: (readonly string[] | undefined)[] = [];
    const lookup = cachedTokenLookup(async (_t, auds) => (seen.push(auds), alice));
    await lookup("good", undefined);
    await lookup("good", ["vault"]);
    await lookup("good", ["vault"]);
    await lookup("good", []);
    expect(seen).toEqual([undefined, ["vault"], []]);
  });

  it("keeps at most maxEntries, dropping the oldest", async () => {
    const calls: string[] = [];
    const lookup = cachedTokenLookup(async (token) => (calls.push(token), alice), { maxEntries: 2 });
    for (const t of ["a", "b", "c", "a"]) await lookup(t, undefined);
    expect(calls).toEqual(["a", "b", "c", "a"]);
  });
});
