import { Agent as HttpAgent, request as httpRequest } from "node:http";
import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { createSecureContext } from "node:tls";
import type { SecureContext } from "node:tls";
import { newGenericServerResponse, statusErrorFromObject } from "@skiff/apimachinery";
import type { TokenSource } from "../client.js";
import type { ClusterConfig } from "../cluster-config.js";
import { ClientError } from "../errors.js";
import type { TokenBucketRateLimiter } from "../token-bucket.js";
import { Http2Sessions, Http2UnsentError } from "./http2-sessions.js";
import { withDialDeadlines } from "./dial-deadlines.js";
import type { Response } from "./http2-sessions.js";

export interface RequestSpec {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly signal?: AbortSignal;
  /** The client's request timeout (set by {@link Transport.json}): fires with `signal`, and makes its abort a NetworkError. */
  readonly timeout?: { readonly signal: AbortSignal; readonly ms: number };
  /** For error messages: verb, group, resource and name of the request. */
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly name?: string;
}

/** How many times a request is sent when each attempt meets a stale keep-alive connection. */
const maxStaleConnectionRetries = 3;

/** A request that failed on a reused keep-alive connection before any response (see {@link Transport.send}). */
class StaleConnectionError extends Error {
  constructor(readonly error: Error) {
    super(error.message);
  }
}

/** Times client-go sends a request again after a 429/5xx answer with `Retry-After` (`Request.maxRetries`). */
const maxRetries = 10;

/**
 * The seconds to wait before sending a request again, for an answer with HTTP status `code` and
 * this `Retry-After` header; `undefined` when it is not to be retried. As client-go's `checkWait`:
 * only 429 and 5xx answers, and only with a whole number of seconds (a negative one waits 0); an
 * HTTP date or any other form is not retried.
 * @see staging/src/k8s.io/client-go/rest/request.go (checkWait, retryAfterSeconds) in kubernetes/kubernetes v1.23
 */
function retryAfterSeconds(code: number, header: string | string[] | undefined): number | undefined {
  if (code !== 429 && code < 500) return undefined;
  const h = Array.isArray(header) ? header[0] : header;
  if (h === undefined || !/^[+-]?[0-9]+$/.test(h)) return undefined;
  const n = Number(h);
  return Number.isSafeInteger(n) ? Math.max(0, n) : undefined;
}

/** Node's longest timer, in milliseconds (a longer one fires after 1 ms). */
const maxTimerMs = 2 ** 31 - 1;

/** Resolves after `ms` milliseconds (at most ~24.8 days); rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.min(ms, maxTimerMs));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Connections a client keeps to its apiserver for ordinary requests (watches do not count). */
export const defaultMaxConnections = 64;

type TLSOptions = { secureContext: SecureContext; rejectUnauthorized: boolean; servername?: string };

/**
 * The connections to one apiserver and its TLS context, which several clients may share (each
 * keeps its own rate limiter). Over HTTPS every request and watch is a stream on a shared HTTP/2
 * connection (see {@link Http2Sessions}), as client-go's; a server that speaks only HTTP/1.1 gets
 * a pool of keep-alive connections for requests, and one connection per watch (each client's own).
 */
export class ConnectionPool {
  readonly agent: HttpAgent | HttpsAgent;
  readonly tls: TLSOptions | undefined;
  readonly server: string;
  /** The HTTP/2 connections (HTTPS only). */
  readonly http2: Http2Sessions | undefined;

  constructor(config: ClusterConfig, maxConnections: number = defaultMaxConnections) {
    this.server = config.server;
    const url = new URL(config.server);
    const https = url.protocol === "https:";
    const pool = { keepAlive: true, maxSockets: maxConnections, maxFreeSockets: maxConnections, scheduling: "lifo" as const };
    if (https) {
      const secureContext = createSecureContext({
        ...(config.caPEM !== undefined ? { ca: config.caPEM } : {}),
        ...(config.clientCertificatePEM !== undefined ? { cert: config.clientCertificatePEM } : {}),
        ...(config.clientKeyPEM !== undefined ? { key: config.clientKeyPEM } : {}),
      });
      this.tls = { secureContext, rejectUnauthorized: !config.insecureSkipTLSVerify, ...(config.tlsServerName !== undefined ? { servername: config.tlsServerName } : {}) };
      this.agent = withDialDeadlines(new HttpsAgent({ ...pool, ...this.tls }), url.host, true);
      this.http2 = new Http2Sessions(new URL(config.server), this.tls);
    } else {
      this.tls = undefined;
      this.agent = withDialDeadlines(new HttpAgent(pool), url.host, false);
      this.http2 = undefined;
    }
  }

  close(): void {
    this.agent.destroy();
    this.http2?.close();
  }
}

export class Transport {
  // Over HTTP/2 every request and watch is a stream of the pool's shared connections. With an
  // HTTP/1.1 server, ordinary requests share a bounded pool of keep-alive connections (more
  // requests than connections queue in the agent) and each watch holds its own connection outside
  // that pool, so long-running watches never starve requests. One TLS context serves every connection.
  private readonly pool: ConnectionPool;
  private readonly ownsPool: boolean;
  private readonly watchAgent: HttpAgent | HttpsAgent;
  private readonly url: URL;
  private readonly baseHeaders: OutgoingHttpHeaders;

  constructor(
    readonly config: ClusterConfig,
    private readonly limiter: TokenBucketRateLimiter,
    userAgent: string,
    maxConnections: number = defaultMaxConnections,
    sharedPool?: ConnectionPool,
    private readonly tokenSource?: TokenSource,
    private readonly timeoutMs = 0,
  ) {
    this.url = new URL(config.server);
    this.pool = sharedPool ?? new ConnectionPool(config, maxConnections);
    this.ownsPool = sharedPool === undefined;
    const tls = this.pool.tls;
    this.watchAgent = withDialDeadlines(tls ? new HttpsAgent({ keepAlive: false, ...tls }) : new HttpAgent({ keepAlive: false }), this.url.host, tls !== undefined);
    this.baseHeaders = { "user-agent": userAgent, accept: "application/json" };
    if (config.token !== undefined) this.baseHeaders.authorization = `Bearer ${config.token}`;
  }

  /** Ends this client's watches and, unless the pool is shared, its keep-alive connections. */
  close(): void {
    if (this.ownsPool) this.pool.close();
    this.watchAgent.destroy();
  }

  private pathWithQuery(spec: RequestSpec): string {
    const base = this.url.pathname.replace(/\/+$/, "");
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) params.set(k, String(v));
    const qs = params.toString();
    return `${base}${spec.path}${qs ? `?${qs}` : ""}`;
  }

  /**
   * Sends the request (after the rate limiter); resolves with the response of any status. A
   * request that meets a keep-alive connection the server had closed (ECONNRESET/EPIPE on a reused
   * connection, before any response) is sent again on another, up to 3 times in all.
   * @throws ClientError `NetworkError` (connection failures), or the abort error when `spec.signal` fires
   */
  async send(spec: RequestSpec): Promise<Response> {
    try {
      await this.limiter.wait(spec.signal);
    } catch (e) {
      throw this.abortError(spec, e);
    }
    const data = spec.body === undefined ? undefined : typeof spec.body === "string" ? spec.body : JSON.stringify(spec.body);
    const headers: OutgoingHttpHeaders = { ...this.baseHeaders };
    if (this.tokenSource !== undefined) {
      try {
        headers.authorization = `Bearer ${await this.tokenSource.token()}`;
      } catch (e) {
        throw new ClientError("Unauthenticated", `${spec.verb} ${spec.resource}: no token: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
    }
    if (data !== undefined) {
      headers["content-type"] = spec.contentType ?? "application/json";
      headers["content-length"] = Buffer.byteLength(data);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.sendOnce(spec, headers, data);
      } catch (e) {
        // A keep-alive connection the server closed while idle (its keep-alive timeout, a restart)
        // fails the next request sent on it with ECONNRESET or EPIPE before any response: the
        // request never reached the server, so it is sent again on another connection (Node's
        // documented pattern, `req.reusedSocket`; Go's transport retries such requests too).
        // An HTTP/2 stream refused or cut before it was sent is the same case; one cut after it
        // was sent goes again only if it is a GET (see Http2Sessions.request).
        if (!(e instanceof StaleConnectionError) || attempt >= maxStaleConnectionRetries) throw e instanceof StaleConnectionError ? e.error : e;
      }
    }
  }

  private async sendOnce(spec: RequestSpec, headers: OutgoingHttpHeaders, data: string | undefined): Promise<Response> {
    if (this.pool.http2 !== undefined && !this.pool.http2.usesHttp1) {
      let res: Response | undefined;
      try {
        res = await this.pool.http2.request(spec.method, this.pathWithQuery(spec), headers, data, spec.signal);
      } catch (e) {
        if (spec.signal?.aborted) throw this.abortError(spec, e);
        const cause = e instanceof Http2UnsentError ? e.error : (e as Error);
        const error = new ClientError("NetworkError", `${spec.method} ${this.url.origin}${spec.path}: ${cause.message}`, { cause });
        throw e instanceof Http2UnsentError ? new StaleConnectionError(error) : error;
      }
      if (res !== undefined) {
        if (res.statusCode === 401) this.tokenSource?.reset?.();
        return res;
      }
    }
    return this.sendHttp1(spec, headers, data);
  }

  private sendHttp1(spec: RequestSpec, headers: OutgoingHttpHeaders, data: string | undefined): Promise<Response> {
    const https = this.url.protocol === "https:";
    const doRequest = https ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const req = doRequest(
        {
          protocol: this.url.protocol,
          hostname: this.url.hostname.replace(/^\[|\]$/g, ""),
          port: this.url.port || (https ? 443 : 80),
          path: this.pathWithQuery(spec),
          method: spec.method,
          headers,
          agent: spec.verb === "watch" ? this.watchAgent : this.pool.agent,
          ...(this.config.tlsServerName !== undefined ? { servername: this.config.tlsServerName } : {}),
          ...(spec.signal ? { signal: spec.signal } : {}),
        },
        (res: IncomingMessage) => {
          if (res.statusCode === 401) this.tokenSource?.reset?.();
          resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
        },
      );
      req.on("error", (e: NodeJS.ErrnoException) => {
        if (spec.signal?.aborted) return reject(this.abortError(spec, e));
        const error = new ClientError("NetworkError", `${spec.method} ${this.url.origin}${spec.path}: ${e.message}`, { cause: e });
        reject(req.reusedSocket && (e.code === "ECONNRESET" || e.code === "EPIPE") ? new StaleConnectionError(error) : error);
      });
      if (data !== undefined) req.write(data);
      req.end();
    });
  }

  async readBody(res: Response, spec: RequestSpec): Promise<string> {
    const chunks: Buffer[] = [];
    try {
      for await (const c of res.body) chunks.push(c);
    } catch (e) {
      if (spec.signal?.aborted) throw this.abortError(spec, e);
      throw new ClientError("NetworkError", `${spec.method} ${spec.path}: response interrupted: ${(e as Error).message}`, { cause: e });
    }
    return Buffer.concat(chunks).toString("utf8");
  }

  /** The StatusError for a non-2xx response body. */
  errorFor(res: Response, text: string, spec: RequestSpec): Error {
    const code = res.statusCode;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const fromBody = statusErrorFromObject(parsed);
    if (fromBody) return fromBody;
    const retry = Number(res.headers["retry-after"] ?? 0);
    return newGenericServerResponse(code, spec.verb, { group: spec.group, resource: spec.resource }, spec.name ?? "", text.trim(), Number.isFinite(retry) ? retry : 0, true);
  }

  // The caller's abort is `Aborted`; the client's timeout is a NetworkError, as client-go's
  // `Client.Timeout exceeded`.
  private abortError(spec: RequestSpec, cause: unknown): ClientError {
    if (spec.timeout?.signal.aborted) return new ClientError("NetworkError", `${spec.method} ${this.url.origin}${spec.path}: no answer within ${String(spec.timeout.ms)} ms (the client's timeout)`, { cause });
    return new ClientError("Aborted", `${spec.verb} ${spec.resource}: aborted`, { cause });
  }

  /**
   * Sends the request and decodes a 2xx JSON body; other statuses throw StatusError. With the
   * client's timeout, the whole request (rate limiter wait included) must end within it.
   */
  async json<R>(spec0: RequestSpec): Promise<R> {
    if (this.timeoutMs <= 0) return this.jsonOnce(spec0);
    // A timer cleared when the request ends, not AbortSignal.timeout: that one cannot be cleared,
    // so every request's signal fired later (an Event and a DOMException with its stack each; 4 %
    // of a busy node agent's CPU).
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")), this.timeoutMs);
    timer.unref();
    const signal = spec0.signal ? AbortSignal.any([spec0.signal, timeout.signal]) : timeout.signal;
    try {
      return await this.jsonOnce({ ...spec0, signal, timeout: { signal: timeout.signal, ms: this.timeoutMs } });
    } finally {
      clearTimeout(timer);
    }
  }

  // A 429 or 5xx answer with a numeric Retry-After is sent again after that many seconds (rate
  // limiter included), up to maxRetries times, as client-go's request does.
  private async jsonOnce<R>(spec: RequestSpec): Promise<R> {
    for (let retries = 0; ; retries++) {
      const res = await this.send(spec);
      const text = await this.readBody(res, spec);
      const code = res.statusCode;
      if (code >= 200 && code <= 299) {
        try {
          return JSON.parse(text) as R;
        } catch (e) {
          throw new ClientError("DecodeError", `${spec.method} ${spec.path}: response is not JSON: ${(e as Error).message}`, { cause: e });
        }
      }
      const wait = retryAfterSeconds(code, res.headers["retry-after"]);
      if (wait === undefined || retries >= maxRetries) throw this.errorFor(res, text, spec);
      try {
        await sleep(wait * 1000, spec.signal);
      } catch (e) {
        throw this.abortError(spec, e);
      }
    }
  }
}
