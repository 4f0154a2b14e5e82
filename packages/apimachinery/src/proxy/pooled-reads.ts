/**
 * Connections for relays of large streams (the apiserver's `pods/exec|attach|portforward` proxy
 * to a node agent, the node agent's proxy to the runtime's streaming server, the runtime dialling
 * a pod's port for port-forward) whose reads go into pooled memory.
 *
 * Node reads a socket into a new buffer each time: 64 KiB for TCP, one 16 KiB record for TLS. A
 * relay of a few hundred MiB/s then allocates that much external memory a second, which V8 counts
 * against the old generation's limit: measured on loopback, the node agent ran a full mark-compact
 * about every 100 ms (half its CPU in a port-forward), and the apiserver, whose heap holds the
 * cluster's objects, spent a fifth of its CPU on them. Here Node's `onread` option reads into
 * slabs that are reused once every chunk handed out of them has been released
 * ({@link releaseLargeRead}, e.g. from the callback of the write that passed the chunk on); the
 * socket stays a plain `net.Socket`/`tls.TLSSocket` (`data`, `end`, `pipe`, backpressure).
 *
 * A read at or above the socket's copy threshold is handed on as a view of the slab; a smaller one
 * is copied out, so a trickle of small chunks (an exec'd shell, a keep-alive) never pins a slab.
 * A chunk that is never released keeps its memory (the slab is replaced), as before.
 *
 * Not in Kubernetes (Go reuses its buffers: `io.CopyBuffer` in
 * staging/src/k8s.io/apimachinery/pkg/util/proxy/upgradeaware.go); this is the Node equivalent.
 */
import { connect } from "node:net";
import type { Socket, TcpNetConnectOpts } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { ConnectionOptions, TLSSocket } from "node:tls";

/** The largest TCP read (bytes) of {@link connectWithLargeReads} by default. */
const defaultLargeReadBytes = 1 << 20;

/** TCP reads below this many bytes are copied out (they would otherwise keep a whole slab alive). */
const smallReadBytes = 64 * 1024;

/** TLS hands on one record (at most 16 KiB) per read. */
const tlsRecordBytes = 16 * 1024;

/** TLS records below this many bytes are copied out. */
const smallRecordBytes = 4 * 1024;

/** A TLS socket's slab: 16 records. */
const tlsSlabBytes = 256 * 1024;

/** How many slabs one socket keeps for reuse (the one being filled and those waiting for releases). */
const pooledSlabs = 4;

// The chunks of each slab handed out and not yet released, by the slab's memory.
const outstanding = new WeakMap<ArrayBufferLike, { count: number }>();
// Chunks released already: a second release of the same chunk changes nothing.
const released = new WeakSet<Buffer>();

/**
 * Says that `chunk`, a `data` chunk of a socket from {@link connectWithLargeReads} or
 * {@link tlsConnectWithPooledReads}, is consumed: nothing will read its bytes any more (the write
 * that passed it on completed, or failed). Its memory may then be reused by a later read of that
 * socket. Call it at most once per chunk, and only when every holder is done with it: a chunk
 * released early can be overwritten. Chunks of other sockets, copied small reads and repeated
 * releases are ignored. Never throws.
 */
export function releaseLargeRead(chunk: Buffer): void {
  const state = outstanding.get(chunk.buffer);
  if (state === undefined || released.has(chunk)) return;
  released.add(chunk);
  state.count -= 1;
}

/** Node's `onread` option (typed for `net.connect`; `tls.connect` takes the same at run time). */
interface OnRead {
  buffer: () => Uint8Array;
  callback: (bytesWritten: number, buf: Uint8Array) => boolean;
}

/**
 * The `onread` of one socket: reads land in a slab of `slabBytes`, one after the other, each
 * offered `readBytes`; a chunk handed on is a view of it, so the memory allocated follows the bytes
 * read, not the read size. A full slab is replaced by a pooled one whose chunks were all released,
 * else by a new one. `socket()` is the socket the chunks are pushed to (known after connect()).
 */
function pooledOnRead(readBytes: number, slabBytes: number, copyBelowBytes: number, socket: () => Socket): OnRead {
  const pool: Buffer[] = [];
  let slab: Buffer | undefined;
  let offset = 0;
  const newSlab = (): Buffer => {
    const b = Buffer.allocUnsafeSlow(slabBytes);
    outstanding.set(b.buffer, { count: 0 });
    pool.push(b);
    if (pool.length > pooledSlabs) pool.shift();
    return b;
  };
  return {
    // Called before the first read and after each callback: where the next read goes.
    buffer: () => {
      if (slab === undefined) slab = newSlab();
      else if (offset + readBytes > slabBytes) {
        const current = slab;
        slab = pool.find((b) => b !== current && outstanding.get(b.buffer)?.count === 0) ?? newSlab();
        offset = 0;
      }
      return slab.subarray(offset, offset + readBytes);
    },
    callback: (n: number, buf: Uint8Array): boolean => {
      let chunk: Buffer;
      if (n >= copyBelowBytes) {
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
      return socket().push(chunk);
    },
  };
}

/**
 * Like `net.connect(options)` (TCP), reading up to `readBytes` bytes per read into pooled slabs of
 * four reads. Reads of 64 KiB or more are passed on without a copy; smaller ones are copied into a
 * buffer of their own size.
 * @param readBytes the read buffer size in bytes, at least 64 KiB. @defaultValue 1 MiB
 * @throws RangeError for a `readBytes` below 64 KiB; connection errors come as the socket's `error` event, as `net.connect`'s.
 * @example
 * const s = connectWithLargeReads({ host: "127.0.0.1", port: 8080 });
 * s.pipe(destination);
 */
export function connectWithLargeReads(options: Omit<TcpNetConnectOpts, "onread">, readBytes = defaultLargeReadBytes): Socket {
  if (!(readBytes >= smallReadBytes)) throw new RangeError(`readBytes must be at least 65536, got ${readBytes}`);
  const socket: Socket = connect({ ...options, onread: pooledOnRead(readBytes, readBytes * 4, smallReadBytes, () => socket) });
  return socket;
}

/**
 * Like `tls.connect(options)`, with each decrypted record (at most 16 KiB) read into a pooled
 * 256 KiB slab instead of a new buffer. Records of 4 KiB or more are passed on without a copy.
 * @throws nothing itself; connection and handshake errors come as the socket's `error` event, as `tls.connect`'s.
 * @example
 * const s = tlsConnectWithPooledReads({ host: "10.0.0.5", port: 10250, rejectUnauthorized: false });
 * s.on("data", (chunk) => out.write(chunk, () => releaseLargeRead(chunk)));
 */
export function tlsConnectWithPooledReads(options: Omit<ConnectionOptions, "socket">): TLSSocket {
  // Node's TLSWrap copies each record into the buffer `onread` gives (ClearOut's EmitAlloc).
  const onread = pooledOnRead(tlsRecordBytes, tlsSlabBytes, smallRecordBytes, () => socket);
  const socket: TLSSocket = tlsConnect({ ...options, ...({ onread } as object) });
  return socket;
}
