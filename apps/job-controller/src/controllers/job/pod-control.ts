/**
 * Pod writes of the Job controller: create a pod from a Job's template with the controller
 * ownerReference, delete a pod, patch its ownerReferences or tracking finalizer. Every create and
 * delete emits the 1.23 event (`SuccessfulCreate`/`FailedCreate`/`SuccessfulDelete`/`FailedDelete`).
 *
 * @see pkg/controller/controller_utils.go (RealPodControl, GetPodFromTemplate)
 */
import { JobTrackingFinalizer } from "@skiff/api-types";
import type { Job, OwnerReference, Pod, PodTemplateSpec } from "@skiff/api-types";
import { isNotFound } from "@skiff/apimachinery";
import type { Client } from "@skiff/client";
import { JobEvents } from "../../events.js";
import type { EventRecorder } from "../../events.js";
import { isNamespaceTerminatingError } from "./pod-utils.js";

/** Thrown for a template the controller cannot turn into a pod. `reason` is stable. */
export class PodTemplateError extends Error {
  readonly reason = "NoLabels" as const;
  constructor(message: string) {
    super(message);
    this.name = "PodTemplateError";
  }
}

/** The ownerReference a Job puts on its pods (controller, blockOwnerDeletion). Pure. */
export function jobControllerRef(job: Job): OwnerReference {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    name: job.metadata?.name ?? "",
    uid: job.metadata?.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * The pod a Job creates from `template`: its labels, annotations, finalizers and spec, the given
 * `generateName` and the Job's controller ownerReference. Does not mutate its inputs.
 * @throws {@link PodTemplateError} when the template has no labels ("unable to create pods, no labels").
 * @see pkg/controller/controller_utils.go (GetPodFromTemplate)
 */
export function podFromTemplate(job: Job, template: PodTemplateSpec, generateName: string): Pod {
  const labels = template.metadata?.labels ?? {};
  if (Object.keys(labels).length === 0) throw new PodTemplateError("unable to create pods, no labels");
  const meta = template.metadata ?? {};
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName,
      namespace: job.metadata?.namespace ?? "default",
      labels: { ...labels },
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers && meta.finalizers.length > 0 ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [jobControllerRef(job)],
    },
    ...(template.spec ? { spec: structuredClone(template.spec) } : {}),
  } as Pod;
}

/** The writes the Job controller makes on pods (a seam for tests). */
export interface PodControl {
  /** Creates `pod`; events SuccessfulCreate / FailedCreate on `job`. Throws the API error. */
  createPod(job: Job, pod: Pod): Promise<Pod>;
  /** Deletes the pod; events SuccessfulDelete / FailedDelete. Throws the API error (404 too). */
  deletePod(job: Job, pod: Pod): Promise<void>;
  /** Removes the tracking finalizer (strategic-merge `$deleteFromPrimitiveList`). 404 counts as done. */
  removeTrackingFinalizer(pod: Pod): Promise<void>;
  /** Adds the Job's controller ownerReference (and the tracking finalizer when `withFinalizer`). */
  adoptPod(job: Job, pod: Pod, withFinalizer: boolean): Promise<void>;
  /** Removes the Job's ownerReference from the pod. 404 counts as done. */
  releasePod(job: Job, pod: Pod): Promise<void>;
}

/** {@link PodControl} over `@skiff/client`. */
export function newPodControl(client: Client, recorder: EventRecorder): PodControl {
  return {
    async createPod(job, pod) {
      try {
        const created = await client.pods.create(pod, { namespace: job.metadata?.namespace ?? "default" });
        recorder.event(job, "Normal", JobEvents.successfulCreate, `Created pod: ${created.metadata?.name ?? ""}`);
        return created;
      } catch (e) {
        // Only when the namespace is not terminating (1.23's RealPodControl.createPods).
        if (!isNamespaceTerminatingError(e)) recorder.event(job, "Warning", JobEvents.failedCreate, `Error creating: ${e instanceof Error ? e.message : String(e)}`);
        throw e;
      }
    },
    async deletePod(job, pod) {
      const name = pod.metadata?.name ?? "";
      try {
        await client.pods.delete(name, { namespace: pod.metadata?.namespace ?? "default" });
        recorder.event(job, "Normal", JobEvents.successfulDelete, `Deleted pod: ${name}`);
      } catch (e) {
        if (!isNotFound(e)) recorder.event(job, "Warning", JobEvents.failedDelete, `Error deleting: ${e instanceof Error ? e.message : String(e)}`);
        throw e;
      }
    },
    async removeTrackingFinalizer(pod) {
      try {
        await client.pods.patch(
          pod.metadata?.name ?? "",
          { metadata: { [`$deleteFromPrimitiveList/finalizers`]: [JobTrackingFinalizer] } },
          { namespace: pod.metadata?.namespace ?? "default", type: "strategic" },
        );
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    },
    async adoptPod(job, pod, withFinalizer) {
      await client.pods.patch(
        pod.metadata?.name ?? "",
        {
          metadata: {
            uid: pod.metadata?.uid,
            ownerReferences: [jobControllerRef(job)],
            ...(withFinalizer ? { finalizers: [JobTrackingFinalizer] } : {}),
          },
        },
        { namespace: pod.metadata?.namespace ?? "default", type: "strategic" },
      );
    },
    async releasePod(job, pod) {
      try {
        await client.pods.patch(
          pod.metadata?.name ?? "",
          { metadata: { uid: pod.metadata?.uid, ownerReferences: [{ $patch: "delete", uid: job.metadata?.uid }] } },
          { namespace: pod.metadata?.namespace ?? "default", type: "strategic" },
        );
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    },
  };
}
