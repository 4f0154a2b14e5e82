// Starts the REAL apiserver process from source (as apps/apiserver/test/harness.ts does) and a
// client for it with an admin token.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, type Client } from "@skiff/client";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const adminToken = "admin-token";

export interface RunningApiserver {
  readonly client: Client;
  stop(): Promise<void>;
}

export async function startApiserver(): Promise<RunningApiserver> {
  const dir = await mkdtemp(join(tmpdir(), "skiff-csi-apiserver-"));
  await writeFile(join(dir, "tokens.csv"), `${adminToken},admin,1,"system:masters"\n`);
  const proc: ChildProcess = spawn(
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
  const caPEM = await readFile(join(dir, "pki", "ca.crt"), "utf8");
  const client = createClient({ server: `https://127.0.0.1:${String(port)}`, caPEM, insecureSkipTLSVerify: false, token: adminToken, tlsServerName: "localhost" }, { qps: 100, burst: 200 });
  return {
    client,
    async stop() {
      client.close();
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
