/**
 * The Job controller's event reasons and messages (1.23 wording), and the recorder interface the
 * controllers write events through.
 *
 * @see pkg/controller/job/job_controller.go
 * @see pkg/controller/controller_utils.go (SuccessfulCreatePodReason, FailedCreatePodReason, ...)
 */

import type { Client, KubeObject } from "@skiff/client";
import { createEventRecorder, eventSinkOf } from "@skiff/client";

/** `Normal` or `Warning`, as `v1.Event.type`. */
export type EventType = "Normal" | "Warning";

/**
 * Writes one Event about an object. Implementations must not throw or block the caller: event
 * delivery is best effort, as client-go's broadcaster.
 */
export interface EventRecorder {
  event(obj: { readonly apiVersion?: string; readonly kind?: string; readonly metadata?: object }, type: EventType, reason: string, message: string): void;
}

/** Component name in `source.component` of the Job controller's events. */
export const jobControllerComponent = "job-controller";

/** Event reasons and fixed messages of the Job controller (1.23). */
export const JobEvents = {
  successfulCreate: "SuccessfulCreate",
  failedCreate: "FailedCreate",
  successfulDelete: "SuccessfulDelete",
  failedDelete: "FailedDelete",
  completed: { reason: "Completed", message: "Job completed" },
  tooManySucceeded: { reason: "TooManySucceededPods", message: "Too many succeeded pods running after completion count reached" },
  backoffLimitExceeded: { reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" },
  deadlineExceeded: { reason: "DeadlineExceeded", message: "Job was active longer than specified deadline" },
  suspended: { reason: "Suspended", message: "Job suspended" },
  resumed: { reason: "Resumed", message: "Job resumed" },
  unknownCompletionMode: { reason: "UnknownCompletionMode", message: "Skipped Job sync because completion mode is unknown" },
} as const;

/** A recorder that keeps events in memory (tests). */
export class MemoryEventRecorder implements EventRecorder {
  readonly events: Array<{ readonly name: string; readonly type: EventType; readonly reason: string; readonly message: string }> = [];
  event(obj: { readonly metadata?: { readonly name?: string } }, type: EventType, reason: string, message: string): void {
    this.events.push({ name: obj.metadata?.name ?? "", type, reason, message });
  }
}

/**
 * An {@link EventRecorder} writing `v1` Events through `client` (give it its own client so events
 * do not eat the controller's request budget), correlated as client-go's recorder: repeats are
 * counted, the 10th distinct message of one reason about one object within 10 minutes is combined
 * (`(combined from similar events): …`), and a source may burst 25 events per object, then one
 * every 5 minutes. Failures go to `onError`. Never throws; does not wait for the write.
 * @see staging/src/k8s.io/client-go/tools/record/event.go, events_cache.go in kubernetes/kubernetes v1.23
 */
export function newClientEventRecorder(client: Pick<Client, "events">, component: string, onError: (e: unknown) => void = () => {}): EventRecorder {
  const record = createEventRecorder(eventSinkOf(client), { component }, { onError });
  return {
    event(obj, type, reason, message) {
      record(obj as KubeObject, type, reason, message);
    },
  };
}
