/**
 * ABAC authorization (`--authorization-mode=ABAC`, `--authorization-policy-file`): one JSON
 * policy per line, `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{...}}`,
 * or the legacy unversioned form (`{"user":"alice","readonly":true}`). Blank lines and lines
 * starting with `#` are skipped.
 *
 * @see pkg/auth/authorizer/abac/abac.go
 * @see pkg/apis/abac/v1beta1/conversion.go
 * @see pkg/apis/abac/v0/conversion.go
 */
import type { UserInfo } from "../registry/strategy.js";
import { wellKnownUsers } from "./auth.js";
import type { AuthorizationAttributes, Authorizer } from "./auth.js";
import { isReadOnlyVerb } from "./authorizers.js";

/** One policy after conversion to the internal form (`*` is a wildcard in every string field). */
export interface ABACPolicy {
  /** User name to match; `""` matches no user by name (see {@link abacAuthorizer}). */
  readonly user: string;
  /** Group to match; `""` matches no group by name. */
  readonly group: string;
  /** When true, only get/list/watch are allowed by this policy. */
  readonly readonly: boolean;
  readonly apiGroup: string;
  readonly resource: string;
  readonly namespace: string;
  readonly nonResourcePath: string;
}

/** A policy line that failed to parse, with its 1-based line number and text. */
export interface ABACPolicyLineError {
  readonly line: number;
  readonly text: string;
  readonly message: string;
}

/** Result of {@link parseABACPolicies}: every policy, or every bad line. */
export type ParseABACResult = { ok: true; value: ABACPolicy[]; unversionedLines: number } | { ok: false; errors: ABACPolicyLineError[] };

/** `apiVersion` of the versioned policy form. */
export const abacPolicyAPIVersion = "abac.authorization.kubernetes.io/v1beta1";

const specFields: Record<string, "string" | "boolean"> = {
  user: "string",
  group: "string",
  readonly: "boolean",
  apiGroup: "string",
  resource: "string",
  namespace: "string",
  nonResourcePath: "string",
};

/**
 * Parses a policy file. v1beta1 `user: "*"` or `group: "*"` becomes group `system:authenticated`
 * (so anonymous requests are NOT matched by `*`; name `system:unauthenticated` for those). Legacy
 * unversioned lines convert as 1.23's v0: no user and no group → all authenticated; empty
 * namespace → every namespace and every non-resource path; empty resource → every resource;
 * every API group. Unknown spec fields are ignored; wrong types, bad JSON, another
 * apiVersion/kind are errors. Does not throw.
 *
 * @example
 * const r = parseABACPolicies('{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"bob","namespace":"*","resource":"*","apiGroup":"*","readonly":true}}');
 */
export function parseABACPolicies(text: string): ParseABACResult {
  const value: ABACPolicy[] = [];
  const errors: ABACPolicyLineError[] = [];
  let unversionedLines = 0;
  text.split(/\r?\n/).forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const fail = (message: string) => errors.push({ line: i + 1, text: raw, message });
    let obj: unknown;
    try {
      obj = JSON.parse(trimmed);
    } catch (e) {
      return fail(`invalid JSON: ${(e as Error).message}`);
    }
    if (obj === null || typeof obj !== "object" || Array.isArray(obj)) return fail("a policy must be a JSON object");
    const o = obj as Record<string, unknown>;
    if (o["apiVersion"] === undefined && o["kind"] === undefined) {
      const v0 = readSpec(o, ["user", "group", "readonly", "resource", "namespace"]);
      if (typeof v0 === "string") return fail(v0);
      unversionedLines++;
      value.push(convertV0(v0));
      return;
    }
    if (o["apiVersion"] !== abacPolicyAPIVersion || o["kind"] !== "Policy") {
      return fail(`no kind "${String(o["kind"] ?? "")}" is registered for version "${String(o["apiVersion"] ?? "")}" (want apiVersion "${abacPolicyAPIVersion}", kind "Policy")`);
    }
    const specRaw = o["spec"] ?? {};
    if (specRaw === null || typeof specRaw !== "object" || Array.isArray(specRaw)) return fail("spec must be a JSON object");
    const spec = readSpec(specRaw as Record<string, unknown>, Object.keys(specFields));
    if (typeof spec === "string") return fail(spec);
    value.push(convertV1beta1(spec));
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value, unversionedLines };
}

/**
 * The error text for a failed parse, naming the file and each bad line as 1.23 does:
 * `error reading policy file <path>, line <n>: <text>: <message>`.
 */
export function formatABACErrors(path: string, errors: readonly ABACPolicyLineError[]): string {
  return errors.map((e) => `error reading policy file ${path}, line ${String(e.line)}: ${e.text}: ${e.message}`).join("\n");
}

/**
 * The ABAC authorizer: allows when any policy matches (subject, then verb via `readonly`, then
 * resource or non-resource attributes); otherwise no opinion with reason `No policy matched.`.
 * A policy with neither user nor group matches nobody.
 * @see pkg/auth/authorizer/abac/abac.go (matches, subjectMatches, verbMatches, resourceMatches, nonResourceMatches)
 */
export function abacAuthorizer(policies: readonly ABACPolicy[]): Authorizer {
  return (attrs) => {
    for (const p of policies) if (policyMatches(p, attrs)) return { allowed: true, reason: "" };
    return { allowed: false, reason: "No policy matched." };
  };
}

function policyMatches(p: ABACPolicy, a: AuthorizationAttributes): boolean {
  if (!subjectMatches(p, a.user)) return false;
  if (!isReadOnlyVerb(a.verb) && p.readonly) return false;
  if (a.resourceRequest) {
    return (
      (p.namespace === "*" || p.namespace === a.namespace) &&
      (p.resource === "*" || p.resource === a.resource) &&
      (p.apiGroup === "*" || p.apiGroup === a.apiGroup)
    );
  }
  if (p.nonResourcePath === "*" || p.nonResourcePath === a.path) return true;
  return p.nonResourcePath.endsWith("*") && a.path.startsWith(p.nonResourcePath.replace(/\*+$/, ""));
}

function subjectMatches(p: ABACPolicy, user: UserInfo): boolean {
  let matched = false;
  if (p.user !== "") {
    if (p.user === "*") matched = true;
    else if (p.user === user.username) matched = true;
    else return false;
  }
  if (p.group !== "") {
    if (p.group === "*") matched = true;
    else if (user.groups.includes(p.group)) matched = true;
    else return false;
  }
  return matched;
}

type RawSpec = { [K in keyof ABACPolicy]?: ABACPolicy[K] };

function readSpec(o: Record<string, unknown>, allowed: readonly string[]): RawSpec | string {
  const out: Record<string, unknown> = {};
  for (const k of allowed) {
    const v = o[k];
    if (v === undefined || v === null) continue;
    const want = specFields[k];
    if (typeof v !== want) return `${k}: expected a ${want === "boolean" ? "boolean" : "string"}, got ${JSON.stringify(v)}`;
    out[k] = v;
  }
  return out as RawSpec;
}

function convertV1beta1(s: RawSpec): ABACPolicy {
  const p = {
    user: s.user ?? "",
    group: s.group ?? "",
    readonly: s.readonly ?? false,
    apiGroup: s.apiGroup ?? "",
    resource: s.resource ?? "",
    namespace: s.namespace ?? "",
    nonResourcePath: s.nonResourcePath ?? "",
  };
  if (p.user === "*" || p.group === "*") return { ...p, user: "", group: wellKnownUsers.allAuthenticated };
  return p;
}

function convertV0(s: RawSpec): ABACPolicy {
  let user = s.user ?? "";
  let group = s.group ?? "";
  const namespace = s.namespace ?? "";
  if (user === "" && group === "") group = wellKnownUsers.allAuthenticated;
  if (user === "*" || group === "*") {
    group = wellKnownUsers.allAuthenticated;
    user = "";
  }
  return {
    user,
    group,
    readonly: s.readonly ?? false,
    apiGroup: "*",
    resource: s.resource || "*",
    namespace: namespace || "*",
    nonResourcePath: namespace === "" ? "*" : "",
  };
}
