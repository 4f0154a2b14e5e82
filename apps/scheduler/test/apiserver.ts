// Starts the REAL apiserver process from source (as apps/apiserver/test/harness.ts does) and
// writes a kubeconfig for it.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
export const adminToken = "admin-token";

export interface RunningServer {
  readonly port: number;
  readonly dir: string;
  readonly ca: string;
  readonly kubeconfig: string;
  readonly proc: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

export async function startServer(extraArgs: string[] = []): Promise<RunningServer> {
  const dir = await mkdtemp(join(tmpdir(), "skiff-scheduler-"));
  await writeFile(join(dir, "tokens.csv"), `${adminToken},admin,1,"system:masters"\n`);
  const proc = spawn(
    process.execPath,
    [
      "--conditions=@skiff/source",
      "--import",
      "tsx",
      join(repoRoot, "apps/apiserver/src/main.ts"),
      "--secure-port=0",
      "--bind-address=127.0.0.1",
      `--data-dir=${join(dir, "data")}`,
      `--cert-dir=${join(dir, "pki")}`,
      `--token-auth-file=${join(dir, "tokens.csv")}`,
      ...extraArgs,
    ],
    { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
  );
  let err = "";
  proc.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    proc.stderr?.on("data", () => {
      const m = /Serving securely on [^\n]*:(\d+)\n/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    proc.once("exit", (code) => reject(new Error(`apiserver exited with ${String(code)}: ${err}`)));
  });
  const ca = await readFile(join(dir, "pki", "ca.crt"), "utf8");
  const kubeconfig = join(dir, "kubeconfig");
  await writeFile(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: skiff\n  cluster:\n    server: https://127.0.0.1:${String(port)}\n    certificate-authority: pki/ca.crt\n    tls-server-name: localhost\nusers:\n- name: admin\n  user:\n    token: ${adminToken}\ncontexts:\n- name: skiff\n  context:\n    cluster: skiff\n    user: admin\ncurrent-context: skiff\n`,
  );
  return {
    port,
    dir,
    ca,
    kubeconfig,
    proc,
    stderr: () => err,
    stop: async () => {
      if (proc.exitCode === null) {
        await new Promise<void>((resolve) => {
          proc.once("exit", () => resolve());
          proc.kill("SIGTERM");
        });
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
