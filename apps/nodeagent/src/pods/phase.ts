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
 * `Ready` and `ContainersReady` (every container ready; `PodCompleted` once Succeeded), and
 * `PodScheduled` (always true on a node). `lastTransitionTime` is left to the status manager.
 * @see pkg/kubelet/status/generate.go in kubernetes/kubernetes v1.23
 */
export function computePodConditions(spec: Pick<PodSpec, "containers" | "initContainers">, phase: Phase, initStatuses: readonly ContainerStatus[], statuses: readonly ContainerStatus[]): PodCondition[] {
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
  const podReady: PodCondition = { ...ready, type: "Ready" };
  return [initialized, podReady, ready, condition("PodScheduled", true)];
}
