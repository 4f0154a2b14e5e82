import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { newFileTracer, noopTracer, parseTraceRecords, tracerFromEnv } from "./trace.js";

describe("trace", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const tmp = (): string => {
    const d = mkdtempSync(join(tmpdir(), "skiff-trace-"));
    dirs.push(d);
    return d;
  };

  it("appends one JSON line per span, with component, name, pod fields and times", () => {
    const file = join(tmp(), "t.jsonl");
    const a = newFileTracer(file, "scheduler");
    const b = newFileTracer(file, "nodeagent");
    a.record("bind", 10.5, 12.25, { pod: "default/p", uid: "u1" });
    b.record("sandbox", 13, 20, { uid: "u1", attrs: { node: "n" } });
    a.flush();
    b.flush();
    const records = parseTraceRecords(readFileSync(file, "utf8"));
    expect(records).toEqual([
      { component: "scheduler", span: "bind", start: 10.5, end: 12.25, pod: "default/p", uid: "u1" },
      { component: "nodeagent", span: "sandbox", start: 13, end: 20, uid: "u1", attrs: { node: "n" } },
    ]);
  });

  it("is off without SKIFF_TRACE_FILE, and one tracer per component with it", () => {
    expect(tracerFromEnv("apiserver", {})).toBe(noopTracer);
    expect(tracerFromEnv("apiserver", { SKIFF_TRACE_FILE: "" }).enabled).toBe(false);
    const file = join(tmp(), "t.jsonl");
    const t = tracerFromEnv("apiserver", { SKIFF_TRACE_FILE: file });
    expect(t.enabled).toBe(true);
    expect(tracerFromEnv("apiserver", { SKIFF_TRACE_FILE: file })).toBe(t);
  });

  it("skips torn and foreign lines when parsing", () => {
    expect(parseTraceRecords('{"component":"a","span":"s","start":1,"end":2}\n{"comp\n\n{"x":1}\n')).toEqual([{ component: "a", span: "s", start: 1, end: 2 }]);
  });

  it("reports a failing write once and keeps going", () => {
    const errors: unknown[] = [];
    const t = newFileTracer(join(tmp(), "missing-dir", "t.jsonl"), "x", (e) => errors.push(e));
    t.record("a", 1, 2);
    t.flush();
    t.record("b", 1, 2);
    t.flush();
    expect(errors).toHaveLength(1);
  });
});
