/**
 * Black-box harness for the node agent: starts the REAL binary (`node --conditions=@skiff/source
 * --import tsx apps/nodeagent/src/main.ts ...`) in standalone mode with its own root, cert and
 * manifest directories and free ports, and talks to its three ports over real sockets.
 */
import { readdir, readFile, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { waitFor } from "@skiff/test-support";
import type { AgentProcess } from "./cli-helpers.js";
import { freePort, startAgent, waitHealthy } from "./cli-helpers.js";

/** Where the kubelet (and so the agent) writes container logs; not configurable by a flag. */
export const podLogsRoot = "/var/log/pods";

/** An HTTP answer. */
export interface Answer {
  readonly status: number;
  readonly body: string;
  json<T = unknown>(): T;
}

/** TLS settings of one request to the main port. */
export interface TLSClient {
  /** PEM of the CA to verify the server with (omitted: no verification). */
  readonly ca?: string;
  /** The name to verify the server certificate for. */
  readonly servername?: string;
  readonly cert?: string;
  readonly key?: string;
}

/** One GET over plain HTTP (`tls` omitted) or HTTPS. */
export function get(port: number, path: string, tls?: TLSClient): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const common = { host: "127.0.0.1", port, path, method: "GET", agent: false as const };
    const req =
      tls === undefined
        ? httpRequest(common)
        : httpsRequest({
            ...common,
            rejectUnauthorized: tls.ca !== undefined,
            ...(tls.ca !== undefined ? { ca: tls.ca } : {}),
            ...(tls.servername !== undefined ? { servername: tls.servername } : {}),
            ...(tls.cert !== undefined && tls.key !== undefined ? { cert: tls.cert, key: tls.key } : {}),
          });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, body, json: <T>() => JSON.parse(body) as T });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Options of {@link startHarnessAgent}. */
export interface HarnessOptions {
  /** A fresh directory for this agent (root dir, cert dir, lock files...). */
  readonly dir: string;
  /** `--hostname-override`: the node name, also the serving certificate's name. */
  readonly nodeName: string;
  /** `--container-runtime-endpoint`. */
  readonly runtimeEndpoint: string;
  /** `--pod-manifest-path` (omitted: none). */
  readonly manifests?: string;
  /** Further flags, appended last (they win over the harness's own). */
  readonly args?: readonly string[];
  /** Wait for `/healthz` before returning. @defaultValue true */
  readonly waitHealthy?: boolean;
}

/** A started agent process with its ports and directories. */
export interface HarnessAgent extends AgentProcess {
  readonly nodeName: string;
  readonly certDir: string;
  readonly rootDir: string;
  readonly ports: { readonly main: number; readonly readOnly: number; readonly healthz: number };
  /** The agent's log (stderr). */
  logs(): string;
  /** `/pods` from the read-only port. */
  pods(): Promise<Pod[]>;
  /** The generated serving certificate (`<cert-dir>/nodeagent.crt`: serving cert + its CA). */
  servingCert(): Promise<string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code or signal. */
  stop(graceMs?: number): Promise<number | string>;
}

/**
 * Starts the agent binary with `--root-dir`, `--cert-dir`, free `--port`/`--read-only-port`/
 * `--healthz-port` on 127.0.0.1 and the given runtime endpoint, and waits for `/healthz`.
 * @throws Error when the agent exits or is not healthy within 60 s (with its stderr).
 */
export async function startHarnessAgent(o: HarnessOptions): Promise<HarnessAgent> {
  const [main, readOnly, healthz] = [await freePort(), await freePort(), await freePort()];
  const rootDir = join(o.dir, "root");
  const certDir = join(o.dir, "pki");
  const args = [
    `--hostname-override=${o.nodeName}`,
    `--root-dir=${rootDir}`,
    `--cert-dir=${certDir}`,
    "--address=127.0.0.1",
    `--port=${main}`,
    `--read-only-port=${readOnly}`,
    `--healthz-port=${healthz}`,
    `--container-runtime-endpoint=${o.runtimeEndpoint}`,
    // Test machines may have swap on; the check itself is unit-tested (src/cm/node-setup.test.ts).
    "--fail-swap-on=false",
    ...(o.manifests !== undefined ? [`--pod-manifest-path=${o.manifests}`] : []),
    ...(o.args ?? []),
  ];
  const proc = startAgent(args);
  const agent: HarnessAgent = {
    ...proc,
    nodeName: o.nodeName,
    certDir,
    rootDir,
    ports: { main, readOnly, healthz },
    logs: () => proc.stderr(),
    pods: async () => {
      const r = await get(readOnly, "/pods");
      if (r.status !== 200) throw new Error(`/pods answered ${r.status}: ${r.body}`);
      return r.json<{ items: Pod[] | null }>().items ?? [];
    },
    servingCert: () => readFile(join(certDir, "nodeagent.crt"), "utf8"),
    stop: (graceMs = 15_000) => {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) return proc.exited;
      proc.child.kill("SIGTERM");
      const timer = setTimeout(() => proc.child.kill("SIGKILL"), graceMs);
      return proc.exited.finally(() => clearTimeout(timer));
    },
  };
  if (o.waitHealthy !== false) {
    try {
      await waitHealthy(healthz, proc);
    } catch (err) {
      proc.child.kill("SIGKILL");
      throw err;
    }
  }
  return agent;
}

/** The pod named `<name>-<nodeName>` in a pod list. */
export function podNamed(pods: readonly Pod[], name: string, nodeName: string): Pod | undefined {
  return pods.find((p) => p.metadata?.name === `${name}-${nodeName}`);
}

/**
 * Removes the container log directories the agent wrote for pods of `nodeName`
 * (`/var/log/pods/<namespace>_<name>-<nodeName>_<uid>`), so a test leaves nothing behind.
 */
export async function removePodLogs(nodeName: string): Promise<void> {
  const entries = await readdir(podLogsRoot).catch(() => [] as string[]);
  await Promise.all(entries.filter((e) => e.includes(`-${nodeName}_`)).map((e) => rm(join(podLogsRoot, e), { recursive: true, force: true })));
}

/** Polls `fn` every 200 ms until it returns a value other than undefined/false. */
export function eventually<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 60_000, context?: () => string): Promise<T> {
  return waitFor(fn, { what, timeoutMs, intervalMs: 200, ...(context ? { context: () => `--- agent log ---\n${context().split("\n").slice(-40).join("\n")}` } : {}) });
}
