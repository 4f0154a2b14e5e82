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
import { connect as tlsConnect } from "node:tls";
import { connectWithLargeReads, releaseLargeRead } from "@skiff/cri-api";
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
 * the kubelet's proxy transport to a local runtime).
 * @throws Error `error dialing backend: <cause>`; `unsupported streaming URL ...` for another scheme.
 */
export function dialStreamingServer(url: URL, connectTimeoutMs = 30_000): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      reject(new Error(`unsupported streaming URL ${JSON.stringify(url.href)}: want http or https`));
      return;
    }
    const secure = url.protocol === "https:";
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const port = url.port !== "" ? Number(url.port) : secure ? 443 : 80;
    // Plain TCP (the local runtime's usual URL) reads up to 1 MiB at a time: a port-forward
    // download then crosses this hop in a few large writes to the client's TLS socket.
    const sock = secure ? tlsConnect({ host, port, rejectUnauthorized: false, ALPNProtocols: ["http/1.1"] }) : connectWithLargeReads({ host, port, noDelay: true });
    const fail = (err: Error) => {
      sock.destroy();
      reject(new Error(`error dialing backend: ${err.message}`, { cause: err }));
    };
    sock.setTimeout(connectTimeoutMs, () => fail(new Error(`dial tcp ${host}:${port}: i/o timeout`)));
    sock.once("error", fail);
    sock.once(secure ? "secureConnect" : "connect", () => {
      sock.setTimeout(0);
      sock.off("error", fail);
      resolve(sock);
    });
  });
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

/** Limits of one proxied stream connection. */
export interface StreamLimits {
  /** `--streaming-connection-idle-timeout`: closes after this long without a byte either way; 0: never. */
  readonly idleTimeoutMs: number;
  /** Closes after this long in all (4 h in the kubelet); 0: never. */
  readonly maxDurationMs: number;
}

/**
 * Copies bytes both ways until either side ends or fails, then closes both: a client that goes
 * away closes the runtime's streams (the exec'd process sees its stdin close). Never throws.
 */
export function pipeBoth(client: Duplex, backend: Duplex, limits: StreamLimits): void {
  let closed = false;
  let idle: NodeJS.Timeout | undefined;
  const max = limits.maxDurationMs > 0 ? setTimeout(() => close(), limits.maxDurationMs) : undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    if (idle) clearTimeout(idle);
    if (max) clearTimeout(max);
    client.destroy();
    backend.destroy();
  };
  const touch = () => {
    if (limits.idleTimeoutMs <= 0 || closed) return;
    if (idle) idle.refresh();
    else idle = setTimeout(close, limits.idleTimeoutMs);
  };
  touch();
  for (const [from, to] of [
    [client, backend],
    [backend, client],
  ] as const) {
    // The chunks read in one turn (a TLS read decrypts several records) go out in one write:
    // corked until the next tick, so a TLS peer gets one writev instead of a syscall per record.
    // Backpressure is judged after that write: while corked, write() answers false for anything
    // above the high-water mark (16 KiB, less than one 64 KiB read) even when the kernel then takes
    // it all at once, and pausing on that stopped and restarted reading for every chunk.
    let corked = false;
    from.on("data", (chunk: Buffer) => {
      touch();
      if (!corked) {
        corked = true;
        to.cork();
        process.nextTick(() => {
          corked = false;
          to.uncork();
          // Bytes the socket still holds: wait for them to drain (write() answered false for the
          // chunk that crossed the mark, so "drain" comes).
          if (to.writableLength >= to.writableHighWaterMark && !from.isPaused()) {
            from.pause();
            to.once("drain", () => from.resume());
          }
        });
      }
      // Once written, the chunk's memory may take a later read (a backend dialled with large reads).
      to.write(chunk, () => releaseLargeRead(chunk));
    });
    from.once("end", () => (to.writable ? to.end() : close()));
    from.once("close", close);
    from.on("error", close);
    from.resume();
  }
}
