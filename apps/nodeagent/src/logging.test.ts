import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { formatGoQuoted as quoteGoString } from "@skiff/flags";
import { createLogger, defaultLoggingOptions, formatKlogHeader, formatLogFileHeader, formatStructuredMessage } from "./logging.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "na-log-"));
  dirs.push(dir);
  return dir;
}

function sinks() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, sinks: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, now: () => new Date(2026, 10, 21, 2, 3, 4, 56) } };
}

describe("createLogger", () => {
  it("writes klog-shaped structured lines: message quoted, then key=value fields, to stderr", () => {
    const s = sinks();
    createLogger(defaultLoggingOptions, s.sinks).withName("app").info("Started", { port: 10250, name: "n", err: new Error("boom") });
    expect(s.err).toEqual([`${formatKlogHeader("I", new Date(2026, 10, 21, 2, 3, 4, 56), process.pid, "app")}"Started" port=10250 name="n" err="boom"\n`]);
    expect(s.err[0]).toMatch(/^I1121 02:03:04\.056000 +\d+ app\] "Started" /);
  });

  it("quotes the message even without fields, as klog.InfoS (\"Started pod\" pod=...)", () => {
    const s = sinks();
    const log = createLogger({ ...defaultLoggingOptions, skipHeaders: true }, s.sinks);
    log.info("Started pod", { pod: "default/web-n1", phase: "Running" });
    log.info("No api server defined - no events will be sent to API server");
    log.warning("a \"quoted\" word");
    expect(s.err).toEqual(['"Started pod" pod="default/web-n1" phase="Running"\n', '"No api server defined - no events will be sent to API server"\n', '"a \\"quoted\\" word"\n']);
  });

  it("writes err first on error lines, as klog.ErrorS(err, msg, ...)", () => {
    const s = sinks();
    const log = createLogger({ ...defaultLoggingOptions, skipHeaders: true }, s.sinks);
    log.error("Failed to run nodeagent", { path: "/x", err: new Error("failed to run Nodeagent: no") });
    log.info("Failed to get cgroup", { path: "/x", err: "e" });
    expect(s.err).toEqual(['"Failed to run nodeagent" err="failed to run Nodeagent: no" path="/x"\n', '"Failed to get cgroup" path="/x" err="e"\n']);
  });

  it("writes unstructured lines (klog Infof, the FLAG: lines) unquoted, honouring -v", () => {
    const s = sinks();
    const log = createLogger({ ...defaultLoggingOptions, verbosity: 1, skipHeaders: true }, s.sinks);
    log.v(1).infoText('FLAG: --port="10250"');
    log.v(2).infoText("hidden");
    log.infoText("plain");
    expect(s.err).toEqual(['FLAG: --port="10250"\n', "plain\n"]);
  });

  it("formats values like klog: strings %q, numbers and bools bare, null as <nil>, objects as JSON", () => {
    expect(formatStructuredMessage("m", { s: "a b", n: 1.5, b: false, z: null, u: undefined, o: { a: 1 }, big: 10n })).toBe('"m" s="a b" n=1.5 b=false z=<nil> u=<nil> o={"a":1} big=10');
    expect(formatStructuredMessage("m")).toBe('"m"');
  });

  it("writes to --log-file when --logtostderr=false, errors also to stderr", () => {
    const s = sinks();
    const file = join(tempDir(), "a.log");
    const log = createLogger({ ...defaultLoggingOptions, logtostderr: false, logFile: file, skipHeaders: true, skipLogHeaders: true }, s.sinks);
    log.info("to file");
    log.error("to both");
    expect(readFileSync(file, "utf8")).toBe('"to file"\n"to both"\n');
    expect(s.err).toEqual(['"to both"\n']);
  });

  it("writes nodeagent.log in --log-dir, and everything to stderr too with --alsologtostderr", () => {
    const s = sinks();
    const dir = join(tempDir(), "sub");
    createLogger({ ...defaultLoggingOptions, logtostderr: false, logDir: dir, alsologtostderr: true, skipHeaders: true, skipLogHeaders: true }, s.sinks).info("x");
    expect(readFileSync(join(dir, "nodeagent.log"), "utf8")).toBe('"x"\n');
    expect(s.err).toEqual(['"x"\n']);
  });

  it("starts a log file, and each rotated one, with klog's header block unless --skip-log-headers", () => {
    const s = sinks();
    const dir = mkdtempSync(join(tmpdir(), "na-log-"));
    try {
      const file = join(dir, "a.log");
      const header = formatLogFileHeader(new Date(2026, 10, 21, 2, 3, 4, 56));
      expect(header).toMatch(/^Log file created at: 2026\/11\/21 02:03:04\nRunning on machine: .+\nBinary: Built with node v[\d.]+ for \w+\/\w+\nLog line format: \[IWEF\]mmdd hh:mm:ss.uuuuuu threadid logger\] msg\n$/);
      const log = createLogger({ ...defaultLoggingOptions, logtostderr: false, logFile: file, skipHeaders: true, logFileMaxSizeMB: 1 }, s.sinks);
      log.info("a");
      log.info("b");
      expect(readFileSync(file, "utf8")).toBe(`${header}"a"\n"b"\n`);
      log.info("x".repeat(1024 * 1024));
      expect(readFileSync(`${file}.1`, "utf8")).toBe(`${header}"a"\n"b"\n`);
      expect(readFileSync(file, "utf8").startsWith(`${header}"xxx`)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("honours -v and --vmodule", () => {
    const s = sinks();
    const log = createLogger({ ...defaultLoggingOptions, verbosity: 2, vmodule: [{ pattern: "po*", level: 5 }] }, s.sinks);
    log.v(2).info("a");
    log.v(3).info("b");
    log.withName("pods").v(5).info("c");
    log.withName("pods").v(6).info("d");
    expect(s.err.map((l) => l.slice(l.indexOf("] ") + 2))).toEqual(['"a"\n', '"c"\n']);
    expect(log.v(3).enabled).toBe(false);
  });

  it("setVerbosity changes -v of the root and of named loggers while running (PUT /debug/flags/v); --vmodule matches keep theirs", () => {
    const s = sinks();
    const log = createLogger({ ...defaultLoggingOptions, verbosity: 0, vmodule: [{ pattern: "pods", level: 1 }] }, s.sinks);
    const app = log.withName("app");
    app.v(3).info("hidden");
    log.setVerbosity(3);
    app.v(3).info("shown");
    log.withName("pods").v(2).info("module level stays 1");
    expect(app.v(3).enabled).toBe(true);
    expect(s.err.map((l) => l.slice(l.indexOf("] ") + 2))).toEqual(['"shown"\n']);
  });

  it("writes JSON lines with ts, v and msg; errors without v; split streams", () => {
    const s = sinks();
    const log = createLogger({ ...defaultLoggingOptions, format: "json", jsonSplitStream: true }, s.sinks);
    log.info("hello", { a: 1 });
    log.error("bad", { err: new Error("x") });
    expect(JSON.parse(s.out[0]!)).toEqual({ ts: new Date(2026, 10, 21, 2, 3, 4, 56).getTime() / 1000, v: 0, logger: "nodeagent", msg: "hello", a: 1 });
    expect(JSON.parse(s.err[0]!)).toMatchObject({ msg: "bad", err: "x" });
    expect(JSON.parse(s.err[0]!)).not.toHaveProperty("v");
  });
});

describe("quoteGoString (Go strconv.Quote)", () => {
  it("escapes quotes, backslashes and controls as Go does", () => {
    expect(quoteGoString('say "hi"\\')).toBe('"say \\"hi\\"\\\\"');
    expect(quoteGoString("a\nb\tc\rd\u0007\b\f\v")).toBe('"a\\nb\\tc\\rd\\a\\b\\f\\v"');
    expect(quoteGoString("\u0000\u001b\u007f")).toBe('"\\x00\\x1b\\x7f"');
  });

  it("keeps printable Unicode, escapes non-printable code points", () => {
    expect(quoteGoString("héllo 世界 😀")).toBe('"héllo 世界 😀"');
    expect(quoteGoString("\u0085\u00a0\u2028\u{e0001}")).toBe('"\\u0085\\u00a0\\u2028\\U000e0001"');
    expect(quoteGoString("\ud800")).toBe('"\ufffd"');
  });

  it("always yields one double-quoted line that JSON-like unescaping turns back into the input (ASCII)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary-ascii" }), (text) => {
        const q = quoteGoString(text);
        expect(q.startsWith('"') && q.endsWith('"')).toBe(true);
        expect(q).not.toMatch(/[\n\r]/);
        const back = q.slice(1, -1).replace(/\\(x[0-9a-f]{2}|[abfnrtv"\\])/g, (_m, e: string) =>
          e.startsWith("x") ? String.fromCharCode(Number.parseInt(e.slice(1), 16)) : ({ a: "\u0007", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", '"': '"', "\\": "\\" } as Record<string, string>)[e] ?? "",
        );
        expect(back).toBe(text);
      }),
    );
  });
});
