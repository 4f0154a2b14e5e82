/**
 * Watch-event framing of the JSON watch stream: one `{"type":..,"object":..}` JSON document per
 * line, as `kubectl get -w` and client-go read it.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/watch/watch.go (`EventType`)
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/watch.go (`WatchEvent`)
 */

import { isObject } from "./internal/json.js";

/** The event types of a watch stream. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

const eventTypes: ReadonlySet<string> = new Set<WatchEventType>(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

/**
 * One watch event. `object` is the object after the change (for DELETED: its last state), a
 * bookmark carrying only `metadata.resourceVersion`, or a `Status` for ERROR.
 */
export interface WatchEvent<T = unknown> {
  readonly type: WatchEventType;
  readonly object: T;
}

/** Whether `x` is one of the five {@link WatchEventType} strings. */
export function isWatchEventType(x: unknown): x is WatchEventType {
  return typeof x === "string" && eventTypes.has(x);
}

/**
 * One event as a line of the stream: compact JSON followed by `"\n"`.
 * @throws {TypeError} if the object cannot be serialised to JSON (cycles, bigint), from JSON.stringify.
 * @example
 * formatWatchEvent({ type: "ADDED", object: job }) // '{"type":"ADDED","object":{...}}\n'
 */
export function formatWatchEvent(event: WatchEvent): string {
  return `${JSON.stringify({ type: event.type, object: event.object })}\n`;
}

/** The object of a bookmark event: only kind, apiVersion and `metadata.resourceVersion`. */
export interface BookmarkObject {
  readonly kind: string;
  readonly apiVersion: string;
  readonly metadata: { readonly resourceVersion: string };
}

/**
 * A BOOKMARK event telling the watcher it has seen everything up to `resourceVersion`.
 * @see staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go (bookmark events)
 * @example
 * newBookmarkEvent({ apiVersion: "batch/v1", kind: "Job" }, "1234")
 * // { type: "BOOKMARK", object: { kind: "Job", apiVersion: "batch/v1", metadata: { resourceVersion: "1234" } } }
 */
export function newBookmarkEvent(type: { readonly apiVersion: string; readonly kind: string }, resourceVersion: string): WatchEvent<BookmarkObject> {
  return { type: "BOOKMARK", object: { kind: type.kind, apiVersion: type.apiVersion, metadata: { resourceVersion } } };
}

/** Why a watch stream could not be decoded. */
export type WatchDecodeErrorReason = "MalformedJSON" | "InvalidEvent" | "LineTooLong" | "TruncatedStream";

/** A line of a watch stream is not a valid event (or the stream ended mid-line). */
export class WatchDecodeError extends Error {
  override readonly name = "WatchDecodeError";
  constructor(
    readonly reason: WatchDecodeErrorReason,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Options of {@link WatchEventDecoder}. */
export interface WatchEventDecoderOptions {
  /**
   * Longest line accepted, in UTF-16 code units; a longer line fails with `LineTooLong` (guards
   * memory against a broken server).
   * @defaultValue 67108864 (64 Mi)
   */
  readonly maxLineLength?: number;
}

function parseEvent(line: string): WatchEvent {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    throw new WatchDecodeError("MalformedJSON", `malformed watch event: ${(e as Error).message}`, { cause: e });
  }
  if (!isObject(value)) throw new WatchDecodeError("InvalidEvent", "malformed watch event: not a JSON object");
  if (!isWatchEventType(value.type)) {
    throw new WatchDecodeError("InvalidEvent", `malformed watch event: unknown event type ${JSON.stringify(value.type ?? null)}`);
  }
  if (!isObject(value.object)) throw new WatchDecodeError("InvalidEvent", `malformed watch event: ${value.type} event has no object`);
  return { type: value.type, object: value.object };
}

/**
 * Incremental decoder for a watch response body: feed it chunks as they arrive (strings or
 * UTF-8 bytes, split anywhere, even inside a character) and it returns the complete events.
 * Lines are separated by `\n` (a trailing `\r` is ignored); blank lines are skipped.
 *
 * `push` and `end` throw {@link WatchDecodeError} for a line that is not JSON (`MalformedJSON`),
 * not an event with a known `type` and an object `object` (`InvalidEvent`), or too long
 * (`LineTooLong`); the bad line is dropped, so decoding may continue with the next push. `end`
 * decodes a final line without newline and throws `TruncatedStream` if it is incomplete.
 *
 * @example
 * const d = new WatchEventDecoder();
 * for await (const chunk of response.body) for (const ev of d.push(chunk)) handle(ev);
 * for (const ev of d.end()) handle(ev);
 */
export class WatchEventDecoder {
  private buffer = "";
  private readonly utf8 = new TextDecoder("utf-8");
  private readonly maxLineLength: number;

  constructor(options: WatchEventDecoderOptions = {}) {
    this.maxLineLength = options.maxLineLength ?? 64 * 1024 * 1024;
  }

  /** Adds a chunk; returns the events completed by it (possibly none). */
  push(chunk: string | Uint8Array): WatchEvent[] {
    this.buffer += typeof chunk === "string" ? chunk : this.utf8.decode(chunk, { stream: true });
    const events: WatchEvent[] = [];
    for (;;) {
      const nl = this.buffer.indexOf("\n");
      if (nl < 0) break;
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      const event = this.decodeLine(line);
      if (event) events.push(event);
    }
    if (this.buffer.length > this.maxLineLength) {
      this.buffer = "";
      throw new WatchDecodeError("LineTooLong", `watch event longer than ${this.maxLineLength} characters`);
    }
    return events;
  }

  /** Ends the stream: decodes what remains (a last event without newline). */
  end(): WatchEvent[] {
    const rest = this.buffer + this.utf8.decode();
    this.buffer = "";
    if (rest.trim() === "") return [];
    try {
      const event = this.decodeLine(rest);
      return event ? [event] : [];
    } catch (e) {
      if (e instanceof WatchDecodeError && e.reason === "MalformedJSON") {
        throw new WatchDecodeError("TruncatedStream", "watch stream ended in the middle of an event", { cause: e });
      }
      throw e;
    }
  }

  private decodeLine(raw: string): WatchEvent | undefined {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.length > this.maxLineLength) throw new WatchDecodeError("LineTooLong", `watch event longer than ${this.maxLineLength} characters`);
    if (line.trim() === "") return undefined;
    return parseEvent(line);
  }
}

/**
 * Decodes a whole watch body (an async iterable of chunks, such as a fetch body or a Node
 * stream) into events, ending with the stream. Errors as for {@link WatchEventDecoder}.
 */
export async function* decodeWatchStream(source: AsyncIterable<string | Uint8Array>, options: WatchEventDecoderOptions = {}): AsyncGenerator<WatchEvent> {
  const decoder = new WatchEventDecoder(options);
  for await (const chunk of source) yield* decoder.push(chunk);
  yield* decoder.end();
}
