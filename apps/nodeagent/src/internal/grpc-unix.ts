/**
 * Serving a gRPC server on a unix socket, as the kubelet's device plugin registration and pod
 * resources servers are served.
 * @see pkg/kubelet/util/util_unix.go (CreateListener) in kubernetes/kubernetes v1.23
 */
import * as grpc from "@grpc/grpc-js";

/** sockaddr_un.sun_path: 108 bytes with the terminating NUL. */
export const maxUnixSocketPathBytes = 107;

/**
 * Binds `server` on the unix socket at `path` (an absolute path). A longer path than a unix socket
 * can have is refused: grpc-js would bind it silently truncated, where no client finds it (Go's
 * listen, the kubelet's, fails on it).
 * @param what Names the socket in the error, e.g. "the device plugin registration socket".
 * @throws Error naming the path and its length when it is too long, or the bind's error.
 */
export async function bindUnixSocket(server: grpc.Server, path: string, what: string): Promise<void> {
  const bytes = Buffer.byteLength(path);
  if (bytes > maxUnixSocketPathBytes) {
    throw new Error(`${what} ${JSON.stringify(path)} is ${bytes} bytes long, more than the ${maxUnixSocketPathBytes} a unix socket path can have: use a shorter --root-dir`);
  }
  await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${path}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
}
