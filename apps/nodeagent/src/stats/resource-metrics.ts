/**
 * `/metrics/resource`: the node's, pods' and containers' CPU and memory in Prometheus text format
 * (0.0.4), each sample stamped with the time it was measured, as 1.23's resource metrics collector
 * writes them and metrics-server reads them. Families sorted by name and series by labels, floats
 * printed as Go's `strconv.FormatFloat(v, 'g', -1, 64)`, as client_golang does. Written by hand
 * rather than with prom-client, which cannot emit sample timestamps.
 * @see pkg/kubelet/metrics/collectors/resource_metrics.go in kubernetes/kubernetes v1.23
 */
import type { Summary } from "./types.js";

/**
 * Formats a float as Go's `strconv.FormatFloat(v, 'g', -1, 64)`: the shortest digits, in
 * exponent form (two-digit exponent at least) when the decimal exponent is below -4 or at least 6.
 * Pure.
 * @example formatGoFloat(12345678) // "1.2345678e+07"; formatGoFloat(0.25) // "0.25"; formatGoFloat(123456) // "123456"
 */
export function formatGoFloat(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const [mantissa = "0", expText = "0"] = v.toExponential().split("e");
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? "-" : "+"}${abs < 10 ? `0${abs}` : String(abs)}`;
  }
  return String(v);
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

interface Sample {
  readonly labels: readonly (readonly [string, string])[];
  readonly value: number;
  readonly timestampMs?: number;
}

interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "gauge";
  readonly samples: Sample[];
}

const ms = (rfc3339: string) => Date.parse(rfc3339);

function family(name: string, help: string, type: Family["type"]): Family {
  return { name, help: `[ALPHA] ${help}`, type, samples: [] };
}

/**
 * The `/metrics/resource` body for a CPU-and-memory summary (`GetCPUAndMemoryStats`):
 * `node_cpu_usage_seconds_total`, `node_memory_working_set_bytes`,
 * `container_cpu_usage_seconds_total{container,namespace,pod}`, `container_memory_working_set_bytes`,
 * `container_start_time_seconds`, `pod_cpu_usage_seconds_total{namespace,pod}`,
 * `pod_memory_working_set_bytes`, and `scrape_error` (1 when the summary could not be had;
 * then only that series is written). Series without a value are left out. Pure.
 */
export function formatResourceMetrics(summary: Summary | undefined): string {
  const f = {
    containerCpu: family("container_cpu_usage_seconds_total", "Cumulative cpu time consumed by the container in core-seconds", "counter"),
    containerMem: family("container_memory_working_set_bytes", "Current working set of the container in bytes", "gauge"),
    containerStart: family("container_start_time_seconds", "Start time of the container since unix epoch in seconds", "gauge"),
    nodeCpu: family("node_cpu_usage_seconds_total", "Cumulative cpu time consumed by the node in core-seconds", "counter"),
    nodeMem: family("node_memory_working_set_bytes", "Current working set of the node in bytes", "gauge"),
    podCpu: family("pod_cpu_usage_seconds_total", "Cumulative cpu time consumed by the pod in core-seconds", "counter"),
    podMem: family("pod_memory_working_set_bytes", "Current working set of the pod in bytes", "gauge"),
    scrapeError: family("scrape_error", "1 if there was an error while getting container metrics, 0 otherwise", "gauge"),
  };
  f.scrapeError.samples.push({ labels: [], value: summary ? 0 : 1 });
  if (summary) {
    const n = summary.node;
    if (n.cpu?.usageCoreNanoSeconds !== undefined) f.nodeCpu.samples.push({ labels: [], value: n.cpu.usageCoreNanoSeconds / 1e9, timestampMs: ms(n.cpu.time) });
    if (n.memory?.workingSetBytes !== undefined) f.nodeMem.samples.push({ labels: [], value: n.memory.workingSetBytes, timestampMs: ms(n.memory.time) });
    for (const p of summary.pods) {
      const podLabels = [["namespace", p.podRef.namespace], ["pod", p.podRef.name]] as const;
      if (p.cpu?.usageCoreNanoSeconds !== undefined) f.podCpu.samples.push({ labels: podLabels, value: p.cpu.usageCoreNanoSeconds / 1e9, timestampMs: ms(p.cpu.time) });
      if (p.memory?.workingSetBytes !== undefined) f.podMem.samples.push({ labels: podLabels, value: p.memory.workingSetBytes, timestampMs: ms(p.memory.time) });
      for (const c of p.containers) {
        const labels = [["container", c.name], ...podLabels] as const;
        f.containerStart.samples.push({ labels, value: ms(c.startTime) / 1000, timestampMs: ms(c.startTime) });
        if (c.cpu?.usageCoreNanoSeconds !== undefined) f.containerCpu.samples.push({ labels, value: c.cpu.usageCoreNanoSeconds / 1e9, timestampMs: ms(c.cpu.time) });
        if (c.memory?.workingSetBytes !== undefined) f.containerMem.samples.push({ labels, value: c.memory.workingSetBytes, timestampMs: ms(c.memory.time) });
      }
    }
  }
  const lines: string[] = [];
  for (const fam of Object.values(f).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (fam.samples.length === 0) continue;
    lines.push(`# HELP ${fam.name} ${fam.help}`, `# TYPE ${fam.name} ${fam.type}`);
    const rendered = fam.samples.map((s) => {
      const labels = s.labels.length === 0 ? "" : `{${s.labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`;
      return `${fam.name}${labels} ${formatGoFloat(s.value)}${s.timestampMs !== undefined && Number.isFinite(s.timestampMs) ? ` ${s.timestampMs}` : ""}`;
    });
    lines.push(...rendered.sort());
  }
  return `${lines.join("\n")}\n`;
}

/** One parsed sample of the Prometheus text format. */
export interface ParsedSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
  readonly timestampMs?: number;
}

/**
 * A sample value as Prometheus reads it (Go's `strconv.ParseFloat`): a decimal number, or `NaN`,
 * `Inf`, `Infinity` with an optional sign in any letter case (prom-client writes `Nan`, which
 * Prometheus accepts); undefined for anything else. Pure.
 */
function parseSampleValue(raw: string): number | undefined {
  if (/^nan$/i.test(raw)) return NaN;
  const inf = /^([+-]?)inf(?:inity)?$/i.exec(raw);
  if (inf) return inf[1] === "-" ? -Infinity : Infinity;
  const n = Number(raw);
  return Number.isNaN(n) ? undefined : n;
}

/**
 * Parses Prometheus text format 0.0.4 samples (comments skipped). The consumers are
 * metrics-server's role in the apiserver and tests.
 * @throws Error `line <n>: <reason>` for a malformed sample line.
 */
export function parsePrometheusText(text: string): ParsedSample[] {
  const out: ParsedSample[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").trim();
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?$/.exec(line);
    if (!m) throw new Error(`line ${i + 1}: not a sample: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    const body = m[3] ?? "";
    const re = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;
    let lm: RegExpExecArray | null;
    let consumed = 0;
    while ((lm = re.exec(body)) !== null) {
      labels[lm[1] ?? ""] = (lm[2] ?? "").replace(/\\(["\\n])/g, (_s, c: string) => (c === "n" ? "\n" : c));
      consumed = re.lastIndex;
    }
    if (body.slice(consumed).trim() !== "") throw new Error(`line ${i + 1}: bad labels: ${JSON.stringify(body)}`);
    const raw = m[4] ?? "";
    const value = parseSampleValue(raw);
    if (value === undefined) throw new Error(`line ${i + 1}: bad value ${JSON.stringify(raw)}`);
    out.push({ name: m[1] ?? "", labels, value, ...(m[5] !== undefined ? { timestampMs: Number(m[5]) } : {}) });
  }
  return out;
}
