/**
 * Semantic equality in the spirit of Kubernetes' `apiequality.Semantic.DeepEqual` for decoded
 * JSON: a missing field, `null`, `""`, `[]` and `{}` are all "unset" and equal to each other (as
 * nil and empty slices/maps are in Go, and as an omitted string is ""); numbers, booleans and
 * non-empty strings compare strictly; arrays compare in order; objects compare key by key.
 * Not part of the public API.
 */
function isUnset(v: unknown): boolean {
  if (v === undefined || v === null || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.values(v as Record<string, unknown>).every(isUnset);
  return false;
}

export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ua = isUnset(a);
  const ub = isUnset(b);
  if (ua || ub) return ua && ub;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => semanticEqual(x, b[i]));
  }
  if (typeof a === "object" && typeof b === "object") {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
    for (const k of keys) if (!semanticEqual(ra[k], rb[k])) return false;
    return true;
  }
  return false;
}
