// Starts the REAL apiserver process (from source, as apps/apiserver/test/harness.ts does) with two
// token users and an ABAC policy, and talks to it over HTTPS with the admin token.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { join } from "node:path";

const repoRoot = join(import.meta.dirname, "..", "..", "..");
const apiserverMain = join(repoRoot, "apps", "apiserver", "src", "main.ts");

/** system:masters. */
export const adminToken = "admin-token";
/** A user with read-only access to pods (ABAC), nothing else. */
export const viewerToken = "viewer-token";

export interface APIServerProcess {
  readonly port: number;
  readonly dir: string;
  readonly ca: string;
  readonly proc: ChildProcess;
  stderr(): string;
  stop(): Promise<number | null>;
}

export async function startAPIServer(baseDir: string): Promise<APIServerProcess> {
  const dir = join(baseDir, "apiserver");
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "tokens.csv"), `${adminToken},admin,1,"system:masters"\n${viewerToken},viewer,2\n`);
  await writeFile(
    join(dir, "abac.jsonl"),
    `${JSON.stringify({ apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Policy", spec: { user: "viewer", namespace: "*", resource: "pods", apiGroup: "*", readonly: true } })}\n`,
  );
  const proc = spawn(
    process.execPath,
    [
      "--conditions=@skiff/source",
      "--import",
      "tsx",
      apiserverMain,
      "--secure-port=0",
      "--bind-address=127.0.0.1",
      `--data-dir=${join(dir, "data")}`,
      `--cert-dir=${join(dir, "pki")}`,
      `--token-auth-file=${join(dir, "tokens.csv")}`,
      "--authorization-mode=ABAC",
      `--authorization-policy-file=${join(dir, "abac.jsonl")}`,
    ],
    { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
  );
  let err = "";
  proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    proc.stderr.on("data", () => {
      const m = /Serving securely on [^\n]*:(\d+)\n/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    proc.once("exit", (code) => reject(new Error(`apiserver exited with ${String(code)}: ${err}`)));
  });
  const ca = await readFile(join(dir, "pki", "ca.crt"), "utf8");
  return {
    port,
    dir,
    ca,
    proc,
    stderr: () => err,
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve(proc.exitCode);
        proc.once("exit", (code) => resolve(code));
        proc.kill("SIGTERM");
      }),
  };
}

export interface APIResponse {
  readonly status: number;
  readonly body: string;
  json(): unknown;
}

export function apiCall(s: APIServerProcess, method: string, path: string, body?: unknown, token = adminToken): Promise<APIResponse> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { host: "127.0.0.1", servername: "localhost", port: s.port, path, method, ca: s.ca, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, json: () => JSON.parse(text) as unknown }));
      },
    );
    req.on("error", reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

/** A kubeconfig (kubectl's and the agent's `--clusterconfig`) with the admin token. */
export async function writeAdminKubeconfig(s: APIServerProcess): Promise<string> {
  const path = join(s.dir, "kubeconfig");
  const ca = Buffer.from(s.ca).toString("base64");
  await writeFile(
    path,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: skiff\n  cluster:\n    server: https://127.0.0.1:${String(s.port)}\n    certificate-authority-data: ${ca}\nusers:\n- name: admin\n  user:\n    token: ${adminToken}\ncontexts:\n- name: skiff\n  context:\n    cluster: skiff\n    user: admin\ncurrent-context: skiff\n`,
  );
  return path;
}
