/**
 * The listen backlog of a server socket, as Go's net package chooses it (which the kube-apiserver
 * and the kubelet use): the kernel's `net.core.somaxconn`, capped at 65,535; 128 when it cannot be
 * read. Node's default is 511, and Node accepts one connection per event-loop turn (libuv since
 * 1.45), so a busy server's accept queue is longer than a Go server's: connections beyond the
 * backlog are dropped by the kernel (the client retries its SYN after 1, 3, 7, 15 s …, or sees
 * ECONNRESET on a connection whose handshake was never completed by the server).
 * @see src/net/sock_linux.go (maxListenerBacklog) in golang/go 1.17
 */
import { readFileSync } from "node:fs";

/** Go's `syscall.SOMAXCONN` on Linux. */
const goDefaultBacklog = 128;

/**
 * The backlog to pass to `listen()`. `readSomaxconn` returns the text of
 * `/proc/sys/net/core/somaxconn` (injectable for tests); a read error or a value that is not a
 * positive integer gives 128. Never throws.
 * @example app.listen({ host, port, backlog: listenBacklog() });
 */
export function listenBacklog(readSomaxconn: () => string = () => readFileSync("/proc/sys/net/core/somaxconn", "utf8")): number {
  let text: string;
  try {
    text = readSomaxconn();
  } catch {
    return goDefaultBacklog;
  }
  const n = Number((text.trim().split(/\s+/)[0] ?? ""));
  if (!Number.isInteger(n) || n <= 0) return goDefaultBacklog;
  return Math.min(n, 65_535);
}
