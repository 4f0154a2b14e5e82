/**
 * Span tracing to a JSON-lines file: each component (apiserver, job controller, scheduler, node
 * agent) appends one record per finished span — its component, span name, the pod it concerns and
 * its start and end in wall-clock milliseconds — so a benchmark can join the records of every
 * process into a per-pod timeline. Kubernetes' components trace with OpenTelemetry
 * (`--tracing-config-file`, alpha in 1.23); this is the same idea without an exporter: the
 * file is opened in append mode and written in whole lines, so several processes may share one.
 *
 * Turned on by the environment variable {@link traceFileEnv} (`SKIFF_TRACE_FILE=<path>`); the node
 * agent's flags are fixed by its spec, so every component takes the variable rather than a flag.
 *
 * @see staging/src/k8s.io/component-base/traces/utils.go in kubernetes/kubernetes v1.23
 * @see staging/src/k8s.io/utils/trace (utiltrace: step timings of one request) in kubernetes/kubernetes v1.23
 */
import { appendFileSync } from "node:fs";

/** The environment variable naming the trace file. */
export const traceFileEnv = "SKIFF_TRACE_FILE";

/** What a span concerns, beside its name and times. All optional. */
export interface TraceFields {
  /** The pod's `namespace/name`. */
  readonly pod?: string;
  /** The pod's UID. */
  readonly uid?: string;
  /** Several pods' UIDs (a span covering a batch, e.g. a Job status write). */
  readonly uids?: readonly string[];
  /** The Job's `namespace/name`. */
  readonly job?: string;
  /** Free attributes: a phase, an HTTP code, a node name. */
  readonly attrs?: Readonly<Record<string, string | number | boolean>>;
}

/** One line of a trace file. `start` and `end` are wall-clock milliseconds (fractional). */
export interface TraceRecord extends TraceFields {
  readonly component: string;
  readonly span: string;
  readonly start: number;
  readonly end: number;
}

/** Records spans of one component. */
export interface Tracer {
  /** Whether records are kept (false: every call is a no-op; skip building fields). */
  readonly enabled: boolean;
  /** The wall clock in fractional milliseconds (`performance.timeOrigin + performance.now()`). */
  now(): number;
  /** Records a finished span. `start` and `end` come from {@link Tracer.now}. */
  record(span: string, start: number, end: number, fields?: TraceFields): void;
  /** Writes buffered records to the file now (they are written every 200 ms and at exit). */
  flush(): void;
}

const wallNow = (): number => performance.timeOrigin + performance.now();

/** A tracer that keeps nothing. */
export const noopTracer: Tracer = Object.freeze({ enabled: false, now: wallNow, record: () => undefined, flush: () => undefined });

/**
 * A tracer appending to `path` as `component`. Records are buffered and appended every 200 ms
 * (an unref'd timer) and synchronously at process exit; a failing write drops the buffer and
 * reports once through `onError` (tracing never stops a component).
 * @example
 * const tracer = newFileTracer("/tmp/trace.jsonl", "scheduler");
 * const t0 = tracer.now();
 * await bind();
 * tracer.record("bind", t0, tracer.now(), { pod: "default/p", uid });
 */
export function newFileTracer(path: string, component: string, onError: (e: unknown) => void = () => undefined): Tracer {
  let buffer: string[] = [];
  let failed = false;
  const flush = (): void => {
    if (buffer.length === 0) return;
    const text = buffer.join("");
    buffer = [];
    try {
      appendFileSync(path, text);
    } catch (e) {
      if (!failed) onError(e);
      failed = true;
    }
  };
  const timer = setInterval(flush, 200);
  timer.unref();
  process.once("exit", flush);
  return {
    enabled: true,
    now: wallNow,
    record(span, start, end, fields) {
      buffer.push(`${JSON.stringify({ component, span, start: round(start), end: round(end), ...fields })}\n`);
      if (buffer.length >= 1000) flush();
    },
    flush,
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

const byComponent = new Map<string, Tracer>();

/**
 * The process's tracer for `component`: a file tracer on `$SKIFF_TRACE_FILE` when it is set and
 * not empty, else {@link noopTracer}. One tracer per component per process (later calls return it).
 */
export function tracerFromEnv(component: string, env: Readonly<Record<string, string | undefined>> = process.env, onError?: (e: unknown) => void): Tracer {
  const path = env[traceFileEnv];
  if (path === undefined || path === "") return noopTracer;
  const key = `${component}\0${path}`;
  let t = byComponent.get(key);
  if (!t) {
    t = newFileTracer(path, component, onError);
    byComponent.set(key, t);
  }
  return t;
}

/**
 * The records of a trace file's text, in file order. Lines that are not a record (torn, blank,
 * another shape) are skipped. Pure.
 */
export function parseTraceRecords(text: string): TraceRecord[] {
  const out: TraceRecord[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const r = JSON.parse(line) as Partial<TraceRecord>;
      if (typeof r.component === "string" && typeof r.span === "string" && typeof r.start === "number" && typeof r.end === "number") out.push(r as TraceRecord);
    } catch {
      // a torn line: skip
    }
  }
  return out;
}
