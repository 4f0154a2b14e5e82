import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";
import { fileURLToPath } from "node:url";

// Every directory startServer creates is removed once the test file is done: registered while the
// file is collected, this afterAll runs after the file's own (which stop the servers).
const createdDirs: string[] = [];
afterAll(async () => {
  await Promise.all(createdDirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** Registers a test's own temporary directory for the same removal; returns it. */
export function removeWhenDone(dir: string): string {
  createdDirs.push(dir);
  return dir;
}

export const appDir = join(dirname(fileURLToPath(import.meta.url)), "..");
export const adminToken = "admin-token";

export interface RunningServer {
  readonly port: number;
  readonly dir: string;
  readonly ca: string;
  readonly proc: ChildProcess;
  stderr(): string;
  stop(): Promise<number | null>;
}

// Starts the REAL process (from source, or `entry` for the built binary) and waits for its log line.
export async function startServer(opts: { entry?: string; extraArgs?: string[] } = {}): Promise<RunningServer> {
  const dir = removeWhenDone(await mkdtemp(join(tmpdir(), "skiff-apiserver-")));
  await writeFile(join(dir, "tokens.csv"), `${adminToken},admin,1,"system:masters"\n`);
  const args = opts.entry === undefined ? ["--conditions=@skiff/source", "--import", "tsx", join(appDir, "src/main.ts")] : [opts.entry];
  const proc = spawn(
    process.execPath,
    [
      ...args,
      "--secure-port=0",
      "--bind-address=127.0.0.1",
      `--data-dir=${join(dir, "data")}`,
      `--cert-dir=${join(dir, "pki")}`,
      `--token-auth-file=${join(dir, "tokens.csv")}`,
      ...(opts.extraArgs ?? []),
    ],
    { cwd: join(appDir, "../.."), stdio: ["ignore", "pipe", "pipe"] },
  );
  let err = "";
  proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const onData = () => {
      const m = /Serving securely on [^\n]*:(\d+)\n/.exec(err);
      if (m) resolve(Number(m[1]));
    };
    proc.stderr.on("data", onData);
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
        // A process already ended (by exit or by a signal) has exitCode or signalCode set.
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve(proc.exitCode);
        proc.once("exit", (code) => resolve(code));
        proc.kill("SIGTERM");
      }),
  };
}

export interface Response {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  json(): unknown;
}

// HTTPS client trusting the generated CA.
export function call(s: RunningServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const req = request(
      {
        host: "127.0.0.1",
        servername: "localhost",
        port: s.port,
        path,
        method,
        ca: s.ca,
        headers: {
          authorization: `Bearer ${adminToken}`,
          "content-type": "application/json",
          // Node frames no DELETE body by itself (neither Content-Length nor chunked).
          ...(data === undefined ? {} : { "content-length": String(Buffer.byteLength(data)) }),
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json: () => JSON.parse(text) as unknown }));
      },
    );
    req.on("error", reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

// A kubeconfig for kubectl against `s`.
export async function writeKubeconfig(s: RunningServer): Promise<string> {
  const path = join(s.dir, "kubeconfig");
  const ca = Buffer.from(s.ca).toString("base64");
  await writeFile(
    path,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: skiff\n  cluster:\n    server: https://127.0.0.1:${String(s.port)}\n    certificate-authority-data: ${ca}\nusers:\n- name: admin\n  user:\n    token: ${adminToken}\ncontexts:\n- name: skiff\n  context:\n    cluster: skiff\n    user: admin\ncurrent-context: skiff\n`,
  );
  return path;
}
