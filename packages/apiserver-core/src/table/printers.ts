import type { TableColumnDefinition } from "@skiff/api-types";
import type { APIObject, TableConvertor } from "../registry/strategy.js";

/**
 * Formats a duration the way `kubectl get` does (`90s`, `2m30s`, `179m`, `3h1m`, `47h`, `2d2h`,
 * `400d`, `3y12d`). Seconds are truncated toward zero; below −1 s the answer is `<invalid>`.
 * Non-finite input answers `<invalid>`.
 *
 * @param ms - duration in milliseconds.
 * @see staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go (HumanDuration)
 * @example humanDuration(150_000) // "2m30s"
 */
export function humanDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "<invalid>";
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/**
 * Human duration from an RFC 3339 timestamp to `now`; `<unknown>` when the timestamp is unset,
 * empty or unparseable.
 * @see pkg/printers/internalversion/printers.go (translateTimestampSince)
 */
export function translateTimestampSince(timestamp: string | null | undefined, now: Date): string {
  if (timestamp === undefined || timestamp === null || timestamp === "") return "<unknown>";
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return "<unknown>";
  return humanDuration(now.getTime() - t);
}

/** The items joined with `,`, or `<none>` when there are none. */
export function joinOrNone(items: readonly string[] | null | undefined): string {
  return items === undefined || items === null || items.length === 0 ? "<none>" : items.join(",");
}

/** A label-selector string as given, or `<none>` when empty (the printer's passthrough). */
export function formatLabelSelector(selector: string | null | undefined): string {
  return selector === undefined || selector === null || selector === "" ? "<none>" : selector;
}

/** The NAME column every convertor starts with. */
export const nameColumn: TableColumnDefinition = {
  name: "Name",
  type: "string",
  format: "name",
  description: "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names",
  priority: 0,
};

/** The AGE column. */
export const ageColumn: TableColumnDefinition = {
  name: "Age",
  type: "string",
  format: "",
  description: "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
  priority: 0,
};

/**
 * The convertor for kinds without their own: NAME and AGE.
 * @see staging/src/k8s.io/apiserver/pkg/registry/rest/table.go (defaultTableConvertor)
 */
export const defaultTableConvertor: TableConvertor<APIObject> = {
  columns: [nameColumn, ageColumn],
  cells(obj, now) {
    return [obj.metadata?.name ?? "", translateTimestampSince(obj.metadata?.creationTimestamp, now)];
  },
};
