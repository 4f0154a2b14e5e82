import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { writeKubeconfig } from "./kubeconfig.js";

// src/ in tests, dist/ when built: both sit two levels below the repository root's tools/.
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const apiserverMain = join(repoRoot, "apps/apiserver/src/main.ts");

/** The token of user `admin` (group `system:masters`), always in the token file. */
export const adminToken = "admin-token";

/** Options of {@link startAPIServer}. */
export interface StartAPIServerOptions {
  /** Extra skiff-apiserver flags, after the harness's own (a repeated flag wins). @defaultValue [] */
  readonly args?: readonly string[];
  /** Extra `--token-auth-file` lines (`token,user,uid[,"group1,group2"]`) after the admin's. @defaultValue [] */
  readonly tokens?: readonly string[];
  /** Files written into the server directory before start (name → content), e.g. an ABAC policy. */
  readonly files?: Readonly<Record<string, string>>;
  /**
   * The server directory (created if missing, kept by `stop()`). Without it a new temporary
   * directory is used and removed by `stop()`.
   */
  readonly dir?: string;
  /** Name prefix of the temporary directory. @defaultValue "skiff-apiserver-" */
  readonly tempPrefix?: string;
  /** Modules `--import`ed into the apiserver process before its main module (e.g. fault injection). */
  readonly preload?: readonly string[];
}

/** A running skiff-apiserver process started by {@link startAPIServer}. */
export interface RunningAPIServer {
  /** The HTTPS port on 127.0.0.1. */
  readonly port: number;
  /** The server directory: `tokens.csv`, `data/` (SQLite), `pki/` (generated CA and serving pair), `kubeconfig`. */
  readonly dir: string;
  /** The CA (PEM) that signed the serving certificate; also the client CA. */
  readonly ca: string;
  /** Path of a kubeconfig for `admin` (CA by relative file path, `tls-server-name: localhost`). */
  readonly kubeconfig: string;
  readonly proc: ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Sends SIGTERM, waits for exit, removes the directory when it was temporary; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the REAL skiff-apiserver from source (node + tsx, `@skiff/source` condition) on
 * 127.0.0.1 with a free port (`--secure-port=0`), SQLite under `dir/data`, a generated CA in
 * `dir/pki` and a token file with {@link adminToken}; resolves once it logs "Serving securely".
 *
 * @throws Error `apiserver exited with <code>: <stderr>` when the process exits before serving
 * @example
 * ```ts
 * const server = await startAPIServer({ args: ["--feature-gates=JobTrackingWithFinalizers=true"] });
 * const client = createClient(await loadClusterConfig(server.kubeconfig));
 * // …
 * await server.stop();
 * ```
 */
export async function startAPIServer(options: StartAPIServerOptions = {}): Promise<RunningAPIServer> {
  const temporary = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), options.tempPrefix ?? "skiff-apiserver-")));
  if (!temporary) await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "tokens.csv"), [`${adminToken},admin,1,"system:masters"`, ...(options.tokens ?? [])].map((l) => `${l}\n`).join(""));
  for (const [name, content] of Object.entries(options.files ?? {})) await writeFile(join(dir, name), content);
  const proc = spawn(
    process.execPath,
    [
      "--conditions=@skiff/source",
      "--import",
      "tsx",
      ...(options.preload ?? []).flatMap((p) => ["--import", pathToFileURL(p).href]),
      apiserverMain,
      "--secure-port=0",
      "--bind-address=127.0.0.1",
      `--data-dir=${join(dir, "data")}`,
      `--cert-dir=${join(dir, "pki")}`,
      `--token-auth-file=${join(dir, "tokens.csv")}`,
      ...(options.args ?? []),
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
  const kubeconfig = join(dir, "kubeconfig");
  await writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${String(port)}`, token: adminToken, caFile: "pki/ca.crt", tlsServerName: "localhost" });
  return {
    port,
    dir,
    ca,
    kubeconfig,
    proc,
    stderr: () => err,
    stop: async () => {
      const code =
        proc.exitCode !== null
          ? proc.exitCode
          : await new Promise<number | null>((resolve) => {
              proc.once("exit", (c) => resolve(c));
              proc.kill("SIGTERM");
            });
      if (temporary) await rm(dir, { recursive: true, force: true });
      return code;
    },
  };
}
