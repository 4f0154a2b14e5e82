import { afterAll, describe, it, expect } from "vitest";
import { X509Certificate, createPrivateKey } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cipherSuiteOpenSSLNames } from "../options/tls.js";
import { generateSelfSignedPair, loadServingKeyPair, resolveTLSSettings } from "./tls.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "na-tls-"));
  dirs.push(dir);
  return dir;
}

function splitPEM(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

describe("resolveTLSSettings", () => {
  it("maps versions and suites, keeping TLS 1.3 defaults when none is named", () => {
    expect(resolveTLSSettings(undefined, undefined)).toEqual({});
    expect(resolveTLSSettings("VersionTLS13", [])).toEqual({ minVersion: "TLSv1.3" });
    expect(resolveTLSSettings("VersionTLS10", undefined)).toEqual({ minVersion: "TLSv1", ciphers: "DEFAULT:@SECLEVEL=0" });
    expect(resolveTLSSettings("VersionTLS12", ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"])).toEqual({
      minVersion: "TLSv1.2",
      ciphers: "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305:TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256",
    });
    expect(resolveTLSSettings(undefined, ["TLS_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_128_CBC_SHA"])).toEqual({ ciphers: "TLS_AES_128_GCM_SHA256:AES128-SHA" });
  });

  it("refuses unknown names", () => {
    expect(() => resolveTLSSettings("VersionTLS14", undefined)).toThrow(expect.objectContaining({ code: "InvalidTLSConfig" }));
    expect(() => resolveTLSSettings(undefined, ["TLS_FAKE"])).toThrow("Cipher suite TLS_FAKE not supported or doesn't exist");
  });

  it("knows every suite name of the spec", () => {
    const spec =
      "TLS_AES_128_GCM_SHA256 TLS_AES_256_GCM_SHA384 TLS_CHACHA20_POLY1305_SHA256 TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305 TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305 TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 TLS_RSA_WITH_AES_128_CBC_SHA TLS_RSA_WITH_AES_128_GCM_SHA256 TLS_RSA_WITH_AES_256_CBC_SHA TLS_RSA_WITH_AES_256_GCM_SHA384 TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256 TLS_ECDHE_ECDSA_WITH_RC4_128_SHA TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256 TLS_ECDHE_RSA_WITH_RC4_128_SHA TLS_RSA_WITH_3DES_EDE_CBC_SHA TLS_RSA_WITH_AES_128_CBC_SHA256 TLS_RSA_WITH_RC4_128_SHA".split(
        " ",
      );
    expect(Object.keys(cipherSuiteOpenSSLNames).sort()).toEqual([...spec].sort());
  });
});

// RSA key generation takes seconds on a loaded 2-core machine: a generous timeout, not a speed check.
describe("self-signed serving pair", { timeout: 60_000 }, () => {
  it("has the kubelet's shape: serving cert + CA, PKCS#1 key, SAN, validity", async () => {
    const now = new Date("2026-01-02T03:04:05Z");
    const pair = await generateSelfSignedPair("node-a", now);
    const [leafPEM, caPEM] = splitPEM(pair.cert);
    expect(splitPEM(pair.cert)).toHaveLength(2);
    expect(pair.key).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    const leaf = new X509Certificate(leafPEM!);
    const ca = new X509Certificate(caPEM!);
    const seconds = Math.floor(now.getTime() / 1000);
    expect(leaf.subject).toBe(`CN=node-a@${seconds}`);
    expect(ca.subject).toBe(`CN=node-a-ca@${seconds}`);
    expect(ca.ca).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.subjectAltName).toBe("DNS:node-a");
    expect(new Date(leaf.validFrom).getTime()).toBe(now.getTime() - 3600_000);
    expect(new Date(leaf.validTo).getTime() - new Date(leaf.validFrom).getTime()).toBe(365 * 24 * 3600_000);
    expect(leaf.keyUsage).toContain("1.3.6.1.5.5.7.3.1");
    // RSA 2048 keys (reference §9). Serials are random (selfsigned cannot set 1 and 2), see tls.ts.
    expect(leaf.ca).toBe(false);
    expect(createPrivateKey(pair.key).asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(leaf.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(new Date(ca.validFrom).getTime()).toBe(now.getTime() - 3600_000);
    expect((await generateSelfSignedPair("10.0.0.7", now)).cert).toBeTruthy();
    const ipLeaf = new X509Certificate(splitPEM((await generateSelfSignedPair("10.0.0.7", now)).cert)[0]!);
    expect(ipLeaf.subjectAltName).toBe("IP Address:10.0.0.7");
  });

  it("writes the pair into the cert dir with the kubelet's modes and reuses it", async () => {
    const dir = join(await tempDir(), "pki");
    const first = await loadServingKeyPair({ certDir: dir, host: " Node-A " });
    expect(new X509Certificate(first.cert).subject).toMatch(/^CN=node-a@\d+$/);
    expect((await stat(join(dir, "nodeagent.crt"))).mode & 0o777).toBe(0o644);
    expect((await stat(join(dir, "nodeagent.key"))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o755);
    const second = await loadServingKeyPair({ certDir: dir, host: "other" });
    expect(second).toEqual(first);
    expect(await readFile(join(dir, "nodeagent.key"), "utf8")).toBe(first.key);
  });

  it("uses given files and refuses broken ones", async () => {
    const dir = await tempDir();
    const pair = await generateSelfSignedPair("h");
    const other = await generateSelfSignedPair("h");
    await writeFile(join(dir, "c.pem"), pair.cert);
    await writeFile(join(dir, "k.pem"), pair.key);
    await writeFile(join(dir, "k2.pem"), other.key);
    expect(await loadServingKeyPair({ certFile: join(dir, "c.pem"), keyFile: join(dir, "k.pem"), certDir: "/nonexistent", host: "h" })).toEqual(pair);
    await expect(loadServingKeyPair({ certFile: join(dir, "c.pem"), keyFile: join(dir, "k2.pem"), certDir: "/x", host: "h" })).rejects.toMatchObject({ code: "InvalidTLSConfig" });
    await expect(loadServingKeyPair({ certFile: join(dir, "missing"), keyFile: join(dir, "k.pem"), certDir: "/x", host: "h" })).rejects.toMatchObject({ code: "InvalidTLSConfig" });
    await expect(loadServingKeyPair({ certDir: join(dir, "new"), host: "  " })).rejects.toThrow("empty hostname is invalid");
  });
});
