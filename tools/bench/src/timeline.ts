/**
 * The per-pod timeline of a Job run, joined from the components' trace records (see
 * `@skiff/apimachinery`'s trace module): for each pod, the steps from the Job sync that created it
 * to the Job status write that counted it, each with its wait (time in queues, watches, rate
 * limiters and the network) and its work (the span of the component doing the step; for API
 * calls the apiserver's own handling time).
 */
import type { TraceRecord } from "@skiff/apimachinery";

/** One step of a pod's way, as the bench prints it. */
export interface StepStats {
  readonly step: string;
  /** How many pods had the step. */
  readonly pods: number;
  /** Percentiles of the step's whole duration, and of its work part, in ms. */
  readonly p50: number;
  readonly p99: number;
  readonly workP50: number;
  readonly workP99: number;
}

/** A pod's way through the system. Times are wall-clock ms; a missing step leaves `undefined`. */
interface PodWay {
  syncStart?: number | undefined;
  create?: TraceRecord;
  apiCreate?: TraceRecord;
  queue?: TraceRecord;
  schedule?: TraceRecord;
  bind?: TraceRecord;
  apiBind?: TraceRecord;
  seen?: TraceRecord;
  firstSync?: TraceRecord;
  volumes?: TraceRecord;
  /** The first TokenRequest of a projected service-account token, and the first ConfigMap/Secret read, of the volume set-up. */
  token?: TraceRecord;
  object?: TraceRecord;
  sandbox?: TraceRecord;
  start?: TraceRecord;
  pendingQueue?: { running?: TraceRecord; succeeded?: TraceRecord };
  running?: { queue: TraceRecord; write: TraceRecord };
  succeeded?: { queue: TraceRecord; write: TraceRecord };
  uncounted?: TraceRecord;
  finalizer?: TraceRecord;
  counted?: TraceRecord;
  countedBySync?: TraceRecord | undefined;
}

/** The value at percentile `p` (0–100) of `xs` (nearest rank); 0 for none. Does not mutate `xs`. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0;
}

const dur = (r: TraceRecord): number => r.end - r.start;

/**
 * Joins `records` into pod ways and returns the statistics of each step in timeline order, plus
 * the pod start-up latencies (apiserver create → first status write of Running or a terminal
 * phase, ms). Pods with no apiserver create record are left out. Pure.
 */
export function podTimeline(records: readonly TraceRecord[]): { steps: StepStats[]; startupMs: number[]; pods: number } {
  const ways = new Map<string, PodWay>();
  const way = (uid: string | undefined): PodWay | undefined => {
    if (uid === undefined || uid === "") return undefined;
    let w = ways.get(uid);
    if (!w) ways.set(uid, (w = {}));
    return w;
  };
  const syncs: TraceRecord[] = [];
  const jobStatus: TraceRecord[] = [];
  const binds = new Map<string, TraceRecord>();
  for (const r of records) {
    const c = r.component;
    if (c === "apiserver") {
      if (r.span === "create pods" && r.attrs?.["code"] === 201) way(r.uid)!.apiCreate = r;
      else if (r.span === "create pods/binding" && r.pod !== undefined) binds.set(r.pod, r);
    } else if (c === "job-controller") {
      if (r.span === "sync") syncs.push(r);
      else if (r.span === "job-status") jobStatus.push(r);
      else if (r.span === "create-pod") way(r.uid)!.create = r;
      else if (r.span === "remove-finalizer") way(r.uid)!.finalizer ??= r;
      else if (r.span === "uncounted") for (const u of r.uids ?? []) way(u)!.uncounted ??= r;
      else if (r.span === "counted") for (const u of r.uids ?? []) way(u)!.counted ??= r;
    } else if (c === "scheduler") {
      const w = way(r.uid);
      if (!w) continue;
      if (r.span === "queue") w.queue = r;
      else if (r.span === "schedule") w.schedule = r;
      else if (r.span === "bind") w.bind = r;
    } else if (c === "nodeagent") {
      const w = way(r.uid);
      if (!w) continue;
      if (r.span === "pod-seen") w.seen ??= r;
      else if (r.span === "pod-sync") w.firstSync ??= r;
      else if (r.span === "volumes") w.volumes ??= r;
      else if (r.span === "volume-token") w.token ??= r;
      else if (r.span === "volume-configMap" || r.span === "volume-secret") w.object ??= r;
      else if (r.span === "sandbox") w.sandbox ??= r;
      else if (r.span === "container-start") w.start ??= r;
      else if (r.span === "status-queue" || r.span === "status-write") {
        const phase = r.attrs?.["phase"];
        const slot = phase === "Running" ? "running" : phase === "Succeeded" || phase === "Failed" ? "succeeded" : undefined;
        if (!slot) continue;
        const pending = (w.pendingQueue ??= {});
        const queued = pending[slot];
        if (r.span === "status-queue") pending[slot] = r;
        else if (queued && w[slot] === undefined) w[slot] = { queue: queued, write: r };
      }
    }
  }
  // Without tracking finalizers a pod is counted by the first Job status write of a sync that
  // started after its Succeeded status was written (the sync read it from its cache).
  const writes = jobStatus
    .map((r) => ({ r, syncStart: syncs.find((x) => x.job === r.job && x.start <= r.start && x.end >= r.end)?.start ?? r.start }))
    .sort((a, b) => a.r.end - b.r.end);
  for (const w of ways.values()) {
    const done = w.succeeded?.write.end;
    if (w.counted === undefined && w.uncounted === undefined && done !== undefined) w.countedBySync = writes.find((x) => x.syncStart >= done && x.r.job === w.create?.job)?.r;
  }
  for (const w of ways.values()) {
    // A pod no controller created (a bare pod) is named by the apiserver's create span.
    const pod = w.create?.pod ?? w.apiCreate?.pod;
    const b = pod === undefined ? undefined : binds.get(pod);
    if (b) w.apiBind = b;
    if (w.create !== undefined) {
      const s = w.create.start;
      w.syncStart = syncs.find((x) => x.job === w.create?.job && x.start <= s && x.end >= s)?.start;
    }
  }

  type Step = { name: string; total: (w: PodWay) => number | undefined; work: (w: PodWay) => number | undefined };
  const gap = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined || b === undefined ? undefined : b - a);
  const steps: Step[] = [
    { name: "job sync → pod create sent (job controller)", total: (w) => gap(w.syncStart, w.create?.start), work: () => 0 },
    { name: "pod create (job controller → apiserver)", total: (w) => (w.create ? dur(w.create) : undefined), work: (w) => (w.apiCreate ? dur(w.apiCreate) : undefined) },
    { name: "created → scheduler queue (watch)", total: (w) => gap(w.apiCreate?.end, w.queue?.start), work: () => 0 },
    { name: "scheduler queue", total: (w) => (w.queue ? dur(w.queue) : undefined), work: () => 0 },
    { name: "schedule (filter, score)", total: (w) => (w.schedule ? dur(w.schedule) : undefined), work: (w) => (w.schedule ? dur(w.schedule) : undefined) },
    { name: "bind (scheduler → apiserver)", total: (w) => (w.bind ? dur(w.bind) : undefined), work: (w) => (w.apiBind ? dur(w.apiBind) : undefined) },
    { name: "bound → agent sees it (watch)", total: (w) => gap(w.apiBind?.end, w.seen?.start), work: () => 0 },
    { name: "agent sees it → pod worker sync starts", total: (w) => gap(w.seen?.start, w.firstSync?.start), work: () => 0 },
    { name: "sync start → volumes set up", total: (w) => gap(w.firstSync?.start, w.volumes?.end), work: (w) => (w.volumes ? dur(w.volumes) : undefined) },
    { name: "  of which: first TokenRequest (service-account token)", total: (w) => (w.token ? dur(w.token) : undefined), work: () => undefined },
    { name: "  of which: first ConfigMap/Secret read (watch sync)", total: (w) => (w.object ? dur(w.object) : undefined), work: () => undefined },
    { name: "volumes → sandbox requested (objects, CRI status)", total: (w) => gap(w.volumes?.end, w.sandbox?.start), work: () => undefined },
    { name: "sandbox (RunPodSandbox)", total: (w) => (w.sandbox ? dur(w.sandbox) : undefined), work: (w) => (w.sandbox ? dur(w.sandbox) : undefined) },
    { name: "sandbox → container start requested", total: (w) => gap(w.sandbox?.end, w.start?.start), work: () => 0 },
    { name: "container start (Create+StartContainer)", total: (w) => (w.start ? dur(w.start) : undefined), work: (w) => (w.start ? dur(w.start) : undefined) },
    { name: "started → status Running queued", total: (w) => gap(w.start?.end, w.running?.queue.start), work: () => 0 },
    { name: "status Running: writer queue", total: (w) => (w.running ? dur(w.running.queue) : undefined), work: () => 0 },
    { name: "status Running: GET + PUT pods/status", total: (w) => (w.running ? dur(w.running.write) : undefined), work: () => undefined },
    // Measured from the Running write's end (no span marks the exit): the container's run is
    // included, and a negative value is a Succeeded status queued while Running was being written.
    { name: "status Running written → Succeeded queued (the run included)", total: (w) => gap(w.running?.write.end ?? w.start?.end, w.succeeded?.queue.start), work: () => 0 },
    { name: "status Succeeded: writer queue", total: (w) => (w.succeeded ? dur(w.succeeded.queue) : undefined), work: () => 0 },
    { name: "status Succeeded: GET + PUT pods/status", total: (w) => (w.succeeded ? dur(w.succeeded.write) : undefined), work: () => undefined },
    { name: "Succeeded → UID in uncountedTerminatedPods", total: (w) => gap(w.succeeded?.write.end, w.uncounted?.end), work: (w) => (w.uncounted ? dur(w.uncounted) : undefined) },
    { name: "→ finalizer removed", total: (w) => gap(w.uncounted?.end, w.finalizer?.end), work: (w) => (w.finalizer ? dur(w.finalizer) : undefined) },
    { name: "→ Job counted (status write)", total: (w) => gap(w.finalizer?.end, w.counted?.end), work: (w) => (w.counted ? dur(w.counted) : undefined) },
    { name: "Succeeded → Job counted (no tracking finalizers)", total: (w) => gap(w.succeeded?.write.end, w.countedBySync?.end), work: (w) => (w.countedBySync ? dur(w.countedBySync) : undefined) },
  ];
  const joined = [...ways.values()].filter((w) => w.apiCreate !== undefined);
  const stats = steps.map((s): StepStats => {
    const totals: number[] = [];
    const works: number[] = [];
    for (const w of joined) {
      const t = s.total(w);
      if (t === undefined) continue;
      totals.push(t);
      const k = s.work(w);
      if (k !== undefined) works.push(k);
    }
    return { step: s.name, pods: totals.length, p50: percentile(totals, 50), p99: percentile(totals, 99), workP50: percentile(works, 50), workP99: percentile(works, 99) };
  });
  const startupMs: number[] = [];
  for (const w of joined) {
    const firstUp = w.running?.write.end ?? w.succeeded?.write.end;
    if (w.apiCreate && firstUp !== undefined) startupMs.push(firstUp - w.apiCreate.end);
  }
  return { steps: stats, startupMs, pods: joined.length };
}

/**
 * The apiserver's mutating request latencies (ms) and the count per span name, from its request
 * spans (handler time). API Priority and Fairness' `apf-wait`/`apf-reject` spans are not requests
 * and are left out: see {@link apfWaits}. Pure.
 */
export function mutatingLatencies(records: readonly TraceRecord[]): { all: number[]; bySpan: Map<string, number[]> } {
  const all: number[] = [];
  const bySpan = new Map<string, number[]>();
  for (const r of records) {
    if (r.component !== "apiserver" || r.span.startsWith("apf-")) continue;
    const d = dur(r);
    all.push(d);
    const xs = bySpan.get(r.span) ?? [];
    xs.push(d);
    bySpan.set(r.span, xs);
  }
  return { all, bySpan };
}

/**
 * How long requests (reads and writes) waited in API Priority and Fairness' queues for a seat, in
 * ms: the apiserver's `apf-wait` spans. 1.23's request-latency SLI
 * (`apiserver_request_duration_seconds`) counts this wait; 1.27's `apiserver_request_sli_duration_seconds`
 * does not. Pure.
 */
export function apfWaits(records: readonly TraceRecord[]): number[] {
  return records.filter((r) => r.component === "apiserver" && r.span === "apf-wait").map(dur);
}

/** Prints a {@link podTimeline}'s steps as a table (ms) and its five slowest steps by p99. */
export function printTimeline(t: { steps: readonly StepStats[]; pods: number }, title = "pods"): void {
  console.log(`  per-pod timeline of ${String(t.pods)} ${title} (ms; whole step p50/p99, work p50/p99; slowest p99 first; steps no pod had are left out):`);
  const w = Math.max(...t.steps.map((s) => s.step.length));
  console.log(`    ${"step".padEnd(w)}  ${"pods".padStart(5)} ${"p50".padStart(8)} ${"p99".padStart(8)} ${"work p50".padStart(9)} ${"work p99".padStart(9)}`);
  for (const s of t.steps.filter((x) => x.pods > 0)) console.log(`    ${s.step.padEnd(w)}  ${String(s.pods).padStart(5)} ${s.p50.toFixed(1).padStart(8)} ${s.p99.toFixed(1).padStart(8)} ${s.workP50.toFixed(1).padStart(9)} ${s.workP99.toFixed(1).padStart(9)}`);
  const top = t.steps.filter((x) => x.pods > 0).sort((a, b) => b.p99 - a.p99).slice(0, 5);
  console.log(`  slowest steps by p99: ${top.map((s) => `${s.step} (${s.p99.toFixed(0)} ms)`).join("; ")}`);
}
