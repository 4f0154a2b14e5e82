/**
 * The request half of an upgrade-aware proxy: the client's upgrade request as sent to the backend,
 * with a new path and the credentials removed. Dialling and copying bytes are
 * `dialUpgradeBackend` and `pipeBoth` of `@skiff/apimachinery`. The backend's answer (101 or an error response) reaches the
 * client unchanged, as 1.23's proxy forwards it after hijacking the connection.
 * @see staging/src/k8s.io/apimachinery/pkg/util/proxy/upgradeaware.go (tryUpgrade) in kubernetes/kubernetes v1.23
 */
import type { IncomingMessage } from "node:http";

/** Request headers never forwarded: the client's credentials stay with the server that checked them, hop-by-hop body framing is rewritten. */
const droppedHeaders = /^(authorization|host|content-length|content-type|transfer-encoding|proxy-authorization|impersonate-.*|x-forwarded-for)$/i;

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
