/**
 * Serving certificates: load `--tls-cert-file`/`--tls-private-key-file`, or generate (once, and
 * reuse) a self-signed CA and a serving certificate into `--cert-dir`.
 *
 * @see staging/src/k8s.io/apiserver/pkg/server/options/serving.go (MaybeDefaultWithSelfSignedCerts)
 */
import { X509Certificate } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { hostname, networkInterfaces } from "node:os";
import { join } from "node:path";
import { generate } from "selfsigned";

/** PEM material for the HTTPS server; `caCert` is what a kubeconfig embeds. */
export interface ServingCertificates {
  readonly cert: string;
  readonly key: string;
  /** The CA that signed `cert` (or `cert` itself for user-supplied files). */
  readonly caCert: string;
}

/** File names inside `--cert-dir`. */
export const certFileNames = Object.freeze({ ca: "ca.crt", caKey: "ca.key", cert: "apiserver.crt", key: "apiserver.key" });

/** A certificate file could not be read. `reason`: `CertificateReadFailed`. */
export class CertificateLoadError extends Error {
  readonly reason = "CertificateReadFailed";
  constructor(message: string) {
    super(message);
    this.name = "CertificateLoadError";
  }
}

/**
 * The machine's own non-loopback addresses (IPv4 and IPv6, link-local IPv6 left out): where pods
 * in their own network namespace reach an apiserver bound to 0.0.0.0 (kube-apiserver puts its
 * advertise address in its self-signed certificate).
 */
export function machineAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal && !(a.family === "IPv6" && a.address.toLowerCase().startsWith("fe80:")))
    .map((a) => a?.address ?? "");
}

/**
 * Load user-supplied files when both are given, else ensure generated ones in `certDir`
 * (creating the directory; keys are written 0600). Existing generated files are reused, except a
 * serving certificate that does not cover one of `addresses` (the machine's addresses changed, or
 * it was generated before they were included), which is generated anew, signed by the same CA.
 *
 * @throws {@link CertificateLoadError} when a named file cannot be read.
 * @example
 * ```ts
 * const { cert, key, caCert } = await loadOrGenerateCertificates({ certDir: ".skiff/pki", tlsCertFile: "", tlsPrivateKeyFile: "" });
 * ```
 */
export async function loadOrGenerateCertificates(opts: {
  certDir: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  /** IP addresses the serving certificate must cover besides 127.0.0.1 and ::1. @defaultValue {@link machineAddresses} */
  addresses?: readonly string[];
}): Promise<ServingCertificates> {
  const addresses = opts.addresses ?? machineAddresses();
  if (opts.tlsCertFile !== "" && opts.tlsPrivateKeyFile !== "") {
    const cert = await readText(opts.tlsCertFile, "--tls-cert-file");
    const key = await readText(opts.tlsPrivateKeyFile, "--tls-private-key-file");
    return { cert, key, caCert: cert };
  }
  const dir = opts.certDir;
  const paths = {
    ca: join(dir, certFileNames.ca),
    caKey: join(dir, certFileNames.caKey),
    cert: join(dir, certFileNames.cert),
    key: join(dir, certFileNames.key),
  };
  const existing = await Promise.all([paths.ca, paths.cert, paths.key].map((p) => readFile(p, "utf8").catch(() => undefined)));
  const [ca0, cert0, key0] = existing;
  const caKey0 = await readFile(paths.caKey, "utf8").catch(() => undefined);
  if (ca0 !== undefined && cert0 !== undefined && key0 !== undefined) {
    const covered = covers(cert0, addresses);
    // Without the CA's key a new serving certificate cannot be signed: the old one stays.
    if (covered || caKey0 === undefined) return { cert: cert0, key: key0, caCert: ca0 };
  }

  await mkdir(dir, { recursive: true });
  const now = new Date();
  const caNotAfter = new Date(now.getTime() + 10 * 365 * 24 * 3600 * 1000);
  const keepCA = ca0 !== undefined && caKey0 !== undefined;
  const ca = keepCA ? { cert: ca0, private: caKey0 } : await generate([{ name: "commonName", value: `skiff-ca@${String(Math.floor(now.getTime() / 1000))}` }], {
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate: now,
    notAfterDate: caNotAfter,
    extensions: [
      { name: "basicConstraints", cA: true },
      { name: "keyUsage", keyCertSign: true, digitalSignature: true, cRLSign: true },
    ],
  });
  const serving = await generate([{ name: "commonName", value: "skiff-apiserver" }], {
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate: now,
    notAfterDate: new Date(now.getTime() + 365 * 24 * 3600 * 1000),
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        // As kube-apiserver 1.23's self-signed serving certificate: the in-cluster names
        // (cmd/kube-apiserver/app/server.go: MaybeDefaultWithSelfSignedCerts), localhost, the host,
        // and the machine's addresses (kube-apiserver's advertise address; the node agent gives
        // pods one of them as KUBERNETES_SERVICE_HOST).
        altNames: [
          { type: 2, value: "localhost" },
          { type: 2, value: hostname() },
          { type: 2, value: "kubernetes.default.svc" },
          { type: 2, value: "kubernetes.default" },
          { type: 2, value: "kubernetes" },
          { type: 7, ip: "127.0.0.1" },
          { type: 7, ip: "::1" },
          ...addresses.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  // Keys first and the CA certificate last, each whole or not at all: a reader that sees ca.crt
  // (a harness, `skiff up` writing a kubeconfig) never reads a half-written file.
  await writeWhole(paths.caKey, ca.private, 0o600);
  await writeWhole(paths.key, serving.private, 0o600);
  await writeWhole(paths.cert, serving.cert, 0o644);
  await writeWhole(paths.ca, ca.cert, 0o644);
  return { cert: serving.cert, key: serving.private, caCert: ca.cert };
}

/** Writes `text` to a sibling temporary file with `mode`, then renames it over `path` (atomic on one file system). */
async function writeWhole(path: string, text: string, mode: number): Promise<void> {
  const tmp = `${path}.${String(process.pid)}.tmp`;
  await writeFile(tmp, text, { mode });
  await rename(tmp, path);
}

function covers(certPEM: string, addresses: readonly string[]): boolean {
  try {
    const cert = new X509Certificate(certPEM);
    return addresses.every((ip) => cert.checkIP(ip) !== undefined);
  } catch {
    return false;
  }
}

async function readText(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    throw new CertificateLoadError(`${flag}: cannot read "${path}": ${(e as Error).message}`);
  }
}
