/**
 * The seams between the node agent's three parts, so each can be built and tested alone:
 * - `options/` turns argv + the config file into a validated {@link NodeAgentConfiguration}-based setup;
 * - `pods/` (pod sources, pod workers, the CRI runtime manager) implements {@link AgentView};
 * - `server/` serves the healthz, read-only and main ports over an {@link AgentView}.
 *
 * `app.ts` composes them; `main.ts` only calls it.
 * @see pkg/kubelet/server/server.go (HostInterface) in kubernetes/kubernetes v1.23
 */
import type { Pod } from "@skiff/api-types";
import type { Readable } from "node:stream";

/** Options of one `/containerLogs/{namespace}/{pod}/{container}` request (kubelet's PodLogOptions). */
export interface ContainerLogOptions {
  /** Stream new lines as they are written until the client goes away. */
  readonly follow?: boolean;
  /** Only the last N lines. */
  readonly tailLines?: number;
  /** Logs of the previous (terminated) instance of the container. */
  readonly previous?: boolean;
  /** Prefix each line with its RFC3339Nano timestamp. */
  readonly timestamps?: boolean;
  /** Only lines newer than this many seconds. */
  readonly sinceSeconds?: number;
  /** Stop after this many bytes. */
  readonly limitBytes?: number;
}

/** Why a log request could not be served; the server maps `code` to an HTTP status. */
export class ContainerLogError extends Error {
  /** `NotFound` → 404 (pod or container unknown, or no previous instance); `BadRequest` → 400. */
  readonly code: "NotFound" | "BadRequest";
  constructor(code: "NotFound" | "BadRequest", message: string) {
    super(message);
    this.name = "ContainerLogError";
    this.code = code;
  }
}

/** Which streams one `/exec` or `/attach` request carries (the kubelet's remotecommand Options). */
export interface StreamOptions {
  readonly stdin: boolean;
  readonly stdout: boolean;
  /** Always false with `tty` (a terminal merges stderr into stdout). */
  readonly stderr: boolean;
  readonly tty: boolean;
}

/**
 * Why a streaming request (`/exec`, `/attach`, `/portForward`, `/run`) could not be prepared.
 * `statusCode` is the HTTP answer: 404 when the runtime says NotFound, 500 otherwise (the
 * kubelet's streaming.WriteError); the message is the body kubectl prints after
 * `unable to upgrade connection: `.
 */
export class StreamingError extends Error {
  readonly statusCode: number;
  constructor(statusCode: number, message: string) {
    super(message);
    this.name = "StreamingError";
    this.statusCode = statusCode;
  }
}

/** One named health check; `/healthz` is `ok` only when every check passes. */
export interface HealthCheck {
  readonly name: string;
  /** Resolves when healthy; throws (or rejects) with the reason otherwise. */
  check(): void | Promise<void>;
}

/** A manifest submitted through the agent's own HTTP manifest API (a third static pod source). */
export interface SubmittedManifest {
  /** The raw request body (YAML or JSON of one v1 Pod). */
  readonly body: string;
}

/** The result of {@link AgentView.submitManifest}: the pod as the agent will run it, or errors. */
export type SubmitManifestResult = { readonly ok: true; readonly pod: Pod } | { readonly ok: false; readonly errors: readonly string[] };

/**
 * What the servers need from the running agent. Implemented by `pods/`, consumed by `server/`.
 * Every method is safe to call at any time after construction, including before the first sync.
 */
export interface AgentView {
  /** The node's name (hostname, or `--hostname-override`, lower-cased). */
  readonly nodeName: string;
  /** The pods the agent is told to run (all sources), each with its current status. `/pods`. */
  listPods(): readonly Pod[];
  /** The pods as the runtime reports them (sandboxes + containers, no spec beyond names/images). `/runningpods/`. */
  listRunningPods(): Promise<readonly Pod[]>;
  /** A readable stream of one container's log (kubelet's text format, not CRI lines). @throws ContainerLogError */
  containerLogs(namespace: string, podName: string, containerName: string, opts: ContainerLogOptions): Promise<Readable>;
  /** Health checks for `/healthz` (e.g. the sync loop ran recently). The runtime's readiness is reported but does not fail healthz, as in the kubelet. */
  healthChecks(): readonly HealthCheck[];
  /** Accepts a pod manifest through the agent's HTTP manifest API; it runs as a static pod. */
  submitManifest(manifest: SubmittedManifest): SubmitManifestResult;
  /** Removes a pod submitted through the manifest API; false when there was none by that name. */
  removeSubmittedManifest(namespace: string, name: string): boolean;
  /**
   * The runtime's streaming URL of an exec in a running container (CRI `Exec`). `podUID` empty:
   * any. @throws StreamingError (`container not found ("c")` when it does not run).
   */
  getExec(namespace: string, podName: string, podUID: string, containerName: string, cmd: readonly string[], opts: StreamOptions): Promise<string>;
  /** The runtime's streaming URL of an attach to a running container (CRI `Attach`). @throws StreamingError */
  getAttach(namespace: string, podName: string, podUID: string, containerName: string, opts: StreamOptions): Promise<string>;
  /** The runtime's streaming URL forwarding ports of the pod's sandbox (CRI `PortForward`). @throws StreamingError (`pod not found ("name_ns")`) */
  getPortForward(namespace: string, podName: string, podUID: string, ports: readonly number[]): Promise<string>;
  /**
   * Runs a command in a running container to completion (CRI `ExecSync`, no timeout): stdout then
   * stderr. @throws StreamingError (500 `command '<cmd>' exited with <n>: <stderr>` on a non-zero exit)
   */
  runInContainer(namespace: string, podName: string, podUID: string, containerName: string, cmd: readonly string[]): Promise<Buffer>;
}
