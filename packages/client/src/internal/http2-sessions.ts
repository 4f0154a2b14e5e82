import { connect as http2Connect, constants as http2Constants } from "node:http2";
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http2";
import { connect as tlsConnect } from "node:tls";
import type { SecureContext, TLSSocket } from "node:tls";
import { armDialDeadlines, type DialDeadlines } from "./dial-deadlines.js";

/**
 * The flow-control window a client gives each HTTP/2 stream, in bytes (4 MiB), and the whole
 * connection (1 GiB): Go's http2 transport (`transportDefaultStreamFlow`,
 * `transportDefaultConnFlow`), so a list of thousands of objects is not throttled to the
 * protocol's 64 KiB default on a connection that also carries watches.
 */
const streamWindowBytes = 4 << 20;
const connectionWindowBytes = 1 << 30;

/**
 * Streams a client opens on one connection before the server's SETTINGS name its limit: Go's
 * `initialMaxConcurrentStreams` (100).
 */
const initialMaxConcurrentStreams = 100;

/**
 * A connection carrying streams is checked this often with a PING, and closed when the answer
 * takes longer than {@link pingTimeoutMs}: client-go's `ReadIdleTimeout` (30 s) and `PingTimeout`
 * (15 s), so watches on a connection that died silently fail and their informers list again.
 */
const pingIntervalMs = 30_000;
const pingTimeoutMs = 15_000;

/** Health check and dial deadlines (see {@link armDialDeadlines}) of a {@link Http2Sessions}, in milliseconds. */
export interface Http2Deadlines extends DialDeadlines {
  readonly pingIntervalMs: number;
  readonly pingTimeoutMs: number;
}

/** nghttp2 memory one session may hold before refusing new streams, in MiB (Node's default is 10). */
const maxSessionMemoryMiB = 64;

/** The TLS settings of a {@link Http2Sessions} (those of the pool's HTTPS agent). */
export interface Http2TLSOptions {
  readonly secureContext: SecureContext;
  readonly rejectUnauthorized: boolean;
  readonly servername?: string;
}

/** A response read from HTTP/1.1 or HTTP/2: status, headers (lower-case names), and the body stream. */
export interface Response {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  /** The body; `destroy()` ends the exchange (an HTTP/2 stream is reset with CANCEL). */
  readonly body: NodeJS.ReadableStream & AsyncIterable<Buffer> & { destroy(error?: Error): void };
}

/** A failed HTTP/2 request that never reached the server: it may be sent again (see {@link Http2Sessions.request}). */
/** Methods Go's transport sends again after a connection failure (`Request.isReplayable`, without a body). */
const replayableMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

export class Http2UnsentError extends Error {
  constructor(readonly error: Error) {
    super(error.message);
  }
}

interface Entry {
  readonly session: ClientHttp2Session;
  /** Streams open on the session now. */
  streams: number;
  /** Whether a stream was ever opened on it (a failure before any answer then may be its staleness). */
  used: boolean;
  /** The server sent GOAWAY, or the session closed: no new streams. */
  draining: boolean;
}

/**
 * The HTTP/2 connections of a client's pool to one apiserver, as Go's http2 transport keeps them
 * for client-go: every request and watch is a stream on one TLS connection, a second connection
 * opening only when the first carries the server's `SETTINGS_MAX_CONCURRENT_STREAMS`. The first
 * dial offers `h2` and `http/1.1` by ALPN; a server that chooses HTTP/1.1 (or none) makes
 * {@link request} answer `undefined` from then on, and the caller uses its HTTP/1.1 agent.
 * Idle connections do not keep the process alive.
 * @see golang.org/x/net/http2/transport.go (ClientConn, connPool), staging/src/k8s.io/client-go/transport/cache.go in kubernetes/kubernetes v1.23
 */
export class Http2Sessions {
  private readonly entries: Entry[] = [];
  private dialing: Promise<Entry | undefined> | undefined;
  private http1 = false;
  private closed = false;

  /**
   * @param health the PING health check's period and deadline, and the dial's TCP connect and TLS
   *   handshake deadlines, in milliseconds (tests shorten them)
   */
  constructor(
    private readonly url: URL,
    private readonly tls: Http2TLSOptions,
    private readonly health: Http2Deadlines = { pingIntervalMs, pingTimeoutMs },
  ) {}

  /** Whether the server chose HTTP/1.1 at the first dial: requests then go through the HTTP/1.1 agent. */
  get usesHttp1(): boolean {
    return this.http1;
  }

  /**
   * Sends a request as a stream and resolves with the response head and the body stream, or
   * `undefined` when the server speaks only HTTP/1.1.
   * @param headers lower-case request headers, without pseudo-headers
   * @throws Http2UnsentError when the request did not reach the server (a connection that had
   *   been closed or sent GOAWAY, a stream refused), or when a bodiless GET/HEAD/OPTIONS on a
   *   reused connection was cut by ECONNRESET/EPIPE: it is safe to send again
   * @throws the dial's error (refused, TLS, no connection within 30 s or no TLS handshake within
   *   10 s after it) or the stream's error (reset, aborted through `signal`)
   */
  async request(method: string, path: string, headers: OutgoingHttpHeaders, data: string | undefined, signal: AbortSignal | undefined): Promise<Response | undefined> {
    const entry = await this.acquire();
    if (entry === undefined) return undefined;
    const reused = entry.used;
    entry.used = true;
    let stream: ClientHttp2Stream;
    try {
      stream = entry.session.request({ ...headers, ":method": method, ":path": path }, { endStream: data === undefined, ...(signal ? { signal } : {}) });
    } catch (e) {
      // ERR_HTTP2_GOAWAY_SESSION, ERR_HTTP2_INVALID_SESSION: the session went away since acquire.
      this.retire(entry);
      throw new Http2UnsentError(e as Error);
    }
    entry.streams++;
    if (entry.streams === 1) entry.session.ref();
    stream.once("close", () => {
      entry.streams--;
      if (entry.streams === 0) entry.session.unref();
    });
    return new Promise<Response>((resolve, reject) => {
      stream.once("response", (h) => resolve({ statusCode: Number(h[":status"] ?? 0), headers: h, body: stream }));
      stream.once("error", (e: NodeJS.ErrnoException) => {
        // Settled already when the answer came: the body's reader sees the error.
        // A stream the server refused, or one still pending when its session went away, was not
        // processed. A reused connection reset under a stream already sent may have carried it to
        // the server: only a replayable request (GET, HEAD, OPTIONS: no body, no effect) is sent
        // again, as Go's transport does (`isReplayable`); a write fails and its caller decides.
        const unsent = stream.rstCode === http2Constants.NGHTTP2_REFUSED_STREAM || e.code === "ERR_HTTP2_STREAM_CANCEL" || e.code === "ERR_HTTP2_GOAWAY_SESSION";
        const replayable = reused && data === undefined && replayableMethods.has(method) && (e.code === "ECONNRESET" || e.code === "EPIPE");
        reject(unsent || replayable ? new Http2UnsentError(e) : e);
      });
      // A stream the server resets with NO_ERROR or CANCEL before any answer closes without an
      // `error`: it fails (not sent again: the server may have acted on it).
      stream.once("close", () => {
        const e = new Error(`stream closed before a response (RST_STREAM code ${String(stream.rstCode)})`);
        reject(stream.rstCode === http2Constants.NGHTTP2_REFUSED_STREAM ? new Http2UnsentError(e) : e);
      });
      if (data !== undefined) stream.end(data);
    });
  }

  /** Closes every connection; their open streams fail. */
  close(): void {
    this.closed = true;
    for (const e of this.entries.splice(0)) e.session.destroy();
  }

  private async acquire(): Promise<Entry | undefined> {
    for (;;) {
      if (this.http1) return undefined;
      const free = this.entries.find((e) => !e.draining && !e.session.closed && !e.session.destroyed && e.streams < this.limit(e));
      if (free) return free;
      if (this.dialing === undefined) {
        this.dialing = this.dial().finally(() => (this.dialing = undefined));
      }
      const entry = await this.dialing;
      if (entry === undefined) return undefined;
      if (entry.streams < this.limit(entry)) return entry;
    }
  }

  private limit(e: Entry): number {
    return e.session.remoteSettings.maxConcurrentStreams ?? initialMaxConcurrentStreams;
  }

  private retire(entry: Entry): void {
    entry.draining = true;
    const i = this.entries.indexOf(entry);
    if (i >= 0) this.entries.splice(i, 1);
  }

  private async dial(): Promise<Entry | undefined> {
    if (this.closed) throw new Error("client closed");
    const socket = await new Promise<TLSSocket>((resolve, reject) => {
      const s = tlsConnect({
        host: this.url.hostname.replace(/^\[|\]$/g, ""),
        port: Number(this.url.port || 443),
        secureContext: this.tls.secureContext,
        rejectUnauthorized: this.tls.rejectUnauthorized,
        ...(this.tls.servername !== undefined ? { servername: this.tls.servername } : {}),
        ALPNProtocols: ["h2", "http/1.1"],
      });
      armDialDeadlines(s, this.url.host, true, this.health);
      s.once("secureConnect", () => resolve(s));
      // Stays on the socket: until the HTTP/2 session adds its own listener (a microtask later) an
      // error must not go unheard; after that it does nothing (the promise is settled).
      s.once("error", reject);
    });
    if (socket.alpnProtocol !== "h2") {
      // The server speaks HTTP/1.1 only: the pool's agent carries every request from now on.
      socket.destroy();
      this.http1 = true;
      return undefined;
    }
    const session = http2Connect(this.url.origin, {
      createConnection: () => socket,
      settings: { enablePush: false, initialWindowSize: streamWindowBytes },
      maxSessionMemory: maxSessionMemoryMiB,
    });
    const entry: Entry = { session, streams: 0, used: false, draining: false };
    // The connect event comes a tick later, possibly after close() destroyed the session.
    session.once("connect", () => {
      if (!session.destroyed && !session.closed) session.setLocalWindowSize(connectionWindowBytes);
    });
    // A session's error also fails its open streams, whose callers see it; the session is dropped.
    session.on("error", () => this.retire(entry));
    session.once("goaway", () => this.retire(entry));
    session.once("close", () => this.retire(entry));
    // Health check; an idle connection is not pinged, so the server's idle timeout can close it.
    let pinging = false;
    const health = setInterval(() => {
      if (pinging || entry.streams === 0 || session.closed || session.destroyed) return;
      pinging = true;
      const deadline = setTimeout(() => session.destroy(new Error(`http2: no answer to PING within ${String(this.health.pingTimeoutMs)} ms; connection closed`)), this.health.pingTimeoutMs);
      deadline.unref();
      let sent = false;
      try {
        sent = session.ping(() => {
          clearTimeout(deadline);
          pinging = false;
        });
      } catch {
        // ERR_HTTP2_PING_LENGTH cannot happen; a session closing meanwhile: its close ends the check.
      }
      if (!sent) {
        clearTimeout(deadline);
        pinging = false;
      }
    }, this.health.pingIntervalMs);
    health.unref();
    session.once("close", () => clearInterval(health));
    session.unref();
    if (this.closed) {
      session.destroy();
      throw new Error("client closed");
    }
    this.entries.push(entry);
    return entry;
  }
}
