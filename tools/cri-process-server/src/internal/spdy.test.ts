import { Duplex, PassThrough } from "node:stream";
import { constants as zlibConstants, createDeflate, createInflate, deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { SpdyFrameReader, SpdyServerConnection, encodeControlFrame, encodeDataFrame, formatHeaderBlock, parseHeaderBlock, spdyDictionary, spdyFrameType } from "./spdy.js";
import type { RawSpdyFrame, SpdyStream } from "./spdy.js";

function compress(z: ReturnType<typeof createDeflate>, input: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const on = (c: Buffer) => chunks.push(c);
    z.on("data", on);
    z.write(input);
    z.flush(zlibConstants.Z_SYNC_FLUSH, () => {
      z.off("data", on);
      resolve(Buffer.concat(chunks));
    });
  });
}

/** A client end: frames it reads back from the server. */
function clientOf(socket: PassThrough) {
  const reader = new SpdyFrameReader();
  const frames: RawSpdyFrame[] = [];
  socket.on("data", (d: Buffer) => frames.push(...reader.push(d)));
  return frames;
}

describe("SPDY/3 framing", () => {
  it("uses the SPDY/3 dictionary (its Adler-32, the DICTID of every header block, is 0xe3c6a7c2)", () => {
    expect(spdyDictionary.length).toBe(1423);
    expect(deflateSync(Buffer.from("x"), { dictionary: spdyDictionary }).subarray(2, 6).toString("hex")).toBe("e3c6a7c2");
  });

  it("splits a byte stream into frames however it is cut", () => {
    const bytes = Buffer.concat([encodeControlFrame(spdyFrameType.ping, 0, Buffer.from([0, 0, 0, 1])), encodeDataFrame(3, Buffer.from("hello"), true)]);
    const r = new SpdyFrameReader();
    const frames = [...bytes].flatMap((b) => r.push(Buffer.from([b])));
    expect(frames).toEqual([
      { control: true, type: spdyFrameType.ping, flags: 0, payload: Buffer.from([0, 0, 0, 1]) },
      { control: false, streamId: 3, flags: 1, payload: Buffer.from("hello") },
    ]);
    expect(() => new SpdyFrameReader().push(Buffer.from([0x80, 0x02, 0, 1, 0, 0, 0, 0]))).toThrow(/unsupported SPDY version 2/);
  });

  it("round-trips name/value blocks, lower-casing names and splitting NUL-separated values", () => {
    const block = formatHeaderBlock({ StreamType: "stdout", Port: "80\u00008080" });
    expect(parseHeaderBlock(block)).toEqual(new Map([["streamtype", ["stdout"]], ["port", ["80", "8080"]]]));
    expect(() => parseHeaderBlock(block.subarray(0, block.length - 2))).toThrow(/truncated header block/);
  });

  it("answers a SYN_STREAM with SYN_REPLY, carries data both ways, ends on FIN and answers PING", async () => {
    const socket = new PassThrough();
    const fromServer = new PassThrough();
    // The server writes into `fromServer`; the client writes into `socket`.
    const duplex = Object.assign(socket, { write: fromServer.write.bind(fromServer), end: () => fromServer.end() }) as unknown as PassThrough;
    const frames = clientOf(fromServer);
    const streams: SpdyStream[] = [];
    const conn = new SpdyServerConnection(duplex, (s) => {
      streams.push(s);
      s.on("data", (d: Buffer) => s.write(d.toString().toUpperCase()));
      s.on("end", () => s.end());
    });
    const deflate = createDeflate({ dictionary: spdyDictionary });
    const head = Buffer.alloc(10);
    head.writeUInt32BE(1, 0);
    const syn = encodeControlFrame(spdyFrameType.synStream, 0, Buffer.concat([head, await compress(deflate, formatHeaderBlock({ streamType: "stdin" }))]));
    socket.push(Buffer.concat([syn, encodeDataFrame(1, Buffer.from("abc"), false), encodeDataFrame(1, Buffer.alloc(0), true), encodeControlFrame(spdyFrameType.ping, 0, Buffer.from([0, 0, 0, 7]))]));
    // Waits for the frames the server must write (no fixed sleep: the machine may be loaded).
    for (let i = 0; i < 500 && frames.filter((f) => !f.control).length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(streams[0]?.header("streamtype")).toBe("stdin");
    const control = frames.filter((f) => f.control) as Array<RawSpdyFrame & { control: true }>;
    expect(control.map((f) => f.type)).toEqual([spdyFrameType.synReply, spdyFrameType.ping]);
    const inflate = createInflate({ dictionary: spdyDictionary });
    const reply = control[0]!.payload;
    expect(reply.readUInt32BE(0)).toBe(1);
    const replyHeaders = await new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      inflate.on("data", (c: Buffer) => chunks.push(c));
      inflate.write(reply.subarray(4));
      inflate.flush(zlibConstants.Z_SYNC_FLUSH, () => resolve(Buffer.concat(chunks)));
    });
    expect(parseHeaderBlock(replyHeaders).size).toBe(0);
    const data = frames.filter((f) => !f.control) as Array<RawSpdyFrame & { control: false }>;
    expect(data.map((f) => [f.streamId, f.payload.toString(), f.flags])).toEqual([
      [1, "ABC", 0],
      [1, "", 1],
    ]);
    conn.close();
  });

  it("writes a burst of stream data as data frames after the SYN_REPLY, bytes in order, however they are batched", async () => {
    const socket = new PassThrough();
    const fromServer = new PassThrough();
    const duplex = Object.assign(socket, { write: fromServer.write.bind(fromServer), end: () => fromServer.end() }) as unknown as PassThrough;
    const frames = clientOf(fromServer);
    const big = Buffer.alloc(200_000, 0x61);
    const conn = new SpdyServerConnection(duplex, (s) => {
      s.write("one,");
      s.write(big);
      s.write(",two");
      s.end();
    });
    const deflate = createDeflate({ dictionary: spdyDictionary });
    const head = Buffer.alloc(10);
    head.writeUInt32BE(1, 0);
    socket.push(encodeControlFrame(spdyFrameType.synStream, 0, Buffer.concat([head, await compress(deflate, formatHeaderBlock({ streamType: "data" }))])));
    const fin = () => frames.some((f) => !f.control && (f.flags & 1) === 1);
    for (let i = 0; i < 500 && !fin(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(frames[0]).toMatchObject({ control: true, type: spdyFrameType.synReply });
    const data = frames.filter((f) => !f.control) as Array<RawSpdyFrame & { control: false }>;
    expect(data.every((f) => f.streamId === 1)).toBe(true);
    expect(Buffer.concat(data.map((f) => f.payload)).equals(Buffer.concat([Buffer.from("one,"), big, Buffer.from(",two")]))).toBe(true);
    expect(data.at(-1)?.flags).toBe(1);
    conn.close();
  });

  it("closes the connection, not the process, on a malformed frame", async () => {
    const socket = new PassThrough();
    let closed = false;
    const conn = new SpdyServerConnection(socket, () => undefined);
    conn.onClose(() => (closed = true));
    // A SYN_STREAM whose header block is not zlib data.
    socket.write(encodeControlFrame(spdyFrameType.synStream, 0, Buffer.concat([Buffer.from([0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), Buffer.from("not zlib at all")])));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(true);
  });
});

describe("SpdyServerConnection.sendData", () => {
  /** A socket whose writes the kernel takes at once (they complete synchronously), with Node's 16 KiB high-water mark. */
  function instantSocket(writes: Buffer[]): Duplex {
    return new Duplex({
      read() {},
      write(chunk: Buffer, _enc, cb) {
        writes.push(chunk);
        cb();
      },
      writev(chunks, cb) {
        for (const c of chunks) writes.push(c.chunk as Buffer);
        cb();
      },
    });
  }

  it("sends a chunk larger than the high-water mark as one frame and calls back at once when the socket took it (no empty write, no queued copy)", async () => {
    const writes: Buffer[] = [];
    const conn = new SpdyServerConnection(instantSocket(writes), () => {});
    const big = Buffer.alloc(64 * 1024, 7);
    let called = 0;
    for (let i = 0; i < 3; i++) conn.sendData(1, [big], () => called++);
    expect(called).toBe(3);
    await new Promise((r) => setImmediate(r));
    expect(writes.map((w) => w.length)).toEqual([8, 65536, 8, 65536, 8, 65536]);
    expect(writes.filter((w) => w.length === 65536).every((w) => w.equals(big))).toBe(true);
  });

  /** A socket that keeps each write until `release()` (the kernel's buffer is full). */
  function heldSocket(): { socket: Duplex; release: () => void } {
    let pending: (() => void) | undefined;
    const socket = new Duplex({
      read() {},
      write(_chunk: Buffer, _enc, cb) {
        pending = () => cb();
      },
      writev(_chunks, cb) {
        pending = () => cb();
      },
    });
    return { socket, release: () => pending?.() };
  }

  it("waits for the socket to drain when it keeps the bytes (backpressure)", async () => {
    const { socket, release } = heldSocket();
    const conn = new SpdyServerConnection(socket, () => {});
    let called = false;
    conn.sendData(1, [Buffer.alloc(64 * 1024)], () => (called = true));
    await new Promise((r) => setImmediate(r));
    expect(called).toBe(false);
    release();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(called).toBe(true);
  });

  it("says the chunks are consumed only once the socket has written them, or once a queued frame has copied them", async () => {
    const { socket, release } = heldSocket();
    const conn = new SpdyServerConnection(socket, () => {});
    let consumed = 0;
    conn.sendData(1, [Buffer.alloc(64 * 1024), Buffer.alloc(64 * 1024)], () => undefined, () => consumed++);
    // Queued behind the first frame (the socket is busy): consumed when the frame is built (copied).
    conn.sendData(1, [Buffer.alloc(1024)], () => undefined, () => consumed++);
    await new Promise((r) => setImmediate(r));
    expect(consumed).toBe(0);
    release();
    for (let i = 0; i < 4; i++) await new Promise((r) => setImmediate(r));
    expect(consumed).toBe(2);
  });
});
