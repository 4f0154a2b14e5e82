import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeKubeconfig } from "./kubeconfig.js";

const tail = "users:\n- name: admin\n  user:\n    token: t\ncontexts:\n- name: skiff\n  context:\n    cluster: skiff\n    user: admin\ncurrent-context: skiff\n";

describe("writeKubeconfig", () => {
  it("writes one cluster, user and context, with the CA inline or by file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "skiff-ts-"));
    try {
      const path = join(dir, "kubeconfig");
      await writeKubeconfig(path, { server: "https://127.0.0.1:1", token: "t", caPEM: "PEM", tlsServerName: "localhost" });
      expect(await readFile(path, "utf8")).toBe(
        `apiVersion: v1\nkind: Config\nclusters:\n- name: skiff\n  cluster:\n    server: https://127.0.0.1:1\n    certificate-authority-data: ${Buffer.from("PEM").toString("base64")}\n    tls-server-name: localhost\n${tail}`,
      );
      await writeKubeconfig(path, { server: "https://h:2", token: "t", caFile: "pki/ca.crt" });
      expect(await readFile(path, "utf8")).toBe(`apiVersion: v1\nkind: Config\nclusters:\n- name: skiff\n  cluster:\n    server: https://h:2\n    certificate-authority: pki/ca.crt\n${tail}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
