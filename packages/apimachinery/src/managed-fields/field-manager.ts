/**
 * `metadata.managedFields` bookkeeping: who owns which fields, updated on every write
 * (`Update` entries) and by server-side apply (`Apply` entries, with conflict detection).
 *
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/fieldmanager.go
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/structuredmerge.go
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/internal/managedfields.go
 * @see sigs.k8s.io/structured-merge-diff/v4/merge/update.go
 */

import { cloneJSON, isObject } from "../internal/json.js";
import type { JSONObject } from "../internal/json.js";
import { FieldSet, FieldsV1Error, fieldElement, formatFieldPath, parseFieldsV1 } from "./field-set.js";
import type { FieldSetPath } from "./field-set.js";
import { compareObjects, mergeApplied, removeFields, toFieldSet } from "./typed.js";
import type { TypeSchema } from "./type-schema.js";

/** One `metadata.managedFields` entry as it appears on the wire. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

/** A decoded managedFields entry: identity and the field set it owns. */
export interface ManagerRecord {
  readonly manager: string;
  readonly operation: "Apply" | "Update";
  readonly apiVersion: string;
  readonly subresource: string;
  /** RFC 3339 (seconds) time of the last change of this entry, when known. */
  readonly time?: string;
  readonly fields: FieldSet;
}

/** One field another manager owns with a different value. */
export interface FieldConflict {
  /** The owning manager, as Kubernetes prints it: `"a"`, `"b" using batch/v1`, `"c" with subresource "status"`. */
  readonly manager: string;
  /** The field, e.g. `.spec.parallelism`. */
  readonly field: string;
}

/**
 * Server-side apply would change fields other managers own (answer 409 Conflict with one
 * `FieldManagerConflict` cause per field). `message` is Kubernetes' wording:
 * `Apply failed with 1 conflict: conflict with "a": .spec.parallelism`.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/internal/conflict.go
 */
export class ApplyConflictError extends Error {
  override readonly name = "ApplyConflictError";
  readonly reason = "Conflict";
  constructor(readonly conflicts: readonly FieldConflict[]) {
    super(formatConflictMessage(conflicts));
  }
}

/** An apply request Kubernetes refuses before merging (answer 400 Bad Request). */
export class ApplyRequestError extends Error {
  override readonly name = "ApplyRequestError";
  readonly reason = "BadRequest";
}

function formatConflictMessage(conflicts: readonly FieldConflict[]): string {
  if (conflicts.length === 1) return `Apply failed with 1 conflict: conflict with ${conflicts[0]!.manager}: ${conflicts[0]!.field}`;
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.field]);
  const lines: string[] = [];
  for (const m of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${m}:`);
    for (const f of byManager.get(m) ?? []) lines.push(`- ${f}`);
  }
  return `Apply failed with ${String(conflicts.length)} conflicts: ${lines.join("\n")}`;
}

function printManager(r: ManagerRecord): string {
  let s = JSON.stringify(r.manager);
  if (r.subresource) s += ` with subresource ${JSON.stringify(r.subresource)}`;
  if (r.operation === "Update") s += ` using ${r.apiVersion}`;
  return s;
}

const recordKey = (r: Pick<ManagerRecord, "manager" | "operation" | "apiVersion" | "subresource">): string =>
  JSON.stringify([r.manager, r.operation, r.operation === "Update" ? r.apiVersion : "", r.subresource]);

/**
 * Reads `metadata.managedFields` entries.
 * @returns the records, or `ok: false` with a message when an entry is malformed (wrong
 * `fieldsType`, bad `fieldsV1`, missing manager or operation). Does not mutate.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/internal/managedfields.go (`DecodeManagedFields`)
 */
export function decodeManagedFields(entries: unknown): { ok: true; value: ManagerRecord[] } | { ok: false; error: string } {
  if (entries === undefined || entries === null) return { ok: true, value: [] };
  if (!Array.isArray(entries)) return { ok: false, error: "managedFields must be a list" };
  const out: ManagerRecord[] = [];
  for (const [i, e] of entries.entries()) {
    if (!isObject(e)) return { ok: false, error: `managedFields[${String(i)}] must be an object` };
    if (e["fieldsType"] !== "FieldsV1") return { ok: false, error: `managedFields[${String(i)}]: invalid fieldsType ${JSON.stringify(e["fieldsType"] ?? "")}` };
    if (e["operation"] !== "Apply" && e["operation"] !== "Update") return { ok: false, error: `managedFields[${String(i)}]: invalid operation ${JSON.stringify(e["operation"] ?? "")}` };
    if (typeof e["manager"] !== "string") return { ok: false, error: `managedFields[${String(i)}]: manager must be a string` };
    let fields: FieldSet;
    try {
      fields = parseFieldsV1(e["fieldsV1"] ?? {});
    } catch (err) {
      if (err instanceof FieldsV1Error) return { ok: false, error: `managedFields[${String(i)}]: ${err.message}` };
      throw err;
    }
    out.push({
      manager: e["manager"],
      operation: e["operation"],
      apiVersion: typeof e["apiVersion"] === "string" ? e["apiVersion"] : "",
      subresource: typeof e["subresource"] === "string" ? e["subresource"] : "",
      ...(typeof e["time"] === "string" ? { time: e["time"] } : {}),
      fields,
    });
  }
  return { ok: true, value: out };
}

/**
 * Writes records as `metadata.managedFields` entries, dropping empty ones, sorted as Kubernetes
 * sorts them: `Apply` before `Update`, then by time, manager, apiVersion, subresource.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/internal/managedfields.go (`sortEncodedManagedFields`)
 */
export function encodeManagedFields(records: readonly ManagerRecord[]): ManagedFieldsEntry[] {
  const seconds = (t: string | undefined) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return records
    .filter((r) => !r.fields.empty())
    .sort(
      (p, q) =>
        cmp(p.operation, q.operation) ||
        seconds(p.time) - seconds(q.time) ||
        cmp(p.manager, q.manager) ||
        cmp(p.apiVersion, q.apiVersion) ||
        cmp(p.subresource, q.subresource),
    )
    .map((r) => ({
      manager: r.manager,
      operation: r.operation,
      apiVersion: r.apiVersion,
      ...(r.time ? { time: r.time } : {}),
      fieldsType: "FieldsV1",
      fieldsV1: r.fields.toFieldsV1(),
      ...(r.subresource ? { subresource: r.subresource } : {}),
    }));
}

/** What every managedFields computation needs to know about the resource. */
export interface FieldManagerOptions {
  /** The type of the resource's objects. */
  readonly schema: TypeSchema;
  /** `group/version` (or `v1`) the entries are recorded in. */
  readonly apiVersion: string;
  /**
   * Fields never owned through this endpoint (the strategy resets them): `status` for the main
   * resource of a kind with a status subresource, `spec` for its `status` subresource.
   * @defaultValue none
   */
  readonly ignoredFields?: readonly FieldSetPath[];
  /** The subresource written (`status`), or `""`. @defaultValue "" */
  readonly subresource?: string;
  /** The request's clock. */
  readonly now: Date;
  /**
   * {@link recordUpdate} only: `next` is the caller's to give away (a freshly decoded body no one
   * reads again), so the result is built from it without a deep copy: a new top level and
   * `metadata`, every other member shared with `next`. @defaultValue false (a deep copy)
   */
  readonly adoptNext?: boolean;
}

const strippedMeta = ["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields", "resourceVersion"];

// Fields the server owns and no manager ever does.
// A shallow view: the top level and metadata are copied, everything below is shared with `obj`
// (the comparison only reads it).
function stripServerFields(obj: unknown): JSONObject {
  const o: JSONObject = isObject(obj) ? { ...obj } : {};
  delete o["apiVersion"];
  delete o["kind"];
  if (isObject(o["metadata"])) {
    const m: JSONObject = { ...o["metadata"] };
    for (const k of strippedMeta) delete m[k];
    if (Object.keys(m).length === 0) delete o["metadata"];
    else o["metadata"] = m;
  }
  return o;
}

// RFC 3339 in whole seconds (`2026-11-29T10:00:00Z`), as metav1.Time writes it.
function formatTime(d: Date): string {
  const iso = d.toISOString();
  return iso.length === 24 ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d{3}Z$/, "Z");
}

function ignoredSet(opts: FieldManagerOptions): FieldSet {
  const s = new FieldSet();
  for (const p of opts.ignoredFields ?? []) s.insert(p);
  return s;
}

/** The most `Update` entries an object keeps; older ones are folded into {@link ancientChangesManager}. */
export const maxUpdateManagers = 10;
/** The manager the oldest `Update` entries are folded into, one entry per apiVersion. */
export const ancientChangesManager = "ancient-changes";
/** The manager that owns an untracked object's fields when it is first applied to. */
export const beforeFirstApplyManager = "before-first-apply";

// Kubernetes' manager identifier (the entry's JSON without time and fields), for tie-breaks.
function managerIdentifier(r: ManagerRecord): string {
  return JSON.stringify({ manager: r.manager, operation: r.operation, ...(r.operation === "Update" && r.apiVersion ? { apiVersion: r.apiVersion } : {}), ...(r.subresource ? { subresource: r.subresource } : {}) });
}

/**
 * Caps the `Update` entries at {@link maxUpdateManagers}: oldest first (by time in seconds, then
 * identifier), the second and later entries of each apiVersion are folded, with the first, into
 * that version's `ancient-changes` entry (which takes the time of the last folded), until the cap
 * holds. An existing `ancient-changes` entry is folded into, never dropped.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/capmanagers.go
 */
function capUpdateManagers(records: ManagerRecord[]): ManagerRecord[] {
  const updaters = records.filter((r) => r.operation === "Update");
  if (updaters.length <= maxUpdateManagers) return records;
  const seconds = (t: string | undefined) => (t ? Math.floor(Date.parse(t) / 1000) : -Infinity);
  const ids = new Map(updaters.map((r) => [r, managerIdentifier(r)]));
  updaters.sort((a, b) => seconds(a.time) - seconds(b.time) || (ids.get(a)! < ids.get(b)! ? -1 : ids.get(a)! > ids.get(b)! ? 1 : 0));
  const byKey = new Map(records.map((r) => [recordKey(r), r]));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > maxUpdateManagers; i++) {
    const r = updaters[i]!;
    const key = recordKey(r);
    const first = firstOfVersion.get(r.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(r.apiVersion, key);
      continue;
    }
    const bucketId = { manager: ancientChangesManager, operation: "Update" as const, apiVersion: r.apiVersion, subresource: "" };
    const bucketKey = recordKey(bucketId);
    let bucket = byKey.get(bucketKey);
    if (bucket === undefined) {
      bucket = { ...bucketId, fields: byKey.get(first)!.fields };
      byKey.delete(first);
    }
    byKey.set(bucketKey, { ...bucketId, ...(r.time ? { time: r.time } : {}), fields: r.fields.union(bucket.fields) });
    if (key !== bucketKey) byKey.delete(key);
    length--;
  }
  return [...byKey.values()];
}

// `set` without the paths under `ignored`; `set` itself when it has none of them.
function withoutIgnored(set: FieldSet, ignored: FieldSet): FieldSet {
  for (const p of ignored.paths()) if (set.hasPrefix(p)) return set.recursiveDifference(ignored);
  return set;
}

function isResetManagedFields(v: unknown): boolean {
  return Array.isArray(v) && v.length === 1 && isObject(v[0]) && Object.keys(v[0]).length === 0;
}

// Takes `changed` away from every manager but `except`; with `force` false, answers conflicts instead.
function takeOwnership(
  records: ManagerRecord[],
  except: string,
  changed: FieldSet,
  removed: FieldSet,
  force: boolean,
): ManagerRecord[] {
  const conflicts: FieldConflict[] = [];
  const sorted = [...records].sort((a, b) => (printManager(a) < printManager(b) ? -1 : 1));
  for (const r of sorted) {
    if (recordKey(r) === except) continue;
    const c = r.fields.intersection(changed);
    for (const p of c.paths()) conflicts.push({ manager: printManager(r), field: formatFieldPath(p) });
  }
  if (!force && conflicts.length > 0) throw new ApplyConflictError(conflicts);
  // A record losing nothing keeps its set (and so the JSON it was read from, see toFieldsV1).
  return records.map((r) => (recordKey(r) === except || (!r.fields.overlaps(changed) && !r.fields.overlaps(removed)) ? r : { ...r, fields: r.fields.difference(changed).difference(removed) }));
}

/**
 * Records a non-apply write (create, update, JSON/merge/strategic patch) by `manager`: the
 * fields it added or changed become its own (taken from whoever owned them), fields it removed
 * leave every manager. Its `Update` entry gets the time only when its fields changed.
 *
 * `metadata.managedFields` of `next` is honoured when it decodes and is non-empty, reset by
 * `[{}]`, and otherwise replaced by the live object's (so clients unaware of it cannot erase it).
 * An existing object with no entries (reset, or written before tracking) gets none: tracking
 * starts again with an apply. More than {@link maxUpdateManagers} `Update` entries are capped by
 * folding the oldest into `ancient-changes` entries, one per apiVersion.
 * Returns a copy of `next` (deep, or sharing all but its top level and `metadata` with `adoptNext`)
 * with the new `metadata.managedFields` (omitted when empty); their `fieldsV1` may be the very
 * JSON of `live`'s or `next`'s entries (see {@link FieldSet.toFieldsV1}). `live` is `null` for a
 * create. Never mutates its inputs.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/fieldmanager.go (`Update`)
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/skipnonapplied.go, capmanagers.go
 * @example
 * const stored = recordUpdate(current, patched, "kubectl-edit", { schema, apiVersion: "batch/v1", now: new Date() });
 */
export function recordUpdate(live: JSONObject | null, next: JSONObject, manager: string, opts: FieldManagerOptions): JSONObject {
  // Only `metadata.managedFields` of the result is written below: with `adoptNext` a copy of the
  // top level and of `metadata` keeps `next` itself unchanged.
  const out = opts.adoptNext === true ? { ...next } : cloneJSON(next);
  const meta = (isObject(out["metadata"]) ? (opts.adoptNext === true ? (out["metadata"] = { ...out["metadata"] }) : out["metadata"]) : (out["metadata"] = {})) as JSONObject;
  let records: ManagerRecord[];
  const given = meta["managedFields"];
  const liveMeta = live && isObject(live["metadata"]) ? live["metadata"] : {};
  if (isResetManagedFields(given)) {
    records = [];
  } else {
    const d = decodeManagedFields(given);
    if (d.ok && d.value.length > 0) records = d.value;
    else {
      const l = decodeManagedFields(liveMeta["managedFields"]);
      records = l.ok ? l.value : [];
    }
  }
  // An existing object without managed fields stays without them until it is applied to.
  if (live !== null && records.length === 0) {
    delete meta["managedFields"];
    return out;
  }
  let result = records;
  try {
    const ignored = ignoredSet(opts);
    const cmp = compareObjects(stripServerFields(live), stripServerFields(next), opts.schema);
    // The set operations copy; a create (nothing modified or removed) needs none of them.
    const changed = withoutIgnored(cmp.modified.empty() ? cmp.added : cmp.modified.union(cmp.added), ignored);
    const removed = withoutIgnored(cmp.removed, ignored);
    const id = { manager, operation: "Update" as const, apiVersion: opts.apiVersion, subresource: opts.subresource ?? "" };
    result = records.length === 0 ? records : takeOwnership(records, "", changed, removed, true);
    const own = removed.empty() ? changed : changed.difference(removed);
    if (!own.empty()) {
      const key = recordKey(id);
      const prev = result.find((r) => recordKey(r) === key);
      const fields = prev ? prev.fields.union(own) : own;
      result = [...result.filter((r) => recordKey(r) !== key), { ...id, time: formatTime(opts.now), fields }];
    }
    result = capUpdateManagers(result);
  } catch {
    // An object the schema cannot read (duplicate list keys written by an older client):
    // keep the entries as they are, as Kubernetes' UpdateNoErrors does.
    result = records;
  }
  const encoded = encodeManagedFields(result);
  if (encoded.length > 0) meta["managedFields"] = encoded;
  else delete meta["managedFields"];
  return out;
}

/**
 * Server-side apply of `config` by `manager` over `live` (`null`: the object does not exist
 * yet). Merges the configuration by the schema's list and map types, removes fields this
 * manager applied before and no longer applies (unless another manager owns them), records
 * the manager's `Apply` entry, and refuses changes to fields others own unless `force`.
 * Returns the new object (a fresh copy, server fields of `live` kept) with its managedFields.
 * Never mutates its inputs.
 * @throws {ApplyConflictError} other managers own changed fields and `force` is false.
 * @throws {ApplyRequestError} `config` carries `metadata.managedFields`.
 * @throws {TypedValueError} duplicate or key-less items in an associative list of `config`.
 * @see sigs.k8s.io/structured-merge-diff/v4/merge/update.go (`Updater.Apply`)
 * @example
 * const obj = applyConfiguration(current, yamlParsed, "kubectl", false, { schema, apiVersion: "batch/v1", now: new Date() });
 */
export function applyConfiguration(live: JSONObject | null, config: JSONObject, manager: string, force: boolean, opts: FieldManagerOptions): JSONObject {
  const cmeta = isObject(config["metadata"]) ? config["metadata"] : {};
  if (cmeta["managedFields"] !== undefined) throw new ApplyRequestError("metadata.managedFields must be nil");
  const liveObj: JSONObject = live ? cloneJSON(live) : {};
  const liveMeta = isObject(liveObj["metadata"]) ? liveObj["metadata"] : {};
  const d = decodeManagedFields(liveMeta["managedFields"]);
  let records = d.ok ? d.value : [];
  const ignored = ignoredSet(opts);
  if (live !== null && records.length === 0) {
    // The first apply to an object nobody was tracked on: what it holds so far becomes the
    // `before-first-apply` manager's (an Update from nothing to the live object).
    const fields = withoutIgnored(compareObjects({}, stripServerFields(liveObj), opts.schema).added, ignored);
    if (!fields.empty()) records = [{ manager: beforeFirstApplyManager, operation: "Update", apiVersion: opts.apiVersion, subresource: "", time: formatTime(opts.now), fields }];
  }
  const id = { manager, operation: "Apply" as const, apiVersion: opts.apiVersion, subresource: opts.subresource ?? "" };
  const key = recordKey(id);
  const last = records.find((r) => recordKey(r) === key);
  const strippedConfig = stripServerFields(config);
  const applied = toFieldSet(strippedConfig, opts.schema).recursiveDifference(ignored);
  let merged = mergeApplied(liveObj, strippedConfig, opts.schema) as JSONObject;
  const cm = config["metadata"];
  if (isObject(cm) && isObject(merged["metadata"]) && cm["resourceVersion"] !== undefined) merged["metadata"]["resourceVersion"] = cm["resourceVersion"];
  if (!live) {
    merged["apiVersion"] = config["apiVersion"];
    merged["kind"] = config["kind"];
    if (isObject(cm) && cm["name"] !== undefined) (merged["metadata"] = isObject(merged["metadata"]) ? merged["metadata"] : {})["name"] = cm["name"];
    if (isObject(cm) && cm["generateName"] !== undefined && isObject(merged["metadata"])) merged["metadata"]["generateName"] = cm["generateName"];
  }
  records = [...records.filter((r) => recordKey(r) !== key), { ...id, ...(last?.time ? { time: last.time } : {}), fields: applied }];
  if (last) {
    // Prune what this manager applied before and no longer applies, unless someone (another
    // manager, or this one through its new configuration) owns it or something below it.
    const owned = records.reduce((acc, r) => acc.union(r.fields), new FieldSet());
    const dropped = last.fields.recursiveDifference(ignored).difference(applied);
    const remove = new FieldSet();
    for (const p of dropped.paths()) {
      if (owned.hasPrefix(p)) continue;
      const parent = p[p.length - 2];
      const leaf = p[p.length - 1] ?? "";
      if (parent?.startsWith("k:") && leaf.startsWith("f:") && Object.keys(JSON.parse(parent.slice(2)) as object).includes(leaf.slice(2))) continue;
      remove.insert(p);
    }
    if (!remove.empty()) merged = removeFields(merged, remove, opts.schema) as JSONObject;
  }
  const cmp = compareObjects(stripServerFields(liveObj), stripServerFields(merged), opts.schema);
  const changed = cmp.modified.union(cmp.added).recursiveDifference(ignored);
  const removed = cmp.removed.recursiveDifference(ignored);
  records = takeOwnership(records, key, changed, removed, force);
  const objectChanged = !changed.empty() || !removed.empty();
  if (objectChanged || !last || !last.fields.equals(applied)) {
    records = records.map((r) => (recordKey(r) === key ? { ...r, time: formatTime(opts.now) } : r));
  }
  const meta = (isObject(merged["metadata"]) ? merged["metadata"] : (merged["metadata"] = {})) as JSONObject;
  const encoded = encodeManagedFields(records);
  if (encoded.length > 0) meta["managedFields"] = encoded;
  else delete meta["managedFields"];
  return merged;
}

/** The `f:` path of dotted field names, e.g. `fieldPathOf("spec")` → `["f:spec"]`. */
export function fieldPathOf(...names: string[]): FieldSetPath {
  return names.map(fieldElement);
}
