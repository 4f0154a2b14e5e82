/**
 * Help and flag-log output in pflag's format.
 *
 * @see github.com/spf13/pflag flag.go (`FlagUsagesWrapped`, `UnquoteUsage`, `wrap`)
 * @see staging/src/k8s.io/component-base/cli/flag/sectioned.go (`PrintSections`)
 * @see staging/src/k8s.io/component-base/cli/flag/flags.go (`PrintFlags`)
 */
import type { FlagSpec, FlagTableShape } from "./flag-set.js";
import { formatGoQuoted } from "./internal/go-quote.js";
import { compareGoStrings } from "./internal/go-sort.js";

/** Options of {@link formatHelp}. */
export interface FormatHelpOptions {
  /**
   * Print in sections, kube-apiserver style: one `"<Section> flags:"` block per name, in this
   * order, for the flags whose `section` it is. Sections used by flags but not listed follow in
   * table order; flags without a section come last under {@link FormatHelpOptions.otherSection}.
   * Omit for one flat list (the kubelet's help).
   */
  readonly sections?: readonly string[];
  /**
   * Wrap width (pflag `FlagUsagesWrapped(cols)`): 0 for no wrapping; the kubelet passes 2,
   * which keeps descriptions on the flag's line; wider values wrap descriptions at word
   * boundaries, or move them to an indented block below when the names column is too wide.
   * With `sections` and more than 24 columns every section is aligned to the same column.
   *
   * @defaultValue `0`
   */
  readonly columns?: number;
  /**
   * Canonical form of flag names, as the flag set normalises them.
   *
   * @defaultValue identity
   */
  readonly normalize?: (name: string) => string;
  /**
   * List flags sorted by name (pflag `SortFlags`, the default) or in table order. Sections are
   * always sorted, as `PrintSections` sorts them.
   *
   * @defaultValue `true`
   */
  readonly sort?: boolean;
  /**
   * The section name for flags without one, when printing in sections.
   *
   * @defaultValue `"other"`
   */
  readonly otherSection?: string;
}

interface HelpEntry {
  readonly name: string;
  readonly head: string;
  readonly usage: string;
  readonly hidden: boolean;
}

const goTypeNames: Readonly<Record<string, string>> = {
  bool: "",
  float64: "float",
  int64: "int",
  uint64: "uint",
  stringSlice: "strings",
  intSlice: "ints",
  uintSlice: "uints",
  boolSlice: "bools",
};

function unquoteUsage(spec: FlagSpec<unknown>): { varname: string; usage: string } {
  const usage = spec.usage;
  const i = usage.indexOf("`");
  if (i >= 0) {
    const j = usage.indexOf("`", i + 1);
    if (j >= 0) {
      const varname = usage.slice(i + 1, j);
      return { varname, usage: usage.slice(0, i) + varname + usage.slice(j + 1) };
    }
  }
  const t = spec.type.typeName;
  return { varname: Object.hasOwn(goTypeNames, t) ? (goTypeNames[t] ?? "") : t, usage };
}

function isHidden(spec: FlagSpec<unknown>): boolean {
  return spec.hidden ?? spec.deprecated !== undefined;
}

function toEntry(name: string, spec: FlagSpec<unknown>): HelpEntry {
  const sh = spec.shorthand;
  let head = sh !== undefined && sh !== "" && spec.shorthandDeprecated === undefined ? `  -${sh}, --${name}` : `      --${name}`;
  const { varname, usage } = unquoteUsage(spec);
  if (varname !== "") head += ` ${varname}`;
  const noOpt = spec.type.noOptDefault;
  if (noOpt !== undefined && noOpt !== "") {
    switch (spec.type.typeName) {
      case "string":
        head += `[="${noOpt}"]`;
        break;
      case "bool":
        if (noOpt !== "true") head += `[=${noOpt}]`;
        break;
      case "count":
        if (noOpt !== "+1") head += `[=${noOpt}]`;
        break;
      default:
        head += `[=${noOpt}]`;
    }
  }
  let text = usage;
  const def = spec.type.format(spec.default);
  if (!spec.type.isZeroDefault(def)) {
    text += spec.type.typeName === "string" ? ` (default ${formatGoQuoted(def)})` : ` (default ${def})`;
  }
  if (spec.deprecated !== undefined) text += ` (DEPRECATED: ${spec.deprecated})`;
  return { name, head, usage: text, hidden: isHidden(spec) };
}

function wrapN(i: number, slop: number, s: string): [string, string] {
  if (i + slop > s.length) return [s, ""];
  const head = s.slice(0, i);
  const w = Math.max(head.lastIndexOf(" "), head.lastIndexOf("\t"), head.lastIndexOf("\n"));
  if (w <= 0) return [s, ""];
  const nlPos = head.lastIndexOf("\n");
  if (nlPos > 0 && nlPos < w) return [s.slice(0, nlPos), s.slice(nlPos + 1)];
  return [s.slice(0, w), s.slice(w + 1)];
}

// pflag's wrap: the first line is already indented by the caller.
function wrap(i: number, w: number, s: string): string {
  if (w === 0) return s.replaceAll("\n", `\n${" ".repeat(i)}`);
  let width = w - i;
  let r = "";
  if (width < 24) {
    i = 16;
    width = w - i;
    r += `\n${" ".repeat(i)}`;
  }
  if (width < 24) return s.replaceAll("\n", r);
  const slop = 5;
  width -= slop;
  const indent = `\n${" ".repeat(i)}`;
  let [line, rest] = wrapN(width, slop, s);
  r += line.replaceAll("\n", indent);
  while (rest !== "") {
    [line, rest] = wrapN(width, slop, rest);
    r += indent + line.replaceAll("\n", indent);
  }
  return r;
}

function usagesWrapped(entries: readonly HelpEntry[], cols: number): string {
  let maxlen = 0;
  const visible = entries.filter((e) => !e.hidden);
  for (const e of visible) maxlen = Math.max(maxlen, e.head.length + 1);
  let out = "";
  for (const e of visible) {
    const spacing = " ".repeat(maxlen - e.head.length);
    out += `${e.head} ${spacing} ${wrap(maxlen + 2, cols, e.usage)}\n`;
  }
  return out;
}

function byName(a: HelpEntry, b: HelpEntry): number {
  return compareGoStrings(a.name, b.name);
}

function capitalize(s: string): string {
  return s.length === 0 ? s : s[0]?.toUpperCase() + s.slice(1);
}

/**
 * Help text for a table's flags, in pflag's layout: one line per visible flag,
 * `  -v, --v Level   number for the log level verbosity`, the type name as pflag prints it
 * (`string`, `int32`, `duration`, `strings`, `mapStringString`, `version[=true]`; none for
 * `bool`), then `(default ...)` unless the default is the type's zero value (strings quoted),
 * then `(DEPRECATED: ...)` for deprecated flags that are not hidden. Descriptions start in one
 * column, three spaces after the longest name. Hidden flags, and deprecated ones unless
 * `hidden: false`, are left out.
 *
 * With `sections`, prints blocks headed `\n<Section> flags:\n\n` as Kubernetes'
 * `cliflag.PrintSections` does. Ends with a newline; does not include a `Usage:` header.
 *
 * @see github.com/spf13/pflag flag.go `FlagUsagesWrapped`
 * @see staging/src/k8s.io/component-base/cli/flag/sectioned.go `PrintSections`
 * @example
 * ```ts
 * process.stdout.write(`Usage:\n  nodeagent [flags]\n\nFlags:\n${formatHelp(table, { columns: 2 })}`);
 * ```
 */
export function formatHelp(table: FlagTableShape, options: FormatHelpOptions = {}): string {
  const normalize = options.normalize ?? ((n: string) => n);
  const cols = options.columns ?? 0;
  const entries: Array<HelpEntry & { section: string | undefined }> = [];
  for (const spec of Object.values(table)) {
    if (spec === null) continue;
    entries.push({ ...toEntry(normalize(spec.name), spec), section: spec.section });
  }
  if (options.sections === undefined) {
    if (options.sort ?? true) entries.sort(byName);
    return usagesWrapped(entries, cols);
  }
  const other = options.otherSection ?? "other";
  const order = [...options.sections];
  for (const e of entries) {
    const s = e.section ?? other;
    if (!order.includes(s) && s !== other) order.push(s);
  }
  if (!order.includes(other)) order.push(other);
  let out = "";
  for (const name of order) {
    const members = entries.filter((e) => (e.section ?? other) === name);
    if (members.length === 0) continue;
    members.sort(byName);
    if (cols > 24) {
      // Kubernetes adds a dummy flag as wide as the terminal allows, so that every section
      // aligns its descriptions to the same column, then cuts it from the output.
      const zzz = "z".repeat(cols - 24);
      members.push({ name: zzz, head: `      --${zzz} int`, usage: zzz, hidden: false, section: name });
      const text = `\n${capitalize(name)} flags:\n\n${usagesWrapped(members, cols)}`;
      const lines = text.slice(0, text.indexOf(zzz)).split("\n");
      out += `${lines.slice(0, -1).join("\n")}\n`;
    } else {
      out += `\n${capitalize(name)} flags:\n\n${usagesWrapped(members, cols)}`;
    }
  }
  return out;
}

/**
 * One `FLAG: --name="value"` line per flag (hidden and deprecated ones included), sorted by
 * name, values as the type formats them and quoted as Go's `%q`: what the kubelet logs at
 * verbosity 1 on start-up. `values` is keyed by option key, as {@link FlagSet.parse} returns it;
 * keys it lacks print the default.
 *
 * @see staging/src/k8s.io/component-base/cli/flag/flags.go `PrintFlags`
 */
export function formatFlagLog(
  table: FlagTableShape,
  values: Readonly<Record<string, unknown>>,
  options: { readonly normalize?: (name: string) => string } = {},
): string[] {
  const normalize = options.normalize ?? ((n: string) => n);
  const lines: Array<[string, string]> = [];
  for (const [key, spec] of Object.entries(table)) {
    if (spec === null) continue;
    const name = normalize(spec.name);
    const value = Object.hasOwn(values, key) ? values[key] : spec.default;
    lines.push([name, `FLAG: --${name}=${formatGoQuoted(spec.type.format(value))}`]);
  }
  return lines.sort((a, b) => compareGoStrings(a[0], b[0])).map(([, line]) => line);
}
