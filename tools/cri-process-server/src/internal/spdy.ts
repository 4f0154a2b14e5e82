/**
 * SPDY/3 framing as kubectl's client (moby/spdystream behind client-go's SPDY round tripper)
 * speaks it after `Upgrade: SPDY/3.1`: control frames (SYN_STREAM, SYN_REPLY, RST_STREAM,
 * SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE) and data frames, header blocks compressed with
 * one zlib context per direction primed with the SPDY/3 dictionary. npm's `spdy-transport`
 * requires the HTTP pseudo-headers `:method`/`:path` on every SYN_STREAM, which these streams do
 * not carry, so the framing is kept here. There is no flow control (spdystream sends no
 * WINDOW_UPDATE and ignores ours). A malformed frame closes the connection, never the process.
 * @see https://www.chromium.org/spdy/spdy-protocol/spdy-protocol-draft3/ (frame layouts, section 2.6.10.1 dictionary)
 * @see staging/src/k8s.io/apimachinery/pkg/util/httpstream/spdy/connection.go in kubernetes/kubernetes v1.23
 */
import { releaseLargeRead } from "@skiff/apimachinery/proxy";
import { Duplex } from "node:stream";
import { constants as zlibConstants, createDeflate, createInflate } from "node:zlib";
import type { Deflate, Inflate } from "node:zlib";

const dictionaryWords = [
  "options", "head", "post", "put", "delete", "trace", "accept", "accept-charset", "accept-encoding", "accept-language",
  "accept-ranges", "age", "allow", "authorization", "cache-control", "connection", "content-base", "content-encoding",
  "content-language", "content-length", "content-location", "content-md5", "content-range", "content-type", "date", "etag",
  "expect", "expires", "from", "host", "if-match", "if-modified-since", "if-none-match", "if-range", "if-unmodified-since",
  "last-modified", "location", "max-forwards", "pragma", "proxy-authenticate", "proxy-authorization", "range", "referer",
  "retry-after", "server", "te", "trailer", "transfer-encoding", "upgrade", "user-agent", "vary", "via", "warning",
  "www-authenticate", "method", "get", "status", "200 OK", "version", "HTTP/1.1", "url", "public", "set-cookie", "keep-alive", "origin",
];
const dictionaryTail =
  "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505" +
  "203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized" +
  "403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable" +
  "Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT" +
  "chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain," +
  "text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";

/** The SPDY/3 header compression dictionary (spec section 2.6.10.1): length-prefixed words, then a raw tail. Its Adler-32 is 0xe3c6a7c2. */
export const spdyDictionary: Buffer = Buffer.concat([
  ...dictionaryWords.flatMap((w) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(w.length);
    return [len, Buffer.from(w, "latin1")];
  }),
  Buffer.from(dictionaryTail, "latin1"),
]);

/** Control frame types (SPDY/3). */
export const spdyFrameType = Object.freeze({ synStream: 1, synReply: 2, rstStream: 3, settings: 4, ping: 6, goaway: 7, headers: 8, windowUpdate: 9 });
/** RST_STREAM status codes used here. */
export const spdyRstStatus = Object.freeze({ protocolError: 1, invalidStream: 2, refusedStream: 3, cancel: 5, internalError: 6 });

const flagFin = 0x01;
/** The largest frame accepted (the 24-bit length field allows 16 MiB). */
export const maxSpdyFrameBytes = 16 * 1024 * 1024 - 1;

/** One frame as read from the wire, before header decompression. */
export type RawSpdyFrame =
  | { readonly control: true; readonly type: number; readonly flags: number; readonly payload: Buffer }
  | { readonly control: false; readonly streamId: number; readonly flags: number; readonly payload: Buffer };

/** Thrown for bytes that are not a SPDY/3 frame sequence; the connection is then closed. */
export class SpdyProtocolError extends Error {
  readonly reason = "SpdyProtocolError";
  constructor(message: string) {
    super(message);
    this.name = "SpdyProtocolError";
  }
}

/**
 * Splits a byte stream into frames. Pure apart from its buffer.
 * @throws SpdyProtocolError for a control frame whose version is not 3.
 */
export class SpdyFrameReader {
  private buf: Buffer = Buffer.alloc(0);
  /** Appends bytes and returns every frame now complete, in order. */
  push(chunk: Buffer): RawSpdyFrame[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: RawSpdyFrame[] = [];
    while (this.buf.length >= 8) {
      const length = this.buf.readUIntBE(5, 3);
      if (this.buf.length < 8 + length) break;
      const flags = this.buf[4] ?? 0;
      const payload = this.buf.subarray(8, 8 + length);
      if ((this.buf[0] ?? 0) & 0x80) {
        const version = this.buf.readUInt16BE(0) & 0x7fff;
        if (version !== 3) throw new SpdyProtocolError(`unsupported SPDY version ${version}`);
        out.push({ control: true, type: this.buf.readUInt16BE(2), flags, payload });
      } else {
        out.push({ control: false, streamId: this.buf.readUInt32BE(0) & 0x7fffffff, flags, payload });
      }
      this.buf = this.buf.subarray(8 + length);
    }
    return out;
  }
}

/** Encodes a control frame. Pure. */
export function encodeControlFrame(type: number, flags: number, payload: Buffer): Buffer {
  if (payload.length > maxSpdyFrameBytes) throw new RangeError(`SPDY frame of ${payload.length} bytes is too large`);
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | 3, 0);
  head.writeUInt16BE(type, 2);
  head[4] = flags;
  head.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([head, payload]);
}

/** The 8-byte head of a data frame of `length` bytes (`fin` sets FLAG_FIN). Pure. */
export function dataFrameHead(streamId: number, length: number, fin: boolean): Buffer {
  const head = Buffer.allocUnsafe(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head[4] = fin ? flagFin : 0;
  head.writeUIntBE(length, 5, 3);
  return head;
}

/** Encodes a data frame (`fin` sets FLAG_FIN). Pure. */
export function encodeDataFrame(streamId: number, data: Buffer, fin: boolean): Buffer {
  return Buffer.concat([dataFrameHead(streamId, data.length, fin), data]);
}

/** Header names are lower-case; a value may carry several NUL-separated values, kept as a list. */
export type SpdyHeaders = ReadonlyMap<string, readonly string[]>;

/**
 * Parses a decompressed SPDY/3 name/value block. Pure.
 * @throws SpdyProtocolError when the block is truncated.
 */
export function parseHeaderBlock(block: Buffer): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const need = (off: number, n: number) => {
    if (off + n > block.length) throw new SpdyProtocolError("truncated header block");
  };
  need(0, 4);
  const count = block.readUInt32BE(0);
  let off = 4;
  for (let i = 0; i < count; i++) {
    need(off, 4);
    const nameLen = block.readUInt32BE(off);
    off += 4;
    need(off, nameLen);
    const name = block.subarray(off, off + nameLen).toString("utf8").toLowerCase();
    off += nameLen;
    need(off, 4);
    const valueLen = block.readUInt32BE(off);
    off += 4;
    need(off, valueLen);
    const values = block.subarray(off, off + valueLen).toString("utf8").split("\0");
    off += valueLen;
    out.set(name, [...(out.get(name) ?? []), ...values]);
  }
  return out;
}

/** Formats a name/value block (names lower-cased). Pure. */
export function formatHeaderBlock(headers: Readonly<Record<string, string>>): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const entries = Object.entries(headers);
  parts.push(u32(entries.length));
  for (const [name, value] of entries) {
    const n = Buffer.from(name.toLowerCase(), "utf8");
    const v = Buffer.from(value, "utf8");
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

function zlibRoundTrip(z: Inflate | Deflate, input: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (c: Buffer) => chunks.push(c);
    const onError = (err: Error) => {
      z.off("data", onData);
      reject(new SpdyProtocolError(`header block: ${err.message}`));
    };
    z.on("data", onData);
    z.once("error", onError);
    z.write(input);
    z.flush(zlibConstants.Z_SYNC_FLUSH, () => {
      z.off("data", onData);
      z.off("error", onError);
      resolve(Buffer.concat(chunks));
    });
  });
}

/** A SPDY stream the peer opened. Readable: the peer's data until its FIN; writable: data frames, `end()` sends FIN. */
export class SpdyStream extends Duplex {
  readonly id: number;
  readonly headers: SpdyHeaders;
  private readonly conn: SpdyServerConnection;
  private finSent = false;
  constructor(conn: SpdyServerConnection, id: number, headers: SpdyHeaders) {
    super({ allowHalfOpen: true });
    this.conn = conn;
    this.id = id;
    this.headers = headers;
  }
  /** The first value of a header (lower-case name), or "". */
  header(name: string): string {
    return this.headers.get(name.toLowerCase())?.[0] ?? "";
  }
  override _read(): void {}
  // Each chunk is released once it is written out (a large read's memory may then take a later
  // read: releaseLargeRead; other chunks are ignored there).
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.conn.sendData(this.id, [chunk], cb, () => releaseLargeRead(chunk));
  }
  // Chunks queued while the socket drained go out as one data frame (no copy: the head and the
  // chunks are written corked).
  override _writev(chunks: Array<{ chunk: Buffer }>, cb: (err?: Error | null) => void): void {
    const list = chunks.map((c) => c.chunk);
    this.conn.sendData(this.id, list, cb, () => {
      for (const c of list) releaseLargeRead(c);
    });
  }
  override _final(cb: (err?: Error | null) => void): void {
    if (this.finSent) return cb();
    this.finSent = true;
    this.conn.send(() => encodeDataFrame(this.id, Buffer.alloc(0), true)).then(() => cb(), cb);
  }
  /** Called by the connection for the peer's data (`fin`: the peer is done sending). */
  receive(data: Buffer, fin: boolean): void {
    if (data.length > 0) this.push(data);
    if (fin) this.push(null);
  }
}

/**
 * The server side of one SPDY/3 connection over an upgraded socket: answers each stream the peer
 * opens with SYN_REPLY and hands it to `onStream`, answers PINGs, and on GOAWAY, a malformed frame
 * or the socket closing, ends every stream and closes. Never throws.
 */
export class SpdyServerConnection {
  private readonly reader = new SpdyFrameReader();
  private readonly inflate: Inflate = createInflate({ dictionary: spdyDictionary });
  private readonly deflate: Deflate = createDeflate({ dictionary: spdyDictionary });
  private readonly streams = new Map<number, SpdyStream>();
  private readChain: Promise<void> = Promise.resolve();
  /** Frames waiting on `readChain`. */
  private readQueued = 0;
  private writeChain: Promise<void> = Promise.resolve();
  /** Frames queued on `writeChain` and not yet written; data frames skip the chain when 0. */
  private queued = 0;
  private closed = false;
  private readonly closeListeners: Array<() => void> = [];

  constructor(
    private readonly socket: Duplex,
    private readonly onStream: (stream: SpdyStream) => void,
    private readonly log: (message: string) => void = () => {},
  ) {
    this.inflate.on("error", () => this.close());
    this.deflate.on("error", () => this.close());
    socket.on("data", (chunk: Buffer) => {
      let frames: RawSpdyFrame[];
      try {
        frames = this.reader.push(chunk);
      } catch (err) {
        this.fail(err);
        return;
      }
      for (const f of frames) {
        // Data frames are handled at once unless a control frame is still being decoded before them.
        if (!f.control && this.readQueued === 0) {
          if (!this.closed) this.handleData(f);
          continue;
        }
        this.readQueued++;
        this.readChain = this.readChain
          .then(() => (this.closed ? undefined : this.handle(f)))
          .catch((err: unknown) => this.fail(err))
          .finally(() => this.readQueued--);
      }
    });
    socket.on("end", () => this.close());
    socket.on("close", () => this.close());
    socket.on("error", () => this.close());
    socket.resume();
  }

  /** Runs `fn` when the connection closes (at once when it is closed already). */
  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.closeListeners.push(fn);
  }

  /** Queues a frame built by `build` (in order with every other frame); resolves once written. */
  send(build: () => Buffer | Promise<Buffer>): Promise<void> {
    this.queued++;
    const next = this.writeChain.then(async () => {
      try {
        if (this.closed) return;
        const frame = await build();
        if (this.closed) return;
        if (!this.socket.write(frame)) await this.drained();
      } finally {
        this.queued--;
      }
    });
    this.writeChain = next.catch(() => undefined);
    return next;
  }

  private drained(): Promise<void> {
    return new Promise<void>((r) => {
      const done = () => {
        this.socket.off("drain", done);
        this.socket.off("close", done);
        r();
      };
      this.socket.once("drain", done);
      this.socket.once("close", done);
    });
  }

  /**
   * Writes `chunks` as one data frame of stream `streamId` (split at the frame size limit), in
   * order with every other frame: at once when no other frame is queued (the head and chunks
   * corked together, no copy), else behind them. `cb` runs once the socket takes more (backpressure);
   * `consumed`, once nothing reads `chunks` any more (written out, copied, or dropped on a closed
   * connection).
   */
  sendData(streamId: number, chunks: Buffer[], cb: (err?: Error | null) => void, consumed?: () => void): void {
    if (this.closed) {
      consumed?.();
      return cb();
    }
    const length = chunks.reduce((n, c) => n + c.length, 0);
    if (this.queued > 0 || length > maxSpdyFrameBytes) {
      this.send(() => {
        const frame = encodeDataFrame(streamId, Buffer.concat(chunks, length), false);
        consumed?.();
        return frame;
      }).then(() => cb(), cb);
      return;
    }
    this.socket.cork();
    this.socket.write(dataFrameHead(streamId, length, false));
    // Written in order: the last chunk's callback means every one of them is out.
    chunks.forEach((c, i) => this.socket.write(c, i === chunks.length - 1 && consumed ? () => consumed() : undefined));
    this.socket.uncork();
    // Whether the socket still holds bytes after the uncorked write: write()'s own answer is false
    // for every chunk above the high-water mark (16 KiB) even when the kernel took it at once,
    // which cost a wait on the write chain (an empty write, a copy of the next frames) per chunk.
    if (this.socket.writableLength < this.socket.writableHighWaterMark) return cb();
    // Later frames wait behind this one until the socket drains.
    this.send(() => Buffer.alloc(0)).then(() => cb(), cb);
  }

  /** Resets a stream (RST_STREAM with `status`). */
  reset(streamId: number, status: number): Promise<void> {
    const p = Buffer.alloc(8);
    p.writeUInt32BE(streamId & 0x7fffffff, 0);
    p.writeUInt32BE(status, 4);
    return this.send(() => encodeControlFrame(spdyFrameType.rstStream, 0, p));
  }

  /** Ends every stream, sends GOAWAY once queued frames are out, and closes the socket. */
  async shutdown(): Promise<void> {
    const p = Buffer.alloc(8);
    await this.send(() => encodeControlFrame(spdyFrameType.goaway, 0, p)).catch(() => undefined);
    this.close();
  }

  /** Closes at once. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.streams.values()) {
      s.receive(Buffer.alloc(0), true);
      s.destroy();
    }
    this.streams.clear();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
    this.inflate.close();
    this.deflate.close();
    for (const fn of this.closeListeners.splice(0)) fn();
  }

  private fail(err: unknown): void {
    this.log(`spdy: closing the connection: ${err instanceof Error ? err.message : String(err)}`);
    this.close();
  }

  private handleData(f: Extract<RawSpdyFrame, { control: false }>): void {
    const s = this.streams.get(f.streamId);
    if (!s) return void this.reset(f.streamId, spdyRstStatus.invalidStream);
    s.receive(f.payload, (f.flags & flagFin) !== 0);
    if ((f.flags & flagFin) !== 0 && s.writableFinished) this.streams.delete(f.streamId);
  }

  private async handle(f: RawSpdyFrame): Promise<void> {
    if (!f.control) return this.handleData(f);
    const p = f.payload;
    switch (f.type) {
      case spdyFrameType.synStream: {
        if (p.length < 10) throw new SpdyProtocolError("short SYN_STREAM");
        const id = p.readUInt32BE(0) & 0x7fffffff;
        const headers = parseHeaderBlock(await zlibRoundTrip(this.inflate, p.subarray(10)));
        if (id === 0 || id % 2 === 0 || this.streams.has(id)) return void this.reset(id, spdyRstStatus.protocolError);
        const stream = new SpdyStream(this, id, headers);
        this.streams.set(id, stream);
        stream.once("close", () => this.streams.delete(id));
        const reply = Buffer.alloc(4);
        reply.writeUInt32BE(id, 0);
        await this.send(async () => encodeControlFrame(spdyFrameType.synReply, 0, Buffer.concat([reply, await zlibRoundTrip(this.deflate, formatHeaderBlock({}))])));
        if ((f.flags & flagFin) !== 0) stream.receive(Buffer.alloc(0), true);
        this.onStream(stream);
        return;
      }
      case spdyFrameType.headers: {
        // Trailing headers: decompressed to keep the zlib context in step, then ignored.
        if (p.length < 4) throw new SpdyProtocolError("short HEADERS");
        await zlibRoundTrip(this.inflate, p.subarray(4));
        if ((f.flags & flagFin) !== 0) this.streams.get(p.readUInt32BE(0) & 0x7fffffff)?.receive(Buffer.alloc(0), true);
        return;
      }
      case spdyFrameType.synReply:
        if (p.length < 4) throw new SpdyProtocolError("short SYN_REPLY");
        await zlibRoundTrip(this.inflate, p.subarray(4));
        return;
      case spdyFrameType.rstStream: {
        if (p.length < 8) throw new SpdyProtocolError("short RST_STREAM");
        const s = this.streams.get(p.readUInt32BE(0) & 0x7fffffff);
        if (s) {
          this.streams.delete(s.id);
          s.receive(Buffer.alloc(0), true);
          s.destroy();
        }
        return;
      }
      case spdyFrameType.ping:
        if (p.length < 4) throw new SpdyProtocolError("short PING");
        await this.send(() => encodeControlFrame(spdyFrameType.ping, 0, Buffer.from(p.subarray(0, 4))));
        return;
      case spdyFrameType.goaway:
        this.close();
        return;
      default:
        // SETTINGS, WINDOW_UPDATE, unknown types: nothing to do.
        return;
    }
  }
}
