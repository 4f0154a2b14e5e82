import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ClusterConfigError, isClusterConfigError, loadClusterConfig, parseClusterConfig } from "./cluster-config.js";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const doc = (cluster: string, user: string, extra = "") => `apiVersion: v1
kind: Config
current-context: main
clusters:
- name: other
  cluster:
    server: https://other:1
- name: c1
  cluster:
${cluster}
users:
- name: u1
  user:
${user}
contexts:
- name: main
  context:
    cluster: c1
    user: u1
- name: alt
  context:
    cluster: other
${extra}`;

describe("parseClusterConfig", () => {
  it("resolves the current context with inline data and a token", async () => {
    const r = await parseClusterConfig(
      doc(`    server: https://127.0.0.1:6443/\n    certificate-authority-data: ${b64("CA PEM")}\n    tls-server-name: localhost`, `    token: abc\n    client-certificate-data: ${b64("CERT")}\n    client-key-data: ${b64("KEY")}`),
    );
    expect(r).toEqual({ ok: true, value: { server: "https://127.0.0.1:6443", caPEM: "CA PEM", insecureSkipTLSVerify: false, token: "abc", clientCertificatePEM: "CERT", clientKeyPEM: "KEY", tlsServerName: "localhost" } });
  });

  it("reads referenced files relative to baseDir; token wins over tokenFile; -data wins over files", async () => {
    const files: Record<string, string> = { "/k/ca.crt": "CA", "/k/tok": "from-file\n", "/abs/cert.pem": "C", "/k/key.pem": "K" };
    const readFile = async (p: string) => {
      const v = files[p];
      if (v === undefined) throw new Error("ENOENT");
      return v;
    };
    const r = await parseClusterConfig(doc("    server: http://h:8080\n    certificate-authority: ca.crt\n    insecure-skip-tls-verify: true", "    tokenFile: tok\n    client-certificate: /abs/cert.pem\n    client-key: key.pem"), { baseDir: "/k", readFile });
    expect(r).toEqual({ ok: true, value: { server: "http://h:8080", caPEM: "CA", insecureSkipTLSVerify: true, token: "from-file", clientCertificatePEM: "C", clientKeyPEM: "K" } });
    const r2 = await parseClusterConfig(doc(`    server: https://h\n    certificate-authority: missing.crt\n    certificate-authority-data: ${b64("D")}`, "    token: t\n    tokenFile: missing"), { baseDir: "/k", readFile });
    expect(r2.ok && r2.value.caPEM).toBe("D");
    expect(r2.ok && r2.value.token).toBe("t");
  });

  it("uses options.context instead of current-context", async () => {
    const r = await parseClusterConfig(doc("    server: https://h", "    token: t"), { context: "alt" });
    expect(r.ok && r.value.server).toBe("https://other:1");
    expect(r.ok && r.value.token).toBeUndefined();
  });

  it.each([
    ["not YAML", "a: [", "Malformed", /not valid YAML/],
    ["a list at top level", "- a", "Malformed", /mapping/],
    ["no current-context", "apiVersion: v1\nkind: Config\n", "Invalid", /no current-context/],
    ["unknown context", "current-context: x\ncontexts: []\n", "Invalid", /context "x" not found/],
    ["unknown cluster", "current-context: x\ncontexts:\n- name: x\n  context: {cluster: nope}\n", "Invalid", /cluster "nope" not found/],
    ["unknown user", "current-context: x\nclusters:\n- name: c\n  cluster: {server: 'https://h'}\ncontexts:\n- name: x\n  context: {cluster: c, user: who}\n", "Invalid", /user "who" not found/],
  ])("%s → %s", async (_n, text, reason, message) => {
    const r = await parseClusterConfig(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toBe(reason);
      expect(r.errors.join("\n")).toMatch(message);
    }
  });

  it("reports every problem of a cluster and user at once", async () => {
    const r = await parseClusterConfig(doc("    server: ftp://h\n    insecure-skip-tls-verify: yes-please\n    certificate-authority-data: '%%%'", "    token: 5\n    client-certificate-data: " + b64("C")), { readFile: () => Promise.reject(new Error("x")) });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/server must be an http or https URL/),
          expect.stringMatching(/insecure-skip-tls-verify must be a boolean/),
          expect.stringMatching(/certificate-authority-data is not valid base64/),
          expect.stringMatching(/token must be a string/),
        ]),
      );
    }
    const noKey = await parseClusterConfig(doc("    server: https://h", `    client-certificate-data: ${b64("C")}`));
    expect(!noKey.ok && noKey.errors[0]).toMatch(/client-certificate and client-key must be given together/);
    const noServer = await parseClusterConfig(doc("    insecure-skip-tls-verify: true", "    token: t"));
    expect(!noServer.ok && noServer.errors[0]).toMatch(/server is required/);
  });
});

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe("loadClusterConfig", () => {
  it("loads a file, resolving references against its directory", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kubeconfig-"));
    dirs.push(dir);
    await writeFile(join(dir, "ca.crt"), "PEM");
    await writeFile(join(dir, "config"), doc("    server: https://h:6443\n    certificate-authority: ca.crt", "    token: t"));
    expect(await loadClusterConfig(join(dir, "config"))).toEqual({ server: "https://h:6443", caPEM: "PEM", insecureSkipTLSVerify: false, token: "t" });
  });

  it("throws typed errors for a missing file and a malformed or invalid one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kubeconfig-"));
    dirs.push(dir);
    const missing: unknown = await loadClusterConfig(join(dir, "nope")).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ClusterConfigError);
    expect(isClusterConfigError(missing) && missing.reason).toBe("FileNotFound");
    await writeFile(join(dir, "bad"), "::: [");
    await expect(loadClusterConfig(join(dir, "bad"))).rejects.toMatchObject({ reason: "Malformed" });
    await writeFile(join(dir, "ref"), doc("    server: https://h\n    certificate-authority: gone.crt", "    token: t"));
    await expect(loadClusterConfig(join(dir, "ref"))).rejects.toMatchObject({ reason: "Invalid", message: expect.stringMatching(/gone\.crt/) });
    await expect(loadClusterConfig(dir)).rejects.toMatchObject({ reason: "ReadFailed" });
  });
});
