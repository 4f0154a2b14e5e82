import type { Socket } from "node:net";

/**
 * fastify `clientErrorHandler` of the node agent's servers: the answer to bytes Node's HTTP parser
 * cannot read as a request, in Go's `net/http` words, as the kubelet (a Go server) sends them:
 * `HTTP/1.1 400 Bad Request`, `Content-Type: text/plain; charset=utf-8`, `Connection: close` and
 * the body `400 Bad Request` (431 `Request Header Fields Too Large` for oversized headers), then
 * the connection is closed. A read timeout (headers or body not arriving in time) closes the
 * connection without an answer, as Go does for a "common net read error". A reset connection is
 * left alone. Never throws.
 *
 * @see net/http/server.go (`(*conn).serve`: "HTTP/1.1 400 Bad Request" + errorHeaders) in Go 1.17
 */
export function answerGoClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT" || err.code === "ERR_HTTP_HEADERS_TIMEOUT") {
    socket.destroy();
    return;
  }
  const status = err.code === "HPE_HEADER_OVERFLOW" ? "431 Request Header Fields Too Large" : "400 Bad Request";
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !(inFlight?.headersSent ?? false)) {
    socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`);
  }
  socket.destroySoon();
}
