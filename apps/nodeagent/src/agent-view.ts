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
}
