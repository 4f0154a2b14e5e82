/** The stream a CRI log line came from. */
export type CRILogStream = "stdout" | "stderr";

/** One line of a CRI container log file. */
export interface CRILogLine {
  /** The timestamp as written (RFC 3339 with up to 9 fractional digits). */
  timestamp: string;
  /** The timestamp in nanoseconds since the Unix epoch. */
  timeNs: bigint;
  stream: CRILogStream;
  /**
   * `true` for tag `P`: the content continues in the next line of the same stream (a line longer
   * than the runtime's limit, or output that ended without a newline). `false` for `F`.
   */
  partial: boolean;
  /** The tag field split on `:`; the first tag is `P` or `F`, later ones are reserved. */
  tags: string[];
  /** The log content, without the line terminator. */
  content: string;
}

/** What {@link formatCRILogLine} writes. */
export interface CRILogEntry {
  /** Nanoseconds since the Unix epoch; must be ≥ 0. */
  timeNs: bigint;
  stream: CRILogStream;
  partial: boolean;
  /** Bytes or text of the line, without a newline. */
  content: string | Uint8Array;
}

/** Result of {@link parseCRILogLine}. */
export type ParseCRILogLineResult = { ok: true; value: CRILogLine } | { ok: false; errors: string[] };

const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

/**
 * Formats a time in nanoseconds as Go's `time.RFC3339Nano` does in UTC: `2016-10-06T00:17:09.669794202Z`,
 * trailing zeros of the fraction dropped, no fraction at all on a whole second.
 *
 * @throws RangeError when `timeNs` is negative or beyond year 9999.
 */
export function formatRFC3339Nano(timeNs: bigint): string {
  if (timeNs < 0n || timeNs >= 253402300800n * NS_PER_S) {
    throw new RangeError(`formatRFC3339Nano: ${timeNs} ns is outside 1970-01-01..9999-12-31`);
  }
  const seconds = new Date(Number((timeNs / NS_PER_S) * 1000n)).toISOString().slice(0, 19);
  const fraction = (timeNs % NS_PER_S).toString().padStart(9, "0").replace(/0+$/, "");
  return fraction === "" ? `${seconds}Z` : `${seconds}.${fraction}Z`;
}

/**
 * Formats one CRI log line: `<RFC3339Nano> <stream> <P|F> <content>\n`, the format containerd and
 * CRI-O write and the kubelet reads for `kubectl logs`. Does not mutate its input.
 *
 * @throws RangeError when `content` contains a newline (split it into lines first) or `timeNs`
 *   is out of range.
 * @see pkg/kubelet/kuberuntime/logs/logs.go (`parseCRILog`, the reader)
 * @example
 * ```ts
 * formatCRILogLine({ timeNs: 1475713029669794202n, stream: "stdout", partial: false, content: "hello" }).toString();
 * // "2016-10-06T00:17:09.669794202Z stdout F hello\n"
 * ```
 */
export function formatCRILogLine(entry: CRILogEntry): Buffer {
  const content = typeof entry.content === "string" ? Buffer.from(entry.content, "utf8") : Buffer.from(entry.content.buffer, entry.content.byteOffset, entry.content.byteLength);
  if (content.includes(0x0a)) {
    throw new RangeError("formatCRILogLine: content contains a newline; write one entry per line");
  }
  if (entry.stream !== "stdout" && entry.stream !== "stderr") {
    throw new RangeError(`formatCRILogLine: unknown stream ${JSON.stringify(entry.stream)}`);
  }
  const head = `${formatRFC3339Nano(entry.timeNs)} ${entry.stream} ${entry.partial ? "P" : "F"} `;
  return Buffer.concat([Buffer.from(head, "latin1"), content, Buffer.from("\n", "latin1")]);
}

const timestampPattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

function parseTimestamp(text: string): bigint | undefined {
  const m = timestampPattern.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(ms).getUTCDate() !== day) return undefined;
  let offsetMinutes = 0;
  const zone = m[8] ?? "Z";
  if (zone !== "Z") {
    const hours = Number(zone.slice(1, 3));
    const minutes = Number(zone.slice(4, 6));
    if (hours > 23 || minutes > 59) return undefined;
    offsetMinutes = (zone.startsWith("-") ? -1 : 1) * (hours * 60 + minutes);
  }
  const fraction = BigInt((m[7] ?? "").padEnd(9, "0"));
  return (BigInt(ms) - BigInt(offsetMinutes) * 60_000n) * NS_PER_MS + fraction;
}

/**
 * Parses one line of a CRI log file (a trailing `\n` is ignored), as the kubelet does: the first
 * space ends an RFC 3339 timestamp, the second the stream (`stdout` or `stderr`), the third the
 * tags; the rest is content. A first tag other than `P` counts as a full line, as in the kubelet.
 * Never throws.
 *
 * @see pkg/kubelet/kuberuntime/logs/logs.go (`parseCRILog`)
 */
export function parseCRILogLine(line: string): ParseCRILogLineResult {
  const text = line.endsWith("\n") ? line.slice(0, -1) : line;
  const first = text.indexOf(" ");
  if (first < 0) return { ok: false, errors: ["timestamp is not found"] };
  const timestamp = text.slice(0, first);
  const timeNs = parseTimestamp(timestamp);
  if (timeNs === undefined) return { ok: false, errors: [`unexpected timestamp ${JSON.stringify(timestamp)}: want RFC 3339 with up to 9 fractional digits`] };
  const second = text.indexOf(" ", first + 1);
  if (second < 0) return { ok: false, errors: ["stream type is not found"] };
  const stream = text.slice(first + 1, second);
  if (stream !== "stdout" && stream !== "stderr") return { ok: false, errors: [`unexpected stream type ${JSON.stringify(stream)}`] };
  const third = text.indexOf(" ", second + 1);
  if (third < 0) return { ok: false, errors: ["log tag is not found"] };
  const tags = text.slice(second + 1, third).split(":");
  return { ok: true, value: { timestamp, timeNs, stream, partial: tags[0] === "P", tags, content: text.slice(third + 1) } };
}
