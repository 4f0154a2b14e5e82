/**
 * core/v1 Event (namespaced, no status) and its printer.
 * @see pkg/registry/core/event/strategy.go
 * @see pkg/printers/internalversion/printers.go (printEvent)
 */
import type { Event } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { kindValidators, setEventDefaults } from "@skiff/validation";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { createSimpleStrategy } from "../../../internal/simple-strategy.js";

type T = Event & Record<string, unknown>;
const col = (name: string, description: string, priority = 0) => ({ name, type: "string", format: "", description, priority });

/** Event table: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE; wide SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME. */
export const eventTable: TableConvertor<T> = {
  columns: [
    col("Last Seen", "The time since the event was last seen."),
    col("Type", "Type of this event (Normal, Warning), new types could be added in the future."),
    col("Reason", "The reason this event was generated."),
    col("Object", "The object this event is about."),
    col("Message", "A human-readable description of the status of this operation."),
    col("Subobject", "The subobject this event is about.", 1),
    col("Source", "The component reporting this event.", 1),
    col("First Seen", "The time since the event was first seen.", 1),
    { name: "Count", type: "integer", format: "", description: "The number of times this event has occurred.", priority: 1 },
    { name: "Name", type: "string", format: "name", description: "Name must be unique within a namespace.", priority: 1 },
  ],
  cells(e, now) {
    const first = e.firstTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp;
    const last = e.lastTimestamp ?? e.eventTime ?? first;
    const count = e.count ?? 1;
    const lastSeen =
      count > 1 ? `${translateTimestampSince(last ?? undefined, now)} (x${String(count)} over ${translateTimestampSince(first ?? undefined, now)})` : translateTimestampSince(last ?? undefined, now);
    const src = e.source?.component ?? e.reportingComponent ?? "";
    const host = e.source?.host ?? e.reportingInstance ?? "";
    return [
      lastSeen,
      e.type ?? "",
      e.reason ?? "",
      `${(e.involvedObject?.kind ?? "").toLowerCase()}/${e.involvedObject?.name ?? ""}`,
      (e.message ?? "").trim(),
      e.involvedObject?.fieldPath ?? "",
      host === "" ? src : `${src}, ${host}`,
      translateTimestampSince(first ?? undefined, now),
      count,
      e.metadata?.name ?? "",
    ];
  },
};

const rfc3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|z|[+-]\d{2}:\d{2})$/;

/**
 * `metav1.MicroTime` as Kubernetes stores and serves it: UTC with exactly six fractional digits
 * (`2024-01-02T03:04:05.123000Z`). Go clients decode MicroTime with that fixed layout, so an
 * `eventTime` kept as a JavaScript client sent it (`toISOString()`, three digits) would make
 * every Go reader of the Event (kubectl describe) fail. Unparseable text is returned unchanged
 * (validation rejects it before this runs).
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/micro_time.go (MarshalJSON, RFC3339Micro)
 */
export function canonicalMicroTime(text: string): string {
  const m = rfc3339.exec(text);
  if (!m) return text;
  const fraction = (m[2] ?? "").padEnd(6, "0").slice(0, 6);
  let seconds = m[1] ?? "";
  if (m[3] !== "Z" && m[3] !== "z") {
    const utc = new Date(`${seconds}${m[3] ?? ""}`);
    if (Number.isNaN(utc.getTime())) return text;
    seconds = utc.toISOString().slice(0, 19);
  }
  return `${seconds}.${fraction}Z`;
}

/**
 * The Event strategy. An update is checked against the create rules and then the object-meta
 * update rules (immutable name/uid/creationTimestamp, no new finalizers while deleting, generation
 * not decremented), which 1.23 runs on every update (`rest.BeforeUpdate`'s `validateCommonFields`).
 * @see staging/src/k8s.io/apiserver/pkg/registry/rest/update.go (validateCommonFields)
 */
export function createEventStrategy(): ResourceStrategy<T> {
  const strategy = createSimpleStrategy<T>({
    group: "",
    plural: "events",
    applyDefaults: setEventDefaults,
    validators: kindValidators.Event,
    table: eventTable,
    fieldSelectorKeys: ["involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason", "source", "type"],
    fields: (e) => ({
      "involvedObject.kind": e.involvedObject?.kind ?? "",
      "involvedObject.namespace": e.involvedObject?.namespace ?? "",
      "involvedObject.name": e.involvedObject?.name ?? "",
      "involvedObject.uid": e.involvedObject?.uid ?? "",
      "involvedObject.apiVersion": e.involvedObject?.apiVersion ?? "",
      "involvedObject.resourceVersion": e.involvedObject?.resourceVersion ?? "",
      "involvedObject.fieldPath": e.involvedObject?.fieldPath ?? "",
      reason: e.reason ?? "",
      source: e.source?.component ?? "",
      type: e.type ?? "",
    }),
  });
  return {
    ...strategy,
    canonicalize(e) {
      if (typeof e.eventTime === "string") e.eventTime = canonicalMicroTime(e.eventTime);
      if (typeof e.series?.lastObservedTime === "string") e.series.lastObservedTime = canonicalMicroTime(e.series.lastObservedTime);
    },
  };
}
