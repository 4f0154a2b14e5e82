/**
 * core/v1 Event (namespaced, no status) and its printer.
 * @see pkg/registry/core/event/strategy.go
 * @see pkg/printers/internalversion/printers.go (printEvent)
 */
import type { Event } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { setEventDefaults, validateEvent } from "@skiff/validation";
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

/** The Event strategy (events are not validated on update beyond the create rules). */
export function createEventStrategy(): ResourceStrategy<T> {
  return createSimpleStrategy<T>({
    group: "",
    plural: "events",
    applyDefaults: setEventDefaults,
    validate: validateEvent,
    validateUpdate: (e) => validateEvent(e),
    table: eventTable,
    fieldSelectorKeys: ["involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid", "involvedObject.fieldPath", "reason", "source", "type"],
    fields: (e) => ({
      "involvedObject.kind": e.involvedObject?.kind ?? "",
      "involvedObject.namespace": e.involvedObject?.namespace ?? "",
      "involvedObject.name": e.involvedObject?.name ?? "",
      "involvedObject.uid": e.involvedObject?.uid ?? "",
      "involvedObject.fieldPath": e.involvedObject?.fieldPath ?? "",
      reason: e.reason ?? "",
      source: e.source?.component ?? "",
      type: e.type ?? "",
    }),
  });
}
