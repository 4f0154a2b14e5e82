/**
 * Semantic equality of JSON-shaped values, as Kubernetes' `apiequality.Semantic.DeepEqual` is used
 * by immutability checks: arrays compare element-wise in order, objects by their members, and an
 * object member that is absent, `undefined`, an empty list or an empty object (recursively) counts
 * as unset (Go's semantic equality treats nil and empty slices/maps as equal, and struct members
 * hold zero values). Scalars compare strictly: `false`, `0` and `""` are not "unset".
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) {
    const av = ao[k];
    const bv = bo[k];
    if (isUnset(av) && isUnset(bv)) continue;
    if (!deepEqual(av, bv)) return false;
  }
  return true;
}

/** Whether `v` is absent, an empty list, or an object all of whose members are unset. */
export function isUnset(v: unknown): boolean {
  if (v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (v !== null && typeof v === "object") return Object.values(v).every(isUnset);
  return false;
}
