/** A CRI endpoint resolved to a unix socket. */
export interface CRIEndpoint {
  /** Absolute path of the unix socket. */
  socketPath: string;
  /** The gRPC target for grpc-js: `unix://` + socketPath. */
  target: string;
}

/** Result of {@link parseCRIEndpoint}. */
export type ParseCRIEndpointResult = { ok: true; value: CRIEndpoint } | { ok: false; errors: string[] };

/**
 * Parses a `--container-runtime-endpoint` value: `unix:///abs/path.sock`, or a bare absolute
 * path (which the kubelet still accepts with a deprecation warning). Only unix sockets are
 * supported, as on a Linux kubelet. Never throws.
 *
 * @see pkg/kubelet/cri/remote/util/util_unix.go (`GetAddressAndDialer`, `parseEndpointWithFallbackProtocol`)
 * @example
 * ```ts
 * parseCRIEndpoint("unix:///run/containerd/containerd.sock");
 * // { ok: true, value: { socketPath: "/run/containerd/containerd.sock", target: "unix:///run/containerd/containerd.sock" } }
 * ```
 */
export function parseCRIEndpoint(endpoint: string): ParseCRIEndpointResult {
  if (typeof endpoint !== "string" || endpoint.trim() === "") {
    return { ok: false, errors: ["container runtime endpoint is empty"] };
  }
  let path: string;
  if (endpoint.startsWith("unix://")) {
    path = endpoint.slice("unix://".length);
  } else if (endpoint.startsWith("unix:")) {
    path = endpoint.slice("unix:".length);
  } else if (/^[a-z][a-z0-9+.-]*:/i.test(endpoint)) {
    const scheme = endpoint.slice(0, endpoint.indexOf(":"));
    return { ok: false, errors: [`container runtime endpoint ${JSON.stringify(endpoint)}: protocol "${scheme}" not supported, only unix sockets are`] };
  } else {
    path = endpoint;
  }
  if (!path.startsWith("/")) {
    return { ok: false, errors: [`container runtime endpoint ${JSON.stringify(endpoint)}: the socket path must be absolute`] };
  }
  if (path.includes("\0")) {
    return { ok: false, errors: [`container runtime endpoint ${JSON.stringify(endpoint)}: the socket path contains a NUL byte`] };
  }
  return { ok: true, value: { socketPath: path, target: `unix://${path}` } };
}
