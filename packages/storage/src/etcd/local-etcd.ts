import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Options of {@link startLocalEtcd}. */
export interface LocalEtcdOptions {
  /** The etcd binary. @defaultValue `$ETCD_BIN`, else `/usr/bin/etcd` */
  readonly binary?: string;
  /** Data folder (created); removed by `stop()` only when it was made here. @defaultValue a fresh folder under /dev/shm (else the OS temp dir) */
  readonly dataDir?: string;
  /** Extra etcd flags, e.g. `--experimental-watch-progress-notify-interval=200ms`. */
  readonly extraArgs?: readonly string[];
  /** How long to wait for `/health`, in milliseconds. @defaultValue 30000 */
  readonly startTimeoutMs?: number;
  /**
   * Serve clients over TLS with these PEM files (etcd's `--cert-file`, `--key-file`) and require
   * client certificates signed by `caFile` (`--trusted-ca-file`, `--client-cert-auth`); `clientUrl`
   * is then `https://`. `clientCertFile`/`clientKeyFile` are used for the health check.
   */
  readonly tls?: {
    readonly certFile: string;
    readonly keyFile: string;
    readonly caFile: string;
    readonly clientCertFile: string;
    readonly clientKeyFile: string;
  };
}

/** A running single-member etcd on loopback. */
export interface LocalEtcd {
  /** `http://127.0.0.1:<port>`: pass it as `servers`/`--etcd-servers`. */
  readonly clientUrl: string;
  readonly dataDir: string;
  readonly pid: number;
  /** SIGTERMs the process (SIGKILL after 5 s), waits for it, removes a data folder it made. Idempotent. */
  stop(): Promise<void>;
}

/** The etcd binary {@link startLocalEtcd} would run, or undefined when it is not installed. */
export function findEtcdBinary(binary?: string): string | undefined {
  const path = binary ?? process.env.ETCD_BIN ?? "/usr/bin/etcd";
  return existsSync(path) ? path : undefined;
}

/** A free TCP port on 127.0.0.1 (bound and released; the usual small race applies). */
export async function freeLoopbackPort(): Promise<number> {
  return await new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function loopbackPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A base port B in [20000, 40000) such that B + each of `offsets` is free on 127.0.0.1 (bound and
 * released; the usual small race applies), for a multi-member cluster started by
 * tools/etcd/start-cluster.sh (`offsets` [0, 1, 10, 11, 20, 21]: client and peer port per member).
 * @throws Error when 50 random tries find no such range.
 */
export async function freeLoopbackPortRange(offsets: readonly number[]): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 20_000);
    if ((await Promise.all(offsets.map((d) => loopbackPortFree(base + d)))).every(Boolean)) return base;
  }
  throw new Error(`no free loopback port range for offsets ${offsets.join(",")}`);
}

/**
 * Starts a throwaway single-member etcd on free loopback ports (for tests and benchmarks) and
 * waits until it answers `/health`.
 *
 * @throws Error when the binary is missing, exits early, or is not healthy within the timeout.
 * @example
 * const etcd = await startLocalEtcd();
 * const storage = await openEtcdStorage({ servers: [etcd.clientUrl] });
 * // ...
 * await storage.close();
 * await etcd.stop();
 */
export async function startLocalEtcd(options: LocalEtcdOptions = {}): Promise<LocalEtcd> {
  const binary = findEtcdBinary(options.binary);
  if (binary === undefined) throw new Error(`etcd binary not found (${options.binary ?? process.env.ETCD_BIN ?? "/usr/bin/etcd"})`);
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "skiff-etcd-"));
  const clientPort = await freeLoopbackPort();
  const peerPort = await freeLoopbackPort();
  const tls = options.tls;
  const clientUrl = `${tls === undefined ? "http" : "https"}://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const child = spawn(
    binary,
    [
      "--name=skiff-test",
      `--data-dir=${join(dataDir, "member")}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=skiff-test=${peerUrl}`,
      "--initial-cluster-state=new",
      "--log-level=error",
      "--logger=zap",
      ...(tls === undefined ? [] : [`--cert-file=${tls.certFile}`, `--key-file=${tls.keyFile}`, `--trusted-ca-file=${tls.caFile}`, "--client-cert-auth"]),
      ...(options.extraArgs ?? []),
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once("exit", () => {
      exited = true;
      resolve();
    });
  });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (!exited) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exit;
      clearTimeout(timer);
    }
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`etcd exited during startup: ${stderr}`);
    }
    if (await healthy(clientUrl, tls)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`etcd did not become healthy within the timeout: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { clientUrl, dataDir, pid: child.pid ?? 0, stop };
}

async function healthy(clientUrl: string, tls: LocalEtcdOptions["tls"]): Promise<boolean> {
  try {
    if (tls === undefined) {
      const res = await fetch(`${clientUrl}/health`);
      return res.ok && ((await res.json()) as { health?: unknown }).health === "true";
    }
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(
        `${clientUrl}/health`,
        { ca: readFileSync(tls.caFile), cert: readFileSync(tls.clientCertFile), key: readFileSync(tls.clientKeyFile) },
        (res) => {
          let text = "";
          res.on("data", (d: Buffer) => (text += d.toString()));
          res.on("end", () => resolve(text));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end();
    });
    return (JSON.parse(body) as { health?: unknown }).health === "true";
  } catch {
    return false; // Not listening yet.
  }
}
