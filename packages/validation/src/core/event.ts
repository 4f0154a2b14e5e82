/**
 * core/v1 Event validation (the legacy rules Kubernetes applies to `v1` events), plus the generic
 * metadata checks every registry runs.
 *
 * @see pkg/apis/core/validation/events.go `ValidateEventCreate`, `legacyValidateEvent`
 * @see staging/src/k8s.io/apiserver/pkg/registry/rest/create.go `BeforeCreate`
 */
import { fieldPath, isDNS1123Subdomain, isQualifiedName, type FieldError } from "@skiff/apimachinery";
import type { Event, ObjectMeta } from "@skiff/api-types";
import { nameIsPathSegment } from "../meta/names.js";
import { validateObjectMeta, validateObjectMetaUpdate } from "../meta/objectmeta.js";
import { field } from "../meta/internal/field.js";
import { str } from "../meta/internal/values.js";
import { view, type EventView } from "./internal-types.js";

const reportingInstanceLengthLimit = 128;
const actionLengthLimit = 128;
const reasonLengthLimit = 128;
const noteLengthLimit = 1024;

function legacyValidateEvent(e: EventView): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = str(e.metadata?.namespace);
  const involvedNamespace = str(e.involvedObject?.namespace);
  const involvedPath = fieldPath("involvedObject", "namespace");
  if (e.eventTime === undefined || e.eventTime === null || e.eventTime === "") {
    // Old-style events: the namespace must match the involved object's (or be empty/default).
    if (involvedNamespace === "") {
      if (namespace !== "" && namespace !== "default") {
        errs.push(field.invalid(involvedPath, involvedNamespace, "does not match event.namespace"));
      }
    } else if (namespace !== involvedNamespace) {
      errs.push(field.invalid(involvedPath, involvedNamespace, "does not match event.namespace"));
    }
  } else {
    if (involvedNamespace === "" && namespace !== "kube-system") {
      errs.push(field.invalid(involvedPath, involvedNamespace, "does not match event.namespace"));
    }
    // The Go field is ReportingController; its JSON name in core/v1 is reportingComponent.
    const controller = str(e.reportingComponent);
    if (controller === "") errs.push(field.required(fieldPath("reportingController")));
    for (const msg of isQualifiedName(controller)) errs.push(field.invalid(fieldPath("reportingController"), controller, msg));
    const instance = str(e.reportingInstance);
    if (instance === "") errs.push(field.required(fieldPath("reportingInstance")));
    if (instance.length > reportingInstanceLengthLimit) {
      errs.push(field.invalid(fieldPath("reportingInstance"), "", `can have at most ${reportingInstanceLengthLimit} characters`));
    }
    const action = str(e.action);
    if (action === "") errs.push(field.required(fieldPath("action")));
    if (action.length > actionLengthLimit) {
      errs.push(field.invalid(fieldPath("action"), "", `can have at most ${actionLengthLimit} characters`));
    }
    const reason = str(e.reason);
    if (reason === "") errs.push(field.required(fieldPath("reason")));
    if (reason.length > reasonLengthLimit) {
      errs.push(field.invalid(fieldPath("reason"), "", `can have at most ${reasonLengthLimit} characters`));
    }
    if (str(e.message).length > noteLengthLimit) {
      errs.push(field.invalid(fieldPath("message"), "", `can have at most ${noteLengthLimit} characters`));
    }
  }
  for (const msg of isDNS1123Subdomain(namespace)) errs.push(field.invalid(fieldPath("namespace"), namespace, msg));
  return errs;
}

/**
 * Validates a core/v1 Event being created. Kubernetes applies only its legacy event rules to `v1`
 * events: without `eventTime`, `involvedObject.namespace` must equal the event's namespace (or both
 * be empty / `default`): `does not match event.namespace`; with `eventTime`, `reportingComponent`
 * (reported as `reportingController`), `reportingInstance`, `action` and `reason` are required and
 * bounded (128 characters; `message` 1024); the namespace must be a DNS subdomain. Then, as every
 * registry does, the generic metadata checks with the weakest name rule (a URL path segment).
 * Does not mutate its input.
 *
 * @example
 * validateEvent({ metadata: { name: "web.1", namespace: "default" }, involvedObject: { kind: "Pod", name: "web", namespace: "default" } }) // []
 * @see pkg/apis/core/validation/events.go `legacyValidateEvent`
 */
export function validateEvent(event: Event): FieldError[] {
  const e = view<EventView>(event);
  const errs = legacyValidateEvent(e);
  if (errs.length > 0) return errs;
  return validateObjectMeta(e.metadata as ObjectMeta | undefined, { namespaced: true, nameValidator: nameIsPathSegment });
}

/**
 * Validates a core/v1 Event update: the legacy rules on the new event, then the generic metadata
 * create and update checks. Does not mutate its inputs.
 *
 * @see pkg/apis/core/validation/events.go `ValidateEventUpdate`
 */
export function validateEventUpdate(event: Event, old: Event): FieldError[] {
  const errs = validateEvent(event);
  if (errs.length > 0) return errs;
  return validateObjectMetaUpdate(view<EventView>(event).metadata as ObjectMeta | undefined, view<EventView>(old).metadata as ObjectMeta | undefined);
}
