import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatCRILogLine, formatRFC3339Nano, parseCRILogLine } from "./log-format.js";

describe("formatRFC3339Nano", () => {
  it.each([
    [1475713029669794202n, "2016-10-06T00:17:09.669794202Z"],
    [1475713029669794200n, "2016-10-06T00:17:09.6697942Z"],
    [1475713029000000000n, "2016-10-06T00:17:09Z"],
    [0n, "1970-01-01T00:00:00Z"],
    [1n, "1970-01-01T00:00:00.000000001Z"],
  ])("formats %s ns as %s", (ns, text) => {
    expect(formatRFC3339Nano(ns)).toBe(text);
  });

  it("rejects times it cannot represent", () => {
    expect(() => formatRFC3339Nano(-1n)).toThrow(RangeError);
    expect(() => formatRFC3339Nano(253402300800n * 1_000_000_000n)).toThrow(RangeError);
  });
});

describe("formatCRILogLine", () => {
  it("writes timestamp, stream, tag and content, newline-terminated", () => {
    const full = formatCRILogLine({ timeNs: 1475713029669794202n, stream: "stdout", partial: false, content: "log content 1" });
    expect(full.toString()).toBe("2016-10-06T00:17:09.669794202Z stdout F log content 1\n");
    const partial = formatCRILogLine({ timeNs: 1475713029669794203n, stream: "stderr", partial: true, content: Buffer.from("part") });
    expect(partial.toString()).toBe("2016-10-06T00:17:09.669794203Z stderr P part\n");
  });

  it("keeps bytes that are not UTF-8 as they are", () => {
    const line = formatCRILogLine({ timeNs: 0n, stream: "stdout", partial: false, content: new Uint8Array([0xff, 0xfe]) });
    expect([...line.subarray(-3)]).toEqual([0xff, 0xfe, 0x0a]);
  });

  it("writes an empty line as a full line with empty content", () => {
    expect(formatCRILogLine({ timeNs: 0n, stream: "stdout", partial: false, content: "" }).toString()).toBe("1970-01-01T00:00:00Z stdout F \n");
  });

  it("refuses content with a newline and unknown streams", () => {
    expect(() => formatCRILogLine({ timeNs: 0n, stream: "stdout", partial: false, content: "a\nb" })).toThrow(RangeError);
    expect(() => formatCRILogLine({ timeNs: 0n, stream: "stdin" as "stdout", partial: false, content: "a" })).toThrow(RangeError);
  });
});

describe("parseCRILogLine", () => {
  it("parses the kubelet's examples", () => {
    expect(parseCRILogLine("2016-10-06T00:17:09.669794202Z stdout P log content 1")).toEqual({
      ok: true,
      value: { timestamp: "2016-10-06T00:17:09.669794202Z", timeNs: 1475713029669794202n, stream: "stdout", partial: true, tags: ["P"], content: "log content 1" },
    });
    const full = parseCRILogLine("2016-10-06T00:17:09.669794203Z stderr F log content 2\n");
    expect(full.ok && full.value).toMatchObject({ stream: "stderr", partial: false, content: "log content 2" });
  });

  it("accepts offsets, short fractions, extra tags and empty content", () => {
    const withOffset = parseCRILogLine("2016-10-06T02:17:09.5+02:00 stdout F:x hi there");
    expect(withOffset.ok && withOffset.value).toMatchObject({ timeNs: 1475713029500000000n, tags: ["F", "x"], partial: false, content: "hi there" });
    const negative = parseCRILogLine("2016-10-05T23:47:09-00:30 stdout F x");
    expect(negative.ok && negative.value.timeNs).toBe(1475713029000000000n);
    const empty = parseCRILogLine("2016-10-06T00:17:09Z stdout F ");
    expect(empty.ok && empty.value.content).toBe("");
  });

  it.each([
    ["", "timestamp is not found"],
    ["nonsense", "timestamp is not found"],
    ["2016-10-06 stdout F x", "unexpected timestamp"],
    ["2016-13-06T00:17:09Z stdout F x", "unexpected timestamp"],
    ["2016-02-30T00:17:09Z stdout F x", "unexpected timestamp"],
    ["2016-10-06T00:17:09.1234567890Z stdout F x", "unexpected timestamp"],
    ["2016-10-06T00:17:09Z", "timestamp is not found"],
    ["2016-10-06T00:17:09Z stdin F x", "unexpected stream type"],
    ["2016-10-06T00:17:09Z stdout", "stream type is not found"],
    ["2016-10-06T00:17:09Z stdout F", "log tag is not found"],
  ])("rejects %j", (line, message) => {
    const result = parseCRILogLine(line);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]).toContain(message);
  });

  it("round-trips with formatCRILogLine", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 253402300799999999999n }),
        fc.constantFrom("stdout" as const, "stderr" as const),
        fc.boolean(),
        fc.string().filter((s) => !s.includes("\n")),
        (timeNs, stream, partial, content) => {
          const line = formatCRILogLine({ timeNs, stream, partial, content }).toString("utf8");
          const parsed = parseCRILogLine(line);
          expect(parsed.ok).toBe(true);
          if (parsed.ok) expect(parsed.value).toMatchObject({ timeNs, stream, partial, content: Buffer.from(content, "utf8").toString("utf8") });
        },
      ),
    );
  });
});
