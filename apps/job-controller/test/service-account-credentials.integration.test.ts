// --use-service-account-credentials against the real apiserver under RBAC: the controller manager
// authenticates as system:kube-controller-manager (which may not create pods); with the flag each
// controller runs as its own service account kube-system/<clientName>, bound by the bootstrap
// policy to system:controller:<clientName>, so the Job controller creates the Job's pods; without
// it the same requests are forbidden in 1.23's words.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@skiff/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, jobManifest, newClient, podsOf, repoRoot, startServer, waitFor } from "./harness.js";
import type { RunningServer } from "./harness.js";

const main = join(repoRoot, "apps/job-controller/src/main.ts");
let server: RunningServer;
let admin: Client;
let dir: string;
let kcmConfig: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "skiff-sacreds-"));
  const tokens = join(dir, "tokens.csv");
  await writeFile(tokens, `${adminToken},admin,1,"system:masters"\nkcm-token,system:kube-controller-manager,kcm\n`);
  server = await startServer(["--authorization-mode=RBAC", `--token-auth-file=${tokens}`]);
  admin = await newClient(server);
  kcmConfig = join(dir, "kcm.kubeconfig");
  await writeFile(kcmConfig, (await readFile(server.kubeconfig, "utf8")).replace(`token: ${adminToken}`, "token: kcm-token").replace("name: admin", "name: kcm").replace("user: admin", "user: kcm"));
}, 60_000);
afterAll(async () => {
  admin.close();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

async function runManager(args: string[], until: (stderr: string) => boolean, what: string): Promise<string> {
  const proc = spawn(process.execPath, ["--conditions=@skiff/source", "--import", "tsx", main, `--clusterconfig=${kcmConfig}`, "--controllers=job", ...args], { cwd: repoRoot, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  try {
    await waitFor(what, () => (until(err) ? true : undefined), 60_000).catch((e: unknown) => {
      throw new Error(`${String(e)}\n--- controller manager stderr:\n${err}`);
    });
  } finally {
    proc.kill("SIGTERM");
  }
  expect(await exited).toBe(0);
  return err;
}

describe("skiff-job-controller identities under RBAC", () => {
  it("without --use-service-account-credentials the manager's own user may not create the Job's pods", async () => {
    const job = await admin.jobs.create(jobManifest("own-user", { parallelism: 1, completions: 1 }), { namespace: "default" });
    const err = await runManager([], (e) => e.includes("forbidden"), "a forbidden sync");
    expect(err).toContain('pods is forbidden: User "system:kube-controller-manager" cannot create resource "pods" in API group "" in the namespace "default"');
    expect(await podsOf(admin, job)).toHaveLength(0);
    await admin.jobs.delete("own-user", { namespace: "default" });
  }, 90_000);

  it("with it the Job controller runs as kube-system/job-controller: the service account is created and the pods are", async () => {
    const job = await admin.jobs.create(jobManifest("sa-user", { parallelism: 2, completions: 2 }), { namespace: "default" });
    let pods = 0;
    const err = await runManager(
      ["--use-service-account-credentials"],
      () => {
        void podsOf(admin, job).then((p) => (pods = p.length));
        return pods === 2;
      },
      "the Job's two pods",
    );
    expect(err).not.toMatch(/forbidden|Unauthorized/i);
    const sa = await admin.serviceAccounts.get("job-controller", { namespace: "kube-system" });
    expect(sa.metadata?.name).toBe("job-controller");
    // The identity the bootstrap policy binds: system:controller:job-controller → kube-system/job-controller.
    const binding = await admin.clusterRoleBindings.get("system:controller:job-controller");
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "job-controller", namespace: "kube-system" }]);
  }, 90_000);
});
