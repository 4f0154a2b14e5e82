/**
 * The `kubernetes` service's environment variables, which 1.23's kubelet gives every container of
 * a node with an API server (also with `enableServiceLinks: false`: the master services of the
 * `default` namespace are always injected). Skiff has no Service kind, so the `kubernetes` service
 * is the only one and stands for the API server the node agent itself talks to.
 *
 * @see pkg/kubelet/kubelet_pods.go (getServiceEnvVarMap) and pkg/kubelet/envvars/envvars.go
 *   (FromServices, makeLinkVariables) in kubernetes/kubernetes v1.23
 */
import { isIP } from "node:net";

/** Where pods reach the API server: the `kubernetes` service's address and first (only) port, `https`/TCP. */
export interface KubernetesServiceAddress {
  /** An IP address (IPv4 or IPv6, no brackets) or a DNS name. */
  readonly host: string;
  /** TCP port, 1..65535. */
  readonly port: number;
}

/**
 * The variables 1.23 derives from the `kubernetes` service (one port named `https`, TCP), in
 * envvars.FromServices' order: `KUBERNETES_SERVICE_HOST`, `KUBERNETES_SERVICE_PORT`,
 * `KUBERNETES_SERVICE_PORT_HTTPS`, `KUBERNETES_PORT` (`tcp://host:port`, an IPv6 host in
 * brackets), `KUBERNETES_PORT_<port>_TCP`, `..._PROTO` (`tcp`), `..._PORT`, `..._ADDR`.
 */
export function kubernetesServiceEnv(a: KubernetesServiceAddress): Map<string, string> {
  const port = String(a.port);
  const hostPort = isIP(a.host) === 6 ? `[${a.host}]:${port}` : `${a.host}:${port}`;
  const portPrefix = `KUBERNETES_PORT_${port}_TCP`;
  return new Map([
    ["KUBERNETES_SERVICE_HOST", a.host],
    ["KUBERNETES_SERVICE_PORT", port],
    ["KUBERNETES_SERVICE_PORT_HTTPS", port],
    ["KUBERNETES_PORT", `tcp://${hostPort}`],
    [portPrefix, `tcp://${hostPort}`],
    [`${portPrefix}_PROTO`, "tcp"],
    [`${portPrefix}_PORT`, port],
    [`${portPrefix}_ADDR`, a.host],
  ]);
}

function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || (isIP(h) === 4 && h.startsWith("127."));
}

/**
 * The address pods are given for the API server at `server` (the node agent's `--clusterconfig`
 * server URL, `https://host[:port]`, port 443 when absent): its host and port, except that a
 * loopback host (`127.0.0.0/8`, `::1`, `localhost`) becomes `nodeAddress` (the machine's primary
 * address), because a pod in its own network namespace has a loopback of its own; the API server
 * must then listen there too (e.g. `--bind-address=0.0.0.0`, kube-apiserver's default).
 * @throws TypeError when `server` is not a URL.
 */
export function kubernetesServiceAddressFor(server: string, nodeAddress: string): KubernetesServiceAddress {
  const u = new URL(server);
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const port = u.port !== "" ? Number(u.port) : u.protocol === "http:" ? 80 : 443;
  return { host: isLoopback(host) ? nodeAddress : host, port };
}
