/**
 * CPU sets as the kubelet writes them (`0-2,7`): parsing, formatting and set algebra over sorted
 * arrays of logical CPU ids.
 * @see pkg/kubelet/cm/cpuset/cpuset.go in kubernetes/kubernetes v1.23
 */

/** A set of logical CPU ids, always sorted ascending without duplicates. */
export type CPUSet = readonly number[];

/** A sorted, de-duplicated copy of `ids`. */
export function cpuSetOf(ids: Iterable<number>): CPUSet {
  return [...new Set(ids)].sort((a, b) => a - b);
}

/** The union of the sets. */
export function union(...sets: CPUSet[]): CPUSet {
  return cpuSetOf(sets.flat());
}

/** The CPUs of `a` that are in `b`. */
export function intersection(a: CPUSet, b: CPUSet): CPUSet {
  const in_ = new Set(b);
  return a.filter((c) => in_.has(c));
}

/** The CPUs of `a` not in `b`. */
export function difference(a: CPUSet, b: CPUSet): CPUSet {
  const out = new Set(b);
  return a.filter((c) => !out.has(c));
}

/** Whether both sets hold the same CPUs. */
export function equals(a: CPUSet, b: CPUSet): boolean {
  return a.length === b.length && a.every((c, i) => c === b[i]);
}

/**
 * The kubelet's text form of a set: ranges joined by commas (`0-2,7`); `""` when empty.
 * @see pkg/kubelet/cm/cpuset/cpuset.go (String) in kubernetes/kubernetes v1.23
 */
export function formatCPUSet(s: CPUSet): string {
  const parts: string[] = [];
  let i = 0;
  while (i < s.length) {
    const start = s[i] as number;
    let end = start;
    while (i + 1 < s.length && s[i + 1] === end + 1) end = s[++i] as number;
    parts.push(start === end ? String(start) : `${start}-${end}`);
    i++;
  }
  return parts.join(",");
}

function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  return Number.parseInt(text, 10);
}

/**
 * Parses the kubelet's text form (`0-2,7`, `""` → empty set).
 * @throws Error with Go's words: `strconv.Atoi: parsing "x": invalid syntax`, `invalid range "3-1" (3 >= 1)`.
 * @see pkg/kubelet/cm/cpuset/cpuset.go (Parse) in kubernetes/kubernetes v1.23
 */
export function parseCPUSet(text: string): CPUSet {
  if (text === "") return [];
  const ids: number[] = [];
  for (const r of text.split(",")) {
    const bounds = r.split("-");
    if (bounds.length === 1) ids.push(atoi(bounds[0] as string));
    else if (bounds.length === 2) {
      const start = atoi(bounds[0] as string);
      const end = atoi(bounds[1] as string);
      if (start > end) throw new Error(`invalid range ${JSON.stringify(r)} (${start} >= ${end})`);
      for (let c = start; c <= end; c++) ids.push(c);
    } else throw new Error(`invalid range ${JSON.stringify(r)}`);
  }
  return cpuSetOf(ids);
}
