import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger, defaultLoggingOptions, formatKlogHeader } from "./logging.js";

function sinks() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, sinks: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, now: () => new Date(2026, 10, 21, 2, 3, 4, 56) } };
}

describe("createLogger", () => {
  it("writes klog-shaped text lines with key=value fields to stderr", () => {
    const s = sinks();
    createLogger(defaultLoggingOptions, s.sinks).withName("app").info("Started", { port: 10250, name: "n", err: new Error("boom") });
    expect(s.err).toEqual([`${formatKlogHeader("I", new Date(2026, 10, 21, 2, 3, 4, 56), process.pid, "app")}Started port=10250 name="n" err="boom"\n`]);
    expect(s.err[0]).toMatch(/^I1121 02:03:04\.056000 +\d+ app\] /);
  });

  it("honours -v and --vmodule", () => {
    const s = sinks();
    const log = createLogger({ ...defaultLoggingOptions, verbosity: 2, vmodule: [{ pattern: "po*", level: 5 }] }, s.sinks);
    log.v(2).info("a");
    log.v(3).info("b");
    log.withName("pods").v(5).info("c");
    log.withName("pods").v(6).info("d");
    expect(s.err.map((l) => l.slice(l.indexOf("] ") + 2))).toEqual(["a\n", "c\n"]);
    expect(log.v(3).enabled).toBe(false);
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

  it("writes to --log-file when --logtostderr=false, errors also to stderr", () => {
    const s = sinks();
    const file = join(mkdtempSync(join(tmpdir(), "na-log-")), "a.log");
    const log = createLogger({ ...defaultLoggingOptions, logtostderr: false, logFile: file, skipHeaders: true }, s.sinks);
    log.info("to file");
    log.error("to both");
    expect(readFileSync(file, "utf8")).toBe("to file\nto both\n");
    expect(s.err).toEqual(["to both\n"]);
  });

  it("writes nodeagent.log in --log-dir, and everything to stderr too with --alsologtostderr", () => {
    const s = sinks();
    const dir = join(mkdtempSync(join(tmpdir(), "na-log-")), "sub");
    createLogger({ ...defaultLoggingOptions, logtostderr: false, logDir: dir, alsologtostderr: true, skipHeaders: true }, s.sinks).info("x");
    expect(readFileSync(join(dir, "nodeagent.log"), "utf8")).toBe("x\n");
    expect(s.err).toEqual(["x\n"]);
  });
});
