import { describe, expect, it } from "vitest";
import type { UserInfo } from "../registry/strategy.js";
import { AuthenticationError, bearerTokenAuthenticator, createAuthenticationChain, parseBearerToken, unionAuthenticators, x509Authenticator } from "./authenticators.js";

const tokens = new Map<string, UserInfo>([["t-alice", { username: "alice", uid: "1", groups: ["dev"] }]]);
const bearer = bearerTokenAuthenticator((t) => tokens.get(t));
const cert = (verified: boolean, commonName = "carol", organizations = ["ops", "dev"]) => ({ commonName, organizations, verified, ...(verified ? {} : { verifyError: "unable to verify the first certificate" }) });

describe("parseBearerToken", () => {
  it.each([
    [undefined, null],
    ["Basic abc", null],
    ["Bearer abc", "abc"],
    ["bearer   abc  ", "abc"],
    ["Bearer", ""],
    ["Bearer a b", ""],
    [["Bearer x", "Bearer y"], "x"],
  ] as const)("%j → %j", (h, want) => {
    expect(parseBearerToken(h as string | string[] | undefined)).toBe(want);
  });
});

describe("x509Authenticator", () => {
  it("maps CN to the user and O to groups", () => {
    expect(x509Authenticator({ headers: {}, clientCertificate: cert(true) })).toEqual({ username: "carol", groups: ["ops", "dev"] });
  });
  it("has no opinion without a certificate or without a CN", () => {
    expect(x509Authenticator({ headers: {} })).toBeNull();
    expect(x509Authenticator({ headers: {}, clientCertificate: cert(true, "") })).toBeNull();
  });
  it("rejects an unverified certificate", () => {
    expect(() => x509Authenticator({ headers: {}, clientCertificate: cert(false) })).toThrow(AuthenticationError);
    expect(() => x509Authenticator({ headers: {}, clientCertificate: cert(false) })).toThrow("x509: unable to verify the first certificate");
  });
});

describe("bearerTokenAuthenticator", () => {
  it("finds known tokens, ignores requests without one, rejects unknown and empty ones", async () => {
    expect(await bearer({ headers: { authorization: "Bearer t-alice" } })).toEqual(tokens.get("t-alice"));
    expect(await bearer({ headers: {} })).toBeNull();
    await expect(bearer({ headers: { authorization: "Bearer nope" } })).rejects.toMatchObject({ reason: "InvalidBearerToken", message: "invalid bearer token" });
    await expect(bearer({ headers: { authorization: "Bearer " } })).rejects.toThrow("invalid bearer token");
  });
});

describe("unionAuthenticators", () => {
  it("first user wins even after a rejection; rejection surfaces only when nobody authenticated", async () => {
    const u = unionAuthenticators(x509Authenticator, bearer);
    expect(await u({ headers: { authorization: "Bearer t-alice" }, clientCertificate: cert(false) })).toMatchObject({ username: "alice" });
    await expect(u({ headers: {}, clientCertificate: cert(false) })).rejects.toThrow(AuthenticationError);
    expect(await u({ headers: {} })).toBeNull();
  });
});

describe("createAuthenticationChain", () => {
  const on = createAuthenticationChain({ authenticators: [x509Authenticator, bearer], anonymous: true });
  const off = createAuthenticationChain({ authenticators: [x509Authenticator, bearer], anonymous: false });
  it("adds system:authenticated once", async () => {
    expect(await off({ headers: { authorization: "Bearer t-alice" } })).toEqual({ username: "alice", uid: "1", groups: ["dev", "system:authenticated"] });
    expect(await off({ headers: {}, clientCertificate: cert(true, "carol", ["system:authenticated"]) })).toEqual({ username: "carol", groups: ["system:authenticated"] });
  });
  it("anonymous only for requests without credentials, and only when enabled", async () => {
    expect(await on({ headers: {} })).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
    expect(await off({ headers: {} })).toBeNull();
  });
  it("a wrong token or an untrusted certificate is rejected even with anonymous on", async () => {
    await expect(on({ headers: { authorization: "Bearer wrong" } })).rejects.toThrow("invalid bearer token");
    await expect(on({ headers: {}, clientCertificate: cert(false) })).rejects.toThrow(AuthenticationError);
  });
});
