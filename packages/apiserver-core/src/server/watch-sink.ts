import type { IncomingMessage, ServerResponse } from "node:http";
import type { WatchSink } from "../handlers/response.js";

/**
 * Encoded watch bytes (per watch response) that may wait in the process for the socket before
 * the watch loop waits for `drain`: 256 KiB.
 *
 * Waiting at the socket's high-water mark (16 KiB, what `write` returning false signals) let a
 * watcher send about 16 KiB, four pod events, per event-loop turn of a busy apiserver: a
 * scheduler or Job controller watching every pod fell seconds behind the writes (a fleet of 100
 * hollow nodes: pod created → scheduler sees it p50 1.1 s, p99 3.6 s; 62 ms / 133 ms with this
 * bound). 1.23's watch server writes to a TCP socket whose kernel buffer grows to megabytes before
 * a write blocks. The bound keeps the reason for waiting at all: a thousand watchers replaying
 * thousands of events hold at most this much each, their other events staying in the watch
 * cache's bounded per-watcher buffer.
 */
export const watchWriteBufferBytes = 256 * 1024;

/** What {@link watchSink} uses of the response (Node's `ServerResponse`). */
export type WatchResponse = Pick<ServerResponse, "write" | "writeHead" | "flushHeaders" | "end" | "writableLength" | "once" | "off">;

/**
 * A watch sink over a hijacked HTTP response (chunked). Backpressure: `write` resolves at once
 * while fewer than {@link watchWriteBufferBytes} wait for the socket, else when the socket drains
 * (or the client goes), so a client that reads slowly pauses the watch loop instead of piling
 * encoded bytes up in memory.
 * @param req the request, whose `close` marks the client gone
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go (ServeHTTP)
 */
export function watchSink(req: Pick<IncomingMessage, "once" | "on" | "off">, raw: WatchResponse): WatchSink {
  let closed = false;
  req.once("close", () => (closed = true));
  return {
    get closed() {
      return closed;
    },
    start(contentType) {
      // No length: HTTP/1.1 frames the body in chunks; HTTP/2 in DATA frames, and refuses a
      // `transfer-encoding` header (a connection-specific one).
      raw.writeHead(200, { "content-type": contentType });
      // Send the headers now, as 1.23's watch handler flushes at once: clients wait for them.
      raw.flushHeaders();
    },
    async write(chunk) {
      // `write` returning false promises a later `drain`, which is what is awaited past the bound.
      if (raw.write(chunk) || closed || raw.writableLength < watchWriteBufferBytes) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          raw.off("drain", done);
          raw.off("close", done);
          resolve();
        };
        raw.once("drain", done);
        raw.once("close", done);
      });
    },
    onClose(listener) {
      req.on("close", listener);
      return () => req.off("close", listener);
    },
    end() {
      raw.end();
    },
  };
}
