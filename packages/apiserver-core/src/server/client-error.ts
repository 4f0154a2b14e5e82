/**
 * The answer to bytes Node's HTTP parser cannot read as a request (fastify's `clientErrorHandler`):
 * a `Status` body (400, 408 when a request's body did not arrive within the request read timeout,
 * 431 for oversized headers), then the connection is closed. A connection whose request headers do
 * not arrive within the header timeout is closed without an answer, as Go's server does on
 * `ReadHeaderTimeout` (a read timeout is a "common net read error": "don't reply"). When the bad bytes follow a request read completely and still being
 * served, the answer waits until that response is finished. Node parses pipelined bytes while a request is still being served; Go's server (and so
 * Kubernetes) serves that request first and only then answers `400` for what follows. The usual
 * cause is a client that writes a body with neither `Content-Length` nor
 * `Transfer-Encoding: chunked` (Node's `http.request` does this for DELETE): by HTTP/1.1 such a
 * request has no body, and the bytes are read as the next request. Not exported from the package.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9112#section-6.3 (a request without framing has no body)
 */
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { StatusBody, StatusReason } from "@skiff/apimachinery";

const badRequestMessage =
  "malformed HTTP request (a request body needs Content-Length or Transfer-Encoding: chunked; bytes after a request without either are read as a new request)";

function answerFor(errCode: string | undefined): { code: number; text: string; body: string } {
  const [code, text, reason, message]: [number, string, StatusReason, string] =
    errCode === "ERR_HTTP_REQUEST_TIMEOUT" || errCode === "ERR_HTTP_HEADERS_TIMEOUT"
      ? [408, "Request Timeout", "Timeout", "the request was not received in time"]
      : errCode === "HPE_HEADER_OVERFLOW"
        ? [431, "Request Header Fields Too Large", "BadRequest", "request header fields too large"]
        : [400, "Bad Request", "BadRequest", badRequestMessage];
  const status: StatusBody = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
  return { code, text, body: JSON.stringify(status) };
}

/** fastify `clientErrorHandler`: see the module comment. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  if (isHeaderTimeout(err, socket)) {
    socket.destroy();
    return;
  }
  const answer = answerFor(err.code);
  const raw = `HTTP/1.1 ${String(answer.code)} ${answer.text}\r\nContent-Type: application/json\r\nContent-Length: ${String(Buffer.byteLength(answer.body))}\r\nConnection: close\r\n\r\n${answer.body}`;
  // The response being served on this connection, if any (Node keeps it on the socket).
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  // Its request was read completely and the bad bytes came after it: answer it first, as Go's
  // server does, then the 400, then close.
  if (inFlight && !inFlight.writableFinished && inFlight.req.complete && err.code !== "HPE_INVALID_EOF_STATE") {
    let written = false;
    const write = () => {
      if (written || socket.destroyed) return;
      written = true;
      if (socket.writable) socket.end(raw);
      else socket.destroy();
    };
    inFlight.once("finish", () => setImmediate(write));
    inFlight.once("close", () => setImmediate(write));
    return;
  }
  // Otherwise (a request cut short, garbage on an idle connection) as Node and fastify do: answer
  // unless a response already started, and close.
  if (socket.writable && !(inFlight?.headersSent ?? false)) socket.write(raw);
  socket.destroy(err);
}

/**
 * Node reports both read timeouts as ERR_HTTP_REQUEST_TIMEOUT (older versions: headers as
 * ERR_HTTP_HEADERS_TIMEOUT); it is the header timeout when no request's headers were read yet
 * (the parser holds no incoming message).
 */
function isHeaderTimeout(err: NodeJS.ErrnoException, socket: Socket): boolean {
  if (err.code === "ERR_HTTP_HEADERS_TIMEOUT") return true;
  if (err.code !== "ERR_HTTP_REQUEST_TIMEOUT") return false;
  const parser = (socket as Socket & { parser?: { incoming?: unknown } | null }).parser;
  return parser === undefined || parser === null || parser.incoming === null || parser.incoming === undefined;
}
