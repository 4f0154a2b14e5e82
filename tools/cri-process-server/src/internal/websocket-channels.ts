/**
 * The Kubernetes WebSocket channel protocols over one upgraded connection (`ws` does the
 * WebSocket framing): each message carries one channel's bytes, prefixed by the channel number.
 *
 * - `channel.k8s.io`, `v4.channel.k8s.io`: binary messages, first byte = channel.
 * - `base64.channel.k8s.io`, `v4.base64.channel.k8s.io`: text messages, first character = channel
 *   as an ASCII digit (`'0' + channel`), the rest base64.
 * - `v5.channel.k8s.io` (kubectl 1.30+): as `v4.channel.k8s.io`, plus the client's close signal, a
 *   message `[255, channel]` that ends that channel's input (stdin EOF), which v4 cannot express.
 * - no `Sec-WebSocket-Protocol` at all: binary, as `channel.k8s.io` (what 1.23's wsstream does).
 *
 * For exec/attach the channels are 0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize; the server
 * writes an empty message on the lowest channel it will write (stdout, else stderr, else error) to
 * tell the client the streams are ready. A message for a channel that is not open is dropped, as
 * upstream does; a malformed message never closes the runtime.
 *
 * @see staging/src/k8s.io/apiserver/pkg/util/wsstream/conn.go in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/cri/streaming/remotecommand/websocket.go in kubernetes/kubernetes v1.23
 * @see staging/src/k8s.io/apimachinery/pkg/util/remotecommand/constants.go (v5, kubernetes v1.30)
 */
import { Duplex } from "node:stream";
import type { WebSocket } from "ws";

/** The WebSocket subprotocols the exec/attach server accepts, most preferred first. */
export const execWebSocketProtocols: readonly string[] = Object.freeze(["v5.channel.k8s.io", "v4.channel.k8s.io", "v4.base64.channel.k8s.io", "channel.k8s.io", "base64.channel.k8s.io"]);

/** The channel numbers of exec and attach. */
export const execChannel = Object.freeze({ stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4 });

/** v5's close signal: a message `[closeSignal, channel]` from the client ends that channel. */
const closeSignal = 255;

/**
 * The subprotocol the server picks from the client's offer (`Sec-WebSocket-Protocol` values):
 * the first offered one it supports; "" when the client offered none; undefined when none of the
 * offered ones is supported (the upgrade must then be refused). Pure.
 */
export function pickWebSocketProtocol(offered: ReadonlySet<string> | readonly string[], supported: readonly string[] = execWebSocketProtocols): string | undefined {
  const list = [...offered];
  if (list.length === 0) return "";
  return list.find((p) => supported.includes(p));
}

/** One channel of a {@link WebSocketChannelConnection}: readable for input channels, writable for output ones. */
export class WebSocketChannel extends Duplex {
  constructor(
    private readonly conn: WebSocketChannelConnection,
    readonly channel: number,
  ) {
    super({ allowHalfOpen: true });
  }
  override _read(): void {}
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.conn.send(this.channel, chunk).then(() => cb(), cb);
  }
  /** Called by the connection with the client's bytes (`undefined`: the channel's input ended). */
  receive(data: Buffer | undefined): void {
    if (data === undefined) this.push(null);
    else if (data.length > 0) this.push(data);
  }
}

/**
 * The server side of one channel-protocol WebSocket: `channel(n)` is channel `n` as a Duplex;
 * `shutdown()` flushes and closes with 1000 (normal closure). Never throws.
 */
export class WebSocketChannelConnection {
  private readonly channels = new Map<number, WebSocketChannel>();
  private readonly base64: boolean;
  private readonly closeListeners: Array<() => void> = [];
  private closed = false;

  /**
   * @param ws the accepted WebSocket.
   * @param protocol the negotiated subprotocol ("" for none).
   * @param open the channel numbers in use; input for any other channel is dropped.
   */
  constructor(
    private readonly ws: WebSocket,
    readonly protocol: string,
    open: readonly number[],
  ) {
    this.base64 = protocol.includes("base64");
    for (const n of open) this.channels.set(n, new WebSocketChannel(this, n));
    ws.on("message", (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => this.onMessage(toBuffer(data), isBinary));
    ws.on("close", () => this.close());
    ws.on("error", () => this.close());
  }

  /** Channel `n` (created on first use if it was not declared open). */
  channel(n: number): WebSocketChannel {
    let c = this.channels.get(n);
    if (!c) {
      c = new WebSocketChannel(this, n);
      this.channels.set(n, c);
    }
    return c;
  }

  /** Runs `fn` when the connection closes (at once when it is closed already). */
  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.closeListeners.push(fn);
  }

  /** Sends `data` on `channel` as one message; resolves once handed to the socket. */
  send(channel: number, data: Buffer): Promise<void> {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return Promise.resolve();
    const message = this.base64 ? String.fromCharCode(48 + channel) + data.toString("base64") : Buffer.concat([Buffer.from([channel]), data]);
    return new Promise<void>((resolve) => this.ws.send(message, { binary: !this.base64 }, () => resolve()));
  }

  /** Closes with 1000 once queued messages are written. */
  async shutdown(): Promise<void> {
    if (this.closed) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.ws.terminate();
        resolve();
      }, 5_000);
      t.unref();
      this.ws.once("close", () => {
        clearTimeout(t);
        resolve();
      });
      this.ws.close(1000);
    });
    this.close();
  }

  /** Closes at once: every channel's input ends. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.channels.values()) c.receive(undefined);
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.terminate();
    for (const fn of this.closeListeners.splice(0)) fn();
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (data.length === 0) return;
    let channel: number;
    let payload: Buffer;
    if (this.base64) {
      if (isBinary) return;
      const text = data.toString("latin1");
      channel = text.charCodeAt(0) - 48;
      payload = Buffer.from(text.slice(1), "base64");
    } else {
      channel = data[0] ?? 0;
      payload = data.subarray(1);
    }
    if (channel === closeSignal && this.protocol === "v5.channel.k8s.io") {
      const target = payload[0];
      if (target !== undefined) this.channels.get(target)?.receive(undefined);
      return;
    }
    this.channels.get(channel)?.receive(payload);
  }
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
