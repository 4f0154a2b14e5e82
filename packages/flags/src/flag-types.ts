/**
 * Value types for flags: each one mirrors a pflag / component-base / klog `Value` implementation
 * (its `Set`, `String` and `Type`), including the error texts they return.
 *
 * @see github.com/spf13/pflag (bool.go, string.go, int32.go, int.go, int64.go, uint.go,
 *   uint64.go, float64.go, duration.go, string_slice.go, string_array.go)
 * @see staging/src/k8s.io/component-base/cli/flag (map_string_string.go, map_string_bool.go,
 *   langle_separated_map_string_string.go, configuration_map.go,
 *   colon_separated_multimap_string_string.go)
 * @see staging/src/k8s.io/component-base/version/verflag/verflag.go
 * @see k8s.io/klog/v2 klog.go (`Level`, `severity`, `moduleSpec`, `traceLocation`)
 */
import type { Duration } from "./duration.js";
import { formatDuration, parseDuration } from "./duration.js";
import type { Quantity } from "./quantity.js";
import { formatQuantity, parseQuantity } from "./quantity.js";
import { readCsvRecord, writeCsvRecord } from "./internal/go-csv.js";
import { compareGoStrings } from "./internal/go-sort.js";
import { formatGoQuoted } from "./internal/go-quote.js";
import { formatGoFloat, parseGoBool, parseGoFloat, parseGoInt, parseGoUint } from "./internal/go-strconv.js";

/**
 * The outcome of applying one occurrence of a flag: the new value, or the error text the Go
 * `Value.Set` returns (the flag set wraps it as `invalid argument "<v>" for "--<name>" flag: <error>`).
 */
export type FlagValueResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/**
 * A flag value type: pflag's `Value` interface as pure functions over immutable values.
 * Implement it for types this package does not ship (the node agent's taints, reserved memory).
 *
 * Invariants: `set` never mutates `current`; `format(default)` is what help prints after
 * `(default ...)` unless `isZeroDefault` says it is the zero value.
 */
export interface FlagType<T> {
  /** pflag's `Value.Type()`: `bool`, `int32`, `duration`, `stringSlice`, `mapStringString`... */
  readonly typeName: string;
  /**
   * pflag's `NoOptDefVal`: the text used when the flag appears without `=value` (`"true"` for
   * `bool` and `version`). When set, `--flag value` does NOT consume `value`.
   */
  readonly noOptDefault?: string;
  /**
   * Applies one occurrence (`Value.Set`). `current` is the value so far (the default, the
   * config-file value, or earlier occurrences); `firstSet` is true for the first occurrence on
   * this command line, when list and map types replace rather than extend.
   */
  set(text: string, current: T, firstSet: boolean): FlagValueResult<T>;
  /** `Value.String()`: the text for help defaults and `FLAG: --name="value"` log lines. */
  format(value: T): string;
  /** pflag's `defaultIsZeroValue` for this type, given `format(default)`. */
  isZeroDefault(text: string): boolean;
}

/** The `--version` value: `false`, `true`, or `"raw"` (`--version=raw`). */
export type VersionFlagValue = boolean | "raw";

/** One `--vmodule` entry: a file pattern (literal or glob) and its verbosity (> 0). */
export interface ModulePattern {
  readonly pattern: string;
  readonly level: number;
}

/** The `--log-backtrace-at` value, `file:line`; unset is `{ file: "", line: 0 }`. */
export interface TraceLocation {
  readonly file: string;
  readonly line: number;
}

/** Options of {@link flagTypes}`.mapStringString`. */
export interface MapStringStringOptions {
  /**
   * Key/value separator: `"="` (`cliflag.MapStringString`) or `"<"`
   * (`cliflag.LangleSeparatedMapStringString`, for eviction thresholds like `memory.available<100Mi`).
   *
   * @defaultValue `"="`
   */
  readonly separator?: "=" | "<";
  /**
   * One pair per occurrence, commas kept in values (`cliflag.NewMapStringStringNoSplit`).
   *
   * @defaultValue `false`
   */
  readonly noSplit?: boolean;
}

function ok<T>(value: T): FlagValueResult<T> {
  return { ok: true, value };
}

function err<T>(error: string): FlagValueResult<T> {
  return { ok: false, error };
}

// pflag's defaultIsZeroValue falls back to these texts for types it does not know.
function isZeroOther(text: string): boolean {
  return text === "" || text === "0" || text === "false" || text === "<nil>";
}

const isZeroNumber = (text: string): boolean => text === "0";

const unsafeIntegerMessage = (text: string): string =>
  `value ${text} is outside the range a JavaScript number holds exactly (±9007199254740991); use the bigint flag type`;

function intType(typeName: string, bitSize: 32 | 64): FlagType<number> {
  return {
    typeName,
    set(text) {
      const r = parseGoInt(text, 0, bitSize);
      if (!r.ok) return err(r.error);
      const n = Number(r.value);
      return Number.isSafeInteger(n) ? ok(n) : err(unsafeIntegerMessage(text));
    },
    format: (v) => String(v),
    isZeroDefault: isZeroNumber,
  };
}

function uintType(typeName: string): FlagType<number> {
  return {
    typeName,
    set(text) {
      const r = parseGoUint(text, 0, 64);
      if (!r.ok) return err(r.error);
      const n = Number(r.value);
      return Number.isSafeInteger(n) ? ok(n) : err(unsafeIntegerMessage(text));
    },
    format: (v) => String(v),
    isZeroDefault: isZeroNumber,
  };
}

function sortedPairs(m: Readonly<Record<string, string>>, sep: string): string {
  return Object.entries(m)
    .map(([k, v]) => `${k}${sep}${v}`)
    .sort(compareGoStrings)
    .join(",");
}

function mapStringString(options: MapStringStringOptions = {}): FlagType<Record<string, string>> {
  const sep = options.separator ?? "=";
  const malformed = `malformed pair, expect string${sep}string`;
  return {
    typeName: "mapStringString",
    set(text, current, firstSet) {
      const m = new Map(firstSet ? [] : Object.entries(current));
      const pairs = options.noSplit ? [text] : text.split(",");
      for (const s of pairs) {
        if (!options.noSplit && s.length === 0) continue;
        const i = s.indexOf(sep);
        if (i < 0) return err(malformed);
        m.set(s.slice(0, i).trim(), s.slice(i + 1).trim());
      }
      return ok(Object.fromEntries(m));
    },
    format: (v) => sortedPairs(v, sep),
    isZeroDefault: isZeroOther,
  };
}

const boolType: FlagType<boolean> = {
  typeName: "bool",
  noOptDefault: "true",
  set(text) {
    const r = parseGoBool(text);
    return r.ok ? ok(r.value) : err(r.error);
  },
  format: (v) => String(v),
  isZeroDefault: (text) => text === "false",
};

const stringType: FlagType<string> = {
  typeName: "string",
  set: (text) => ok(text),
  format: (v) => v,
  isZeroDefault: (text) => text === "",
};

const int64BigintType: FlagType<bigint> = {
  typeName: "int64",
  set(text) {
    const r = parseGoInt(text, 0, 64);
    return r.ok ? ok(r.value) : err(r.error);
  },
  format: (v) => String(v),
  isZeroDefault: isZeroNumber,
};

const uint64BigintType: FlagType<bigint> = {
  typeName: "uint64",
  set(text) {
    const r = parseGoUint(text, 0, 64);
    return r.ok ? ok(r.value) : err(r.error);
  },
  format: (v) => String(v),
  isZeroDefault: isZeroNumber,
};

const float64Type: FlagType<number> = {
  typeName: "float64",
  set(text) {
    const r = parseGoFloat(text);
    return r.ok ? ok(r.value) : err(r.error);
  },
  format: formatGoFloat,
  isZeroDefault: isZeroNumber,
};

const durationType: FlagType<Duration> = {
  typeName: "duration",
  set(text) {
    const r = parseDuration(text);
    return r.ok ? ok(r.value) : err(r.errors[0]?.message ?? "");
  },
  format: formatDuration,
  isZeroDefault: (text) => text === "0" || text === "0s",
};

const stringsType: FlagType<string[]> = {
  typeName: "stringSlice",
  set(text, current, firstSet) {
    let v: string[] = [];
    if (text !== "") {
      const r = readCsvRecord(text);
      if (!r.ok) return err(r.error);
      v = r.value;
    }
    return ok(firstSet ? v : [...current, ...v]);
  },
  format: (v) => `[${writeCsvRecord(v)}]`,
  isZeroDefault: (text) => text === "[]",
};

const stringArrayType: FlagType<string[]> = {
  typeName: "stringArray",
  set: (text, current, firstSet) => ok(firstSet ? [text] : [...current, text]),
  format: (v) => `[${writeCsvRecord(v)}]`,
  isZeroDefault: (text) => text === "[]",
};

const configurationMapType: FlagType<Record<string, string>> = {
  typeName: "mapStringString",
  set(text, current) {
    const m = new Map(Object.entries(current));
    for (const s of text.split(",")) {
      if (s.length === 0) continue;
      const i = s.indexOf("=");
      if (i < 0) m.set(s.trim(), "");
      else m.set(s.slice(0, i).trim(), s.slice(i + 1).trim());
    }
    return ok(Object.fromEntries(m));
  },
  format: (v) => sortedPairs(v, "="),
  isZeroDefault: isZeroOther,
};

const mapStringBoolType: FlagType<Record<string, boolean>> = {
  typeName: "mapStringBool",
  set(text, current, firstSet) {
    const m = new Map(firstSet ? [] : Object.entries(current));
    for (const s of text.split(",")) {
      if (s.length === 0) continue;
      const i = s.indexOf("=");
      if (i < 0) return err("malformed pair, expect string=bool");
      const k = s.slice(0, i).trim();
      const v = s.slice(i + 1).trim();
      const b = parseGoBool(v);
      if (!b.ok) return err(`invalid value of ${k}: ${v}, err: ${b.error}`);
      m.set(k, b.value);
    }
    return ok(Object.fromEntries(m));
  },
  format: (v) =>
    Object.entries(v)
      .map(([k, b]) => `${k}=${b}`)
      .sort(compareGoStrings)
      .join(","),
  isZeroDefault: isZeroOther,
};

const colonSeparatedMultimapType: FlagType<Record<string, string[]>> = {
  typeName: "colonSeparatedMultimapStringString",
  set(text, current, firstSet) {
    const m = new Map<string, string[]>(firstSet ? [] : Object.entries(current).map(([k, vs]) => [k, [...vs]]));
    for (const pair of text.split(",")) {
      if (pair.length === 0) continue;
      const i = pair.indexOf(":");
      if (i < 0) return err("malformed pair, expect string:string");
      const k = pair.slice(0, i).trim();
      const list = m.get(k) ?? [];
      list.push(pair.slice(i + 1).trim());
      m.set(k, list);
    }
    return ok(Object.fromEntries(m));
  },
  format: (v) =>
    Object.keys(v)
      .sort(compareGoStrings)
      .flatMap((k) => (v[k] ?? []).map((x) => `${k}:${x}`))
      .join(","),
  isZeroDefault: isZeroOther,
};

const quantityType: FlagType<Quantity> = {
  typeName: "quantity",
  set(text) {
    const r = parseQuantity(text);
    return r.ok ? ok(r.value) : err(r.errors[0]?.message ?? "");
  },
  format: formatQuantity,
  isZeroDefault: isZeroOther,
};

const levelType: FlagType<number> = {
  typeName: "Level",
  set(text) {
    const r = parseGoInt(text, 10, 32);
    return r.ok ? ok(Number(r.value)) : err(r.error);
  },
  format: (v) => String(v),
  isZeroDefault: isZeroOther,
};

const severityNames = ["INFO", "WARNING", "ERROR", "FATAL"] as const;

const severityType: FlagType<number> = {
  typeName: "severity",
  set(text) {
    const byName = severityNames.indexOf(text.toUpperCase() as (typeof severityNames)[number]);
    if (byName >= 0) return ok(byName);
    const r = parseGoInt(text, 10, 32);
    return r.ok ? ok(Number(r.value)) : err(r.error);
  },
  format: (v) => String(v),
  isZeroDefault: isZeroOther,
};

const vmoduleSyntax = "syntax error: expect comma-separated list of filename=N";

const moduleSpecType: FlagType<ModulePattern[]> = {
  typeName: "moduleSpec",
  set(text) {
    const filter: ModulePattern[] = [];
    for (const pat of text.split(",")) {
      if (pat.length === 0) continue;
      const patLev = pat.split("=");
      const [pattern = "", level = ""] = patLev;
      if (patLev.length !== 2 || pattern.length === 0 || level.length === 0) return err(vmoduleSyntax);
      const v = parseGoInt(level, 10, 32);
      if (!v.ok) return err(vmoduleSyntax);
      if (v.value < 0n) return err("negative value for vmodule level");
      if (v.value === 0n) continue;
      filter.push({ pattern, level: Number(v.value) });
    }
    return ok(filter);
  },
  format: (v) => v.map((p) => `${p.pattern}=${p.level}`).join(","),
  isZeroDefault: isZeroOther,
};

/**
 * component-base's `VerbosityLevel` (`-v` of components whose logging is a config field, the
 * kubelet's `logging.verbosity`): `strconv.ParseUint(value, 10, 31)`, so `-1` is a syntax error
 * and 2^31 is out of range.
 *
 * @see staging/src/k8s.io/component-base/config/types.go (`VerbosityLevel.Set`) in kubernetes/kubernetes v1.23
 */
const verbosityLevelType: FlagType<number> = {
  typeName: "Level",
  set(text) {
    const r = parseGoUint(text, 10, 31);
    return r.ok ? ok(Number(r.value)) : err(r.error);
  },
  format: (v) => String(v),
  isZeroDefault: isZeroOther,
};

/**
 * component-base's `VModuleConfiguration` (`--vmodule` bound to `logging.vmodule`): entries are
 * appended to the current value on every occurrence (config-file entries included, as 1.23 parses
 * flags onto the loaded file); empty entries are skipped; the pattern is not checked; a level of 0
 * is kept.
 *
 * @see staging/src/k8s.io/component-base/config/types.go (`VModuleConfiguration.Set`) in kubernetes/kubernetes v1.23
 */
const vmoduleConfigurationType: FlagType<ModulePattern[]> = {
  typeName: "pattern=N,...",
  set(text, current) {
    const out = [...current];
    for (const pat of text.split(",")) {
      if (pat.length === 0) continue;
      const patLev = pat.split("=");
      const [pattern = "", level = ""] = patLev;
      if (patLev.length !== 2 || pattern.length === 0 || level.length === 0) {
        return err(`${formatGoQuoted(pat)} does not have the pattern=N format`);
      }
      const v = parseGoUint(level, 10, 31);
      if (!v.ok) return err(`parsing verbosity in ${formatGoQuoted(pat)}: ${v.error}`);
      out.push({ pattern, level: Number(v.value) });
    }
    return ok(out);
  },
  format: (v) => v.map((p) => `${p.pattern}=${p.level}`).join(","),
  isZeroDefault: isZeroOther,
};

const traceSyntax = "syntax error: expect file.go:234";

const traceLocationType: FlagType<TraceLocation> = {
  typeName: "traceLocation",
  set(text) {
    if (text === "") return ok({ file: "", line: 0 });
    const fields = text.split(":");
    const [file = "", line = ""] = fields;
    if (fields.length !== 2 || !file.includes(".")) return err(traceSyntax);
    // strconv.Atoi: base 10, int64 range.
    const v = parseGoInt(line, 10, 64);
    if (!v.ok) return err(traceSyntax);
    if (v.value <= 0n) return err("negative or zero value for level");
    const n = Number(v.value);
    return Number.isSafeInteger(n) ? ok({ file, line: n }) : err(unsafeIntegerMessage(line));
  },
  format: (v) => `${v.file}:${v.line}`,
  isZeroDefault: isZeroOther,
};

const versionType: FlagType<VersionFlagValue> = {
  typeName: "version",
  noOptDefault: "true",
  set(text) {
    if (text === "raw") return ok("raw");
    const r = parseGoBool(text);
    return r.ok ? ok(r.value) : err(r.error);
  },
  format: (v) => String(v),
  isZeroDefault: (text) => text === "false",
};

/**
 * The flag value types, by the name Kubernetes' help prints for them (`Type()` in brackets
 * where it differs):
 *
 * | member | value | accepts |
 * |---|---|---|
 * | `bool` | `boolean` | `--x` (true), `--x=true\|false\|1\|0\|t\|f\|T\|F\|TRUE\|FALSE\|True\|False`; `--x false` leaves `false` positional |
 * | `string` | `string` | anything |
 * | `int32` | `number` | Go integer syntax (`12`, `-3`, `0x1f`, `0o17`, `017`, `0b101`, `1_000`), int32 range |
 * | `int`, `int64` | `number` | as `int32`, int64 range; values beyond ±(2^53-1) are rejected (use `int64Bigint`) |
 * | `uint`, `uint64` | `number` | unsigned, same syntax; beyond 2^53-1 rejected (use `uint64Bigint`) |
 * | `int64Bigint` [`int64`], `uint64Bigint` [`uint64`] | `bigint` | the full 64-bit ranges |
 * | `float64` | `number` | Go float syntax incl. `1e3`, `0x1p-2`, `Inf`, `NaN` |
 * | `duration` | {@link Duration} | Go durations (`300ms`, `2h45m`) |
 * | `strings` [`stringSlice`] | `string[]` | CSV list; the first occurrence replaces the default, later ones append |
 * | `stringArray` | `string[]` | one item per occurrence, no splitting; same replace-then-append rule |
 * | `mapStringString(opts)` | `Record<string,string>` | `k=v,k2=v2` (or `k<v` with `separator: "<"`); first occurrence replaces the default, later ones merge |
 * | `configurationMap` [`mapStringString`] | `Record<string,string>` | as `mapStringString` but a missing `=` gives an empty value and the default is never cleared |
 * | `mapStringBool` | `Record<string,boolean>` | `A=true,B=false` |
 * | `colonSeparatedMultimap` [`colonSeparatedMultimapStringString`] | `Record<string,string[]>` | `name:value,...`; repeated keys append |
 * | `quantity` | {@link Quantity} | Kubernetes quantities (`512`, `1k`, `2Ki`, `1.5Gi`) |
 * | `level` [`Level`] | `number` | klog verbosity: a base-10 int32 (klog 1.23 accepts negative values too) |
 * | `verbosityLevel` [`Level`] | `number` | component-base `VerbosityLevel`: base-10 unsigned, < 2^31 (`-1` refused) |
 * | `severity` | `number` | klog threshold: `INFO`, `WARNING`, `ERROR`, `FATAL` (any case) or an int32 |
 * | `moduleSpec` | {@link ModulePattern}`[]` | `--vmodule` `pattern=N,...` (N ≥ 0; 0 entries dropped) |
 * | `vmoduleConfiguration` [`pattern=N,...`] | {@link ModulePattern}`[]` | component-base `VModuleConfiguration`: `pattern=N,...`, N unsigned < 2^31, appended per occurrence |
 * | `traceLocation` | {@link TraceLocation} | `--log-backtrace-at` `file.go:N` (N > 0), or empty |
 * | `version` | {@link VersionFlagValue} | `--version` (true), `--version=raw`, `--version=false` |
 */
export const flagTypes = {
  bool: boolType,
  string: stringType,
  int32: intType("int32", 32),
  int: intType("int", 64),
  int64: intType("int64", 64),
  uint: uintType("uint"),
  uint64: uintType("uint64"),
  int64Bigint: int64BigintType,
  uint64Bigint: uint64BigintType,
  float64: float64Type,
  duration: durationType,
  strings: stringsType,
  stringArray: stringArrayType,
  mapStringString,
  configurationMap: configurationMapType,
  mapStringBool: mapStringBoolType,
  colonSeparatedMultimap: colonSeparatedMultimapType,
  quantity: quantityType,
  level: levelType,
  verbosityLevel: verbosityLevelType,
  severity: severityType,
  moduleSpec: moduleSpecType,
  vmoduleConfiguration: vmoduleConfigurationType,
  traceLocation: traceLocationType,
  version: versionType,
} as const;
