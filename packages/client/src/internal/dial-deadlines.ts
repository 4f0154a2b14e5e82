/**
 * client-go's dial deadlines, for every connection the client opens (HTTP/2 sessions, the HTTP/1.1
 * request pool, watch connections): the TCP connect must finish within 30 s and, over TLS, the
 * handshake within 10 s after it; a connection then sends TCP keep-alive probes after 30 s idle
 * (`net.Dialer{Timeout: 30s, KeepAlive: 30s}`, `TLSHandshakeTimeout: 10s`). Without them a dial
 * that a saturated server never completes holds every request waiting for it, with no end.
 * @see staging/src/k8s.io/apimachinery/pkg/util/net/http.go (SetTransportDefaults) in kubernetes/kubernetes v1.23
 */
import type { Agent as HttpAgent, ClientRequestArgs } from "node:http";
import type { Agent as HttpsAgent } from "node:https";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";

/** A dial's deadlines, in milliseconds. */
export interface DialDeadlines {
  /** From the start of the dial to the TCP connection. @defaultValue 30000 */
  readonly connectTimeoutMs?: number;
  /** From the TCP connection to the end of the TLS handshake (TLS only). @defaultValue 10000 */
  readonly handshakeTimeoutMs?: number;
}

const defaultConnectTimeoutMs = 30_000;
const defaultHandshakeTimeoutMs = 10_000;
/** Idle time before TCP keep-alive probes start, in ms (client-go's `KeepAlive: 30s`). */
const keepAliveMs = 30_000;

/**
 * Arms the deadlines on `socket`, a dial just started (by `net.connect` or `tls.connect`): a
 * deadline missed destroys the socket with `dial <host>: no TCP connection within <ms> ms` or
 * `dial <host>: TLS handshake timeout (<ms> ms)`, which its user sees as the socket's error.
 * Once connected, TCP keep-alive is on. The timers are unref'd and cleared when the socket closes.
 */
export function armDialDeadlines(socket: Socket, host: string, tls: boolean, deadlines: DialDeadlines = {}): void {
  const connectMs = deadlines.connectTimeoutMs ?? defaultConnectTimeoutMs;
  const handshakeMs = deadlines.handshakeTimeoutMs ?? defaultHandshakeTimeoutMs;
  const expire = (ms: number, message: string): NodeJS.Timeout => setTimeout(() => socket.destroy(new Error(message)), ms).unref();
  let deadline: NodeJS.Timeout | undefined = expire(connectMs, `dial ${host}: no TCP connection within ${String(connectMs)} ms`);
  const clear = (): void => {
    clearTimeout(deadline);
    deadline = undefined;
  };
  socket.once("connect", () => {
    socket.setKeepAlive(true, keepAliveMs);
    clear();
    if (tls) deadline = expire(handshakeMs, `dial ${host}: TLS handshake timeout (${String(handshakeMs)} ms)`);
  });
  if (tls) socket.once("secureConnect", clear);
  socket.once("close", clear);
}

/**
 * Makes every connection `agent` opens carry {@link armDialDeadlines} (TLS when the agent is an
 * HTTPS one, told by `tls`). Returns the same agent.
 */
export function withDialDeadlines<A extends HttpAgent | HttpsAgent>(agent: A, host: string, tls: boolean, deadlines: DialDeadlines = {}): A {
  const create = agent.createConnection.bind(agent) as (options: ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void) => Duplex | null | undefined;
  agent.createConnection = (options: ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void) => {
    const socket = create(options, callback);
    if (socket) armDialDeadlines(socket as Socket, host, tls, deadlines);
    return socket;
  };
  return agent;
}
