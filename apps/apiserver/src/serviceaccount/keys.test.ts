import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseAPIServerOptions } from "../options.js";
import { jwsAlgorithmOf, loadServiceAccountKeys, parsePublicKeysPEM } from "./keys.js";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), "skiff-sa-keys-"));
  dirs.push(d);
  return d;
};

describe("loadServiceAccountKeys", () => {
  it("generates sa.key and sa.pub into the cert dir once and reuses them", async () => {
    const dir = await tempDir();
    const first = await loadServiceAccountKeys({ signingKeyFile: "", keyFiles: [], certDir: dir });
    expect(await readFile(join(dir, "sa.pub"), "utf8")).toContain("BEGIN PUBLIC KEY");
    const second = await loadServiceAccountKeys({ signingKeyFile: "", keyFiles: [], certDir: dir });
    expect(second.signingKeyId).toBe(first.signingKeyId);
    expect(second.verificationKeys.map((k) => k.kid)).toEqual([first.signingKeyId]);
  });

  it("verifies with --service-account-key-file instead of the signing key when given", async () => {
    const dir = await tempDir();
    const a = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const b = generateKeyPairSync("rsa", { modulusLength: 2048 });
    await writeFile(join(dir, "signing.key"), a.privateKey.export({ type: "pkcs8", format: "pem" }));
    await writeFile(join(dir, "verify.pem"), String(a.publicKey.export({ type: "spki", format: "pem" })) + String(b.privateKey.export({ type: "pkcs1", format: "pem" })));
    const keys = await loadServiceAccountKeys({ signingKeyFile: join(dir, "signing.key"), keyFiles: [join(dir, "verify.pem")], certDir: "" });
    expect(keys.verificationKeys).toHaveLength(2);
    expect(keys.verificationKeys[0]?.kid).toBe(keys.signingKeyId);
  });

  it("takes ECDSA keys as 1.23 (P-256 ES256, P-384 ES384, P-521 ES512) beside RSA", async () => {
    const dir = await tempDir();
    const ec = generateKeyPairSync("ec", { namedCurve: "P-384" });
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
    await writeFile(join(dir, "signing.key"), ec.privateKey.export({ type: "sec1", format: "pem" }));
    await writeFile(join(dir, "verify.pem"), String(ec.publicKey.export({ type: "spki", format: "pem" })) + String(rsa.publicKey.export({ type: "spki", format: "pem" })));
    const keys = await loadServiceAccountKeys({ signingKeyFile: join(dir, "signing.key"), keyFiles: [join(dir, "verify.pem")], certDir: "" });
    expect(keys.signingAlgorithm).toBe("ES384");
    expect(keys.verificationKeys.map((k) => k.alg)).toEqual(["ES384", "RS256"]);
    expect(jwsAlgorithmOf(generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey)).toBe("ES256");
    expect(jwsAlgorithmOf(generateKeyPairSync("ec", { namedCurve: "P-521" }).publicKey)).toBe("ES512");
  });

  it("refuses keys neither RSA nor ECDSA, empty files and unreadable files clearly", async () => {
    const dir = await tempDir();
    const ed = generateKeyPairSync("ed25519");
    expect(() => parsePublicKeysPEM(String(ed.publicKey.export({ type: "spki", format: "pem" })), "ed.pem")).toThrow("ed.pem: ed25519 keys are not supported (only RSA and ECDSA P-256, P-384, P-521)");
    const secp256k1 = generateKeyPairSync("ec", { namedCurve: "secp256k1" });
    expect(() => parsePublicKeysPEM(String(secp256k1.publicKey.export({ type: "spki", format: "pem" })), "k1.pem")).toThrow("k1.pem: ec keys are not supported");
    await writeFile(join(dir, "ed.key"), ed.privateKey.export({ type: "pkcs8", format: "pem" }));
    await expect(loadServiceAccountKeys({ signingKeyFile: join(dir, "ed.key"), keyFiles: [], certDir: "" })).rejects.toThrow(
      "--service-account-signing-key-file: failed to build token generator: unknown private key type ed25519, must be RSA or ECDSA (P-256, P-384, P-521)",
    );
    expect(() => parsePublicKeysPEM("nothing", "x.pem")).toThrow("x.pem: data does not contain any valid RSA or ECDSA public keys");
    await expect(loadServiceAccountKeys({ signingKeyFile: join(dir, "missing"), keyFiles: [], certDir: "" })).rejects.toThrow(/--service-account-signing-key-file: cannot read/);
    await expect(loadServiceAccountKeys({ signingKeyFile: "", keyFiles: [], certDir: "" })).rejects.toThrow("--service-account-signing-key-file is required when --cert-dir is empty");
  });
});

describe("service-account flags", () => {
  it("validates issuers and the max token expiration as 1.23", () => {
    const errs = (...argv: string[]) => {
      const r = parseAPIServerOptions(argv);
      return r.ok ? [] : r.errors;
    };
    expect(errs()).toEqual([]);
    expect(errs("--service-account-issuer=a", "--service-account-issuer=a")).toEqual(['service-account-issuer "a" is already specified']);
    expect(errs("--service-account-issuer=")).toEqual(["service-account-issuer should not be an empty string"]);
    expect(errs("--service-account-max-token-expiration=30m")).toEqual(["the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"]);
    expect(errs("--service-account-max-token-expiration=2h")).toEqual([]);
  });
});
