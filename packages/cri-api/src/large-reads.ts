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
 *
 * A consumer that says when it is done with each chunk ({@link releaseLargeRead}, e.g. from the
 * callback of the write that passed the chunk on) lets later reads go to the same memory again.
 * Without that, every read is new external memory to V8, which counts it against the old
 * generation's limit: a relay of a few hundred MiB/s then ran a full mark-compact about every
 * 100 ms, which was half of the node agent's CPU in a port-forward.
 */
import { connect } from "node:net";
import type { Socket, TcpNetConnectOpts } from "node:net";

/** The largest read (bytes) of {@link connectWithLargeReads} by default. */
const defaultLargeReadBytes = 1 << 20;

/** Reads below this many bytes are copied out (they would otherwise keep a whole slab alive). */
const smallReadBytes = 64 * 1024;

/** How many slabs one socket keeps for reuse (the one being filled and those waiting for releases). */
const pooledSlabs = 4;

// The chunks of each slab handed out and not yet released, by the slab's memory.
const outstanding = new WeakMap<ArrayBufferLike, { count: number }>();
// Chunks released already: a second release of the same chunk changes nothing.
const released = new WeakSet<Buffer>();

/**
 * Says that `chunk`, a `data` chunk of a socket from {@link connectWithLargeReads}, is consumed:
 * nothing will read its bytes any more (the write that passed it on completed, or failed). Its
 * memory may then be reused by a later read of that socket. Call it at most once per chunk, and
 * only when every holder is done with it: a chunk released early can be overwritten. Chunks of
 * other sockets, copied small reads and repeated releases are ignored. Never throws.
 */
export function releaseLargeRead(chunk: Buffer): void {
  const state = outstanding.get(chunk.buffer);
  if (state === undefined || released.has(chunk)) return;
  released.add(chunk);
  state.count -= 1;
}

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
  // A full slab is replaced by a pooled one whose chunks were all released, else by a new one.
  const slabBytes = readBytes * 4;
  const newSlab = (): Buffer => {
    const b = Buffer.allocUnsafeSlow(slabBytes);
    outstanding.set(b.buffer, { count: 0 });
    return b;
  };
  let slab = newSlab();
  const pool: Buffer[] = [slab];
  let offset = 0;
  const socket: Socket = connect({
    ...options,
    onread: {
      // Called before the first read and after each callback: where the next read goes.
      buffer: () => {
        if (offset + readBytes > slabBytes) {
          const current = slab;
          const free = pool.find((b) => b !== current && outstanding.get(b.buffer)?.count === 0);
          if (free !== undefined) slab = free;
          else {
            slab = newSlab();
            pool.push(slab);
            if (pool.length > pooledSlabs) pool.shift();
          }
          offset = 0;
        }
        return slab.subarray(offset, offset + readBytes);
      },
      callback: (n: number, buf: Uint8Array): boolean => {
        let chunk: Buffer;
        if (n >= smallReadBytes) {
          chunk = Buffer.from(buf.buffer, buf.byteOffset, n);
          const state = outstanding.get(buf.buffer);
          if (state !== undefined) state.count += 1;
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
