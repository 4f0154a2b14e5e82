/**
 * core/v1 Pod (namespaced, /status, /binding, /eviction) and its printer.
 * @see pkg/registry/core/pod/strategy.go
 * @see pkg/registry/core/pod/storage/storage.go (BindingREST, setPodHostAndAnnotations)
 * @see pkg/registry/core/pod/storage/eviction.go (EvictionREST)
 * @see pkg/printers/internalversion/printers.go (printPod)
 */
import type { Binding, Pod } from "@skiff/api-types";
import { findResource } from "@skiff/api-types";
import { newBadRequest, newConflict, newInvalid } from "@skiff/apimachinery";
import type { FieldError } from "@skiff/apimachinery";
import type { ResourceStrategy, SubresourceCreateHandler, TableConvertor } from "@skiff/apiserver-core";
import { deleteRequest } from "@skiff/apiserver-core";
import { isStorageError } from "@skiff/storage";
import type { StoredObject } from "@skiff/storage";
import { defaultValidationOptions, kindValidators, setPodDefaults } from "@skiff/validation";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { ageColumn, nameColumn } from "../../../internal/simple-strategy.js";
import { keepAllButStatus, keepOldStatus } from "../../../internal/status-split.js";

type T = Pod & Record<string, unknown>;
const col = (name: string, description: string, priority = 0) => ({ name, type: "string", format: "", description, priority });


/** Pod table: NAME, READY, STATUS, RESTARTS, AGE; wide IP, NODE, NOMINATED NODE, READINESS GATES. */
export const podTable: TableConvertor<T> = {
  columns: [
    nameColumn,
    col("Ready", "The aggregate readiness state of this pod for accepting traffic."),
    col("Status", "The aggregate status of the containers in this pod."),
    { name: "Restarts", type: "string", format: "", description: "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.", priority: 0 },
    ageColumn,
    col("IP", "IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", 1),
    col("Node", "NodeName is a request to schedule this pod onto a specific node.", 1),
    col("Nominated Node", "nominatedNodeName is set only when this pod preempts other pods on the node.", 1),
    col("Readiness Gates", "If specified, all readiness gates will be evaluated for pod readiness.", 1),
  ],
  cells(pod, now) {
    const s = podStatusSummary(pod);
    const restarts = s.lastRestart === undefined ? String(s.restarts) : `${String(s.restarts)} (${translateTimestampSince(s.lastRestart, now)} ago)`;
    // readinessGates is not in Skiff's PodSpec yet; read it if a client sent it.
    const gates = (pod.spec as { readinessGates?: { conditionType: string }[] } | undefined)?.readinessGates ?? [];
    const conds = pod.status?.conditions ?? [];
    const gatesText =
      gates.length === 0 ? "<none>" : `${String(gates.filter((g) => conds.some((c) => c.type === g.conditionType && c.status === "True")).length)}/${String(gates.length)}`;
    return [
      pod.metadata?.name ?? "",
      `${String(s.ready)}/${String(pod.spec?.containers.length ?? 0)}`,
      s.reason,
      restarts,
      translateTimestampSince(pod.metadata?.creationTimestamp, now),
      pod.status?.podIP || "<none>",
      pod.spec?.nodeName || "<none>",
      pod.status?.nominatedNodeName || "<none>",
      gatesText,
    ];
  },
};

/** READY count, STATUS reason, restart total and last restart time, as printPod computes them. */
export function podStatusSummary(pod: Pod): { ready: number; reason: string; restarts: number; lastRestart: string | undefined } {
  let reason = pod.status?.reason || pod.status?.phase || "";
  let restarts = 0;
  let ready = 0;
  let lastRestart: string | undefined;
  const noteRestart = (finishedAt: string | undefined | null) => {
    if (finishedAt && (lastRestart === undefined || Date.parse(finishedAt) > Date.parse(lastRestart))) lastRestart = finishedAt;
  };
  let initializing = false;
  const inits = pod.status?.initContainerStatuses ?? [];
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i]!;
    restarts += c.restartCount ?? 0;
    if (c.restartCount) noteRestart(c.lastState?.terminated?.finishedAt);
    const term = c.state?.terminated;
    const wait = c.state?.waiting;
    if (term && term.exitCode === 0) continue;
    if (term) reason = term.reason ? `Init:${term.reason}` : term.signal ? `Init:Signal:${String(term.signal)}` : `Init:ExitCode:${String(term.exitCode)}`;
    else if (wait?.reason && wait.reason !== "PodInitializing") reason = `Init:${wait.reason}`;
    else reason = `Init:${String(i)}/${String(pod.spec?.initContainers?.length ?? 0)}`;
    initializing = true;
    break;
  }
  if (!initializing) {
    restarts = 0;
    let hasRunning = false;
    const cs = pod.status?.containerStatuses ?? [];
    for (let i = cs.length - 1; i >= 0; i--) {
      const c = cs[i]!;
      restarts += c.restartCount ?? 0;
      if (c.restartCount) noteRestart(c.lastState?.terminated?.finishedAt);
      const term = c.state?.terminated;
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (term?.reason) reason = term.reason;
      else if (term) reason = term.signal ? `Signal:${String(term.signal)}` : `ExitCode:${String(term.exitCode)}`;
      else if (c.ready && c.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === "Completed" && hasRunning) {
      reason = (pod.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True") ? "Running" : "NotReady";
    }
  }
  if (pod.metadata?.deletionTimestamp) reason = pod.status?.reason === "NodeLost" ? "Unknown" : "Terminating";
  return { ready, reason, restarts, lastRestart };
}

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

/** The Pod strategy: status Pending on create, status and spec separated by subresource. */
export function createPodStrategy(): ResourceStrategy<T> {
  const resource = findResource({ group: "", resource: "pods" });
  if (resource === undefined) throw new Error("pods missing from the resources table");
  const validators = kindValidators.Pod;
  const opts = defaultValidationOptions;
  return {
    resource,
    applyDefaults: (p) => setPodDefaults(p),
    prepareForCreate(_c, p) {
      p.status = { phase: "Pending" };
    },
    validate: (_c, p) => validators.validate(p, opts),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForUpdate: (_c, p, old) => keepOldStatus(p, old),
    validateUpdate: (_c, p, old) => validators.validateUpdate(p, old, opts),
    status: {
      prepareForUpdate: (_c, p, old) => keepAllButStatus(p, old),
      validateUpdate: (_c, p, old) => validators.validateStatusUpdate(p, old, opts),
    },
    getAttrs: (p) => ({
      labels: { ...p.metadata?.labels },
      fields: {
        "metadata.name": p.metadata?.name ?? "",
        "metadata.namespace": p.metadata?.namespace ?? "",
        "spec.nodeName": p.spec?.nodeName ?? "",
        "spec.restartPolicy": p.spec?.restartPolicy ?? "",
        "spec.schedulerName": p.spec?.schedulerName ?? "",
        "spec.serviceAccountName": p.spec?.serviceAccountName ?? "",
        "status.phase": p.status?.phase ?? "",
        "status.podIP": p.status?.podIP ?? "",
        "status.nominatedNodeName": p.status?.nominatedNodeName ?? "",
      },
    }),
    fieldSelectorKeys: ["spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "status.phase", "status.podIP", "status.nominatedNodeName"],
    defaultGarbageCollectionPolicy: () => "Background",
    returnDeletedObject: true,
    table: podTable,
    checkGracefulDelete: (_c, p, requested) => podGracePeriodSeconds(p, requested),
    subresourceCreates: { binding: createPodBinding, eviction: createPodEviction },
  };
}

/** `spec.terminationGracePeriodSeconds` when the pod does not say (SetDefaults_PodSpec). */
export const defaultTerminationGracePeriodSeconds = 30;

/**
 * The grace period (seconds) of a pod delete, as 1.23's `CheckGracefulDelete`: the request's
 * value, else `spec.terminationGracePeriodSeconds` (30 when unset); 0 (delete at once) for a pod
 * not bound to a node or already `Succeeded`/`Failed`. Does not mutate.
 * @see pkg/registry/core/pod/strategy.go (CheckGracefulDelete)
 */
export function podGracePeriodSeconds(pod: Pod, requestedGracePeriodSeconds: number | undefined): number {
  if (!pod.spec?.nodeName) return 0;
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return 0;
  return requestedGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? defaultTerminationGracePeriodSeconds;
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

const evictionVersions = ["policy/v1", "policy/v1beta1"];

/**
 * `POST pods/{name}/eviction` with a `policy/v1` (or `v1beta1`) Eviction: deletes the pod with the
 * Eviction's `deleteOptions` (grace period, preconditions, dryRun; the request's `dryRun` too), as
 * 1.23 does when no PodDisruptionBudget covers the pod — Skiff serves none, so no eviction is ever
 * refused by one. Answers a Success `Status` (201). Errors: 400 when the body is not an Eviction or
 * the names differ, 404 for a missing pod, 409 for failed preconditions.
 * @see pkg/registry/core/pod/storage/eviction.go (EvictionREST.Create)
 */
export const createPodEviction: SubresourceCreateHandler = async (ctx, name, body, store) => {
  const apiVersion = body.apiVersion ?? "";
  if (!evictionVersions.includes(apiVersion) || body.kind !== "Eviction") {
    throw newBadRequest(`${String(body.kind ?? "")} in version "${apiVersion}" cannot be handled as a Eviction: the body of pods/eviction must be a policy/v1 Eviction`);
  }
  if (body.metadata?.name !== name) throw newBadRequest("name in URL does not match name in Eviction object");
  const opts = body["deleteOptions"];
  if (opts !== undefined && opts !== null && (typeof opts !== "object" || Array.isArray(opts))) throw newBadRequest("deleteOptions must be a JSON object");
  const { ctx: dctx, options } = deleteRequest(ctx, {}, opts ? JSON.stringify(opts) : "");
  await store.delete(dctx, name, options);
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
};
