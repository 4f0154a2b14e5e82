/**
 * The byte-level half of an upgrade-aware proxy: dials a backend (TLS or plain TCP), sends it the
 * client's upgrade request with a new path and the credentials removed, then copies bytes both
 * ways until either side closes. The backend's answer (101 or an error response) reaches the
 * client unchanged, as 1.23's proxy forwards it after hijacking the connection.
 * @see staging/src/k8s.io/apimachinery/pkg/util/proxy/upgradeaware.go (tryUpgrade) in kubernetes/kubernetes v1.23
 */
import { connect as netConnect } from "node:net";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { connect as tlsConnect } from "node:tls";

/** Where and how to dial the backend. */
export interface UpgradeBackend {
  readonly host: string;
  readonly port: number;
  /** TLS with an optional client certificate (the backend's certificate is not verified); absent: plain TCP. */
  readonly tls?: { readonly cert?: string; readonly key?: string };
  /** Dial timeout in ms. @defaultValue 30000 */
  readonly connectTimeoutMs?: number;
}

/** Request headers never forwarded: the client's credentials stay with the server that checked them, hop-by-hop body framing is rewritten. */
const droppedHeaders = /^(authorization|host|content-length|content-type|transfer-encoding|proxy-authorization|impersonate-.*|x-forwarded-for)$/i;

/**
 * Dials the backend. Resolves with the connected socket.
 * @throws Error `error dialing backend: <cause>` (refused, unreachable, TLS failure, timeout).
 */
export function dialBackend(b: UpgradeBackend): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const timeoutMs = b.connectTimeoutMs ?? 30_000;
    const sock = b.tls
      ? tlsConnect({ host: b.host, port: b.port, rejectUnauthorized: false, ...(b.tls.cert !== undefined && b.tls.key !== undefined ? { cert: b.tls.cert, key: b.tls.key } : {}), ALPNProtocols: ["http/1.1"] })
      : netConnect({ host: b.host, port: b.port });
    const fail = (err: Error) => {
      sock.destroy();
      reject(new Error(`error dialing backend: ${goDialError(b.host, b.port, err)}`, { cause: err }));
    };
    sock.setTimeout(timeoutMs, () => fail(new Error(`dial tcp ${b.host}:${b.port}: i/o timeout`)));
    sock.once("error", fail);
    sock.once(b.tls ? "secureConnect" : "connect", () => {
      sock.setTimeout(0);
      sock.off("error", fail);
      resolve(sock);
    });
  });
}

const goErrnoText: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connect: connection refused",
  EHOSTUNREACH: "connect: no route to host",
  ENETUNREACH: "connect: network is unreachable",
  ECONNRESET: "read: connection reset by peer",
};

/** A dial error worded as Go's net package words it (`dial tcp 10.0.0.1:10250: connect: connection refused`), which kubectl users know. Pure. */
export function goDialError(host: string, port: number, err: Error & { code?: string }): string {
  const text = err.code !== undefined ? goErrnoText[err.code] : undefined;
  if (text === undefined) return err.message;
  return `dial tcp ${host.includes(":") ? `[${host}]` : host}:${port}: ${text}`;
}

/**
 * The request head sent to the backend: method, `path` (with its query), the client's headers
 * minus {@link droppedHeaders}, `Host` and `X-Forwarded-For`. Pure.
 */
export function formatUpgradeRequestHead(req: Pick<IncomingMessage, "method" | "rawHeaders" | "socket">, path: string, hostHeader: string): string {
  const lines = [`${req.method ?? "GET"} ${path} HTTP/1.1`, `Host: ${hostHeader}`];
  const raw = req.rawHeaders;
  let forwardedFor = "";
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? "";
    const value = raw[i + 1] ?? "";
    if (/^x-forwarded-for$/i.test(name)) forwardedFor = value;
    if (droppedHeaders.test(name) || /[\r\n]/.test(value)) continue;
    lines.push(`${name}: ${value}`);
  }
  const remote = req.socket?.remoteAddress ?? "";
  const chain = [forwardedFor, remote].filter((s) => s !== "").join(", ");
  if (chain !== "") lines.push(`X-Forwarded-For: ${chain}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** Limits of one proxied connection. */
export interface PipeLimits {
  /** Closes both sides after this long without a byte either way; 0: never. */
  readonly idleTimeoutMs?: number;
  /** Closes both sides after this long in all; 0: never. */
  readonly maxDurationMs?: number;
}

/**
 * Copies bytes both ways between the client and the backend; when either side ends or fails, both
 * are closed (a dropped client ends the backend's streams, so the exec'd process sees its stdin
 * close). Never throws.
 */
export function pipeBoth(client: Duplex, backend: Duplex, limits: PipeLimits = {}): void {
  let closed = false;
  let idle: NodeJS.Timeout | undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    if (idle) clearTimeout(idle);
    if (max) clearTimeout(max);
    client.destroy();
    backend.destroy();
  };
  const idleMs = limits.idleTimeoutMs ?? 0;
  const touch = () => {
    if (idleMs <= 0 || closed) return;
    if (idle) idle.refresh();
    else idle = setTimeout(close, idleMs);
  };
  const max = (limits.maxDurationMs ?? 0) > 0 ? setTimeout(close, limits.maxDurationMs) : undefined;
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
      to.write(chunk);
    });
    from.once("end", () => (to.writable ? to.end() : close()));
    from.once("close", close);
    from.on("error", close);
    from.resume();
  }
}
