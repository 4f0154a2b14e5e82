// The node agent run in this test process in API-server mode, as the API-mode suites start it:
// loopback addresses, a free main port, no read-only or healthz port, the given root and cert
// directories and runtime endpoint, then the suite's own flags.
import { runNodeAgent } from "../src/app.js";
import { freePort } from "./cli-helpers.js";

/** A line sink that keeps what is written (the agent's stdout or stderr). */
export interface TextSink {
  write(s: string): boolean;
  text(): string;
}

/** A {@link TextSink} that keeps everything written to it. */
export function textSink(): TextSink {
  let out = "";
  return { write: (s: string) => ((out += s), true), text: () => out };
}

/** What {@link startAPIModeAgent} needs. */
export interface APIModeAgentOptions {
  readonly kubeconfig: string;
  readonly nodeName: string;
  readonly rootDir: string;
  readonly certDir: string;
  /** `--container-runtime-endpoint`. */
  readonly endpoint: string;
  /** The suite's own flags, after the common ones (a later flag wins). */
  readonly args?: readonly string[];
  readonly stdout?: TextSink;
  readonly stderr?: TextSink;
  /** Aborting it stops the agent. */
  readonly stopSignal: AbortSignal;
}

/**
 * Starts the agent and resolves once its servers are up, with `done`, the promise of its exit code
 * (wrapped: an async function returning a promise would wait for it).
 * @throws Error with the agent's stderr when it exits before it is ready.
 */
export async function startAPIModeAgent(o: APIModeAgentOptions): Promise<{ done: Promise<number> }> {
  const stderr = o.stderr ?? textSink();
  let ready!: () => void;
  const readyP = new Promise<void>((r) => (ready = r));
  const done = runNodeAgent(
    [
      `--clusterconfig=${o.kubeconfig}`,
      `--hostname-override=${o.nodeName}`,
      "--node-ip=127.0.0.1",
      "--address=127.0.0.1",
      `--port=${await freePort()}`,
      "--read-only-port=0",
      "--healthz-port=0",
      `--root-dir=${o.rootDir}`,
      `--cert-dir=${o.certDir}`,
      `--container-runtime-endpoint=${o.endpoint}`,
      ...(o.args ?? []),
    ],
    { stdout: o.stdout ?? textSink(), stderr, stopSignal: o.stopSignal, onReady: () => ready() },
  );
  await Promise.race([readyP, done.then((code) => Promise.reject(new Error(`agent exited ${code}: ${stderr.text()}`)))]);
  return { done };
}
