/**
 * Bounds every decoded document (JSON, YAML, protobuf, patches, apply configurations, static pod
 * manifests) is held to before any recursive code sees it: nesting depth, self-referencing YAML
 * aliases, and the size a patch may grow a document to.
 *
 * Kubernetes 1.23's decoders (sigs.k8s.io/json, a fork of encoding/json, and go-yaml) refuse more
 * than 10000 levels ("exceeded max depth"). Skiff's request path recurses (the `yaml` library's
 * parser and stringifier overflow the stack from about 600 levels, `structuredClone` from about
 * 1500, managedFields, strategic merge patch, validation walk objects recursively), so the bound is
 * lower: {@link maxDocumentDepth} = 100 levels. Kubernetes objects are a few dozen levels deep
 * at most (a Job's `spec.template.spec.containers[0].livenessProbe.httpGet.httpHeaders[0].name`
 * is 10), so no real object reaches it, and every recursive walk on the request path keeps a wide
 * margin below the stack limit.
 *
 * @see https://github.com/kubernetes-sigs/json (internal/golang/encoding/json/scanner.go `maxNestingDepth`)
 * @see https://github.com/go-yaml/yaml (scannerc.go `max_flow_level`, "exceeded max depth of 10000")
 */

import { isObject } from "./internal/json.js";

/**
 * Most levels of nesting (objects and arrays; a scalar at the top is depth 0, `{}` and `[]` are
 * depth 1) any decoded document may have: 100.
 */
export const maxDocumentDepth = 100;

/**
 * Most levels an object's own fields (everything but `metadata.managedFields`) may nest: 95, so
 * that its managedFields, whose `fieldsV1` mirror the fields 4 levels below the root with a `{}`
 * at each leaf, keep the whole object within {@link maxDocumentDepth} and it round-trips through
 * GET and PUT.
 */
export const maxObjectDepth = maxDocumentDepth - 5;

/**
 * Checks an API object's own fields against {@link maxObjectDepth}, leaving `metadata.managedFields`
 * out (they are checked with the whole document against {@link maxDocumentDepth}).
 * @returns as {@link checkDocumentLimits}. Never throws; does not mutate `obj`.
 */
export function checkObjectDepth(obj: Record<string, unknown>): DocumentLimitProblem | undefined {
  const meta = obj["metadata"];
  if (!isObject(meta) || !("managedFields" in meta)) return checkDocumentLimits(obj, maxObjectDepth);
  const { managedFields: _ignored, ...rest } = meta;
  return checkDocumentLimits({ ...obj, metadata: rest }, maxObjectDepth);
}

/**
 * Most bytes a JSON Patch's `copy` operations may add to a document, summed over the patch
 * (the serialized size of each copied value): 3 MiB, the default of 1.23's `JSONPatchMaxCopyBytes`.
 * @see staging/src/k8s.io/apiserver/pkg/server/config.go (JSONPatchMaxCopyBytes)
 */
export const maxJSONPatchCopyBytes = 3 * 1024 * 1024;

/**
 * Most bytes (serialized as JSON) a patched or applied object may have: 3 MiB, the request body
 * limit, so a patch cannot grow an object past what a PUT could send.
 */
export const maxPatchedObjectBytes = 3 * 1024 * 1024;

/** Why a document was refused: its nesting is too deep, or it refers to itself (a YAML alias cycle). */
export type DocumentLimitProblem = { readonly reason: "depth"; readonly message: string } | { readonly reason: "cycle"; readonly message: string };

/**
 * Checks a decoded value's nesting depth without recursion (an explicit stack), and that it holds
 * no reference cycle (which only a self-referencing YAML alias such as `a: &a [*a]` produces).
 * Shared but acyclic references (ordinary aliases) are fine.
 *
 * @param maxDepth most levels allowed, {@link maxDocumentDepth} by default
 * @returns `undefined` when the value is within bounds; otherwise the problem, with a message in
 *   1.23's words (`exceeded max depth`) or naming the cycle. Never throws; does not mutate `value`.
 * @example
 * checkDocumentLimits(JSON.parse("[[[]]]"), 2) // { reason: "depth", message: "exceeded max depth of 2" }
 */
export function checkDocumentLimits(value: unknown, maxDepth: number = maxDocumentDepth): DocumentLimitProblem | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  // Frames: the container being walked and its child keys/values still to visit. `onPath` holds
  // the containers from the root to the current one (a cycle revisits one of them).
  const onPath = new Set<object>();
  const stack: { node: object; children: unknown[]; next: number }[] = [];
  const enter = (node: object): DocumentLimitProblem | undefined => {
    if (onPath.has(node)) return { reason: "cycle", message: "the document refers to itself (a YAML alias inside its own anchor)" };
    if (stack.length >= maxDepth) return { reason: "depth", message: `exceeded max depth of ${maxDepth}` };
    onPath.add(node);
    stack.push({ node, children: Array.isArray(node) ? node : isObject(node) ? Object.values(node) : [], next: 0 });
    return undefined;
  };
  const first = enter(value);
  if (first) return first;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next >= top.children.length) {
      onPath.delete(top.node);
      stack.pop();
      continue;
    }
    const child = top.children[top.next++];
    if (typeof child === "object" && child !== null) {
      const p = enter(child);
      if (p) return p;
    }
  }
  return undefined;
}

/**
 * A conservative upper bound on the nesting depth of a YAML text, read without parsing it:
 * per line, its indentation plus the block indicators (`- `, `? `, `key: `) before its first
 * value, plus the open flow collections (`[`, `{`) outside quotes and comments. Used to refuse a
 * text before the `yaml` library (whose composer recurses) sees it. Never below the real depth.
 * @returns the estimate, in levels. Never throws.
 */
export function estimateYAMLDepth(text: string): number {
  let max = 0;
  let flow = 0;
  let quote = 0; // 0, or the char code of the open quote (34 ", 39 ')
  let lineStart = true;
  let indent = 0;
  let lineDepth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      lineStart = true;
      indent = 0;
      lineDepth = 0;
      if (quote === 39 || quote === 34) continue; // multi-line quoted scalars continue
      continue;
    }
    if (quote !== 0) {
      if (c === 92 && quote === 34) i++;
      else if (c === quote) quote = 0;
      continue;
    }
    if (lineStart && (c === 32 || c === 9)) {
      indent++;
      continue;
    }
    lineStart = false;
    if (c === 35 && (i === 0 || text.charCodeAt(i - 1) === 32 || text.charCodeAt(i - 1) === 9 || text.charCodeAt(i - 1) === 10)) {
      while (i + 1 < text.length && text.charCodeAt(i + 1) !== 10) i++;
      continue;
    }
    if (c === 34 || c === 39) quote = c;
    else if (c === 91 || c === 123) flow++;
    else if ((c === 93 || c === 125) && flow > 0) flow--;
    else if ((c === 45 || c === 63 || c === 58) && (i + 1 >= text.length || text.charCodeAt(i + 1) === 32 || text.charCodeAt(i + 1) === 10)) lineDepth++;
    const d = indent + lineDepth + flow;
    if (d > max) max = d;
  }
  return max;
}
