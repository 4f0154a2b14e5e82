import type { ContainerStatus, PodCondition, PodSpec, PodStatus } from "@skiff/api-types";

type Phase = NonNullable<PodStatus["phase"]>;

/**
 * The pod phase from the spec and the container statuses, exactly as the kubelet computes it:
 * a failed init container with restartPolicy Never → Failed; pending init containers or waiting
 * containers → Pending; something running and nothing unknown → Running; everything stopped →
 * Running (Always), Succeeded (all exit 0), Failed (Never) or Running (OnFailure). Pure.
 * @see pkg/kubelet/kubelet_pods.go (getPhase) in kubernetes/kubernetes v1.23
 */
export function computePodPhase(spec: Pick<PodSpec, "containers" | "initContainers" | "restartPolicy">, initStatuses: readonly ContainerStatus[], statuses: readonly ContainerStatus[]): Phase {
  const restartPolicy = spec.restartPolicy ?? "Always";
  let pendingInit = 0;
  let failedInit = 0;
  for (const c of spec.initContainers ?? []) {
    const s = initStatuses.find((x) => x.name === c.name);
    if (!s) {
      pendingInit++;
      continue;
    }
    if (s.state?.running) pendingInit++;
    else if (s.state?.terminated) {
      if (s.state.terminated.exitCode !== 0) failedInit++;
    } else if (s.state?.waiting) {
      if (s.lastState?.terminated) {
        if (s.lastState.terminated.exitCode !== 0) failedInit++;
      } else pendingInit++;
    } else pendingInit++;
  }
  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of spec.containers) {
    const s = statuses.find((x) => x.name === c.name);
    if (!s) {
      unknown++;
      continue;
    }
    if (s.state?.running) running++;
    else if (s.state?.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state?.waiting) {
      if (s.lastState?.terminated) stopped++;
      else waiting++;
    } else unknown++;
  }
  if (failedInit > 0 && restartPolicy === "Never") return "Failed";
  if (pendingInit > 0 || waiting > 0) return "Pending";
  if (running > 0 && unknown === 0) return "Running";
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (restartPolicy === "Always") return "Running";
    if (stopped === succeeded) return "Succeeded";
    if (restartPolicy === "Never") return "Failed";
    return "Running";
  }
  return "Pending";
}

function condition(type: string, ok: boolean, reason?: string, message?: string): PodCondition {
  const c: PodCondition = { type, status: ok ? "True" : "False" };
  if (reason) c.reason = reason;
  if (message) c.message = message;
  return c;
}

/**
 * The pod conditions the kubelet reports: `Initialized` (every init container exited 0),
 * `ContainersReady` (every container ready; `PodCompleted` once Succeeded), `Ready` (as
 * ContainersReady, and then False with reason `ReadinessGatesNotReady` while a condition named by
 * `spec.readinessGates` is missing from `conditions` or not True), and `PodScheduled` (always true
 * on a node). `conditions` are the pod's current conditions as the API has them (those set by
 * controllers for its readiness gates). `lastTransitionTime` is left to the status manager.
 * @see pkg/kubelet/status/generate.go (GeneratePodReadyCondition) in kubernetes/kubernetes v1.23
 */
export function computePodConditions(
  spec: Pick<PodSpec, "containers" | "initContainers" | "readinessGates">,
  phase: Phase,
  initStatuses: readonly ContainerStatus[],
  statuses: readonly ContainerStatus[],
  conditions: readonly PodCondition[] = [],
): PodCondition[] {
  const incompleteInit = (spec.initContainers ?? [])
    .filter((c) => {
      const s = initStatuses.find((x) => x.name === c.name);
      return !(s?.state?.terminated && s.state.terminated.exitCode === 0);
    })
    .map((c) => c.name);
  const initialized =
    phase === "Succeeded" && incompleteInit.length > 0
      ? condition("Initialized", true, "PodCompleted")
      : incompleteInit.length === 0
        ? condition("Initialized", true)
        : condition("Initialized", false, "ContainersNotInitialized", `containers with incomplete status: [${incompleteInit.join(" ")}]`);
  let ready: PodCondition;
  if (phase === "Succeeded") ready = condition("ContainersReady", false, "PodCompleted");
  else {
    const unknown = spec.containers.filter((c) => !statuses.some((s) => s.name === c.name)).map((c) => c.name);
    const unready = spec.containers.filter((c) => statuses.some((s) => s.name === c.name && !s.ready)).map((c) => c.name);
    const parts: string[] = [];
    if (unknown.length > 0) parts.push(`containers with unknown status: [${unknown.join(" ")}]`);
    if (unready.length > 0) parts.push(`containers with unready status: [${unready.join(" ")}]`);
    ready = parts.length === 0 ? condition("ContainersReady", true) : condition("ContainersReady", false, "ContainersNotReady", parts.join(", "));
  }
  return [initialized, podReadyCondition(spec, ready, conditions), ready, condition("PodScheduled", true)];
}

/** The reason of a Ready condition held False by readiness gates. */
export const readinessGatesNotReady = "ReadinessGatesNotReady";

/**
 * The `Ready` condition from `ContainersReady` and the readiness gates: ContainersReady's status,
 * reason and message while it is not True; else False with reason {@link readinessGatesNotReady}
 * and 1.23's messages while a gate's condition is missing or not True; else True. Pure.
 * @see pkg/kubelet/status/generate.go (GeneratePodReadyCondition) in kubernetes/kubernetes v1.23
 */
export function podReadyCondition(spec: Pick<PodSpec, "readinessGates">, containersReady: PodCondition, conditions: readonly PodCondition[]): PodCondition {
  if (containersReady.status !== "True") {
    const c: PodCondition = { type: "Ready", status: containersReady.status };
    if (containersReady.reason !== undefined) c.reason = containersReady.reason;
    if (containersReady.message !== undefined) c.message = containersReady.message;
    return c;
  }
  const unready: string[] = [];
  for (const gate of spec.readinessGates ?? []) {
    const c = conditions.find((x) => x.type === gate.conditionType);
    if (c === undefined) unready.push(`corresponding condition of pod readiness gate ${goQuote(gate.conditionType)} does not exist.`);
    else if (c.status !== "True") unready.push(`the status of pod readiness gate ${goQuote(gate.conditionType)} is not "True", but ${c.status}`);
  }
  return unready.length > 0 ? condition("Ready", false, readinessGatesNotReady, unready.join(", ")) : condition("Ready", true);
}

/**
 * Whether a pod with readiness gates shows a `Ready` condition whose status or message differs
 * from what its conditions give (a controller changed a gate's condition): the kubelet then syncs
 * the pod to write it again. False for pods without readiness gates or without a Ready condition. Pure.
 * @see pkg/kubelet/status/status_manager.go (NeedToReconcilePodReadiness) in kubernetes/kubernetes v1.23
 */
export function needToReconcilePodReadiness(pod: { readonly spec?: Pick<PodSpec, "readinessGates" | "containers" | "initContainers">; readonly status?: { readonly phase?: string; readonly conditions?: readonly PodCondition[]; readonly containerStatuses?: readonly ContainerStatus[] } }): boolean {
  if ((pod.spec?.readinessGates ?? []).length === 0 || pod.spec === undefined) return false;
  const conditions = pod.status?.conditions ?? [];
  const phase = (pod.status?.phase ?? "Pending") as Phase;
  const containersReady = computePodConditions(pod.spec, phase, [], pod.status?.containerStatuses ?? [], conditions)[2]!;
  const want = podReadyCondition(pod.spec, containersReady, conditions);
  const have = conditions.find((c) => c.type === "Ready");
  // Only a Ready condition that is there and differs in status or message (as 1.23).
  return have !== undefined && (have.status !== want.status || (have.message ?? "") !== (want.message ?? ""));
}

// Go's %q of a condition type (a qualified name: no characters needing escapes beyond JSON's).
function goQuote(s: string): string {
  return JSON.stringify(s);
}
