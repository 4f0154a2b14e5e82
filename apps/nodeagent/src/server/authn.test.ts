import { describe, it, expect, vi } from "vitest";
import { createAuthenticator, parseBearerToken, anonymousUser } from "./authn.js";
import type { TokenReviewStatus } from "./server-options.js";

const trustedCert = { trusted: true, commonName: "alice", organizations: ["dev", "ops"] };

describe("parseBearerToken", () => {
  it("accepts the scheme in any case and ignores other schemes or empty tokens", () => {
    expect(parseBearerToken("Bearer abc")).toBe("abc");
    expect(parseBearerToken("  bearer abc  ")).toBe("abc");
    expect(parseBearerToken("Basic abc")).toBeUndefined();
    expect(parseBearerToken("Bearer")).toBeUndefined();
    expect(parseBearerToken("Bearer  abc")).toBeUndefined();
    expect(parseBearerToken(undefined)).toBeUndefined();
    expect(parseBearerToken("")).toBeUndefined();
  });
});

describe("createAuthenticator", () => {
  it("returns undefined when no method is configured", () => {
    expect(createAuthenticator({ clientCertificates: false, anonymous: false, nowMs: Date.now })).toBeUndefined();
  });

  it("falls back to anonymous only without credentials", async () => {
    const authn = createAuthenticator({ clientCertificates: true, anonymous: true, nowMs: Date.now })!;
    expect(await authn({})).toEqual({ kind: "ok", user: anonymousUser });
    expect(anonymousUser).toEqual({ name: "system:anonymous", groups: ["system:unauthenticated"] });
    expect(await authn({ clientCertificate: { trusted: false, verifyError: "UNABLE_TO_VERIFY_LEAF_SIGNATURE", organizations: [] } })).toMatchObject({ kind: "error" });
  });

  it("maps a trusted client certificate to CN and O, plus system:authenticated", async () => {
    const authn = createAuthenticator({ clientCertificates: true, anonymous: false, nowMs: Date.now })!;
    expect(await authn({ clientCertificate: trustedCert })).toEqual({ kind: "ok", user: { name: "alice", groups: ["dev", "ops", "system:authenticated"] } });
    expect(await authn({ clientCertificate: { trusted: true, organizations: [] } })).toEqual({ kind: "unauthenticated" });
    expect(await authn({})).toEqual({ kind: "unauthenticated" });
  });

  it("treats a rejected token as an error even with anonymous on", async () => {
    const review = vi.fn(async (): Promise<TokenReviewStatus> => ({ authenticated: false }));
    const authn = createAuthenticator({ clientCertificates: false, anonymous: true, tokenWebhook: { review, cacheTTLMs: 1000 }, nowMs: Date.now })!;
    expect(await authn({ authorization: "Bearer nope" })).toEqual({ kind: "error", message: "invalid bearer token" });
  });

  it("uses a later authenticator when an earlier one errs", async () => {
    const review = async (): Promise<TokenReviewStatus> => ({ authenticated: true, user: { username: "bob" } });
    const authn = createAuthenticator({ clientCertificates: true, anonymous: false, tokenWebhook: { review, cacheTTLMs: 1000 }, nowMs: Date.now })!;
    const result = await authn({ authorization: "Bearer t", clientCertificate: { trusted: false, organizations: [] } });
    expect(result).toEqual({ kind: "ok", user: { name: "bob", groups: ["system:authenticated"] } });
  });

  it("caches answers for the TTL but never errors", async () => {
    let now = 0;
    const answers: Array<TokenReviewStatus | Error> = [{ authenticated: true, user: { username: "u", uid: "1", groups: ["g"] } }];
    const review = vi.fn(async (spec: { token: string }): Promise<TokenReviewStatus> => {
      if (spec.token === "boom") throw new Error("apiserver down");
      if (spec.token === "bad") return { authenticated: false };
      const a = answers[0]!;
      if (a instanceof Error) throw a;
      return a;
    });
    const authn = createAuthenticator({ clientCertificates: false, anonymous: false, tokenWebhook: { review, cacheTTLMs: 1000 }, nowMs: () => now })!;
    expect(await authn({ authorization: "Bearer good" })).toEqual({ kind: "ok", user: { name: "u", uid: "1", groups: ["g", "system:authenticated"] } });
    await authn({ authorization: "Bearer good" });
    expect(review).toHaveBeenCalledTimes(1);
    await authn({ authorization: "Bearer bad" });
    await authn({ authorization: "Bearer bad" });
    expect(review).toHaveBeenCalledTimes(2);
    expect(await authn({ authorization: "Bearer boom" })).toMatchObject({ kind: "error" });
    await authn({ authorization: "Bearer boom" });
    expect(review).toHaveBeenCalledTimes(4);
    now = 1000;
    await authn({ authorization: "Bearer good" });
    expect(review).toHaveBeenCalledTimes(5);
  });

  it("does not cache a review that reports an error", async () => {
    const review = vi.fn(async (): Promise<TokenReviewStatus> => ({ authenticated: false, error: "webhook broken" }));
    const authn = createAuthenticator({ clientCertificates: false, anonymous: true, tokenWebhook: { review, cacheTTLMs: 1000 }, nowMs: Date.now })!;
    expect(await authn({ authorization: "Bearer x" })).toEqual({ kind: "error", message: "webhook broken" });
    await authn({ authorization: "Bearer x" });
    expect(review).toHaveBeenCalledTimes(2);
  });
});
