/**
 * Request body decoding and response media-type negotiation.
 * @see k8s.io/apiserver/pkg/endpoints/handlers/negotiation/negotiate.go
 */
import { checkDocumentLimits, isStatusError, estimateYAMLDepth, maxDocumentDepth, newBadRequest, newNotAcceptable, newUnsupportedMediaType } from "@skiff/apimachinery";
import { parseDocument } from "yaml";

/** The response forms the server can produce. */
export type ResponseForm = "json" | "yaml" | "table" | "partial";

/** The negotiated response: its form and the exact Content-Type to send. */
export interface NegotiatedResponse {
  readonly form: ResponseForm;
  readonly contentType: string;
}

const acceptable = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];

/**
 * Chooses the response form from an Accept header. Throws 406 NotAcceptable when nothing offered
 * matches (protobuf-only clients included).
 * @defaultValue JSON when the header is missing or `*\/*`.
 */
export function negotiateResponse(accept: string | undefined): NegotiatedResponse {
  if (!accept) return { form: "json", contentType: "application/json" };
  for (const raw of accept.split(",")) {
    const [type = "", ...paramParts] = raw.split(";").map((p) => p.trim());
    const params = new Map(paramParts.map((p) => { const i = p.indexOf("="); return [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const; }));
    const as = params.get("as");
    const t = type.toLowerCase();
    if (as) {
      if (t !== "application/json" || params.get("g") !== "meta.k8s.io") continue;
      const v = params.get("v");
      if (as === "Table" && (v === "v1" || v === "v1beta1")) return { form: "table", contentType: `application/json;as=Table;v=${v};g=meta.k8s.io` };
      if (as === "PartialObjectMetadata" && (v === "v1" || v === "v1beta1")) return { form: "partial", contentType: `application/json;as=PartialObjectMetadata;v=${v};g=meta.k8s.io` };
      continue;
    }
    if (t === "application/json" || t === "*/*" || t === "application/*") return { form: "json", contentType: "application/json" };
    if (t === "application/yaml") return { form: "yaml", contentType: "application/yaml" };
  }
  throw newNotAcceptable(acceptable);
}

/** Request body media types for create/update. */
export const bodyMediaTypes = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];

/** PATCH media types. */
export const patchMediaTypes = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
];

/**
 * Finds duplicate object keys in a JSON text (JSON.parse keeps the last silently). Returns field
 * paths like `metadata.name`. Assumes `text` is valid JSON.
 */
export function findDuplicateJSONKeys(text: string): string[] {
  // One pass over the text by char codes; a key is only unescaped when it has an escape, and a
  // path is only built for a duplicate (the stack holds the keys above the current value).
  const dups: string[] = [];
  const stack: string[] = [];
  const n = text.length;
  let i = 0;
  const ws = () => {
    for (let c = text.charCodeAt(i); c === 32 || c === 10 || c === 13 || c === 9; c = text.charCodeAt(++i));
  };
  const str = (): string => {
    const start = i + 1;
    let escaped = false;
    for (i = start; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 34) break;
      if (c === 92) {
        escaped = true;
        i++;
      }
    }
    i++;
    return escaped ? (JSON.parse(text.slice(start - 1, i)) as string) : text.slice(start, i - 1);
  };
  const value = (): void => {
    ws();
    const c = text.charCodeAt(i);
    if (c === 123) {
      i++;
      ws();
      if (text.charCodeAt(i) === 125) {
        i++;
        return;
      }
      let seen: Set<string> | undefined;
      let first: string | undefined;
      for (;;) {
        ws();
        const k = str();
        // Most objects are small: the first key needs no set.
        if (first === undefined) first = k;
        else {
          seen ??= new Set([first]);
          if (seen.has(k)) dups.push([...stack, k].join("."));
          seen.add(k);
        }
        ws();
        i++; // :
        stack.push(k);
        value();
        stack.pop();
        ws();
        if (text.charCodeAt(i++) === 125) return;
      }
    } else if (c === 91) {
      i++;
      ws();
      if (text.charCodeAt(i) === 93) {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text.charCodeAt(i++) === 93) return;
      }
    } else if (c === 34) str();
    else {
      for (let d = c; i < n && d !== 44 && d !== 125 && d !== 93 && d !== 32 && d !== 10 && d !== 13 && d !== 9; d = text.charCodeAt(++i));
    }
  };
  value();
  return dups;
}

/** A decoded body and the duplicate fields found while decoding. */
export interface DecodedBody {
  readonly value: unknown;
  readonly duplicateFields: readonly string[];
}

/**
 * Refuses a decoded document deeper than {@link maxDocumentDepth} or referring to itself, before
 * any recursive code walks it.
 * @throws StatusError 400 BadRequest, `<prefix>exceeded max depth of 100` (1.23's decoders' words)
 *   or naming the YAML alias cycle
 */
export function assertDocumentLimits(value: unknown, prefix: string): void {
  const problem = checkDocumentLimits(value);
  if (problem) throw newBadRequest(prefix + problem.message);
}

/**
 * Decodes a request body by media type, bounded: at most {@link maxDocumentDepth} levels of
 * nesting, YAML aliases at most the `yaml` library's `maxAliasCount` (100) and never inside their
 * own anchor. `duplicateFields` lists a JSON text's duplicate keys unless `options.findDuplicates`
 * is false (then it is empty and the text is not scanned for them: a write whose `fieldValidation`
 * neither warns nor refuses does not need them).
 * @throws StatusError 415 for unknown types, 400 for malformed, too deep or self-referencing text
 */
export function decodeBody(contentType: string | undefined, body: string, allowed: readonly string[], options: { readonly findDuplicates?: boolean } = {}): DecodedBody {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (!allowed.includes(type) || type === "application/vnd.kubernetes.protobuf") throw newUnsupportedMediaType(allowed);
  if (type === "application/yaml" || type === "application/apply-patch+yaml") {
    const yamlPrefix = "error converting YAML to JSON: yaml: ";
    // The yaml library's composer recurses: a text that may nest deeper than the bound allows
    // (indentation counted as levels, so with room for any indentation style) never reaches it.
    if (estimateYAMLDepth(body) > 4 * maxDocumentDepth) throw newBadRequest(`${yamlPrefix}exceeded max depth of ${maxDocumentDepth}`);
    let value: unknown;
    try {
      const doc = parseDocument(body, { uniqueKeys: false });
      if (doc.errors.length > 0) throw newBadRequest(`error converting YAML to JSON: ${doc.errors[0]!.message}`);
      // toJS throws on an unresolved alias (`*x`) or an alias bomb (maxAliasCount).
      value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    } catch (e) {
      if (isStatusError(e)) throw e;
      throw newBadRequest(`error converting YAML to JSON: ${(e as Error).message}`);
    }
    assertDocumentLimits(value, yamlPrefix);
    return { value, duplicateFields: [] };
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    throw newBadRequest(`error decoding request body: ${(e as Error).message}`);
  }
  // V8's JSON.parse does not recurse; everything after it may, so the depth is checked first.
  assertDocumentLimits(value, "error decoding request body: ");
  return { value, duplicateFields: options.findDuplicates === false ? [] : findDuplicateJSONKeys(body) };
}
