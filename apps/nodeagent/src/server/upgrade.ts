/**
 * Upgrade requests (SPDY/3.1, WebSocket) on the main server, and the byte-level proxy to the
 * runtime's streaming server. An upgrade is routed through fastify like any request, so the
 * authentication and authorization hook answers 401/403 before any stream opens; a route may then
 * take the socket over (`reply.hijack()`). The kubelet proxies to the URL the runtime returns
 * when `--redirect-container-streaming` is false (the 1.23 default): the runtime's answer, 101 or
 * an error, reaches the client unchanged.
 * @see pkg/kubelet/server/server.go (proxyStream) in kubernetes/kubernetes v1.23
 * @see staging/src/k8s.io/apimachinery/pkg/util/proxy/upgradeaware.go in kubernetes/kubernetes v1.23
 */
import { ServerResponse } from "node:http";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { dialUpgradeBackend } from "@skiff/apimachinery/proxy";
import type { PipeLimits } from "@skiff/apimachinery/proxy";
import type { FastifyInstance, FastifyRequest } from "fastify";

/** The connection of an upgrade request: its socket (paused) and the bytes after the head. */
export interface UpgradeConnection {
  readonly socket: Duplex;
  readonly head: Buffer;
}

const upgradeKey = Symbol.for("skiff.nodeagent.upgradeConnection");

/** The upgrade connection of a request, or `undefined` for a plain request. */
export function upgradeConnectionOf(req: FastifyRequest): UpgradeConnection | undefined {
  return (req.raw as unknown as Record<symbol, UpgradeConnection | undefined>)[upgradeKey];
}

/**
 * Routes the server's `upgrade` events through the fastify instance; an answer that is not a
 * hijack is written to the socket, which is then closed. Upgrade requests carry no body.
 */
export function routeUpgradeRequests(app: FastifyInstance, server: Server = app.server): void {
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.pause();
    // The server's socket timeout is for HTTP; a stream has its own limits once taken over.
    (socket as Duplex & { setTimeout?: (ms: number) => void }).setTimeout?.(0);
    (req as unknown as Record<symbol, UpgradeConnection>)[upgradeKey] = { socket, head };
    delete req.headers["content-type"];
    delete req.headers["transfer-encoding"];
    req.headers["content-length"] = "0";
    socket.on("error", () => socket.destroy());
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as never);
    res.once("finish", () => {
      res.detachSocket(socket as never);
      socket.end();
    });
    try {
      app.routing(req, res);
    } catch {
      socket.destroy();
    }
  });
}

/**
 * Dials the streaming server at `url` (`http:` plain TCP, `https:` TLS without verification, as
 * the kubelet's proxy transport to a local runtime), reading into pooled memory: a port-forward
 * download crosses this hop in large writes to the client's TLS socket.
 * @throws Error `error dialing backend: <cause>` (worded as Go's dialer); `unsupported streaming URL ...` for another scheme.
 */
export function dialStreamingServer(url: URL, connectTimeoutMs = 30_000): Promise<Duplex> {
  if (url.protocol !== "http:" && url.protocol !== "https:") return Promise.reject(new Error(`unsupported streaming URL ${JSON.stringify(url.href)}: want http or https`));
  const secure = url.protocol === "https:";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port !== "" ? Number(url.port) : secure ? 443 : 80;
  return dialUpgradeBackend({ host, port, connectTimeoutMs, ...(secure ? { tls: {} } : {}) });
}

const droppedHeaders = /^(authorization|host|content-length|content-type|transfer-encoding|proxy-authorization|impersonate-.*)$/i;

/** The request head sent to the streaming server: the client's method and headers (credentials dropped), the URL's path and query. Pure. */
export function formatStreamingRequestHead(req: Pick<IncomingMessage, "method" | "rawHeaders">, url: URL): string {
  const lines = [`${req.method ?? "GET"} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? "";
    const value = raw[i + 1] ?? "";
    if (droppedHeaders.test(name) || /[\r\n]/.test(value)) continue;
    lines.push(`${name}: ${value}`);
  }
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** Limits of one proxied stream connection (both set: the agent always passes its flags). */
export type StreamLimits = Required<PipeLimits>;
