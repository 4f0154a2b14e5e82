/**
 * The service-account token keys: the signing key (`--service-account-signing-key-file`, RSA or
 * ECDSA, or an RSA key generated once into `--cert-dir` as `sa.key`/`sa.pub`) and the verification keys
 * (`--service-account-key-file`, default: the signing key's public key), each with 1.23's key ID.
 *
 * @see pkg/serviceaccount/jwt.go (keyIDFromPublicKey)
 * @see staging/src/k8s.io/client-go/util/keyutil/key.go (ParsePublicKeysPEM)
 * @see cmd/kube-apiserver/app/server.go (the signing key and the key files)
 */
import { X509Certificate, createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** A key file is unreadable, holds no usable key, or a key neither RSA nor ECDSA. `reason`: `ServiceAccountKeyInvalid`. */
export class ServiceAccountKeyError extends Error {
  readonly reason = "ServiceAccountKeyInvalid";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ServiceAccountKeyError";
  }
}

/** The JWS algorithms of service-account tokens: RSA keys sign RS256, ECDSA keys by curve. */
export type ServiceAccountJWSAlgorithm = "RS256" | "ES256" | "ES384" | "ES512";

/**
 * The JWS algorithm a key signs and verifies with, as 1.23: RSA → RS256; ECDSA P-256 → ES256,
 * P-384 → ES384, P-521 → ES512. `undefined` for any other key (Ed25519, DSA, another curve).
 * @see pkg/serviceaccount/jwt.go (signerFromRSAPrivateKey, signerFromECDSAPrivateKey)
 */
export function jwsAlgorithmOf(key: KeyObject): ServiceAccountJWSAlgorithm | undefined {
  if (key.asymmetricKeyType === "rsa") return "RS256";
  if (key.asymmetricKeyType !== "ec") return undefined;
  switch (key.asymmetricKeyDetails?.namedCurve) {
    case "prime256v1":
      return "ES256";
    case "secp384r1":
      return "ES384";
    case "secp521r1":
      return "ES512";
    default:
      return undefined;
  }
}

/** An RSA or ECDSA public key that verifies tokens, with its key ID. */
export interface VerificationKey {
  readonly key: KeyObject;
  /** The algorithm tokens signed with this key use. */
  readonly alg: ServiceAccountJWSAlgorithm;
  /** base64url (unpadded) SHA-256 of the key's DER SubjectPublicKeyInfo. */
  readonly kid: string;
}

/** The issuer's keys. */
export interface ServiceAccountKeys {
  /** RSA or ECDSA private key that signs tokens. */
  readonly signingKey: KeyObject;
  /** The signing key's algorithm (RS256, or ES256/ES384/ES512 by curve). */
  readonly signingAlgorithm: ServiceAccountJWSAlgorithm;
  /** Key ID of the signing key (the JWT header's `kid`). */
  readonly signingKeyId: string;
  /** Keys a token's signature is checked against, in file order. */
  readonly verificationKeys: readonly VerificationKey[];
}

/**
 * The key ID of a public key as 1.23 computes it: base64url without padding of the SHA-256 of its
 * PKIX (SubjectPublicKeyInfo) DER encoding.
 * @see pkg/serviceaccount/jwt.go (keyIDFromPublicKey)
 */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash("sha256").update(publicKey.export({ type: "spki", format: "der" })).digest("base64url");
}

/**
 * The public keys of a PEM text (certificates, public keys, private keys; several blocks allowed).
 * @throws {@link ServiceAccountKeyError} for a key neither RSA nor ECDSA (P-256/384/521) or when no key is found.
 */
export function parsePublicKeysPEM(text: string, fileName: string): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const m of text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g)) {
    const block = m[0];
    const type = m[1] ?? "";
    let key: KeyObject;
    try {
      if (type === "CERTIFICATE") key = new X509Certificate(block).publicKey;
      else if (type.endsWith("PRIVATE KEY")) key = createPublicKey(createPrivateKey(block));
      else if (type.endsWith("PUBLIC KEY")) key = createPublicKey(block);
      else continue;
    } catch (e) {
      throw new ServiceAccountKeyError(`${fileName}: cannot parse the ${type} block: ${(e as Error).message}`, { cause: e });
    }
    if (jwsAlgorithmOf(key) === undefined) throw new ServiceAccountKeyError(`${fileName}: ${String(key.asymmetricKeyType)} keys are not supported (only RSA and ECDSA P-256, P-384, P-521)`);
    keys.push(key);
  }
  if (keys.length === 0) throw new ServiceAccountKeyError(`${fileName}: data does not contain any valid RSA or ECDSA public keys`);
  return keys;
}

async function readKeyFile(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    throw new ServiceAccountKeyError(`${flag}: cannot read "${path}": ${(e as Error).message}`, { cause: e });
  }
}

/** Reads `<certDir>/sa.key`, or generates an RSA 2048 key there (with `sa.pub`) when it is absent. */
async function loadOrGenerateSigningKey(certDir: string): Promise<string> {
  const path = join(certDir, "sa.key");
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new ServiceAccountKeyError(`cannot read "${path}": ${(e as Error).message}`, { cause: e });
  }
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  await mkdir(certDir, { recursive: true });
  await writeFile(join(certDir, "sa.pub"), publicKey.export({ type: "spki", format: "pem" }).toString(), { mode: 0o644 });
  await writeFile(path, pem, { mode: 0o600, flag: "wx" }).catch(async (e: NodeJS.ErrnoException) => {
    // Another process won the race: use its key.
    if (e.code !== "EEXIST") throw e;
  });
  return await readFile(path, "utf8");
}

/**
 * Loads the issuer's keys from the flags.
 * @param o.signingKeyFile - `--service-account-signing-key-file`; `""`: `<certDir>/sa.key` (generated when absent).
 * @param o.keyFiles - `--service-account-key-file`; empty: the signing key's public key.
 * @throws {@link ServiceAccountKeyError} for unreadable files, unusable keys, or no cert dir to generate into.
 */
export async function loadServiceAccountKeys(o: { signingKeyFile: string; keyFiles: readonly string[]; certDir: string }): Promise<ServiceAccountKeys> {
  let pem: string;
  if (o.signingKeyFile !== "") pem = await readKeyFile("--service-account-signing-key-file", o.signingKeyFile);
  else if (o.certDir !== "") pem = await loadOrGenerateSigningKey(o.certDir);
  else throw new ServiceAccountKeyError("--service-account-signing-key-file is required when --cert-dir is empty");
  let signingKey: KeyObject;
  try {
    signingKey = createPrivateKey(pem);
  } catch (e) {
    throw new ServiceAccountKeyError(`--service-account-signing-key-file: failed to parse the private key: ${(e as Error).message}`, { cause: e });
  }
  const signingAlgorithm = jwsAlgorithmOf(signingKey);
  if (signingAlgorithm === undefined) {
    throw new ServiceAccountKeyError(`--service-account-signing-key-file: failed to build token generator: unknown private key type ${String(signingKey.asymmetricKeyType)}, must be RSA or ECDSA (P-256, P-384, P-521)`);
  }
  const signingPublic = createPublicKey(signingKey);
  const publics: KeyObject[] = [];
  if (o.keyFiles.length === 0) publics.push(signingPublic);
  for (const f of o.keyFiles) publics.push(...parsePublicKeysPEM(await readKeyFile("--service-account-key-file", f), f));
  return {
    signingKey,
    signingAlgorithm,
    signingKeyId: keyIdOf(signingPublic),
    verificationKeys: publics.map((key) => ({ key, kid: keyIdOf(key), alg: jwsAlgorithmOf(key) ?? "RS256" })),
  };
}
