/**
 * TLS material and settings of the main port: Go cipher-suite and version names mapped to
 * OpenSSL's (the one table in ../options/tls.ts), and the self-signed serving pair the kubelet writes into `--cert-dir` when no
 * `--tls-cert-file`/`--tls-private-key-file` are given.
 * @see cmd/kubelet/app/server.go (InitializeTLS) in kubernetes/kubernetes v1.23
 * @see staging/src/k8s.io/client-go/util/cert/cert.go (GenerateSelfSignedCertKeyWithFixtures)
 * @see staging/src/k8s.io/component-base/cli/flag/ciphersuites_flag.go
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cipherSuiteOpenSSLNames, tlsVersions } from "../options/tls.js";
import { ServerStartError } from "./server-options.js";

/** Node TLS options derived from `--tls-min-version` and `--tls-cipher-suites`. */
export interface TLSSettings {
  readonly minVersion?: "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3";
  /** OpenSSL cipher string; absent keeps Node's defaults. */
  readonly ciphers?: string;
}

/**
 * Maps Go names to Node's settings. As in Go, the configured suites only restrict TLS 1.0–1.2;
 * TLS 1.3 suites named in the list are kept, and when none is named Node's TLS 1.3 defaults stay on.
 * With a minimum below TLS 1.2, OpenSSL's security level is lowered so those versions can work.
 * @throws ServerStartError `InvalidTLSConfig` on an unknown version or cipher name
 */
export function resolveTLSSettings(minVersion: string | undefined, cipherSuites: readonly string[] | undefined): TLSSettings {
  let min: TLSSettings["minVersion"];
  if (minVersion !== undefined && minVersion !== "") {
    min = (tlsVersions as Readonly<Record<string, TLSSettings["minVersion"]>>)[minVersion];
    if (min === undefined) throw new ServerStartError("InvalidTLSConfig", `unknown tls version ${JSON.stringify(minVersion)}`);
  }
  const names = (cipherSuites ?? []).filter((n) => n !== "");
  const legacy = min === "TLSv1" || min === "TLSv1.1";
  if (names.length === 0) {
    return { ...(min !== undefined ? { minVersion: min } : {}), ...(legacy ? { ciphers: "DEFAULT:@SECLEVEL=0" } : {}) };
  }
  const openssl: string[] = [];
  for (const name of names) {
    const mapped = cipherSuiteOpenSSLNames[name];
    if (mapped === undefined) throw new ServerStartError("InvalidTLSConfig", `Cipher suite ${name} not supported or doesn't exist`);
    if (!openssl.includes(mapped)) openssl.push(mapped);
  }
  if (!openssl.some((n) => n.startsWith("TLS_"))) openssl.push("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");
  if (legacy) openssl.push("@SECLEVEL=0");
  return { ...(min !== undefined ? { minVersion: min } : {}), ciphers: openssl.join(":") };
}

/** PEM serving certificate (chain) and private key. */
export interface ServingKeyPair {
  readonly cert: string;
  readonly key: string;
}

/** File names of the generated pair inside `--cert-dir`. */
export const selfSignedCertFileName = "nodeagent.crt";
/** @see selfSignedCertFileName */
export const selfSignedKeyFileName = "nodeagent.key";

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Generates the kubelet's self-signed pair for `host`: a CA (`<host>-ca@<unix seconds>`) and a
 * serving certificate (`<host>@<unix seconds>`, serverAuth, SAN = the host as IP or DNS name) signed
 * by it, both valid from one hour ago for 365 days. The cert PEM holds the serving cert then the CA;
 * the key is a PKCS#1 `RSA PRIVATE KEY` (2048 bits). Serial numbers are random, not 1 and 2.
 */
export async function generateSelfSignedPair(host: string, now = new Date()): Promise<ServingKeyPair> {
  // Loaded here, not at start-up: only a first start (no certificate on disk) needs it, and the
  // library with its X.509 and ASN.1 modules took about a tenth of the agent's start-up reading.
  const { generate } = await import("selfsigned");
  const seconds = Math.floor(now.getTime() / 1000);
  const notBeforeDate = new Date(now.getTime() - 60 * 60 * 1000);
  const notAfterDate = new Date(notBeforeDate.getTime() + 365 * dayMs);
  const ca = await generate([{ name: "commonName", value: `${host}-ca@${seconds}` }], {
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, digitalSignature: true, keyEncipherment: true, critical: true },
    ],
  });
  const san = isIP(host) !== 0 ? { type: 7 as const, ip: host } : { type: 2 as const, value: host };
  const serving = await generate([{ name: "commonName", value: `${host}@${seconds}` }], {
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: "basicConstraints", cA: false, critical: true },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames: [san] },
    ],
  });
  const key = createPrivateKey(serving.private).export({ type: "pkcs1", format: "pem" }).toString();
  return { cert: `${serving.cert.trim()}\n${ca.cert.trim()}\n`, key };
}

async function readPair(certFile: string, keyFile: string): Promise<ServingKeyPair | undefined> {
  try {
    const [cert, key] = await Promise.all([readFile(certFile, "utf8"), readFile(keyFile, "utf8")]);
    return { cert, key };
  } catch {
    return undefined;
  }
}

/**
 * The serving pair: the given files when both are set, else `<certDir>/nodeagent.{crt,key}` when both
 * can be read, else a newly generated pair written there (dir 0755, cert 0644, key 0600).
 * @throws ServerStartError `InvalidTLSConfig` (given files unreadable or not a matching PEM pair),
 *   `CertificateGeneration` (empty host, write failure)
 */
export async function loadServingKeyPair(opts: { readonly certFile?: string; readonly keyFile?: string; readonly certDir: string; readonly host: string }): Promise<ServingKeyPair> {
  if (opts.certFile !== undefined && opts.certFile !== "" && opts.keyFile !== undefined && opts.keyFile !== "") {
    const pair = await readPair(opts.certFile, opts.keyFile);
    if (pair === undefined) throw new ServerStartError("InvalidTLSConfig", `unable to load server certificate: ${opts.certFile}, ${opts.keyFile}`);
    checkPair(pair);
    return pair;
  }
  const certFile = join(opts.certDir, selfSignedCertFileName);
  const keyFile = join(opts.certDir, selfSignedKeyFileName);
  const existing = await readPair(certFile, keyFile);
  if (existing !== undefined) {
    checkPair(existing);
    return existing;
  }
  const host = opts.host.trim().toLowerCase();
  if (host === "") throw new ServerStartError("CertificateGeneration", "empty hostname is invalid");
  try {
    const pair = await generateSelfSignedPair(host);
    await mkdir(opts.certDir, { recursive: true, mode: 0o755 });
    await writeFile(certFile, pair.cert, { mode: 0o644 });
    await chmod(certFile, 0o644);
    await writeFile(keyFile, pair.key, { mode: 0o600 });
    await chmod(keyFile, 0o600);
    return pair;
  } catch (err) {
    throw new ServerStartError("CertificateGeneration", `unable to generate self signed cert: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

function checkPair(pair: ServingKeyPair): void {
  try {
    const cert = new X509Certificate(pair.cert);
    const key = createPrivateKey(pair.key);
    if (!cert.checkPrivateKey(key)) throw new Error("private key does not match public key");
  } catch (err) {
    throw new ServerStartError("InvalidTLSConfig", `invalid serving certificate/key pair: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
