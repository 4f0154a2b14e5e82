/**
 * Label selectors: the text form (`app=web,tier in (a,b),!canary`) parsed as Kubernetes parses the
 * `labelSelector` query parameter, the structured `LabelSelector` of API objects
 * (`matchLabels` + `matchExpressions`), and matching of a label set against either.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/labels/selector.go
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go
 */

import type { FieldError } from "./field-errors.js";
import { formatFieldErrors, invalid, notSupported } from "./field-errors.js";
import { goQuote } from "./internal/go-format.js";
import { isQualifiedName, isValidLabelValue } from "./names.js";

/**
 * Requirement operators, spelled as Kubernetes' `selection.Operator` values: `"!"` is
 * DoesNotExist, `"gt"`/`"lt"` compare the label value as a 64-bit integer.
 */
export type SelectionOperator = "!" | "=" | "==" | "in" | "!=" | "notin" | "exists" | "gt" | "lt";

const validRequirementOperators: readonly SelectionOperator[] = ["in", "notin", "=", "==", "!=", "exists", "!", "gt", "lt"];

/**
 * One term of a label selector: `key op values`. Values are kept in the order given (the parser
 * gives them sorted and deduplicated); `toString` sorts them.
 */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: SelectionOperator;
  readonly values: readonly string[];
}

/** A label set as found in `metadata.labels`; `undefined` is the empty set. */
export type Labels = Readonly<Record<string, string>> | undefined;

/**
 * A parsed label selector: an AND of requirements, sorted by key.
 *
 * - `matches(labels)`: whether every requirement holds for the label set.
 * - `empty()`: true when it restricts nothing (matches everything); the "nothing" selector is not
 *   empty but matches no label set.
 * - `requirements()`: the requirements in key order.
 * - `requiresExactMatch(key)`: the single value an `=`, `==` or one-value `in` requirement on `key`
 *   demands, else `undefined` (used to narrow a list by an indexed label).
 * - `toString()`: the canonical text form (`a=b,c in (d,e),!f`); `""` for everything and nothing.
 *
 * Selectors are immutable.
 */
export interface Selector {
  matches(labels: Labels): boolean;
  empty(): boolean;
  requirements(): readonly LabelRequirement[];
  requiresExactMatch(key: string): string | undefined;
  toString(): string;
}

/** `{ok:true, value}` on success, `{ok:false, error}` with Kubernetes' error message otherwise. */
export type SelectorResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** A `matchExpressions` entry of a structured label selector. */
export interface LabelSelectorRequirement {
  readonly key: string;
  /** `In`, `NotIn`, `Exists` or `DoesNotExist`. */
  readonly operator: string;
  readonly values?: readonly string[] | null;
}

/** The structured selector of API objects (`spec.selector` of a Job). */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>> | null;
  readonly matchExpressions?: readonly LabelSelectorRequirement[] | null;
}

function requirementMatches(r: LabelRequirement, labels: Labels): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case "in":
    case "=":
    case "==":
      return has && r.values.includes(value ?? "");
    case "notin":
    case "!=":
      return !has || !r.values.includes(value ?? "");
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      if (!has || r.values.length !== 1) return false;
      const lhs = parseInt64(value ?? "");
      const rhs = parseInt64(r.values[0] ?? "");
      if (lhs === undefined || rhs === undefined) return false;
      return r.operator === "gt" ? lhs > rhs : lhs < rhs;
    }
  }
}

// strconv.ParseInt(s, 10, 64): optional sign, decimal digits, within int64.
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return undefined;
  return n;
}

function requirementToString(r: LabelRequirement): string {
  let s = r.operator === "!" ? "!" : "";
  s += r.key;
  switch (r.operator) {
    case "exists":
    case "!":
      return s;
    case "in":
      s += " in ";
      break;
    case "notin":
      s += " notin ";
      break;
    case "gt":
      s += ">";
      break;
    case "lt":
      s += "<";
      break;
    default:
      s += r.operator;
  }
  const values = r.values.length === 1 ? (r.values[0] ?? "") : [...r.values].sort(compareStrings).join(",");
  return r.operator === "in" || r.operator === "notin" ? `${s}(${values})` : s + values;
}

// Go compares strings bytewise; for the ASCII that valid keys and values are made of, UTF-16 code
// unit order is the same.
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

class RequirementSelector implements Selector {
  private readonly reqs: readonly LabelRequirement[];

  constructor(reqs: readonly LabelRequirement[]) {
    this.reqs = [...reqs].sort((a, b) => compareStrings(a.key, b.key));
  }

  matches(labels: Labels): boolean {
    return this.reqs.every((r) => requirementMatches(r, labels));
  }

  empty(): boolean {
    return this.reqs.length === 0;
  }

  requirements(): readonly LabelRequirement[] {
    return this.reqs;
  }

  requiresExactMatch(key: string): string | undefined {
    const r = this.reqs.find((x) => x.key === key);
    if (r && (r.operator === "=" || r.operator === "==" || r.operator === "in") && r.values.length === 1) return r.values[0];
    return undefined;
  }

  toString(): string {
    return this.reqs.map(requirementToString).join(",");
  }
}

const nothing: Selector = {
  matches: () => false,
  empty: () => false,
  requirements: () => [],
  requiresExactMatch: () => undefined,
  toString: () => "",
};

const everything: Selector = new RequirementSelector([]);

/**
 * The selector that matches every label set (the empty selector).
 * @see staging/src/k8s.io/apimachinery/pkg/labels/selector.go `Everything`
 */
export function everythingSelector(): Selector {
  return everything;
}

/**
 * The selector that matches no label set (what a missing structured selector converts to).
 * @see staging/src/k8s.io/apimachinery/pkg/labels/selector.go `Nothing`
 */
export function nothingSelector(): Selector {
  return nothing;
}

/**
 * A selector requiring exactly the given labels (`k=v` for each), without validating them; an
 * empty or missing set gives the everything selector.
 * @see staging/src/k8s.io/apimachinery/pkg/labels/selector.go `SelectorFromSet`
 */
export function selectorFromSet(labels: Labels): Selector {
  if (!labels) return everything;
  return new RequirementSelector(Object.entries(labels).map(([key, v]) => ({ key, operator: "=", values: [v] })));
}

/**
 * Builds a selector from already-validated requirements (e.g. from {@link newRequirement}).
 * The input array is not kept; requirements are sorted by key.
 */
export function selectorFromRequirements(reqs: readonly LabelRequirement[]): Selector {
  return new RequirementSelector(reqs);
}

function validateLabelKey(key: string, path: string): FieldError | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? invalid(path, key, errs.join("; ")) : undefined;
}

/**
 * Validates one requirement as Kubernetes' `labels.NewRequirement` does: the key must be a
 * qualified name; `in`/`notin` need at least one value; `=`, `==`, `!=` exactly one; `exists`
 * and `!` none; `gt`/`lt` exactly one 64-bit integer; every value must be a valid label value.
 * Field paths are relative to `path` (`key`, `values`, `values[0][<key>]` at the root).
 *
 * @returns the requirement (values kept in the given order), or the error message (one field
 * error, or several as `[a, b]`) with the field errors themselves. Never throws; does not mutate.
 * @see staging/src/k8s.io/apimachinery/pkg/labels/selector.go `NewRequirement`
 * @example
 * newRequirement("tier", "in", ["web", "db"]) // { ok: true, value: { key: "tier", operator: "in", values: ["web", "db"] } }
 */
export function newRequirement(
  key: string,
  operator: SelectionOperator,
  values: readonly string[],
  path = "",
): { ok: true; value: LabelRequirement } | { ok: false; error: string; fieldErrors: FieldError[] } {
  const child = (name: string) => (path ? `${path}.${name}` : name);
  const errs: FieldError[] = [];
  const keyErr = validateLabelKey(key, child("key"));
  if (keyErr) errs.push(keyErr);
  const valuePath = child("values");
  switch (operator) {
    case "in":
    case "notin":
      if (values.length === 0) errs.push(invalid(valuePath, [...values], "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case "=":
    case "==":
    case "!=":
      if (values.length !== 1) errs.push(invalid(valuePath, [...values], "exact-match compatibility requires one single value"));
      break;
    case "exists":
    case "!":
      if (values.length !== 0) errs.push(invalid(valuePath, [...values], "values set must be empty for exists and does not exist"));
      break;
    case "gt":
    case "lt":
      if (values.length !== 1) errs.push(invalid(valuePath, [...values], "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(invalid(`${valuePath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      errs.push(notSupported(child("operator"), operator, validRequirementOperators));
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length) errs.push(invalid(`${valuePath}[${i}][${key}]`, v, msgs.join("; ")));
  });
  if (errs.length) return { ok: false, error: formatFieldErrors(errs), fieldErrors: errs };
  return { ok: true, value: { key, operator, values: [...values] } };
}

// ---- lexer and parser (same grammar, tokens and messages as Kubernetes) ----

const enum Tok {
  Error,
  End,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const literalTokens = new Map<string, Tok>([
  [")", Tok.ClosedPar],
  [",", Tok.Comma],
  ["!", Tok.DoesNotExist],
  ["==", Tok.DoubleEquals],
  ["=", Tok.Equals],
  [">", Tok.GreaterThan],
  ["in", Tok.In],
  ["<", Tok.LessThan],
  ["!=", Tok.NotEquals],
  ["notin", Tok.NotIn],
  ["(", Tok.OpenPar],
]);

interface Item {
  tok: Tok;
  lit: string;
}

const isWhitespace = (ch: string) => ch === " " || ch === "\t" || ch === "\r" || ch === "\n";
const isSpecial = (ch: string) => "=!(),><".includes(ch) && ch !== "";

// Kubernetes' lexer reads bytes and treats a NUL byte as the end of input; so does this one.
function lex(s: string): Item[] {
  let pos = 0;
  const read = (): string => {
    if (pos < s.length) return s[pos++] ?? "";
    pos++;
    return "";
  };
  const atEnd = (ch: string) => ch === "" || ch === "\0";
  const items: Item[] = [];
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    if (atEnd(ch)) {
      items.push({ tok: Tok.End, lit: "" });
      return items;
    }
    pos--;
    if (isSpecial(ch)) {
      let buffer = "";
      let last: Item | undefined;
      for (;;) {
        const c = read();
        if (atEnd(c)) {
          if (c === "") pos--;
          break;
        }
        if (!isSpecial(c)) {
          pos--;
          break;
        }
        buffer += c;
        const t = literalTokens.get(buffer);
        if (t !== undefined) last = { tok: t, lit: buffer };
        else if (last) {
          pos--;
          break;
        }
      }
      items.push(last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buffer}'` });
    } else {
      let buffer = "";
      for (;;) {
        const c = read();
        if (atEnd(c)) {
          if (c === "") pos--;
          break;
        }
        if (isSpecial(c) || isWhitespace(c)) {
          pos--;
          break;
        }
        buffer += c;
      }
      items.push({ tok: literalTokens.get(buffer) ?? Tok.Identifier, lit: buffer });
    }
  }
}

class ParseError extends Error {}

class Parser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  // In the "values" context the keywords `in` and `notin` are plain identifiers.
  private peek(values: boolean): Item {
    const it = this.items[this.position] ?? { tok: Tok.End, lit: "" };
    return values && (it.tok === Tok.In || it.tok === Tok.NotIn) ? { tok: Tok.Identifier, lit: it.lit } : it;
  }

  private next(values: boolean): Item {
    const it = this.peek(values);
    this.position++;
    return it;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.peek(true);
      if (tok === Tok.Identifier || tok === Tok.DoesNotExist) {
        let r: LabelRequirement;
        try {
          r = this.parseRequirement();
        } catch (e) {
          throw new ParseError(`unable to parse requirement: ${(e as Error).message}`);
        }
        reqs.push(r);
        const t = this.next(true);
        if (t.tok === Tok.End) return reqs;
        if (t.tok === Tok.Comma) {
          const t2 = this.peek(true);
          if (t2.tok !== Tok.Identifier && t2.tok !== Tok.DoesNotExist) {
            throw new ParseError(`found '${t2.lit}', expected: identifier after ','`);
          }
          continue;
        }
        throw new ParseError(`found '${t.lit}', expected: ',' or 'end of string'`);
      }
      if (tok === Tok.End) return reqs;
      throw new ParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
    }
  }

  private parseRequirement(): LabelRequirement {
    const [key, inferred] = this.parseKeyAndInferOperator();
    if (inferred === "exists" || inferred === "!") return this.build(key, inferred, []);
    const operator = this.parseOperator();
    const values = operator === "in" || operator === "notin" ? this.parseValues() : this.parseExactValue();
    return this.build(key, operator, [...values].sort(compareStrings));
  }

  private build(key: string, operator: SelectionOperator, values: string[]): LabelRequirement {
    const r = newRequirement(key, operator, values);
    if (!r.ok) throw new ParseError(r.error);
    return r.value;
  }

  private parseKeyAndInferOperator(): [string, SelectionOperator | undefined] {
    let operator: SelectionOperator | undefined;
    let { tok, lit } = this.next(true);
    if (tok === Tok.DoesNotExist) {
      operator = "!";
      ({ tok, lit } = this.next(true));
    }
    if (tok !== Tok.Identifier) throw new ParseError(`found '${lit}', expected: identifier`);
    // The parser validates the key with no field path, which Go prints as "<nil>".
    const keyErr = validateLabelKey(lit, "<nil>");
    if (keyErr) throw new ParseError(formatFieldErrors([keyErr]));
    const t = this.peek(true).tok;
    if ((t === Tok.End || t === Tok.Comma) && operator !== "!") operator = "exists";
    return [lit, operator];
  }

  private parseOperator(): SelectionOperator {
    const { tok, lit } = this.next(false);
    switch (tok) {
      case Tok.In:
        return "in";
      case Tok.Equals:
        return "=";
      case Tok.DoubleEquals:
        return "==";
      case Tok.GreaterThan:
        return "gt";
      case Tok.LessThan:
        return "lt";
      case Tok.NotIn:
        return "notin";
      case Tok.NotEquals:
        return "!=";
      default:
        throw new ParseError(`found '${lit}', expected: '=', '!=', '==', 'in', notin'`);
    }
  }

  private parseValues(): Set<string> {
    const { tok, lit } = this.next(true);
    if (tok !== Tok.OpenPar) throw new ParseError(`found '${lit}' expected: '('`);
    const ahead = this.peek(true);
    if (ahead.tok === Tok.Identifier || ahead.tok === Tok.Comma) {
      const s = this.parseIdentifiersList();
      if (this.next(true).tok !== Tok.ClosedPar) throw new ParseError(`found '${ahead.lit}', expected: ')'`);
      return s;
    }
    if (ahead.tok === Tok.ClosedPar) {
      this.next(true);
      return new Set([""]);
    }
    throw new ParseError(`found '${ahead.lit}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.next(true);
      if (tok === Tok.Identifier) {
        s.add(lit);
        const t2 = this.peek(true);
        if (t2.tok === Tok.Comma) continue;
        if (t2.tok === Tok.ClosedPar) return s;
        throw new ParseError(`found '${t2.lit}', expected: ',' or ')'`);
      }
      if (tok === Tok.Comma) {
        if (s.size === 0) s.add("");
        const t2 = this.peek(true).tok;
        if (t2 === Tok.ClosedPar) {
          s.add("");
          return s;
        }
        if (t2 === Tok.Comma) s.add("");
        continue;
      }
      throw new ParseError(`found '${lit}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> {
    const ahead = this.peek(true).tok;
    if (ahead === Tok.End || ahead === Tok.Comma) return new Set([""]);
    const { tok, lit } = this.next(true);
    if (tok === Tok.Identifier) return new Set([lit]);
    throw new ParseError(`found '${lit}', expected: identifier`);
  }
}

/**
 * Parses the text form of a label selector, as the `labelSelector` query parameter and
 * `kubectl -l` use it:
 *
 * ```
 * selector    ::= requirement | requirement "," selector
 * requirement ::= ["!"] KEY [ ("in" | "notin") "(" VALUE {"," VALUE} ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
 * ```
 *
 * Whitespace (space, tab, CR, LF) separates tokens; the empty string selects everything; a bare
 * `key` means Exists and `!key` DoesNotExist; `in ()` means the one empty value. Keys must be
 * qualified names and values label values.
 *
 * @returns the selector (requirements sorted by key, set values sorted and deduplicated), or
 * Kubernetes' error message, e.g. `unable to parse requirement: found '', expected: identifier`
 * or `found ',', expected: identifier after ','`. Never throws.
 * @see staging/src/k8s.io/apimachinery/pkg/labels/selector.go `Parse`
 * @example
 * const r = parseLabelSelector("app=web, tier in (db,cache), !canary");
 * if (r.ok) r.value.matches({ app: "web", tier: "db" }); // true
 */
export function parseLabelSelector(text: string): SelectorResult<Selector> {
  try {
    return { ok: true, value: new RequirementSelector(new Parser(lex(text)).parse()) };
  } catch (e) {
    if (e instanceof ParseError) return { ok: false, error: e.message };
    throw e;
  }
}

const structuredOperators: Readonly<Record<string, SelectionOperator>> = {
  In: "in",
  NotIn: "notin",
  Exists: "exists",
  DoesNotExist: "!",
};

/**
 * Converts a structured selector (`matchLabels` + `matchExpressions`) to a {@link Selector}:
 * `undefined`/`null` gives the nothing selector, one with no terms the everything selector. Each
 * `matchLabels` entry becomes `key=value`; operators must be `In`, `NotIn`, `Exists` or
 * `DoesNotExist`.
 *
 * @returns the selector, or the first error: `"Foo" is not a valid pod selector operator`, or the
 * {@link newRequirement} message (`key: Invalid value: ...`). Never throws; does not mutate.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go `LabelSelectorAsSelector`
 * @example
 * labelSelectorAsSelector({ matchLabels: { app: "pi" } }) // ok, toString() === "app=pi"
 */
export function labelSelectorAsSelector(ps: LabelSelector | null | undefined): SelectorResult<Selector> {
  if (ps === null || ps === undefined) return { ok: true, value: nothing };
  const matchLabels = Object.entries(ps.matchLabels ?? {});
  const exprs = ps.matchExpressions ?? [];
  if (matchLabels.length + exprs.length === 0) return { ok: true, value: everything };
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of matchLabels) {
    const r = newRequirement(k, "=", [v]);
    if (!r.ok) return { ok: false, error: r.error };
    reqs.push(r.value);
  }
  for (const e of exprs) {
    const op = Object.prototype.hasOwnProperty.call(structuredOperators, e.operator) ? structuredOperators[e.operator] : undefined;
    if (op === undefined) return { ok: false, error: `${goQuote(e.operator)} is not a valid pod selector operator` };
    const r = newRequirement(e.key, op, e.values ?? []);
    if (!r.ok) return { ok: false, error: r.error };
    reqs.push(r.value);
  }
  return { ok: true, value: new RequirementSelector(reqs) };
}

/**
 * The text of a structured selector as `kubectl` shows it in the SELECTOR column: the canonical
 * selector string, `<none>` when it selects everything or nothing, `<error>` when invalid.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go `FormatLabelSelector`
 * @example
 * formatLabelSelector({ matchLabels: { "controller-uid": "abc" } }) // "controller-uid=abc"
 */
export function formatLabelSelector(ps: LabelSelector | null | undefined): string {
  const r = labelSelectorAsSelector(ps);
  if (!r.ok) return "<error>";
  return r.value.toString() || "<none>";
}
