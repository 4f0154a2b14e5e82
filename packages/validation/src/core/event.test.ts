/* eslint-disable @typescript-eslint/no-explicit-any -- fixtures are JSON objects mutated freely per case */
import { formatFieldError, type FieldError } from "@skiff/apimachinery";
import type { Event } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { setEventDefaults } from "./defaults.js";
import { validateEvent, validateEventUpdate } from "./event.js";

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const ev = (e: Record<string, unknown>) => e as Event;
const legacy = {
  metadata: { name: "web.17a", namespace: "default", resourceVersion: "1" },
  involvedObject: { kind: "Pod", name: "web", namespace: "default" },
  reason: "Scheduled",
  message: "assigned",
};

describe("validateEvent", () => {
  it("accepts an old-style event and leaves it alone when defaulting", () => {
    const e = structuredClone(legacy);
    setEventDefaults(ev(e));
    expect(e).toEqual(legacy);
    expect(validateEvent(ev(e))).toEqual([]);
    // Any name usable as a path segment is allowed.
    expect(validateEvent(ev({ ...legacy, metadata: { ...legacy.metadata, name: "Web:Event_1" } }))).toEqual([]);
  });

  it("requires the involved object's namespace to match", () => {
    const errs = validateEvent(ev({ ...legacy, involvedObject: { kind: "Pod", name: "web", namespace: "other" } }));
    expect(errs.map(formatFieldError)).toEqual(['involvedObject.namespace: Invalid value: "other": does not match event.namespace']);
    expect(validateEvent(ev({ ...legacy, involvedObject: { kind: "Node", name: "n" } }))).toEqual([]);
  });

  it("checks new-style events (with eventTime)", () => {
    const errs = validateEvent(
      ev({ metadata: { name: "e", namespace: "default" }, eventTime: "2024-01-01T00:00:00.000000Z", involvedObject: { kind: "Node", name: "n" }, reason: "x".repeat(129) }),
    );
    expect(summary(errs)).toEqual([
      "FieldValueInvalid involvedObject.namespace",
      "FieldValueRequired reportingController",
      "FieldValueInvalid reportingController",
      "FieldValueInvalid reportingController",
      "FieldValueRequired reportingInstance",
      "FieldValueRequired action",
      "FieldValueInvalid reason",
    ]);
    expect(errs[6]?.detail).toBe("can have at most 128 characters");
    const ok = ev({
      metadata: { name: "e", namespace: "kube-system" },
      eventTime: "2024-01-01T00:00:00.000000Z",
      involvedObject: { kind: "Node", name: "n" },
      reportingComponent: "example.io/scheduler",
      reportingInstance: "sched-1",
      action: "Binding",
      reason: "Scheduled",
    });
    expect(validateEvent(ok)).toEqual([]);
  });

  it("checks the namespace and generic metadata", () => {
    expect(summary(validateEvent(ev({ ...legacy, metadata: { name: "a/b", namespace: "default" } })))).toEqual(["FieldValueInvalid metadata.name"]);
    expect(summary(validateEvent(ev({ ...legacy, metadata: { name: "e", namespace: "Bad" }, involvedObject: { namespace: "Bad" } })))).toEqual([
      "FieldValueInvalid namespace",
    ]);
  });

  it("validates updates", () => {
    const updated = structuredClone(legacy) as Record<string, any>;
    updated["count"] = 2;
    expect(validateEventUpdate(ev(updated), ev(legacy))).toEqual([]);
    updated["metadata"].name = "renamed";
    expect(summary(validateEventUpdate(ev(updated), ev(legacy)))).toEqual(["FieldValueInvalid metadata.name"]);
  });
});
