/**
 * The node agent's own flag value types, for the two flags whose values @skiff/flags does not
 * know: `--register-with-taints` and `--reserved-memory`.
 *
 * @see pkg/util/flag/flags.go (`RegisterWithTaintsVar`, `ReservedMemoryVar`) in kubernetes/kubernetes v1.23
 */
import type { FlagType, FlagValueResult } from "@skiff/flags";

/** One taint given at registration (`key=value:effect`), as v1 `Taint` without `timeAdded`. */
export interface RegisterTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

/** One `--reserved-memory` entry: a NUMA node and the memory types reserved on it (`memory`, `hugepages-1Gi`...). */
export interface ReservedMemoryEntry {
  readonly numaNode: number;
  readonly limits: Readonly<Record<string, string>>;
}

const taintEffects = new Set(["NoSchedule", "PreferNoSchedule", "NoExecute"]);

/** Parses one `key=value:effect` or `key:effect` taint; the error text follows `ParseTaint`. */
export function parseRegisterTaint(st: string): { ok: true; value: RegisterTaint } | { ok: false; error: string } {
  const parts = st.split(":");
  if (parts.length !== 2) return { ok: false, error: `invalid taint spec: ${st}` };
  const [kv = "", effect = ""] = parts;
  if (!taintEffects.has(effect)) {
    return { ok: false, error: `invalid taint effect: ${effect}, unsupported taint effect` };
  }
  const eq = kv.indexOf("=");
  const key = eq < 0 ? kv : kv.slice(0, eq);
  if (key === "") return { ok: false, error: `invalid taint spec: ${st}` };
  if (eq < 0) return { ok: true, value: { key, effect } };
  return { ok: true, value: { key, value: kv.slice(eq + 1), effect } };
}

function formatTaint(t: RegisterTaint): string {
  return t.value === undefined ? `${t.key}:${t.effect}` : `${t.key}=${t.value}:${t.effect}`;
}

/** `--register-with-taints`: comma-separated `<key>=<value>:<effect>`; the first use replaces the default, later uses append. */
export const taintsFlagType: FlagType<RegisterTaint[]> = {
  typeName: "mapStringString",
  set(text, current, firstSet): FlagValueResult<RegisterTaint[]> {
    const out: RegisterTaint[] = firstSet ? [] : [...current];
    for (const item of text.split(",")) {
      if (item.trim() === "") continue;
      const r = parseRegisterTaint(item.trim());
      if (!r.ok) return { ok: false, error: r.error };
      out.push(r.value);
    }
    return { ok: true, value: out };
  },
  format: (v) => v.map(formatTaint).join(","),
  isZeroDefault: (text) => text === "",
};

/**
 * `--reserved-memory 0:memory=1Gi,hugepages-1M=2Gi`: one NUMA node per occurrence (the flag may
 * repeat); entries for the same node merge; the first use replaces the default.
 */
export const reservedMemoryFlagType: FlagType<ReservedMemoryEntry[]> = {
  typeName: "string",
  set(text, current, firstSet): FlagValueResult<ReservedMemoryEntry[]> {
    const out = firstSet ? [] : current.map((e) => ({ numaNode: e.numaNode, limits: { ...e.limits } }));
    if (text === "") return { ok: true, value: out };
    const colon = text.indexOf(":");
    if (colon < 0) return { ok: false, error: `the reserved memory has incorrect format, expected numaNodeID:type=quantity[,type=quantity...], got ${text}` };
    const nodeText = text.slice(0, colon).trim();
    if (!/^\d+$/.test(nodeText)) return { ok: false, error: `failed to convert the NUMA node ID, exptected integer, got ${nodeText}` };
    const numaNode = Number(nodeText);
    let entry = out.find((e) => e.numaNode === numaNode);
    if (entry === undefined) {
      entry = { numaNode, limits: {} };
      out.push(entry);
    }
    const limits: Record<string, string> = { ...entry.limits };
    for (const pair of text.slice(colon + 1).split(",")) {
      const eq = pair.indexOf("=");
      if (eq < 0) return { ok: false, error: `the reserved limit has incorrect value, expected type=quantatity, got ${pair}` };
      const type = pair.slice(0, eq).trim();
      if (type in limits) return { ok: false, error: `the reserved limit type ${type} for NUMA node ${numaNode} was specified twice` };
      limits[type] = pair.slice(eq + 1).trim();
    }
    const i = out.indexOf(entry);
    out[i] = { numaNode, limits };
    return { ok: true, value: out };
  },
  format: (v) =>
    v
      .map((e) => `${e.numaNode}:${Object.entries(e.limits).map(([k, q]) => `${k}=${q}`).join(",")}`)
      .join(";"),
  isZeroDefault: (text) => text === "",
};
