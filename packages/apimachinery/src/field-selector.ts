/**
 * Field selectors: the `fieldSelector` query parameter (`metadata.name=pi,status.phase!=Running`),
 * parsed and matched as Kubernetes does. Which field names a resource supports is the
 * apiserver's business: it reads {@link FieldSelector.requirements} and rejects others with
 * `field label not supported: <name>` (400).
 *
 * @see staging/src/k8s.io/apimachinery/pkg/fields/selector.go
 */

import type { SelectorResult } from "./label-selector.js";

/** `=` (also what `==` parses to) or `!=`. */
export type FieldSelectionOperator = "=" | "!=";

/** One term of a field selector. `value` is unescaped. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldSelectionOperator;
  readonly value: string;
}

/** The field values of one object, by field name (`metadata.name`, `status.phase`). */
export type Fields = Readonly<Record<string, string>>;

/**
 * A parsed field selector: an AND of `field=value` / `field!=value` terms. A field missing from
 * the field set counts as the empty string (so `a!=x` matches objects without `a`).
 *
 * - `requirements()`: the terms, in the (sorted) order of the selector text.
 * - `requiresExactMatch(field)`: the value an `=` term demands of `field`, else `undefined`.
 * - `transform(fn)`: a new selector with every term's field and value passed through `fn`
 *   (Kubernetes uses this to map versioned field labels); errors thrown by `fn` propagate.
 * - `toString()`: canonical text, values escaped (`a=b\,c`); `""` for the empty selector.
 *
 * Selectors are immutable.
 */
export interface FieldSelector {
  matches(fields: Fields): boolean;
  empty(): boolean;
  requirements(): readonly FieldRequirement[];
  requiresExactMatch(field: string): string | undefined;
  transform(fn: (field: string, value: string) => { field: string; value: string }): FieldSelector;
  toString(): string;
}

class TermsSelector implements FieldSelector {
  constructor(private readonly terms: readonly FieldRequirement[]) {}

  matches(fields: Fields): boolean {
    return this.terms.every((t) => {
      const v = Object.prototype.hasOwnProperty.call(fields, t.field) ? fields[t.field] : "";
      return t.operator === "=" ? v === t.value : v !== t.value;
    });
  }

  empty(): boolean {
    return this.terms.length === 0;
  }

  requirements(): readonly FieldRequirement[] {
    return this.terms;
  }

  requiresExactMatch(field: string): string | undefined {
    return this.terms.find((t) => t.field === field && t.operator === "=")?.value;
  }

  transform(fn: (field: string, value: string) => { field: string; value: string }): FieldSelector {
    return new TermsSelector(this.terms.map((t) => ({ ...fn(t.field, t.value), operator: t.operator })));
  }

  toString(): string {
    return this.terms.map((t) => `${t.field}${t.operator}${escapeFieldSelectorValue(t.value)}`).join(",");
  }
}

/**
 * Escapes a literal value for use in a field selector: `\` → `\\`, `,` → `\,`, `=` → `\=`.
 * @see staging/src/k8s.io/apimachinery/pkg/fields/selector.go `EscapeValue`
 */
export function escapeFieldSelectorValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Undoes {@link escapeFieldSelectorValue}.
 *
 * @returns the literal value, or Kubernetes' message: `invalid field selector: invalid escape
 * sequence: \x` for an unknown or trailing escape, `invalid field selector: unescaped character
 * in value: 61` for a bare `=` or `,` (Go prints the character as its code point).
 * @see staging/src/k8s.io/apimachinery/pkg/fields/selector.go `UnescapeValue`
 */
export function unescapeFieldSelectorValue(s: string): SelectorResult<string> {
  if (!/[\\,=]/.test(s)) return { ok: true, value: s };
  let out = "";
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === "\\" || c === "," || c === "=") out += c;
      else return { ok: false, error: `invalid field selector: invalid escape sequence: \\${c}` };
      inSlash = false;
    } else if (c === "\\") {
      inSlash = true;
    } else if (c === "," || c === "=") {
      return { ok: false, error: `invalid field selector: unescaped character in value: ${c.codePointAt(0)}` };
    } else {
      out += c;
    }
  }
  if (inSlash) return { ok: false, error: "invalid field selector: invalid escape sequence: \\" };
  return { ok: true, value: out };
}

// Splits on commas not preceded by a backslash escape; the escapes stay in the terms.
function splitTerms(text: string): string[] {
  if (text === "") return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inSlash) inSlash = false;
    else if (c === "\\") inSlash = true;
    else if (c === ",") {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

// The first operator occurrence splits the term (field names cannot be escaped); at each
// position "!=" is tried before "==" before "=".
function splitTerm(term: string): { lhs: string; op: string; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ["!=", "==", "="]) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/**
 * Parses a field selector: comma-separated `field=value`, `field==value` or `field!=value`
 * terms; `\,`, `\=` and `\\` escape those characters in values; empty terms are skipped; the
 * empty string selects everything. Terms are sorted by their text, as Kubernetes sorts them.
 * Field names are not checked here.
 *
 * @returns the selector, or Kubernetes' message: `invalid selector: 'a'; can't understand 'a'`,
 * or an unescape error (see {@link unescapeFieldSelectorValue}). Never throws.
 * @see staging/src/k8s.io/apimachinery/pkg/fields/selector.go `ParseSelector`
 * @example
 * const r = parseFieldSelector("metadata.name=pi,status.phase!=Running");
 * if (r.ok) r.value.matches({ "metadata.name": "pi", "status.phase": "Pending" }); // true
 */
export function parseFieldSelector(text: string): SelectorResult<FieldSelector> {
  const parts = splitTerms(text).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const terms: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === "") continue;
    const t = splitTerm(part);
    if (!t) return { ok: false, error: `invalid selector: '${text}'; can't understand '${part}'` };
    const v = unescapeFieldSelectorValue(t.rhs);
    if (!v.ok) return v;
    terms.push({ field: t.lhs, operator: t.op === "!=" ? "!=" : "=", value: v.value });
  }
  return { ok: true, value: new TermsSelector(terms) };
}

/**
 * A selector requiring each given field to equal its value (`f=v` per entry, in key order).
 * @see staging/src/k8s.io/apimachinery/pkg/fields/selector.go `SelectorFromSet`
 */
export function fieldSelectorFromSet(fields: Fields): FieldSelector {
  return new TermsSelector(
    Object.keys(fields)
      .sort()
      .map((field) => ({ field, operator: "=", value: fields[field] ?? "" })),
  );
}
