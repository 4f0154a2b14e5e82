/**
 * TCP connections for the CRI streaming path (the runtime dialling a pod's port for port-forward,
 * the node agent dialling the runtime's streaming URL) that read in large pieces. Node reads a
 * socket 64 KiB at a time into a new buffer; a stream of hundreds of MiB then costs one read
 * call, one `data` event and one downstream write per 64 KiB, and measured on loopback a relay
 * hop spent about half its CPU on that. Here each read may take up to `readBytes` (1 MiB), still
 * as a plain `net.Socket` (`data`, `end`, `pipe`, backpressure unchanged): Node's `onread` option
 * reads into our buffer and the bytes are pushed on as the socket's own data.
 *
 * A large read is handed on as a view of that memory; a small one (under 64 KiB) is copied out,
 * so a trickle of small chunks (an exec'd shell, a keep-alive) never holds megabytes each.
 */
import { connect } from "node:net";
import type { Socket, TcpNetConnectOpts } from "node:net";

/** The largest read (bytes) of {@link connectWithLargeReads} by default. */
const defaultLargeReadBytes = 1 << 20;

/** Reads below this many bytes are copied out (they would otherwise keep a whole slab alive). */
const smallReadBytes = 64 * 1024;

/**
 * Like `net.connect(options)` (TCP), reading up to `readBytes` bytes per read. Reads of 64 KiB or
 * more are passed on without a copy; smaller ones are copied into a buffer of their own size.
 * @param readBytes the read buffer size in bytes, at least 64 KiB. @defaultValue 1 MiB
 * @throws RangeError for a `readBytes` below 64 KiB; connection errors come as the socket's `error` event, as `net.connect`'s.
 * @example
 * const s = connectWithLargeReads({ host: "127.0.0.1", port: 8080 });
 * s.pipe(destination);
 */
export function connectWithLargeReads(options: Omit<TcpNetConnectOpts, "onread">, readBytes = defaultLargeReadBytes): Socket {
  if (!(readBytes >= 64 * 1024)) throw new RangeError(`readBytes must be at least 65536, got ${readBytes}`);
  // Reads land in a slab of four read sizes, one after the other; a chunk handed on is a view of
  // it, so the memory allocated follows the bytes read, not the read size (a fresh buffer per read
  // of a few hundred KiB allocated several times the data and made the garbage collector busy).
  const slabBytes = readBytes * 4;
  let slab = Buffer.allocUnsafeSlow(slabBytes);
  let offset = 0;
  const socket: Socket = connect({
    ...options,
    onread: {
      // Called before the first read and after each callback: where the next read goes.
      buffer: () => {
        if (offset + readBytes > slabBytes) {
          slab = Buffer.allocUnsafeSlow(slabBytes);
          offset = 0;
        }
        return slab.subarray(offset, offset + readBytes);
      },
      callback: (n: number, buf: Uint8Array): boolean => {
        let chunk: Buffer;
        if (n >= smallReadBytes) {
          chunk = Buffer.from(buf.buffer, buf.byteOffset, n);
          offset += n;
        } else {
          chunk = Buffer.allocUnsafe(n);
          chunk.set(buf.subarray(0, n));
        }
        // false (the readable side is over its high-water mark) stops reading until the consumer
        // asks for more, as for a socket without `onread`.
        return socket.push(chunk);
      },
    },
  });
  return socket;
}
