/**
 * The node agent's own flag value types, for the two flags whose values @skiff/flags does not
 * know: `--register-with-taints` and `--reserved-memory`.
 *
 * @see pkg/util/flag/flags.go (`RegisterWithTaintsVar`, `ReservedMemoryVar`) in kubernetes/kubernetes v1.23
 */
import { isIPv6 } from "node:net";
import type { FlagType, FlagValueResult } from "@skiff/flags";
import { flagTypes, formatGoQuoted } from "@skiff/flags";
import { isQualifiedName, isValidLabelValue } from "@skiff/apimachinery";

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

/**
 * Parses one taint of the forms `<key>=<value>:<effect>`, `<key>:<effect>` or `<key>` (effect
 * `""`), checking the effect, the value (a label value) and the key (a qualified name), with
 * 1.23's texts (`invalid taint spec: <st>[, <reasons>]`, `invalid taint effect: <e>, unsupported
 * taint effect`).
 *
 * @see pkg/util/taints/taints.go (`parseTaint`) in kubernetes/kubernetes v1.23
 */
export function parseTaint(st: string): { ok: true; value: { key: string; value: string; effect: string } } | { ok: false; error: string } {
  const parts = st.split(":");
  let key: string;
  let value = "";
  let effect = "";
  if (parts.length === 1) {
    key = parts[0] ?? "";
  } else if (parts.length === 2) {
    effect = parts[1] ?? "";
    if (!taintEffects.has(effect)) return { ok: false, error: `invalid taint effect: ${effect}, unsupported taint effect` };
    const kv = (parts[0] ?? "").split("=");
    if (kv.length > 2) return { ok: false, error: `invalid taint spec: ${st}` };
    key = kv[0] ?? "";
    if (kv.length === 2) {
      value = kv[1] ?? "";
      const errs = isValidLabelValue(value);
      if (errs.length > 0) return { ok: false, error: `invalid taint spec: ${st}, ${errs.join("; ")}` };
    }
  } else {
    return { ok: false, error: `invalid taint spec: ${st}` };
  }
  const errs = isQualifiedName(key);
  if (errs.length > 0) return { ok: false, error: `invalid taint spec: ${st}, ${errs.join("; ")}` };
  return { ok: true, value: { key, value, effect } };
}

/**
 * 1.23's `ParseTaints`: the taints to add from `specs` (entries ending in `-` are removals: parsed,
 * checked and dropped). An added taint needs an effect; two with the same key and effect are refused
 * (`duplicated taints with the same key and effect: {<key> <value> <effect> <nil>}`, Go's `%v` of a
 * `v1.Taint` value).
 *
 * @see pkg/util/taints/taints.go (`ParseTaints`) in kubernetes/kubernetes v1.23
 */
export function parseTaints(specs: readonly string[]): { ok: true; value: RegisterTaint[] } | { ok: false; error: string } {
  const taints: RegisterTaint[] = [];
  const seen = new Set<string>();
  for (const spec of specs) {
    if (spec.endsWith("-")) {
      const r = parseTaint(spec.slice(0, -1));
      if (!r.ok) return r;
      continue;
    }
    const r = parseTaint(spec);
    if (!r.ok) return r;
    const t = r.value;
    if (t.effect === "") return { ok: false, error: `invalid taint spec: ${spec}` };
    const id = `${t.effect}\u0000${t.key}`;
    if (seen.has(id)) return { ok: false, error: `duplicated taints with the same key and effect: {${t.key} ${t.value} ${t.effect} <nil>}` };
    seen.add(id);
    taints.push(t.value === "" ? { key: t.key, effect: t.effect } : t);
  }
  return { ok: true, value: taints };
}

/**
 * `--register-with-taints`: comma-separated `<key>=<value>:<effect>` parsed by {@link parseTaints};
 * every occurrence replaces the value (the last one wins); an empty value clears it.
 *
 * @see pkg/util/flag/flags.go (`RegisterWithTaintsVar.Set`) in kubernetes/kubernetes v1.23
 */
export const taintsFlagType: FlagType<RegisterTaint[]> = {
  // The spec's type column (and --help) says mapStringString; 1.23's Type() is "[]v1.Taint".
  typeName: "mapStringString",
  set(text): FlagValueResult<RegisterTaint[]> {
    if (text === "") return { ok: true, value: [] };
    return parseTaints(text.split(","));
  },
  format: (v) => v.map((t) => `${t.key}=${t.value ?? ""}:${t.effect}`).join(","),
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

/**
 * Go's `net.ParseIP` as k8s.io/utils `ParseIPSloppy` applies it: dotted IPv4 (leading zeros
 * allowed, each part ≤ 255) or IPv6 without a zone.
 */
export function isSloppyIP(s: string): boolean {
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4 !== null) return v4.slice(1).every((p) => Number(p) <= 255);
  return !s.includes("%") && isIPv6(s);
}

/**
 * `--address`: 1.23's `IPVar`: a value that is not an IP is refused (`"<v>" is not a valid IP
 * address`); an empty value leaves the current value unchanged (IPVar drops its pointer). The
 * type name stays `string` as the spec's help lists it (1.23's `Type()` is `ip`).
 *
 * @see pkg/util/flag/flags.go (`IPVar.Set`) in kubernetes/kubernetes v1.23
 */
export const ipFlagType: FlagType<string> = {
  ...flagTypes.string,
  set(text, current): FlagValueResult<string> {
    if (text === "") return { ok: true, value: current };
    if (!isSloppyIP(text)) return { ok: false, error: `${formatGoQuoted(text)} is not a valid IP address` };
    return { ok: true, value: text };
  },
};
