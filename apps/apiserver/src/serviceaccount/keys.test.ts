import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseAPIServerOptions } from "../options.js";
import { loadServiceAccountKeys, parsePublicKeysPEM } from "./keys.js";

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

  it("refuses non-RSA keys, empty files and unreadable files clearly", async () => {
    const dir = await tempDir();
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
    expect(() => parsePublicKeysPEM(String(ec.publicKey.export({ type: "spki", format: "pem" })), "ec.pem")).toThrow("ec.pem: ec keys are not supported (only RSA)");
    expect(() => parsePublicKeysPEM("nothing", "x.pem")).toThrow("x.pem: data does not contain any valid RSA public keys");
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
