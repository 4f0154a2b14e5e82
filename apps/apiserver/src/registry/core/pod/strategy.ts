/**
 * core/v1 Pod (namespaced, /status, /ephemeralcontainers) and its printer; the create subresources
 * are one file and one `subresourceCreates` row each (`binding.ts`, `eviction.ts`).
 * @see pkg/registry/core/pod/strategy.go
 * @see pkg/printers/internalversion/printers.go (printPod)
 */
import type { Pod } from "@skiff/api-types";
import { deepCopyJSON } from "@skiff/apimachinery";
import { findResource } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { dropDisabledPodSpecFields, kindValidators, setPodDefaults } from "@skiff/validation";
import { podSpecGatesOf, validationOptionsFor, type PodSpecGates } from "../../../internal/pod-spec-gates.js";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { ageColumn, nameColumn } from "../../../internal/simple-strategy.js";
import { keepAllButStatus, keepOldStatus } from "../../../internal/status-split.js";
import { createPodBinding } from "./binding.js";
import { createPodEviction } from "./eviction.js";

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
    const gates = pod.spec?.readinessGates ?? [];
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

/** Gates the Pod strategy reads. */
export interface PodStrategyGates extends Partial<PodSpecGates> {
  /** `EphemeralContainers` (beta, on by default in 1.23): serve `pods/ephemeralcontainers`. */
  readonly ephemeralContainers: boolean;
}

/**
 * The Pod strategy: status Pending on create; status, spec and ephemeral containers separated by
 * subresource; the spec loses the fields of disabled gates (`dropDisabledPodSpecFields`: `os` with
 * IdentifyPodOS off) unless the stored pod used them, and HostProcess fields are refused with
 * WindowsHostProcessContainers off. With the `EphemeralContainers` gate off, `pods/ephemeralcontainers` is neither
 * served (404, so kubectl says "ephemeral containers are disabled for this cluster") nor listed in
 * discovery, as 1.23 installs it only with the gate on.
 * @see pkg/registry/core/pod/storage/storage.go (NewStorage, EphemeralContainersREST)
 */
export function createPodStrategy(gates: PodStrategyGates = { ephemeralContainers: true }): ResourceStrategy<T> {
  const found = findResource({ group: "", resource: "pods" });
  if (found === undefined) throw new Error("pods missing from the resources table");
  const resource = gates.ephemeralContainers ? found : { ...found, subresources: found.subresources.filter((s) => s !== "ephemeralcontainers") };
  const validators = kindValidators.Pod;
  const specGates = podSpecGatesOf(gates);
  const opts = validationOptionsFor(specGates);
  return {
    resource,
    applyDefaults: (p) => setPodDefaults(p),
    prepareForCreate(_c, p) {
      p.status = { phase: "Pending" };
      dropDisabledPodSpecFields(p.spec, undefined, specGates);
    },
    validate: (_c, p) => validators.validate(p, opts),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForUpdate: (_c, p, old) => {
      keepOldStatus(p, old);
      dropDisabledPodSpecFields(p.spec, old.spec, specGates);
    },
    validateUpdate: (_c, p, old) => validators.validateUpdate(p, old, opts),
    status: {
      prepareForUpdate: (_c, p, old) => keepAllButStatus(p, old),
      validateUpdate: (_c, p, old) => validators.validateStatusUpdate(p, old, opts),
    },
    // GET/PUT/PATCH /api/v1/namespaces/{ns}/pods/{name}/ephemeralcontainers: only
    // spec.ephemeralContainers of the request is kept.
    subresourceUpdates: gates.ephemeralContainers
      ? {
          ephemeralcontainers: {
            prepareForUpdate: (_c, p, old) => dropNonEphemeralContainerUpdates(p, old),
            validateUpdate: (_c, p, old) => validators.validateEphemeralContainersUpdate(p, old, opts),
          },
        }
      : {},
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
    indexedField: { field: "spec.nodeName", valueOf: podNodeName },
    fieldSelectorKeys: ["spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "status.phase", "status.podIP", "status.nominatedNodeName"],
    defaultGarbageCollectionPolicy: () => "Background",
    returnDeletedObject: true,
    table: podTable,
    checkGracefulDelete: (_c, p, requested) => podGracePeriodSeconds(p, requested),
    subresourceCreates: { binding: createPodBinding, eviction: createPodEviction },
  };
}

/**
 * The `ephemeralcontainers` subresource's update preparation: everything but
 * `spec.ephemeralContainers` comes from the stored pod (metadata and status included), except
 * `metadata.managedFields`, which the request handler has already recorded (as for `/status`).
 * Mutates `pod`.
 * @see pkg/registry/core/pod/strategy.go (dropNonEphemeralContainerUpdates, podEphemeralContainersStrategy)
 */
function dropNonEphemeralContainerUpdates(pod: T, old: T): void {
  const ephemeralContainers = pod.spec?.ephemeralContainers;
  const managedFields = pod.metadata?.managedFields;
  for (const k of Object.keys(pod)) delete pod[k];
  Object.assign(pod, deepCopyJSON(old));
  if (pod.spec !== undefined) {
    if (ephemeralContainers === undefined) delete pod.spec.ephemeralContainers;
    else pod.spec.ephemeralContainers = ephemeralContainers;
  }
  if (managedFields !== undefined) (pod.metadata ??= {}).managedFields = managedFields;
  else if (pod.metadata !== undefined) delete pod.metadata.managedFields;
}

/**
 * A stored object's `spec.nodeName` (`""` when unset or not a pod): the pods' watch trigger.
 * @see pkg/registry/core/pod/strategy.go (NodeNameTriggerFunc) in kubernetes/kubernetes v1.23
 */
function podNodeName(o: unknown): string {
  const nodeName = (o as { spec?: { nodeName?: unknown } } | null)?.spec?.nodeName;
  return typeof nodeName === "string" ? nodeName : "";
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
