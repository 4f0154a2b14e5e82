/**
 * The node agent's logger, configured by the logging flags: `-v`, `--vmodule`,
 * `--logging-format text|json`, `--log-file`, `--log-dir`, `--logtostderr`,
 * `--alsologtostderr`, `--stderrthreshold`, `--skip-headers`, `--skip-log-headers`,
 * `--log-file-max-size`, `--log-json-split-stream`. (`--add-dir-header`, `--log-backtrace-at`,
 * `--one-output` and a non-zero `--log-json-info-buffer-size` are refused at start-up: see
 * `options/unsupported.ts`.)
 *
 * Text lines are shaped like klog's structured ones: `I1121 02:33:46.123456    4711 pods] "Message" key="value"`
 * (severity letter, month+day, time with microseconds, pid, the logger's name instead of
 * `file:line`). JSON lines are `{"ts":<unix seconds>,"v":<level>,"logger":<name>,"msg":...,...fields}`
 * (errors carry `"err"` and no `v`), one per line, as component-base's JSON format.
 * Verbosity: a `V(n)` message is written when `n <= -v`, or when a `--vmodule` pattern matching
 * the logger's name allows it (klog matches file names; here the names are `app`, `pods`,
 * `server`, ...; patterns are globs with `*` and `?`).
 *
 * @see k8s.io/klog/v2 klog.go (`header`, `output`), staging/src/k8s.io/component-base/logs/json in kubernetes/kubernetes v1.23
 */
import { appendFileSync, mkdirSync, renameSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { formatGoQuoted } from "@skiff/flags";
import type { ModulePattern } from "@skiff/flags";

/** Something lines can be written to. */
export interface LineSink {
  write(text: string): unknown;
}

/** The logging settings (from the flags and the config file's `logging`). */
export interface LoggingOptions {
  /** `-v`. @defaultValue 0 */
  readonly verbosity: number;
  /** `--vmodule`. */
  readonly vmodule: readonly ModulePattern[];
  /** `text` or `json`. @defaultValue "text" */
  readonly format: string;
  /** `--logtostderr`. @defaultValue true */
  readonly logtostderr: boolean;
  /** `--alsologtostderr`. */
  readonly alsologtostderr: boolean;
  /** `--log-file`. */
  readonly logFile: string;
  /** `--log-dir`: file `nodeagent.log` in it, when `--log-file` is empty. */
  readonly logDir: string;
  /** `--log-file-max-size` in MB; 0 is unlimited. Beyond it the file is renamed to `<file>.1`. @defaultValue 1800 */
  readonly logFileMaxSizeMB: number;
  /** `--stderrthreshold` (0 INFO, 1 WARNING, 2 ERROR): with file output, lines at or above go to stderr too. @defaultValue 2 */
  readonly stderrthreshold: number;
  /** `--skip-headers`. */
  readonly skipHeaders: boolean;
  /**
   * `--skip-log-headers`: no header block ("Log file created at: ...") when a log file is opened
   * or rotated. @defaultValue false
   */
  readonly skipLogHeaders?: boolean;
  /** `--log-json-split-stream`: in JSON format, info lines to stdout and errors to stderr. */
  readonly jsonSplitStream: boolean;
}

/**
 * A structured logger (klog's `InfoS`/`ErrorS`): text lines carry the message quoted and the
 * fields as `key="value"`; JSON lines carry them as members. `infoText` writes an unstructured line
 * (klog's `Infof`, as `FLAG: --name="value"`), unquoted.
 */
export interface Logger {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  /** An unstructured info line (klog `Infof`): the text as it is, no quotes, no fields. */
  infoText(text: string): void;
  warning(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
  /** A logger whose `info` writes only when verbosity `level` is enabled for this logger. */
  v(level: number): Pick<Logger, "info" | "infoText"> & { readonly enabled: boolean };
  /** A logger named `name` (matched by `--vmodule`). */
  withName(name: string): Logger;
}

/**
 * The root logger {@link createLogger} returns: a {@link Logger} whose verbosity can be changed
 * while running (the `-v` level of it and of every logger named from it; `--vmodule` matches
 * keep theirs), as klog's `Level.Set` behind `PUT /debug/flags/v`.
 * @see staging/src/k8s.io/component-base/logs/logs.go (`GlogSetter`) in kubernetes/kubernetes v1.23
 */
export interface RootLogger extends Logger {
  /** Sets the `-v` level (an integer) for every logger of this tree. */
  setVerbosity(level: number): void;
}

/**
 * The block klog writes at the top of a log file it opens (unless `--skip-log-headers`): creation
 * time (local, `2006/01/02 15:04:05`), host, binary and line format; the line format names the
 * logger where klog names `file:line`.
 * @see k8s.io/klog/v2 klog.go (`syncBuffer.rotateFile`)
 */
export function formatLogFileHeader(date: Date, host: string = hostname()): string {
  const p = (n: number): string => String(n).padStart(2, "0");
  const created = `${date.getFullYear()}/${p(date.getMonth() + 1)}/${p(date.getDate())} ${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}`;
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  return (
    `Log file created at: ${created}\n` +
    `Running on machine: ${host}\n` +
    `Binary: Built with node ${process.version} for ${process.platform}/${arch}\n` +
    "Log line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid logger] msg\n"
  );
}

type Severity = 0 | 1 | 2;
const severityLetter = ["I", "W", "E"] as const;

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll("?", ".");
  return new RegExp(`^${body}$`);
}

function pad(n: number, width: number, fill = "0"): string {
  return String(n).padStart(width, fill);
}

/** klog's header: `Lmmdd hh:mm:ss.uuuuuu threadid name] `. */
export function formatKlogHeader(severity: "I" | "W" | "E", now: Date, pid: number, name: string): string {
  const us = now.getMilliseconds() * 1000;
  return (
    `${severity}${pad(now.getMonth() + 1, 2)}${pad(now.getDate(), 2)} ` +
    `${pad(now.getHours(), 2)}:${pad(now.getMinutes(), 2)}:${pad(now.getSeconds(), 2)}.${pad(us, 6)} ` +
    `${pad(pid, 7, " ")} ${name}] `
  );
}

function formatValue(v: unknown): string {
  if (typeof v === "string") return formatGoQuoted(v);
  if (v instanceof Error) return formatGoQuoted(v.message);
  if (typeof v === "bigint") return String(v);
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/**
 * Formats `key="value"` pairs as klog's structured text does: strings and errors quoted like Go's
 * `%q`, numbers and booleans bare, `null`/`undefined` as `<nil>`, objects as JSON.
 */
export function formatKeyValues(fields: Readonly<Record<string, unknown>> | undefined): string {
  if (fields === undefined) return "";
  return Object.entries(fields)
    .map(([k, v]) => ` ${k}=${formatValue(v)}`)
    .join("");
}

/**
 * One structured text line after the header, as klog's `InfoS`/`ErrorS` write it: the message
 * quoted (Go `%q`), then the fields; for errors the `err` field comes first, as `ErrorS(err, msg, ...)`
 * puts it.
 *
 * @example
 * ```ts
 * formatStructuredMessage("Started pod", { pod: "default/web" }); // '"Started pod" pod="default/web"'
 * ```
 */
export function formatStructuredMessage(message: string, fields?: Readonly<Record<string, unknown>>, errorFirst = false): string {
  if (fields === undefined) return formatGoQuoted(message);
  const ordered = errorFirst && Object.hasOwn(fields, "err") ? { err: fields.err, ...fields } : fields;
  return `${formatGoQuoted(message)}${formatKeyValues(ordered)}`;
}

/** The outputs a logger writes to. */
export interface LoggingSinks {
  readonly stdout: LineSink;
  readonly stderr: LineSink;
  /** Clock (tests inject one). @defaultValue () => new Date() */
  readonly now?: () => Date;
}

/**
 * Builds the logger for the given options. File output (when `logtostderr` is false and a log
 * file or directory is set) appends synchronously, creating the directory; write errors fall
 * back to stderr.
 *
 * @example
 * ```ts
 * const log = createLogger({ ...defaultLoggingOptions, verbosity: 2 }, { stdout: process.stdout, stderr: process.stderr }).withName("app");
 * log.info("Starting nodeagent", { version: "v1.23.0" });
 * log.v(4).info("detail");
 * ```
 */
export function createLogger(options: LoggingOptions, sinks: LoggingSinks, name = "nodeagent"): RootLogger {
  let verbosity = options.verbosity;
  const now = sinks.now ?? (() => new Date());
  // klog ignores `pattern=0` entries (component-base passes vmodule to klog's own Set).
  const modules = options.vmodule.filter((m) => m.level > 0).map((m) => ({ re: globToRegExp(m.pattern), level: m.level }));
  const json = options.format === "json";
  const filePath = options.logFile !== "" ? options.logFile : options.logDir !== "" ? join(options.logDir, "nodeagent.log") : "";
  const toFile = !json && !options.logtostderr && filePath !== "";
  let fileBroken = false;

  // klog writes a header block each time it opens a log file: at the first line, and after rotation.
  let fileOpened = false;
  const writeFile = (line: string, date: Date): boolean => {
    if (fileBroken) return false;
    try {
      if (options.logFileMaxSizeMB > 0) {
        try {
          if (statSync(filePath).size + line.length > options.logFileMaxSizeMB * 1024 * 1024) {
            renameSync(filePath, `${filePath}.1`);
            fileOpened = false;
          }
        } catch {
          // No file yet.
        }
      }
      const header = fileOpened || options.skipLogHeaders === true ? "" : formatLogFileHeader(date);
      fileOpened = true;
      appendFileSync(filePath, header + line);
      return true;
    } catch {
      fileBroken = true;
      return false;
    }
  };
  if (toFile && options.logFile === "" && options.logDir !== "") {
    try {
      mkdirSync(options.logDir, { recursive: true });
    } catch {
      fileBroken = true;
    }
  }

  const emit = (severity: Severity, level: number, loggerName: string, message: string, fields?: Readonly<Record<string, unknown>>, structured = true): void => {
    const date = now();
    if (json) {
      const entry: Record<string, unknown> = { ts: date.getTime() / 1000 };
      if (severity < 2) entry.v = level;
      entry.logger = loggerName;
      entry.msg = message;
      for (const [k, v] of Object.entries(fields ?? {})) entry[k] = v instanceof Error ? v.message : typeof v === "bigint" ? String(v) : v;
      const line = `${JSON.stringify(entry)}\n`;
      (options.jsonSplitStream && severity < 2 ? sinks.stdout : sinks.stderr).write(line);
      return;
    }
    const header = options.skipHeaders ? "" : formatKlogHeader(severityLetter[severity], date, process.pid, loggerName);
    const body = structured ? formatStructuredMessage(message, fields, severity === 2) : message;
    const line = `${header}${body}\n`;
    if (!toFile) {
      sinks.stderr.write(line);
      return;
    }
    const written = writeFile(line, date);
    if (!written || options.alsologtostderr || severity >= options.stderrthreshold) sinks.stderr.write(line);
  };

  const make = (loggerName: string): Logger => {
    const moduleLevel = modules.find((m) => m.re.test(loggerName))?.level;
    const enabled = (level: number): boolean => level <= (moduleLevel ?? verbosity);
    return {
      info: (m, f) => emit(0, 0, loggerName, m, f),
      infoText: (t) => emit(0, 0, loggerName, t, undefined, false),
      warning: (m, f) => emit(1, 0, loggerName, m, f),
      error: (m, f) => emit(2, 0, loggerName, m, f),
      v(level) {
        const on = enabled(level);
        return {
          enabled: on,
          info: (m, f) => (on ? emit(0, level, loggerName, m, f) : undefined),
          infoText: (t) => (on ? emit(0, level, loggerName, t, undefined, false) : undefined),
        };
      },
      withName: (n) => make(n),
    };
  };
  return {
    ...make(name),
    setVerbosity: (level) => {
      verbosity = level;
    },
  };
}

/** Logging options with every flag at its default. */
export const defaultLoggingOptions: LoggingOptions = Object.freeze({
  verbosity: 0,
  vmodule: [],
  format: "text",
  logtostderr: true,
  alsologtostderr: false,
  logFile: "",
  logDir: "",
  logFileMaxSizeMB: 1800,
  stderrthreshold: 2,
  skipHeaders: false,
  jsonSplitStream: false,
});
