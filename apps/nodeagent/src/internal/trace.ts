/**
 * The node agent's tracer: span records to `$SKIFF_TRACE_FILE` (an environment variable, as the
 * agent's flags are fixed by its spec), or none when it is unset. Spans: `pod-seen` (the API pod
 * source's first sight of a pod), `pod-sync` (one pod worker sync), `volumes` (volume set-up), `sandbox` (RunPodSandbox), `container-start` (image check,
 * CreateContainer, StartContainer), `status-queue` (a status change waiting for the writer) and
 * `status-write` (GET, merge, PUT pods/status), each with the pod's UID.
 * @see @skiff/apimachinery trace.ts
 */
import { tracerFromEnv } from "@skiff/apimachinery";
import type { Tracer } from "@skiff/apimachinery";

/** The process's node agent tracer. */
export const agentTracer: Tracer = tracerFromEnv("nodeagent");
