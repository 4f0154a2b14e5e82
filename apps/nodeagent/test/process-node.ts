// One node in API-server mode, as several suites start it: the REAL apiserver process, the process
// CRI server (or a runtime already running, such as containerd) and the node agent in this test
// process.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProcessRuntime, type ProcessRuntime, type ProcessRuntimeOptions } from "@skiff/cri-process-server";
import { adminToken, startAPIServer, writeKubeconfig, type RunningAPIServer } from "@skiff/test-support";
import { startAPIModeAgent, textSink, type TextSink } from "./api-mode-agent.js";

/** What {@link startProcessNode} needs. */
export interface ProcessNodeOptions {
  /** The temp directory's name prefix (`skiff-evict-`). */
  readonly prefix: string;
  readonly nodeName: string;
  /**
   * The agent's own flags (after the common ones of `startAPIModeAgent`), or a function of the new
   * directory returning them (it may write files there that the flags name).
   */
  readonly args: readonly string[] | ((dir: string) => readonly string[]);
  /** `isolation` of the process runtime. @defaultValue the runtime's default */
  readonly isolation?: ProcessRuntimeOptions["isolation"];
  /** A CRI endpoint already serving (containerd): no process runtime is started. @defaultValue a new process runtime */
  readonly endpoint?: string;
}

/** A running {@link startProcessNode}: its directory, apiserver, runtime and agent's stderr. */
export interface ProcessNode {
  readonly dir: string;
  readonly api: RunningAPIServer;
  /** The process runtime; undefined with {@link ProcessNodeOptions.endpoint}. */
  readonly cri: ProcessRuntime | undefined;
  readonly agentErr: TextSink;
  /** Stops the agent, the runtime and the apiserver, and removes the directory. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts the apiserver, the process runtime and the agent (resolves once the agent's servers are
 * up). On a failure the parts started so far are stopped and the directory removed.
 * @throws Error when a part does not start (the agent's stderr in the message when it exits).
 */
export async function startProcessNode(o: ProcessNodeOptions): Promise<ProcessNode> {
  const dir = mkdtempSync(join(tmpdir(), o.prefix));
  const stopAgent = new AbortController();
  const agentErr = textSink();
  let api: RunningAPIServer | undefined;
  let cri: ProcessRuntime | undefined;
  let agentDone: Promise<number> | undefined;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      stopAgent.abort();
      await agentDone?.catch(() => 1);
      await cri?.stop();
      await api?.stop();
      rmSync(dir, { recursive: true, force: true });
    })());
  try {
    const args = typeof o.args === "function" ? o.args(dir) : o.args;
    api = await startAPIServer({ dir: join(dir, "apiserver") });
    const kubeconfig = join(dir, "kubeconfig");
    await writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${String(api.port)}`, token: adminToken, caPEM: api.ca });
    if (o.endpoint === undefined) cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state"), ...(o.isolation ? { isolation: o.isolation } : {}) });
    agentDone = (
      await startAPIModeAgent({ kubeconfig, nodeName: o.nodeName, rootDir: join(dir, "root"), certDir: join(dir, "agent-pki"), endpoint: o.endpoint ?? cri?.endpoint ?? "", args, stderr: agentErr, stopSignal: stopAgent.signal })
    ).done;
  } catch (e) {
    await stop();
    throw e;
  }
  return { dir, api, cri, agentErr, stop };
}
