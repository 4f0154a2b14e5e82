/**
 * A pflag-compatible flag set built from a typed table: the same command-line grammar,
 * repeated-flag semantics, deprecation warnings and error texts as `github.com/spf13/pflag`
 * v1.0.5 (Kubernetes 1.23), returning results instead of printing.
 *
 * @see github.com/spf13/pflag flag.go (`parseArgs`, `parseLongArg`, `parseSingleShortArg`, `Set`)
 */
import { FlagTableError } from "./errors.js";
import type { FlagType } from "./flag-types.js";
import type { FormatHelpOptions } from "./help.js";
import { formatFlagLog, formatHelp } from "./help.js";
import { formatGoQuoted, goQuoteRune } from "./internal/go-quote.js";

/**
 * One flag: its command-line name, value type, default and help text.
 *
 * - `name`: without dashes (`node-ip`); normalised by the set's `normalize` function.
 * - `shorthand`: one ASCII letter used as `-x` (`v` for `-v 2`).
 * - `default`: the value when the flag is absent (and the base that list/map types replace).
 * - `usage`: help text; a back-quoted word (`` `file` ``) replaces the type name in help, as pflag does.
 * - `deprecated`: using the flag warns `Flag --<name> has been deprecated, <deprecated>`. Like
 *   pflag's `MarkDeprecated` this also hides the flag from help, unless `hidden: false` is given,
 *   in which case help shows it with ` (DEPRECATED: <deprecated>)` (kubelet's config-file flags).
 * - `shorthandDeprecated`: using `-x` warns `Flag shorthand -x has been deprecated, <message>`;
 *   help then shows only the long form.
 * - `hidden`: leave out of help (still parsed).
 * - `section`: heading the flag is listed under when help is printed in sections.
 */
export interface FlagSpec<T> {
  readonly name: string;
  readonly shorthand?: string;
  readonly type: FlagType<T>;
  readonly default: T;
  readonly usage: string;
  readonly deprecated?: string;
  readonly shorthandDeprecated?: string;
  readonly hidden?: boolean;
  readonly section?: string;
}

/**
 * A flag table typed against an options interface `O`: every option must declare its flag, or
 * `null` for options that have no flag (set only from a config file). Declare tables with
 * `satisfies FlagTable<Options>` so a new option without a flag entry, or a flag whose value type
 * differs from the option's type, fails to compile, while the table keeps its precise type for
 * {@link FlagValues}.
 *
 * @see vitest packages/vitest/src/node/cli/cli-config.ts (`CLIOptions`), STYLE.md §8
 * @example
 * ```ts
 * interface AgentFlags { port: number; nodeLabels: Record<string, string>; staticPodPath: string }
 * const table = {
 *   port: { name: "port", type: flagTypes.int32, default: 10250, usage: "Port to serve on." },
 *   nodeLabels: { name: "node-labels", type: flagTypes.mapStringString(), default: {}, usage: "Labels." },
 *   staticPodPath: null, // config file only
 * } satisfies FlagTable<AgentFlags>;
 * ```
 */
export type FlagTable<O> = { readonly [K in keyof O]-?: FlagSpec<O[K]> | null };

/** Any flag table: option keys mapped to flag specs or `null`. */
export type FlagTableShape = { readonly [key: string]: FlagSpec<unknown> | null };

/** The parsed values of a table: one property per non-null entry, typed by its flag type. */
export type FlagValues<T extends FlagTableShape> = {
  -readonly [K in keyof T as [T[K]] extends [null] ? never : K]: NonNullable<T[K]> extends { readonly type: FlagType<infer V> }
    ? V
    : never;
};

/** Options of a {@link FlagSet}. */
export interface FlagSetOptions {
  /**
   * The set's name, used in table errors as pflag uses it in its panics.
   *
   * @defaultValue `""`
   */
  readonly name?: string;
  /**
   * Maps a flag name as written (in the table and on the command line) to its canonical form;
   * see {@link wordSepNormalize} (`--skip_headers` = `--skip-headers`).
   *
   * @defaultValue identity
   */
  readonly normalize?: (name: string) => string;
  /**
   * Whether flags may follow positional arguments; when false, parsing stops at the first
   * positional argument (pflag `SetInterspersed(false)`).
   *
   * @defaultValue `true`
   */
  readonly interspersed?: boolean;
}

/** Options of {@link FlagSet.parse}. */
export interface ParseFlagsOptions<V> {
  /**
   * Starting values per option key, used instead of the table defaults: the configuration file's
   * values, so that flags override the file (precedence defaults < file < flags). List and map
   * flags given on the command line replace these values, as they replace defaults.
   */
  readonly initial?: Partial<V>;
}

/** Stable codes of {@link FlagError}. */
export type FlagErrorCode =
  /** `unknown flag: --foo` */
  | "UnknownFlag"
  /** `unknown shorthand flag: 'x' in -x` */
  | "UnknownShorthand"
  /** `flag needs an argument: --x` or `flag needs an argument: 'x' in -x` */
  | "MissingArgument"
  /** `invalid argument "v" for "--x" flag: <type error>` */
  | "InvalidArgument"
  /** `bad flag syntax: ---x` (also `--=x`) */
  | "BadSyntax"
  /** `pflag: help requested`: `--help` or `-h` given but not defined in the table. */
  | "HelpRequested";

/** A command-line error, worded exactly as pflag words it (`message`). */
export interface FlagError {
  readonly code: FlagErrorCode;
  readonly message: string;
  /** The argument being parsed when the error occurred. */
  readonly arg: string;
  /** The flag's canonical name, when the flag is known. */
  readonly flag?: string;
}

/** A successful parse. */
export interface ParsedFlags<V> {
  /** Every flag's value: command line over `initial` over the table default. */
  readonly values: V;
  /** Positional arguments, in order, including everything after `--`. */
  readonly args: readonly string[];
  /** How many of `args` came before `--`, or -1 when there was no `--` (pflag `ArgsLenAtDash`). */
  readonly argsLenAtDash: number;
  /** Canonical names of the flags set on the command line, in the order first set. */
  readonly changedFlags: readonly string[];
  /** Option keys of the flags set on the command line. */
  readonly changedKeys: ReadonlySet<keyof V>;
  /** Whether the named flag (any spelling the normaliser accepts) was set on the command line. */
  changed(name: string): boolean;
  /**
   * Deprecation warnings in the order pflag prints them to stderr, one per use:
   * `Flag --x has been deprecated, <message>`, `Flag shorthand -x has been deprecated, <message>`.
   */
  readonly warnings: readonly string[];
}

/**
 * The outcome of {@link FlagSet.parse}: parsing stops at the first error, as pflag does; the
 * warnings produced before it are kept.
 */
export type ParseFlagsResult<V> =
  | { readonly ok: true; readonly value: ParsedFlags<V> }
  | { readonly ok: false; readonly errors: readonly FlagError[]; readonly warnings: readonly string[] };

/**
 * Kubernetes' `cliflag.WordSepNormalizeFunc`: `_` and `-` are equivalent in flag names
 * (`--log_dir` is `--log-dir`).
 *
 * @see staging/src/k8s.io/component-base/cli/flag/flags.go
 */
export function wordSepNormalize(name: string): string {
  return name.includes("_") ? name.replaceAll("_", "-") : name;
}

interface Entry {
  readonly key: string;
  readonly name: string;
  readonly spec: FlagSpec<unknown>;
}

const identity = (name: string): string => name;

/**
 * A flag set over a table (see {@link FlagTable}). Construction validates the table as pflag
 * does when flags are defined; {@link FlagSet.parse} is pure and may be called any number of
 * times (the node agent parses argv twice: before and after loading its config file).
 *
 * @throws {@link FlagTableError} from the constructor for duplicate names or shorthands, a
 *   shorthand longer than one ASCII character, an unmatchable name, or an empty deprecation message.
 * @example
 * ```ts
 * const flags = new FlagSet(table, { name: "nodeagent", normalize: wordSepNormalize });
 * const r = flags.parse(process.argv.slice(2));
 * if (!r.ok) { console.error(r.errors[0]?.message); process.exit(1); }
 * for (const w of r.value.warnings) console.error(w);
 * r.value.values.port; // number
 * ```
 */
export class FlagSet<T extends FlagTableShape> {
  readonly table: T;
  readonly name: string;
  private readonly normalize: (name: string) => string;
  private readonly interspersed: boolean;
  private readonly byName = new Map<string, Entry>();
  private readonly byShorthand = new Map<string, Entry>();

  constructor(table: T, options: FlagSetOptions = {}) {
    this.table = table;
    this.name = options.name ?? "";
    this.normalize = options.normalize ?? identity;
    this.interspersed = options.interspersed ?? true;
    for (const [key, spec] of Object.entries(table)) {
      if (spec === null) continue;
      const name = this.normalize(spec.name);
      if (name === "" || name.startsWith("-") || name.includes("=")) {
        throw new FlagTableError("InvalidName", spec.name, `invalid flag name ${formatGoQuoted(spec.name)}`);
      }
      if (this.byName.has(name)) {
        throw new FlagTableError("DuplicateFlag", name, `${this.name} flag redefined: ${spec.name}`);
      }
      if (spec.deprecated === "") {
        throw new FlagTableError("EmptyDeprecationMessage", name, `deprecated message for flag ${formatGoQuoted(name)} must be set`);
      }
      if (spec.shorthandDeprecated === "") {
        throw new FlagTableError("EmptyDeprecationMessage", name, `deprecated message for flag ${formatGoQuoted(name)} must be set`);
      }
      const entry: Entry = { key, name, spec };
      this.byName.set(name, entry);
      const sh = spec.shorthand;
      if (sh === undefined || sh === "") continue;
      if (sh.length > 1 || sh.charCodeAt(0) > 0x7f) {
        throw new FlagTableError("InvalidShorthand", name, `${formatGoQuoted(sh)} shorthand is more than one ASCII character`);
      }
      const used = this.byShorthand.get(sh);
      if (used !== undefined) {
        throw new FlagTableError(
          "DuplicateShorthand",
          name,
          `unable to redefine ${goQuoteRune(sh)} shorthand in ${formatGoQuoted(this.name)} flagset: it's already used for ${formatGoQuoted(used.name)} flag`,
        );
      }
      this.byShorthand.set(sh, entry);
    }
  }

  /** The spec of a flag by any spelling of its name, or undefined. */
  lookup(name: string): FlagSpec<unknown> | undefined {
    return this.byName.get(this.normalize(name))?.spec;
  }

  /** Every flag's default value, keyed by option key. A new object on each call. */
  defaults(): FlagValues<T> {
    const values: Record<string, unknown> = {};
    for (const e of this.byName.values()) values[e.key] = e.spec.default;
    return values as FlagValues<T>;
  }

  /**
   * Parses `args` (without the program name) the way pflag's `FlagSet.Parse` does:
   *
   * - `--name=value`; `--name value` unless the type has a no-option default (`bool`,
   *   `version`), in which case `--name` alone sets it and the next argument stays positional;
   * - `-x value`, `-x=value`, `-xvalue`; clusters of shorthands `-abc` where all but the last
   *   take no value;
   * - `--` ends flag parsing (the rest is positional); `-` and non-flag words are positional;
   * - a repeated flag applies its type's rule (scalars: last wins; lists append and maps merge
   *   after the first occurrence replaced the default).
   *
   * Stops at the first error ({@link FlagError}, pflag's wording). Does not mutate anything.
   */
  parse(args: readonly string[], options: ParseFlagsOptions<FlagValues<T>> = {}): ParseFlagsResult<FlagValues<T>> {
    const values: Record<string, unknown> = {};
    const initial = (options.initial ?? {}) as Record<string, unknown>;
    for (const e of this.byName.values()) {
      values[e.key] = Object.hasOwn(initial, e.key) ? initial[e.key] : e.spec.default;
    }
    const changedFlags: string[] = [];
    const changedSet = new Set<string>();
    const warnings: string[] = [];
    const positional: string[] = [];
    let argsLenAtDash = -1;

    const fail = (code: FlagErrorCode, message: string, arg: string, flag?: string): ParseFlagsResult<FlagValues<T>> => ({
      ok: false,
      errors: [flag === undefined ? { code, message, arg } : { code, message, arg, flag }],
      warnings,
    });

    // pflag's FlagSet.Set: apply, record the change, then warn if deprecated.
    const set = (e: Entry, value: string, arg: string): ParseFlagsResult<FlagValues<T>> | undefined => {
      const r = e.spec.type.set(value, values[e.key], !changedSet.has(e.name));
      if (!r.ok) {
        const sh = e.spec.shorthand;
        const shown = sh !== undefined && sh !== "" && e.spec.shorthandDeprecated === undefined ? `-${sh}, --${e.name}` : `--${e.name}`;
        return fail("InvalidArgument", `invalid argument ${formatGoQuoted(value)} for ${formatGoQuoted(shown)} flag: ${r.error}`, arg, e.name);
      }
      values[e.key] = r.value;
      if (!changedSet.has(e.name)) {
        changedSet.add(e.name);
        changedFlags.push(e.name);
      }
      if (e.spec.deprecated !== undefined) warnings.push(`Flag --${e.name} has been deprecated, ${e.spec.deprecated}`);
      return undefined;
    };

    let i = 0;
    while (i < args.length) {
      const s = args[i++] ?? "";
      if (s.length <= 1 || s[0] !== "-") {
        if (!this.interspersed) {
          positional.push(s, ...args.slice(i));
          break;
        }
        positional.push(s);
        continue;
      }
      if (s[1] === "-") {
        if (s.length === 2) {
          argsLenAtDash = positional.length;
          positional.push(...args.slice(i));
          break;
        }
        // Long form.
        const raw = s.slice(2);
        if (raw[0] === "-" || raw[0] === "=") return fail("BadSyntax", `bad flag syntax: ${s}`, s);
        const eq = raw.indexOf("=");
        const name = eq < 0 ? raw : raw.slice(0, eq);
        const e = this.byName.get(this.normalize(name));
        if (e === undefined) {
          if (name === "help") return fail("HelpRequested", "pflag: help requested", s);
          return fail("UnknownFlag", `unknown flag: --${name}`, s);
        }
        let value: string;
        if (eq >= 0) value = raw.slice(eq + 1);
        else if (e.spec.type.noOptDefault !== undefined && e.spec.type.noOptDefault !== "") value = e.spec.type.noOptDefault;
        else if (i < args.length) value = args[i++] ?? "";
        else return fail("MissingArgument", `flag needs an argument: ${s}`, s, e.name);
        const bad = set(e, value, s);
        if (bad !== undefined) return bad;
        continue;
      }
      // Shorthand cluster.
      let shorthands = s.slice(1);
      while (shorthands.length > 0) {
        if (shorthands.startsWith("test.")) break;
        const c = shorthands[0] ?? "";
        const e = this.byShorthand.get(c);
        if (e === undefined) {
          if (c === "h") return fail("HelpRequested", "pflag: help requested", s);
          return fail("UnknownShorthand", `unknown shorthand flag: ${goQuoteRune(c)} in -${shorthands}`, s);
        }
        let value: string;
        let rest = shorthands.slice(1);
        const noOpt = e.spec.type.noOptDefault;
        if (shorthands.length > 2 && shorthands[1] === "=") {
          value = shorthands.slice(2);
          rest = "";
        } else if (noOpt !== undefined && noOpt !== "") {
          value = noOpt;
        } else if (shorthands.length > 1) {
          value = shorthands.slice(1);
          rest = "";
        } else if (i < args.length) {
          value = args[i++] ?? "";
        } else {
          return fail("MissingArgument", `flag needs an argument: ${goQuoteRune(c)} in -${shorthands}`, s, e.name);
        }
        if (e.spec.shorthandDeprecated !== undefined) {
          warnings.push(`Flag shorthand -${c} has been deprecated, ${e.spec.shorthandDeprecated}`);
        }
        const bad = set(e, value, s);
        if (bad !== undefined) return bad;
        shorthands = rest;
      }
    }

    const changedKeys = new Set<keyof FlagValues<T>>();
    for (const n of changedFlags) {
      const e = this.byName.get(n);
      if (e !== undefined) changedKeys.add(e.key as keyof FlagValues<T>);
    }
    const normalize = this.normalize;
    return {
      ok: true,
      value: {
        values: values as FlagValues<T>,
        args: positional,
        argsLenAtDash,
        changedFlags,
        changedKeys,
        changed: (name: string) => changedSet.has(normalize(name)),
        warnings,
      },
    };
  }

  /** Help text for this set's flags, see {@link formatHelp} (the set's `normalize` applies). */
  formatHelp(options: Omit<FormatHelpOptions, "normalize"> = {}): string {
    return formatHelp(this.table, { ...options, normalize: this.normalize });
  }

  /** `FLAG: --name="value"` lines for every flag, see {@link formatFlagLog}. */
  formatFlagLog(values: FlagValues<T>): string[] {
    return formatFlagLog(this.table, values as Readonly<Record<string, unknown>>, { normalize: this.normalize });
  }
}
