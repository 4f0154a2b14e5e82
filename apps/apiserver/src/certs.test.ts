import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CertificateLoadError, loadOrGenerateCertificates } from "./certs.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** A fresh "pki" path inside a new temp directory, removed after the file's tests. */
async function pkiDir(): Promise<string> {
  const base = await mkdtemp(join(tmpdir(), "pki-"));
  dirs.push(base);
  return join(base, "pki");
}

describe("loadOrGenerateCertificates", () => {
  it("generates a CA-signed serving cert once, keys 0600, and reuses it", async () => {
    const dir = await pkiDir();
    const a = await loadOrGenerateCertificates({ certDir: dir, tlsCertFile: "", tlsPrivateKeyFile: "" });
    const cert = new X509Certificate(a.cert);
    const ca = new X509Certificate(a.caCert);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(ca.ca).toBe(true);
    expect(cert.subjectAltName).toContain("DNS:localhost");
    expect(cert.subjectAltName).toContain("IP Address:127.0.0.1");
    expect(cert.checkHost("localhost")).toBe("localhost");
    // Pods reach the apiserver by its in-cluster name, as on Kubernetes 1.23.
    expect(cert.checkHost("kubernetes.default.svc")).toBe("kubernetes.default.svc");
    expect((await stat(join(dir, "apiserver.key"))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(dir, "ca.crt"), "utf8")).toBe(a.caCert);
    const b = await loadOrGenerateCertificates({ certDir: dir, tlsCertFile: "", tlsPrivateKeyFile: "" });
    expect(b).toEqual(a);
  }, 60_000);
  it("writes each file whole, ca.crt last: a reader polling for ca.crt never sees it partial or before the serving certificate (CI flake: an e2e harness read an empty ca.crt)", async () => {
    const dir = await pkiDir();
    const seen: string[] = [];
    let polling = true;
    const poll = (async () => {
      while (polling) {
        try {
          seen.push(readFileSync(join(dir, "ca.crt"), "utf8"));
          readFileSync(join(dir, "apiserver.crt"), "utf8");
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== "ENOENT" || seen.length > 0) throw e;
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    const a = await loadOrGenerateCertificates({ certDir: dir, tlsCertFile: "", tlsPrivateKeyFile: "" });
    polling = false;
    await poll;
    // Generation can finish between two polls; the file as left must be whole too.
    seen.push(readFileSync(join(dir, "ca.crt"), "utf8"));
    expect(new Set(seen)).toEqual(new Set([a.caCert]));
    expect((await readdir(dir)).sort()).toEqual(["apiserver.crt", "apiserver.key", "ca.crt", "ca.key"]);
    expect((await stat(join(dir, "ca.key"))).mode & 0o777).toBe(0o600);
  }, 60_000);
  it("loads user files and reports unreadable ones", async () => {
    const dir = await pkiDir();
    await loadOrGenerateCertificates({ certDir: dir, tlsCertFile: "", tlsPrivateKeyFile: "" });
    const r = await loadOrGenerateCertificates({ certDir: "", tlsCertFile: join(dir, "apiserver.crt"), tlsPrivateKeyFile: join(dir, "apiserver.key") });
    expect(r.cert).toContain("BEGIN CERTIFICATE");
    await expect(loadOrGenerateCertificates({ certDir: "", tlsCertFile: join(dir, "nope.crt"), tlsPrivateKeyFile: join(dir, "apiserver.key") })).rejects.toThrow(CertificateLoadError);
  }, 60_000);
});

describe("loadOrGenerateCertificates: the machine's addresses", () => {
  it("covers the given addresses, and re-signs a serving certificate that misses one with the same CA", async () => {
    const dir = await pkiDir();
    const a = await loadOrGenerateCertificates({ certDir: dir, tlsCertFile: "", tlsPrivateKeyFile: "", addresses: ["192.0.2.10"] });
    expect(new X509Certificate(a.cert).checkIP("192.0.2.10")).toBe("192.0.2.10");
    expect(new X509Certificate(a.cert).checkIP("192.0.2.11")).toBeUndefined();
    // Same addresses: reused as is.
    expect(await loadOrGenerateCertificates({ certDir: dir, tlsCertFile: "", tlsPrivateKeyFile: "", addresses: ["192.0.2.10"] })).toEqual(a);
    // A new address (a state directory from before, or the machine's address changed): a new
    // serving certificate signed by the CA clients already trust.
    const b = await loadOrGenerateCertificates({ certDir: dir, tlsCertFile: "", tlsPrivateKeyFile: "", addresses: ["192.0.2.10", "2001:db8::7"] });
    expect(b.caCert).toBe(a.caCert);
    expect(b.cert).not.toBe(a.cert);
    const cert = new X509Certificate(b.cert);
    expect(cert.verify(new X509Certificate(b.caCert).publicKey)).toBe(true);
    expect(cert.checkIP("2001:db8::7")).toBe("2001:db8::7");
    expect(await readFile(join(dir, "apiserver.crt"), "utf8")).toBe(b.cert);
  }, 60_000);
});
