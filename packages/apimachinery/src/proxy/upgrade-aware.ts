/**
 * The byte-level half of an upgrade-aware proxy, shared by the apiserver (`pods/exec`, `attach`,
 * `portforward` to a node agent) and the node agent (to the runtime's streaming server): dialling
 * the backend with pooled reads, Go-worded dial errors, and copying bytes both ways with
 * backpressure, an idle timeout and a maximum duration.
 * @see staging/src/k8s.io/apimachinery/pkg/util/proxy/upgradeaware.go (tryUpgrade) in kubernetes/kubernetes v1.23
 * @see staging/src/k8s.io/apimachinery/pkg/util/proxy/dial.go in kubernetes/kubernetes v1.23
 */
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { connectWithLargeReads, releaseLargeRead, tlsConnectWithPooledReads } from "./pooled-reads.js";

/** Where and how to dial an upgrade backend. */
export interface UpgradeBackend {
  readonly host: string;
  readonly port: number;
  /** TLS with an optional client certificate (PEM; the backend's certificate is not verified); absent: plain TCP. */
  readonly tls?: { readonly cert?: string; readonly key?: string };
  /** Dial timeout in milliseconds (TCP connect and TLS handshake). @defaultValue 30000 */
  readonly connectTimeoutMs?: number;
}

/**
 * Dials the backend, TCP with `TCP_NODELAY` (as Go's dialer) and, with `tls`, a TLS client offering
 * `http/1.1`. Reads go into pooled memory: pass the socket to {@link pipeBoth}, which releases each
 * chunk once written. Resolves with the connected (and, with TLS, handshaken) socket.
 * @throws Error `error dialing backend: <cause>`, the cause worded as Go's net package words it
 * ({@link goDialError}: refused, unreachable, time-out) or the TLS error's message.
 */
export function dialUpgradeBackend(b: UpgradeBackend): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const timeoutMs = b.connectTimeoutMs ?? 30_000;
    const sock: Socket = b.tls
      ? tlsConnectWithPooledReads({ host: b.host, port: b.port, rejectUnauthorized: false, ...(b.tls.cert !== undefined && b.tls.key !== undefined ? { cert: b.tls.cert, key: b.tls.key } : {}), ALPNProtocols: ["http/1.1"] })
      : connectWithLargeReads({ host: b.host, port: b.port });
    sock.setNoDelay(true);
    const fail = (err: Error) => {
      sock.destroy();
      reject(new Error(`error dialing backend: ${goDialError(b.host, b.port, err)}`, { cause: err }));
    };
    sock.setTimeout(timeoutMs, () => fail(new Error(`dial tcp ${hostPort(b.host, b.port)}: i/o timeout`)));
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

function hostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * A dial error worded as Go's net package words it (`dial tcp 10.0.0.1:10250: connect: connection
 * refused`), which kubectl users know; other errors keep their message. Pure.
 */
export function goDialError(host: string, port: number, err: Error & { code?: string }): string {
  const text = err.code !== undefined ? goErrnoText[err.code] : undefined;
  if (text === undefined) return err.message;
  return `dial tcp ${hostPort(host, port)}: ${text}`;
}

/** Limits of one proxied connection, in milliseconds. */
export interface PipeLimits {
  /** Closes both sides after this long without a byte either way (`--streaming-connection-idle-timeout`); 0: never. @defaultValue 0 */
  readonly idleTimeoutMs?: number;
  /** Closes both sides after this long in all (4 h in the kubelet); 0: never. @defaultValue 0 */
  readonly maxDurationMs?: number;
}

/**
 * Copies bytes both ways between the client and the backend until either side ends or fails, then
 * closes both (a dropped client ends the backend's streams, so an exec'd process sees its stdin
 * close). Each chunk is released ({@link releaseLargeRead}) once written, so a backend from
 * {@link dialUpgradeBackend} reads into the same memory again. Never throws.
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
      // Once written (or failed), the chunk's memory may take a later read of `from`.
      to.write(chunk, () => releaseLargeRead(chunk));
    });
    from.once("end", () => (to.writable ? to.end() : close()));
    from.once("close", close);
    from.on("error", close);
    from.resume();
  }
}
