/**
 * The node agent's tracer: span records to `$SKIFF_TRACE_FILE` (an environment variable, as the
 * agent's flags are fixed by its spec), or none when it is unset. Spans: `pod-seen` (the API pod
 * source's first sight of a pod), `pod-sync` (one pod worker sync), `volumes` (volume set-up), `sandbox` (RunPodSandbox), `container-start` (image check,
 * CreateContainer, StartContainer), `status-queue` (a status change waiting for the writer) and
 * `status-write` (GET, merge, PUT pods/status), `admission` (a new pod's admission), `pod-cgroup`
 * (the pod's cgroup made sure of) and `qos-update` (the QoS cgroups before it), each with the pod's
 * UID; and, without a UID, `cgroup-mkdir` (one v1 hierarchy's directories), `cgroup-write` (one
 * subsystem's files), `checkpoint-write` (a resource manager's state file) and `cri` (every CRI call, its method in `op`).
 * @see @skiff/apimachinery trace.ts
 */
import { tracerFromEnv } from "@skiff/apimachinery";
import type { Tracer } from "@skiff/apimachinery";

/** The process's node agent tracer. */
export const agentTracer: Tracer = tracerFromEnv("nodeagent");
