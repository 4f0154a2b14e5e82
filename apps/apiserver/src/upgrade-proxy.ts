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
