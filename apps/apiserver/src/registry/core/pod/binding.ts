/**
 * The `pods/binding` subresource (POST): what the scheduler binds a pod to a node with.
 * @see pkg/registry/core/pod/storage/storage.go (BindingREST, setPodHostAndAnnotations)
 */
import type { Binding, Pod } from "@skiff/api-types";
import { newBadRequest, newConflict, newInvalid } from "@skiff/apimachinery";
import type { FieldError } from "@skiff/apimachinery";
import type { SubresourceCreateHandler } from "@skiff/apiserver-core";
import { isStorageError } from "@skiff/storage";
import type { StoredObject } from "@skiff/storage";
import { defaultValidationOptions, kindValidators } from "@skiff/validation";

/** Outcome of {@link bindPod}: `Conflict` (409) when already bound, `Invalid` (422) for a bad binding. */
export type BindPodResult = { ok: true } | { ok: false; reason: "Conflict"; message: string } | { ok: false; reason: "Invalid"; errors: FieldError[] };

/**
 * The `/binding` subresource: set `spec.nodeName` to `binding.target.name` and copy the
 * binding's annotations. Mutates `pod` only on success.
 */
export function bindPod(pod: Pod, binding: Binding): BindPodResult {
  const errors = kindValidators.Binding.validate(binding, defaultValidationOptions);
  if (errors.length > 0) return { ok: false, reason: "Invalid", errors };
  const name = pod.metadata?.name ?? "";
  if (pod.metadata?.deletionTimestamp) return { ok: false, reason: "Conflict", message: `pod ${name} is being deleted, cannot be assigned to a host` };
  if (pod.spec?.nodeName) return { ok: false, reason: "Conflict", message: `pod ${name} is already assigned to node "${pod.spec.nodeName}"` };
  if (pod.spec === undefined) return { ok: false, reason: "Invalid", errors: [] };
  pod.spec.nodeName = binding.target.name ?? "";
  if (binding.metadata?.annotations) {
    const meta = (pod.metadata ??= {});
    meta.annotations = { ...meta.annotations, ...binding.metadata.annotations };
  }
  return { ok: true };
}

/**
 * `POST pods/{name}/binding`: binds the pod to `target.name` (sets `spec.nodeName`, merges the
 * binding's annotations, sets condition `PodScheduled=True`) with the binding's uid and
 * resourceVersion as preconditions, and answers a Success `Status` (201). Errors: 400 when the
 * names differ, 422 for an invalid binding (1.23 answers 500 there; Skiff keeps it a client
 * error), 409 `Operation cannot be fulfilled on pods/binding` when bound or deleting.
 * Honours dryRun.
 * @see pkg/registry/core/pod/storage/storage.go (BindingREST.Create, setPodHostAndAnnotations)
 */
export const createPodBinding: SubresourceCreateHandler = async (ctx, name, body, store) => {
  const binding = body as unknown as Binding;
  if (binding.metadata?.name !== name) throw newBadRequest("name in URL does not match name in Binding object");
  const errs = kindValidators.Binding.validate(binding, defaultValidationOptions);
  if (errs.length > 0) throw newInvalid({ group: "", kind: "Binding" }, name, errs);
  const uid = binding.metadata.uid;
  const rv = binding.metadata.resourceVersion;
  const key = store.key(ctx.namespace, name);
  let bound: Pod | undefined;
  const assign = (cur: StoredObject): StoredObject => {
    const pod = cur as unknown as Pod;
    const r = bindPod(pod, binding);
    if (!r.ok) {
      if (r.reason === "Conflict") throw newConflict({ group: "", resource: "pods/binding" }, name, new Error(r.message));
      throw newInvalid({ group: "", kind: "Binding" }, name, r.errors);
    }
    const status = (pod.status ??= {});
    const conds = (status.conditions ??= []);
    const at = ctx.now.toISOString().replace(/\.\d{3}Z$/, "Z");
    const i = conds.findIndex((c) => c.type === "PodScheduled");
    if (i < 0) conds.push({ type: "PodScheduled", status: "True", lastTransitionTime: at });
    else if (conds[i]!.status !== "True") conds[i] = { ...conds[i]!, status: "True", lastTransitionTime: at };
    bound = pod;
    if (ctx.dryRun) throw new DryRunDone();
    return pod as unknown as StoredObject;
  };
  try {
    await store.storage.guaranteedUpdate(key, assign, uid || rv ? { preconditions: { ...(uid ? { uid } : {}), ...(rv ? { resourceVersion: rv } : {}) } } : {});
  } catch (e) {
    if (!(e instanceof DryRunDone && bound)) {
      const se = store.interpret(e, name);
      if (isStorageError(e, "InvalidObj")) throw newConflict({ group: "", resource: "pods/binding" }, name, e);
      throw se;
    }
  }
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
};

class DryRunDone extends Error {}
