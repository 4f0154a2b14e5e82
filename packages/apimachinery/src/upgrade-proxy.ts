/**
 * The byte copy of an upgrade-aware proxy: once both connections are upgraded (SPDY/3.1,
 * WebSocket, port-forward), bytes flow both ways until either side ends or fails, then both close.
 * Shared by the apiserver's pods/exec|attach|portforward proxy and the node agent's proxy to the
 * runtime's streaming server.
 * @see staging/src/k8s.io/apimachinery/pkg/util/proxy/upgradeaware.go (tryUpgrade) in kubernetes/kubernetes v1.23
 */
import type { Duplex } from "node:stream";

/** Limits of one proxied upgraded connection, in ms. */
export interface StreamLimits {
  /** Closes both sides after this long without a byte either way (the kubelet's `--streaming-connection-idle-timeout`); 0: never. @defaultValue 0 */
  readonly idleTimeoutMs?: number;
  /** Closes both sides after this long in all (4 h in the kubelet); 0: never. @defaultValue 0 */
  readonly maxDurationMs?: number;
}

/**
 * Copies bytes both ways until either side ends or fails, then closes both: a client that goes
 * away closes the backend's streams (the exec'd process sees its stdin close). Backpressure: a
 * side whose destination holds a high-water mark of bytes after a turn's writes is paused until
 * they drain. Never throws.
 * @example pipeBoth(upgrade.socket, backendSocket, { idleTimeoutMs: 4 * 3600_000 })
 */
export function pipeBoth(client: Duplex, backend: Duplex, limits: StreamLimits = {}): void {
  const idleTimeoutMs = limits.idleTimeoutMs ?? 0;
  const maxDurationMs = limits.maxDurationMs ?? 0;
  let closed = false;
  let idle: NodeJS.Timeout | undefined;
  const max = maxDurationMs > 0 ? setTimeout(() => close(), maxDurationMs) : undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    if (idle) clearTimeout(idle);
    if (max) clearTimeout(max);
    client.destroy();
    backend.destroy();
  };
  const touch = () => {
    if (idleTimeoutMs <= 0 || closed) return;
    if (idle) idle.refresh();
    else idle = setTimeout(close, idleTimeoutMs);
  };
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
