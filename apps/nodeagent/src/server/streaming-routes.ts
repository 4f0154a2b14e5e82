/**
 * `/exec`, `/attach`, `/portForward` and `/run` on the main server (debugging handlers on). They
 * run behind the server's authentication and authorization (subresource `proxy`; GET is `get`,
 * POST is `create`), ask the runtime for a streaming URL and proxy the client's upgrade to it.
 * @see pkg/kubelet/server/server.go (getExec, getAttach, getPortForward, getRun, proxyStream) in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/cri/streaming/remotecommand/httpstream.go (NewOptions) in kubernetes/kubernetes v1.23
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AgentView, StreamOptions } from "../agent-view.js";
import { pipeBoth } from "@skiff/apimachinery/proxy";
import { dialStreamingServer, formatStreamingRequestHead, upgradeConnectionOf } from "./upgrade.js";
import type { StreamLimits } from "./upgrade.js";

/** The path parameters of a streaming request. */
export interface StreamingPath {
  readonly namespace: string;
  readonly podName: string;
  /** Empty when the path carries none. */
  readonly podUID: string;
  /** Empty for `/portForward`. */
  readonly containerName: string;
}

/**
 * Splits `/{kind}/{ns}/{pod}[/{uid}]/{container}` (or `/portForward/{ns}/{pod}[/{uid}]`) after the
 * kind prefix; `undefined` for any other shape. Segments are percent-decoded. Pure.
 */
export function parseStreamingPath(rest: string, withContainer: boolean): StreamingPath | undefined {
  const parts = rest.split("/");
  let decoded: string[];
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    return undefined;
  }
  if (decoded.some((p) => p === "")) return undefined;
  if (withContainer) {
    if (decoded.length === 3) return { namespace: decoded[0] ?? "", podName: decoded[1] ?? "", podUID: "", containerName: decoded[2] ?? "" };
    if (decoded.length === 4) return { namespace: decoded[0] ?? "", podName: decoded[1] ?? "", podUID: decoded[2] ?? "", containerName: decoded[3] ?? "" };
    return undefined;
  }
  if (decoded.length === 2) return { namespace: decoded[0] ?? "", podName: decoded[1] ?? "", podUID: "", containerName: "" };
  if (decoded.length === 3) return { namespace: decoded[0] ?? "", podName: decoded[1] ?? "", podUID: decoded[2] ?? "", containerName: "" };
  return undefined;
}

/**
 * The stream options of an `/exec` or `/attach` query (`input`, `output`, `error`, `tty` = `1`):
 * stderr is dropped with a tty. Pure.
 * @returns an error text when no stream is asked for: `you must specify at least 1 of stdin, stdout, stderr`.
 */
export function parseStreamOptions(query: URLSearchParams): { ok: true; value: StreamOptions } | { ok: false; message: string } {
  const tty = query.get("tty") === "1";
  const stdin = query.get("input") === "1";
  const stdout = query.get("output") === "1";
  const stderr = query.get("error") === "1" && !tty;
  if (!stdin && !stdout && !stderr) return { ok: false, message: "you must specify at least 1 of stdin, stdout, stderr" };
  return { ok: true, value: { stdin, stdout, stderr, tty } };
}

/**
 * The ports of a `/portForward` query: `port` values, comma-separated or repeated. Pure.
 * @returns an error text for a port that is not an integer in 1..65535.
 */
export function parsePortForwardPorts(query: URLSearchParams): { ok: true; value: number[] } | { ok: false; message: string } {
  const ports: number[] = [];
  for (const raw of query.getAll("port").flatMap((v) => v.split(","))) {
    const t = raw.trim();
    const n = /^\d+$/.test(t) ? Number(t) : NaN;
    if (!(n >= 1 && n <= 65535)) return { ok: false, message: `unable to parse "${raw}" as a port: invalid port` };
    ports.push(n);
  }
  return { ok: true, value: ports };
}

/** What {@link installStreamingRoutes} needs. */
export interface StreamingRoutesDeps {
  readonly view: AgentView;
  readonly limits: StreamLimits;
}

const textPlain = "text/plain; charset=utf-8";

function sendText(reply: FastifyReply, statusCode: number, message: string): FastifyReply {
  return reply.code(statusCode).header("Content-Type", textPlain).header("X-Content-Type-Options", "nosniff").send(message);
}

function splitURL(req: FastifyRequest): { rawPath: string; query: URLSearchParams } {
  const url = req.raw.url ?? "/";
  const q = url.indexOf("?");
  return q < 0 ? { rawPath: url, query: new URLSearchParams() } : { rawPath: url.slice(0, q), query: new URLSearchParams(url.slice(q + 1)) };
}

function isStreamingError(err: unknown): err is { statusCode: number; message: string } {
  return typeof err === "object" && err !== null && (err as { name?: unknown }).name === "StreamingError";
}

function podExists(view: AgentView, namespace: string, name: string): boolean {
  return view.listPods().some((p) => (p.metadata?.namespace ?? "default") === namespace && p.metadata?.name === name);
}

/**
 * Installs the four streaming endpoints. Answers, as the kubelet's: 404 `404 page not found` for a
 * malformed path, 400 `you must specify at least 1 of stdin, stdout, stderr`, 404 `pod does not
 * exist`, the runtime's error (404/500, e.g. `container not found ("c")`), 500 `Upgrade request
 * required` for a request that is not an upgrade; then the runtime's own answer.
 */
export function installStreamingRoutes(app: FastifyInstance, deps: StreamingRoutesDeps): void {
  const { view } = deps;
  const proxy = async (req: FastifyRequest, reply: FastifyReply, url: string): Promise<FastifyReply | undefined> => {
    const upgrade = upgradeConnectionOf(req);
    if (!upgrade) return sendText(reply, 500, "Upgrade request required\n");
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return sendText(reply, 500, `invalid streaming URL ${JSON.stringify(url)} from the runtime\n`);
    }
    let backend;
    try {
      backend = await dialStreamingServer(target);
    } catch (err) {
      return sendText(reply, 500, `${err instanceof Error ? err.message : String(err)}\n`);
    }
    backend.write(formatStreamingRequestHead(req.raw, target));
    if (upgrade.head.length > 0) backend.write(upgrade.head);
    void reply.hijack();
    pipeBoth(upgrade.socket, backend, deps.limits);
    return undefined;
  };
  const fail = (reply: FastifyReply, err: unknown) => {
    if (isStreamingError(err)) return sendText(reply, err.statusCode, err.message);
    return sendText(reply, 500, err instanceof Error ? err.message : String(err));
  };

  for (const kind of ["exec", "attach"] as const) {
    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const { rawPath, query } = splitURL(req);
      const p = parseStreamingPath(rawPath.slice(`/${kind}/`.length), true);
      if (!p) return sendText(reply, 404, "404 page not found\n");
      const opts = parseStreamOptions(query);
      if (!opts.ok) return sendText(reply, 400, opts.message);
      if (!podExists(view, p.namespace, p.podName)) return sendText(reply, 404, "pod does not exist");
      let url: string;
      try {
        url = kind === "exec" ? await view.getExec(p.namespace, p.podName, p.podUID, p.containerName, query.getAll("command"), opts.value) : await view.getAttach(p.namespace, p.podName, p.podUID, p.containerName, opts.value);
      } catch (err) {
        return fail(reply, err);
      }
      return proxy(req, reply, url);
    };
    app.route({ method: ["GET", "POST"], url: `/${kind}/*`, handler });
  }

  app.route({
    method: ["GET", "POST"],
    url: "/portForward/*",
    handler: async (req, reply) => {
      const { rawPath, query } = splitURL(req);
      const p = parseStreamingPath(rawPath.slice("/portForward/".length), false);
      if (!p) return sendText(reply, 404, "404 page not found\n");
      const ports = parsePortForwardPorts(query);
      if (!ports.ok) return sendText(reply, 400, ports.message);
      const pod = view.listPods().find((x) => (x.metadata?.namespace ?? "default") === p.namespace && x.metadata?.name === p.podName);
      if (!pod) return sendText(reply, 404, "pod does not exist");
      if (p.podUID !== "" && pod.metadata?.uid !== p.podUID) return sendText(reply, 404, "pod not found");
      let url: string;
      try {
        url = await view.getPortForward(p.namespace, p.podName, p.podUID, ports.value);
      } catch (err) {
        return fail(reply, err);
      }
      return proxy(req, reply, url);
    },
  });

  app.post("/run/*", async (req, reply) => {
    const { rawPath, query } = splitURL(req);
    const p = parseStreamingPath(rawPath.slice("/run/".length), true);
    if (!p) return sendText(reply, 404, "404 page not found\n");
    if (!podExists(view, p.namespace, p.podName)) return sendText(reply, 404, "pod does not exist");
    // For legacy reasons /run takes one `cmd` split on spaces, not exec's `command` list.
    const cmd = (query.get("cmd") ?? "").split(" ");
    try {
      const out = await view.runInContainer(p.namespace, p.podName, p.podUID, p.containerName, cmd);
      if (out.length === 0) return reply.code(200).send();
      return reply.code(200).header("Content-Type", "application/json").send(out);
    } catch (err) {
      return fail(reply, err);
    }
  });
}
