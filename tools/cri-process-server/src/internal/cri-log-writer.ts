import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { formatCRILogLine, type CRILogStream } from "@skiff/cri-api";

/** containerd's default `max_container_log_line_size`: longer lines are cut into P chunks. */
export const maxLogLineBytes = 16 * 1024;

export interface LogSink {
  write(line: Buffer): void;
}

/**
 * Splits one output stream into CRI log lines, the way containerd's CRI logger does: each
 * newline-terminated line becomes an `F` line (a trailing `\r` dropped), a line longer than
 * `maxLineBytes` is written as `P` chunks followed by the rest, and output that ends without a
 * newline is written as a `P` line when the stream ends.
 */
export class CRILineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly stream: CRILogStream,
    private readonly sink: LogSink,
    private readonly now: () => bigint,
    private readonly maxLineBytes = maxLogLineBytes,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline < 0 ? chunk.length : newline;
      this.append(chunk.subarray(start, end));
      if (newline < 0) break;
      this.flush(false);
      start = newline + 1;
    }
  }

  end(): void {
    if (this.pendingBytes > 0) this.flush(true);
  }

  private append(part: Buffer): void {
    let rest = part;
    while (this.pendingBytes + rest.length > this.maxLineBytes) {
      const room = this.maxLineBytes - this.pendingBytes;
      this.pending.push(rest.subarray(0, room));
      this.pendingBytes += room;
      rest = rest.subarray(room);
      const chunk = this.take();
      if (chunk.length > 1 && chunk[chunk.length - 1] === 0x0d) {
        // A "\r\n" may straddle the cut: carry the "\r" over, so the line end is seen whole.
        this.emit(chunk.subarray(0, -1), true);
        rest = Buffer.concat([chunk.subarray(-1), rest]);
      } else {
        this.emit(chunk, true);
      }
    }
    if (rest.length > 0) {
      // Copy: the child's chunk buffers may be reused once this call returns.
      this.pending.push(Buffer.from(rest));
      this.pendingBytes += rest.length;
    }
  }

  private flush(partial: boolean): void {
    let content = this.take();
    if (!partial && content.length > 0 && content[content.length - 1] === 0x0d) content = content.subarray(0, -1);
    this.emit(content, partial);
  }

  private take(): Buffer {
    const content = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    return content;
  }

  private emit(content: Buffer, partial: boolean): void {
    this.sink.write(formatCRILogLine({ timeNs: this.now(), stream: this.stream, partial, content }));
  }
}

/**
 * A container's log file, appended to; `reopen` starts a new file at the same path (after the
 * caller rotated the old one away), as ReopenContainerLog asks.
 */
export class CRILogFile implements LogSink {
  private out: WriteStream;
  private failed: Error | undefined;

  private constructor(
    readonly path: string,
    out: WriteStream,
  ) {
    this.out = out;
    this.watch(out);
  }

  static async open(path: string): Promise<CRILogFile> {
    await mkdir(dirname(path), { recursive: true });
    const out = await openStream(path);
    return new CRILogFile(path, out);
  }

  write(line: Buffer): void {
    if (!this.failed) this.out.write(line);
  }

  async reopen(): Promise<void> {
    const next = await openStream(this.path);
    const previous = this.out;
    this.out = next;
    this.failed = undefined;
    this.watch(next);
    await endStream(previous);
  }

  close(): Promise<void> {
    return endStream(this.out);
  }

  private watch(out: WriteStream): void {
    out.on("error", (err) => {
      if (out === this.out) this.failed = err;
    });
  }
}

function openStream(path: string): Promise<WriteStream> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(path, { flags: "a", mode: 0o640 });
    out.once("open", () => {
      out.off("error", reject);
      resolve(out);
    });
    out.once("error", reject);
  });
}

function endStream(out: WriteStream): Promise<void> {
  if (out.destroyed || out.writableFinished) return Promise.resolve();
  return new Promise((resolve) => {
    out.once("error", () => resolve());
    out.end(() => resolve());
  });
}
