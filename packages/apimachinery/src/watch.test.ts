import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WatchDecodeError, WatchEventDecoder, decodeWatchStream, formatWatchEvent, isWatchEventType, newBookmarkEvent } from "./watch.js";
import type { WatchEvent } from "./watch.js";

const job = { kind: "Job", apiVersion: "batch/v1", metadata: { name: "pi", resourceVersion: "7" } };

function decodeError(fn: () => unknown): WatchDecodeError {
  try {
    fn();
  } catch (e) {
    if (e instanceof WatchDecodeError) return e;
    throw e;
  }
  throw new Error("expected a WatchDecodeError");
}

describe("formatWatchEvent", () => {
  it("writes one JSON line", () => {
    expect(formatWatchEvent({ type: "ADDED", object: job })).toBe(`{"type":"ADDED","object":${JSON.stringify(job)}}\n`);
    expect(formatWatchEvent({ type: "DELETED", object: { a: "x\ny" } })).toBe('{"type":"DELETED","object":{"a":"x\\ny"}}\n');
  });
});

describe("newBookmarkEvent", () => {
  it("carries only kind, apiVersion and resourceVersion", () => {
    expect(newBookmarkEvent({ apiVersion: "batch/v1", kind: "Job" }, "1234")).toEqual({
      type: "BOOKMARK",
      object: { kind: "Job", apiVersion: "batch/v1", metadata: { resourceVersion: "1234" } },
    });
  });
});

describe("isWatchEventType", () => {
  it("accepts exactly the five types", () => {
    for (const t of ["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]) expect(isWatchEventType(t)).toBe(true);
    for (const t of ["added", "", "SYNC", 1, null]) expect(isWatchEventType(t)).toBe(false);
  });
});

describe("WatchEventDecoder", () => {
  const events: WatchEvent[] = [
    { type: "ADDED", object: job },
    { type: "MODIFIED", object: { ...job, status: { succeeded: 1, note: "héllo ✓" } } },
    newBookmarkEvent({ apiVersion: "batch/v1", kind: "Job" }, "9"),
    { type: "ERROR", object: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410, message: "too old" } },
    { type: "DELETED", object: job },
  ];
  const text = events.map(formatWatchEvent).join("");

  it("decodes a whole stream", () => {
    const d = new WatchEventDecoder();
    expect([...d.push(text), ...d.end()]).toEqual(events);
  });

  it("decodes bytes split anywhere, even inside a UTF-8 character", () => {
    const bytes = new TextEncoder().encode(text);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 20 }), (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
        const d = new WatchEventDecoder();
        const out: WatchEvent[] = [];
        for (let i = 0; i + 1 < points.length; i++) out.push(...d.push(bytes.subarray(points[i], points[i + 1])));
        out.push(...d.end());
        expect(out).toEqual(events);
      }),
    );
  });

  it("returns events as soon as their line is complete", () => {
    const d = new WatchEventDecoder();
    const line = formatWatchEvent(events[0]!);
    expect(d.push(line.slice(0, 10))).toEqual([]);
    expect(d.push(line.slice(10))).toEqual([events[0]]);
  });

  it("accepts CRLF, blank lines and a last line without newline", () => {
    const d = new WatchEventDecoder();
    const crlf = `\r\n${JSON.stringify(events[0])}\r\n\n`;
    expect(d.push(crlf)).toEqual([events[0]]);
    expect(d.push(JSON.stringify(events[1]))).toEqual([]);
    expect(d.end()).toEqual([events[1]]);
    expect(d.end()).toEqual([]);
  });

  it("rejects malformed lines with a typed error and continues after them", () => {
    const d = new WatchEventDecoder();
    const bad = decodeError(() => d.push("{not json\n"));
    expect(bad.reason).toBe("MalformedJSON");
    expect(bad.message).toMatch(/^malformed watch event: /);
    expect(d.push(formatWatchEvent(events[0]!))).toEqual([events[0]]);
  });

  it("rejects JSON that is not an event", () => {
    const cases: Array<[string, string]> = [
      ["[1]", "malformed watch event: not a JSON object"],
      ['{"object":{}}', "malformed watch event: unknown event type null"],
      ['{"type":"SYNC","object":{}}', 'malformed watch event: unknown event type "SYNC"'],
      ['{"type":"ADDED"}', "malformed watch event: ADDED event has no object"],
      ['{"type":"ADDED","object":"x"}', "malformed watch event: ADDED event has no object"],
    ];
    for (const [line, message] of cases) {
      const e = decodeError(() => new WatchEventDecoder().push(`${line}\n`));
      expect(e.reason).toBe("InvalidEvent");
      expect(e.message).toBe(message);
    }
  });

  it("reports a stream cut in the middle of an event", () => {
    const d = new WatchEventDecoder();
    d.push('{"type":"ADDED","obj');
    const e = decodeError(() => d.end());
    expect(e.reason).toBe("TruncatedStream");
    expect(e.cause).toBeInstanceOf(WatchDecodeError);
  });

  it("limits line length", () => {
    const d = new WatchEventDecoder({ maxLineLength: 20 });
    expect(decodeError(() => d.push("x".repeat(21))).reason).toBe("LineTooLong");
    expect(decodeError(() => d.push(`${"y".repeat(25)}\n`)).reason).toBe("LineTooLong");
    const small = new WatchEventDecoder({ maxLineLength: 40 });
    expect(small.push('{"type":"ADDED","object":{}}\n')).toEqual([{ type: "ADDED", object: {} }]);
  });
});

describe("decodeWatchStream", () => {
  it("decodes an async iterable of chunks", async () => {
    const text = formatWatchEvent({ type: "ADDED", object: job }) + formatWatchEvent({ type: "DELETED", object: job }).trimEnd();
    async function* chunks() {
      yield text.slice(0, 5);
      yield new TextEncoder().encode(text.slice(5));
    }
    const out: WatchEvent[] = [];
    for await (const e of decodeWatchStream(chunks())) out.push(e);
    expect(out).toEqual([
      { type: "ADDED", object: job },
      { type: "DELETED", object: job },
    ]);
  });

  it("propagates decode errors", async () => {
    async function* chunks() {
      yield "oops\n";
    }
    await expect(async () => {
      for await (const _ of decodeWatchStream(chunks())) void _;
    }).rejects.toThrow(WatchDecodeError);
  });
});
