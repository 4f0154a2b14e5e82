/**
 * HTTP upgrade requests (SPDY/3.1, WebSocket) routed through fastify like any other request, so
 * the request filters (authentication, authorization, audit of the user) run before a route may
 * take the connection over: an upgrade without credentials gets its 401 before any stream opens.
 * @see staging/src/k8s.io/apimachinery/pkg/util/proxy/upgradeaware.go in kubernetes/kubernetes v1.23
 */
import { ServerResponse } from "node:http";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyInstance, FastifyRequest } from "fastify";

/** The connection of an upgrade request, handed to the route that takes it over. */
export interface UpgradeConnection {
  /** The client's socket (TLS when the server is HTTPS); paused until the route reads it. */
  readonly socket: Duplex;
  /** Bytes the client sent after the request head (usually empty). */
  readonly head: Buffer;
}

const upgradeKey = Symbol.for("skiff.upgradeConnection");

/**
 * The upgrade connection of a request, or `undefined` for a plain request. A route that answers
 * with `reply.hijack()` owns the socket from then on; any other answer is written to the socket,
 * which is then closed.
 */
export function upgradeConnectionOf(req: FastifyRequest | IncomingMessage): UpgradeConnection | undefined {
  const raw = "raw" in req ? req.raw : req;
  return (raw as unknown as Record<symbol, UpgradeConnection | undefined>)[upgradeKey];
}

/**
 * Routes the server's `upgrade` events through the fastify instance: each becomes a request with a
 * response written to its socket (a route may hijack it instead, see {@link upgradeConnectionOf}).
 * An upgrade request carries no body: its bytes after the head belong to the upgraded protocol.
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
