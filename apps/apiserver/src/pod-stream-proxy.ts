/**
 * The connect subresources `pods/exec`, `pods/attach` and `pods/portforward` (GET and POST, so
 * RBAC verbs `get`/`create`): the request is authenticated and authorized by the server's filters
 * first (an upgrade without credentials gets 401 before any stream opens), then its options and
 * the pod are checked as 1.23's ExecLocation/AttachLocation/PortForwardLocation do, and the
 * upgrade is proxied byte for byte to the node agent's `/exec/{ns}/{pod}/{container}`,
 * `/attach/...` or `/portForward/{ns}/{pod}` with the apiserver's client certificate (see
 * pod-log-proxy.ts). The streaming protocol (SPDY/3.1 or WebSocket) is negotiated between kubectl
 * and the runtime's streaming server; a protocol the runtime refuses (kubectl 1.30+'s WebSocket
 * `v5.channel.k8s.io` on a 1.23 runtime) comes back as a non-101 answer, on which kubectl falls
 * back to SPDY.
 * @see pkg/registry/core/pod/rest/subresources.go (ExecREST, AttachREST, PortForwardREST) in kubernetes/kubernetes v1.23
 * @see pkg/registry/core/pod/strategy.go (streamLocation, ExecLocation, AttachLocation, PortForwardLocation) in kubernetes/kubernetes v1.23
 */
import { convertQueryBool, upgradeConnectionOf } from "@skiff/apiserver-core";
import type { NonResourceRoute, ResourceStrategy } from "@skiff/apiserver-core";
import { errorToStatus, isStatusError, newBadRequest, newNotFound } from "@skiff/apimachinery";
import { dialUpgradeBackend, pipeBoth } from "@skiff/apimachinery/proxy";
import type { StatusBody } from "@skiff/apimachinery";
import type { Storage } from "@skiff/storage";
import { nodeAgentLocation, podAndNodeStores, resolveLogContainer } from "./pod-log-proxy.js";
import type { NodeAgentClientCertificate, NodeView, PodView } from "./pod-log-proxy.js";
import { formatUpgradeRequestHead } from "./upgrade-proxy.js";

/** Which connect subresource a request is for. */
export type StreamSubresource = "exec" | "attach" | "portforward";

/** PodExecOptions / PodAttachOptions / PodPortForwardOptions as decoded from the query. */
export interface StreamOptions {
  readonly container: string;
  readonly command: readonly string[];
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
  readonly ports: readonly number[];
}

/**
 * Decodes the query of a connect request. `stdout` and `stderr` default to true for exec and
 * attach (1.23's SetDefaults_PodExecOptions / SetDefaults_PodAttachOptions).
 * @throws StatusError 400 for a value that does not decode (a boolean, a port that is not an integer in 1..65535).
 */
export function parseStreamOptions(sub: StreamSubresource, query: URLSearchParams): StreamOptions {
  // As every query boolean of 1.23's ParameterCodec: the first value, false only for 0/false.
  const bool = (name: string, dflt: boolean) => convertQueryBool(query.get(name) ?? undefined) ?? dflt;
  const ports: number[] = [];
  for (const v of query.getAll("ports").flatMap((p) => p.split(","))) {
    const t = v.trim();
    const n = /^\d+$/.test(t) ? Number(t) : NaN;
    if (!(n >= 1 && n <= 65535)) throw newBadRequest(`ports: invalid port ${JSON.stringify(v)}: must be an integer between 1 and 65535`);
    ports.push(n);
  }
  const io = sub !== "portforward";
  return {
    container: query.get("container") ?? "",
    command: sub === "exec" ? query.getAll("command") : [],
    stdin: io && bool("stdin", false),
    stdout: io && bool("stdout", true),
    stderr: io && bool("stderr", true),
    tty: io && bool("tty", false),
    ports,
  };
}

/**
 * The node agent path and query of a connect request (1.23's streamParams: booleans as `1`,
 * one `command` per argument, ports comma-joined). Pure.
 */
export function nodeAgentStreamPath(sub: StreamSubresource, namespace: string, pod: string, container: string, o: StreamOptions): string {
  const q = new URLSearchParams();
  const seg = encodeURIComponent;
  if (sub === "portforward") {
    if (o.ports.length > 0) q.set("port", o.ports.join(","));
    const qs = q.toString();
    return `/portForward/${seg(namespace)}/${seg(pod)}${qs ? `?${qs}` : ""}`;
  }
  if (o.stdin) q.append("input", "1");
  if (o.stdout) q.append("output", "1");
  if (o.stderr) q.append("error", "1");
  if (o.tty) q.append("tty", "1");
  for (const c of o.command) q.append("command", c);
  const qs = q.toString();
  return `/${sub}/${seg(namespace)}/${seg(pod)}/${seg(container)}${qs ? `?${qs}` : ""}`;
}

/** What {@link podStreamRoutes} reads. */
export interface PodStreamProxyConfig {
  readonly strategies: readonly ResourceStrategy[];
  readonly storage: Storage;
  /** Presented to node agents; absent: none (the agent must allow anonymous). */
  readonly clientCertificate?: NodeAgentClientCertificate;
  /** Dial timeout towards the agent, in ms. @defaultValue 30000 */
  readonly connectTimeoutMs?: number;
}

function statusOfUnknown(err: unknown): StatusBody {
  // 1.23's ErrorToAPIStatus for an error that is not a StatusError: 500, no reason, the error's text
  // (kubectl prints `Error from server: error dialing backend: ...`).
  const message = err instanceof Error ? err.message : String(err);
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, code: 500 } as StatusBody;
}

/**
 * The `pods/exec`, `pods/attach` and `pods/portforward` routes (GET and POST each; to pass in
 * `extraRoutes`). Errors, as 1.23: 404 `pods "p" not found`; 400 `container c is not valid for
 * pod p`, `a container name must be specified for pod p, choose one of: [...]`, `pod p does not
 * have a host assigned`, `Upgrade request required` (a request that is not an upgrade); 404 for a
 * missing Node; 500 `error dialing backend: ...` for an unreachable agent. The agent's own answers
 * (401/403/404/500 texts, or the runtime's refusal of a protocol) pass through unchanged.
 * @example
 * createAPIServer({ ..., extraRoutes: [...podStreamRoutes({ strategies, storage, clientCertificate })] });
 */
export function podStreamRoutes(config: PodStreamProxyConfig): NonResourceRoute[] {
  const { pods, nodes } = podAndNodeStores(config.strategies, config.storage);
  const routes: NonResourceRoute[] = [];
  for (const sub of ["exec", "attach", "portforward"] as const) {
    const handler: NonResourceRoute["handler"] = async (req, reply) => {
      const params = req.params as { namespace: string; name: string };
      const rawUrl = req.raw.url ?? "";
      const query = new URLSearchParams(rawUrl.includes("?") ? rawUrl.slice(rawUrl.indexOf("?") + 1) : "");
      const upgrade = upgradeConnectionOf(req);
      let status: StatusBody;
      try {
        const opts = parseStreamOptions(sub, query);
        const pod = (await config.storage.get(pods.key(params.namespace, params.name), { ignoreNotFound: true })) as PodView | null;
        if (!pod) throw newNotFound({ group: "", resource: "pods" }, params.name);
        const container = sub === "portforward" ? "" : resolveLogContainer(pod, params.name, opts.container);
        const nodeName = pod.spec?.nodeName ?? "";
        if (nodeName === "") throw newBadRequest(`pod ${params.name} does not have a host assigned`);
        const node = (await config.storage.get(nodes.key(undefined, nodeName), { ignoreNotFound: true })) as NodeView | null;
        if (!node) throw newNotFound({ group: "", resource: "nodes" }, nodeName);
        const { host, port } = nodeAgentLocation(nodeName, node);
        if (!upgrade) throw newBadRequest("Upgrade request required");
        const cert = config.clientCertificate;
        const backend = await dialUpgradeBackend({ host, port, tls: cert ? { cert: cert.cert, key: cert.key } : {}, connectTimeoutMs: config.connectTimeoutMs ?? 30_000 });
        const path = nodeAgentStreamPath(sub, pod.metadata?.namespace ?? params.namespace, params.name, container, opts);
        backend.write(formatUpgradeRequestHead(req.raw, path, host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`));
        if (upgrade.head.length > 0) backend.write(upgrade.head);
        void reply.hijack();
        pipeBoth(upgrade.socket, backend);
        return;
      } catch (e) {
        status = isStatusError(e) ? errorToStatus(e) : statusOfUnknown(e);
      }
      return reply.code(status.code ?? 500).header("content-type", "application/json").send(JSON.stringify(status));
    };
    const url = `/api/v1/namespaces/:namespace/pods/:name/${sub}`;
    routes.push({ method: "GET", url, handler }, { method: "POST", url, handler });
  }
  return routes;
}

