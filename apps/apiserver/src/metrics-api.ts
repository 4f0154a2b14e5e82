/**
 * `metrics.k8s.io/v1beta1` (what `kubectl top` reads), served in-process in the role
 * metrics-server 0.6 plays: NodeMetrics (`nodes`) and PodMetrics (`pods`), `get` and `list` only,
 * built by scraping each node agent's `/metrics/resource` over the connection the pod-log proxy
 * uses (the node's preferred address and port, the apiserver's client certificate).
 *
 * CPU is a rate, so it needs two samples: each node's last two scrapes are kept; a request finds
 * the newest one older than the resolution (15 s, as metrics-server's default) reused, and a node
 * seen for the first time is scraped twice a second apart. `timestamp` is the newest sample's time,
 * `window` the time between the two samples (Go duration text), `usage.cpu` nano-cores as a
 * quantity, `usage.memory` the working set in bytes (BinarySI). Nodes that cannot be scraped are
 * left out of lists and answer 404 on get, as metrics-server does.
 * @see sigs.k8s.io/metrics-server v0.6 pkg/api/{node,pod}.go, pkg/storage/{node,pod}.go, pkg/scraper/client/resource/decode.go
 */
import { request as httpsRequest } from "node:https";
import type { IncomingMessage } from "node:http";
import type { ResourceInfo } from "@skiff/api-types";
import type { NonResourceRoute, ResourceStrategy } from "@skiff/apiserver-core";
import { errorToStatus, newBadRequest, newNotFound, parseFieldSelector, parseLabelSelector } from "@skiff/apimachinery";
import { Quantity, formatDuration, formatQuantity } from "@skiff/flags";
import type { Storage } from "@skiff/storage";
import type { NodeAgentClientCertificate } from "./pod-log-proxy.js";
import { nodeAgentLocation, podAndNodeStores } from "./pod-log-proxy.js";

const group = "metrics.k8s.io";
const version = "v1beta1";

function metricsResource(kind: string, plural: string, namespaced: boolean): ResourceInfo {
  return Object.freeze({
    group, version, kind, listKind: `${kind}List`, plural, singular: "", namespaced,
    shortNames: Object.freeze([]), categories: Object.freeze([]), subresources: Object.freeze([]), verbs: Object.freeze(["get", "list"] as const),
  });
}

/** The metrics resources, for discovery (legacy and aggregated): `get` and `list`. */
export const metricsResources: readonly ResourceInfo[] = Object.freeze([metricsResource("NodeMetrics", "nodes", false), metricsResource("PodMetrics", "pods", true)]);

/** One sample of the resource metrics text. */
interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
  readonly timestampMs?: number;
}

/**
 * Parses the Prometheus text format samples (comments skipped). Pure.
 * @throws Error `line <n>: ...` for a malformed line.
 */
export function parseResourceMetricsText(text: string): Sample[] {
  const out: Sample[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").trim();
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?$/.exec(line);
    if (!m) throw new Error(`line ${i + 1}: not a sample`);
    const labels: Record<string, string> = {};
    const re = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;
    const body = m[2] ?? "";
    let lm: RegExpExecArray | null;
    let used = 0;
    while ((lm = re.exec(body)) !== null) {
      labels[lm[1] ?? ""] = (lm[2] ?? "").replace(/\\(["\\n])/g, (_s, c: string) => (c === "n" ? "\n" : c));
      used = re.lastIndex;
    }
    if (body.slice(used).trim() !== "") throw new Error(`line ${i + 1}: bad labels`);
    const value = Number(m[3]);
    out.push({ name: m[1] ?? "", labels, value, ...(m[4] !== undefined ? { timestampMs: Number(m[4]) } : {}) });
  }
  return out;
}

/** CPU (cumulative seconds) and memory (bytes) of one node, pod container or the node itself at a time. */
interface Point {
  readonly cpuSeconds: number;
  readonly cpuMs: number;
  readonly memoryBytes: number;
}

/** One scrape of one node. */
export interface NodeScrape {
  readonly node?: Point;
  /** Keyed `namespace/pod/container`. */
  readonly containers: ReadonlyMap<string, Point>;
}

/** Turns `/metrics/resource` samples into points (series without both CPU and memory are dropped). Pure. */
export function decodeScrape(samples: readonly Sample[], scrapedAtMs: number): NodeScrape {
  let nodeCpu: Sample | undefined;
  let nodeMem: Sample | undefined;
  const cpu = new Map<string, Sample>();
  const mem = new Map<string, Sample>();
  for (const s of samples) {
    const key = `${s.labels["namespace"] ?? ""}/${s.labels["pod"] ?? ""}/${s.labels["container"] ?? ""}`;
    if (s.name === "node_cpu_usage_seconds_total") nodeCpu = s;
    else if (s.name === "node_memory_working_set_bytes") nodeMem = s;
    else if (s.name === "container_cpu_usage_seconds_total") cpu.set(key, s);
    else if (s.name === "container_memory_working_set_bytes") mem.set(key, s);
  }
  const point = (c: Sample, m: Sample): Point => ({ cpuSeconds: c.value, cpuMs: c.timestampMs ?? scrapedAtMs, memoryBytes: m.value });
  const containers = new Map<string, Point>();
  for (const [key, c] of cpu) {
    const m = mem.get(key);
    if (m) containers.set(key, point(c, m));
  }
  return { ...(nodeCpu && nodeMem ? { node: point(nodeCpu, nodeMem) } : {}), containers };
}

/** Usage between two points: nano-cores over the window, the newest memory. */
export interface Usage {
  readonly timestampMs: number;
  readonly windowMs: number;
  readonly nanoCores: number;
  readonly memoryBytes: number;
}

/** The rate between two points; undefined when the window is not positive or the counter went back (a restart). Pure. */
export function usageBetween(prev: Point | undefined, last: Point | undefined): Usage | undefined {
  if (!prev || !last) return undefined;
  const windowMs = last.cpuMs - prev.cpuMs;
  if (windowMs <= 0 || last.cpuSeconds < prev.cpuSeconds) return undefined;
  return { timestampMs: last.cpuMs, windowMs, nanoCores: Math.floor(((last.cpuSeconds - prev.cpuSeconds) / (windowMs / 1000)) * 1e9), memoryBytes: last.memoryBytes };
}

const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

function usageFields(u: Usage): { timestamp: string; window: string; usage: { cpu: string; memory: string } } {
  return {
    timestamp: rfc3339(u.timestampMs),
    window: formatDuration(BigInt(Math.round(u.windowMs)) * 1_000_000n),
    usage: { cpu: formatQuantity(new Quantity(BigInt(u.nanoCores), -9, "DecimalSI")), memory: formatQuantity(new Quantity(BigInt(Math.round(u.memoryBytes)), 0, "BinarySI")) },
  };
}

/** What {@link metricsRoutes} reads. */
export interface MetricsAPIConfig {
  readonly strategies: readonly ResourceStrategy[];
  readonly storage: Storage;
  readonly clientCertificate?: NodeAgentClientCertificate;
  /** Scrapes newer than this are reused. @defaultValue 15000 (metrics-server's `--metric-resolution`) */
  readonly resolutionMs?: number;
  /** Wait between the two scrapes of a node seen for the first time. @defaultValue 1000 */
  readonly firstWindowMs?: number;
  /** Timeout of one scrape. @defaultValue 10000 */
  readonly scrapeTimeoutMs?: number;
  /** Scrape failures (the node is left out). */
  readonly log?: (message: string) => void;
}

interface NodeView {
  metadata?: { name?: string; labels?: Record<string, string> };
  status?: { addresses?: { type: string; address: string }[]; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } };
}

interface PodView {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: { nodeName?: string; containers?: { name: string }[] };
}

function fetchText(host: string, port: number, path: string, cert: NodeAgentClientCertificate | undefined, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = httpsRequest(
      { host, port, method: "GET", path, rejectUnauthorized: false, timeout: timeoutMs, ...(cert ? { cert: cert.cert, key: cert.key } : {}) },
      (res: IncomingMessage) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => ((res.statusCode ?? 500) === 200 ? resolve(text) : reject(new Error(`request failed, status: ${JSON.stringify(`${res.statusCode ?? 0} ${res.statusMessage ?? ""}`)}`))));
        res.on("error", reject);
      },
    );
    r.on("timeout", () => r.destroy(new Error(`dial tcp ${host}:${port}: i/o timeout`)));
    r.on("error", reject);
    r.end();
  });
}

/**
 * The scraper and its per-node history (the last two scrapes). Exposed for tests; the routes
 * own one.
 */
export class NodeMetricsScraper {
  private readonly history = new Map<string, { prev?: NodeScrape; last: NodeScrape; atMs: number }>();
  private readonly inflight = new Map<string, Promise<{ prev?: NodeScrape; last: NodeScrape } | undefined>>();

  constructor(private readonly config: MetricsAPIConfig) {}

  private async scrapeOnce(name: string, node: NodeView): Promise<NodeScrape> {
    const { host, port } = nodeAgentLocation(name, node);
    const text = await fetchText(host, port, "/metrics/resource", this.config.clientCertificate, this.config.scrapeTimeoutMs ?? 10_000);
    return decodeScrape(parseResourceMetricsText(text), Date.now());
  }

  /** The last two scrapes of a node (scraping as needed); undefined when it cannot be scraped. */
  points(name: string, node: NodeView): Promise<{ prev?: NodeScrape; last: NodeScrape } | undefined> {
    const running = this.inflight.get(name);
    if (running) return running;
    const p = (async () => {
      try {
        const now = Date.now();
        let h = this.history.get(name);
        if (!h || now - h.atMs >= (this.config.resolutionMs ?? 15_000)) {
          h = { ...(h ? { prev: h.last } : {}), last: await this.scrapeOnce(name, node), atMs: now };
          this.history.set(name, h);
        }
        if (!h.prev) {
          await new Promise((r) => setTimeout(r, this.config.firstWindowMs ?? 1_000));
          h = { prev: h.last, last: await this.scrapeOnce(name, node), atMs: Date.now() };
          this.history.set(name, h);
        }
        return h;
      } catch (err) {
        this.config.log?.(`Failed to scrape node ${JSON.stringify(name)}: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      } finally {
        this.inflight.delete(name);
      }
    })();
    this.inflight.set(name, p);
    return p;
  }
}

/**
 * The list filter of `labelSelector` and `fieldSelector` (over `metadata.name` and
 * `metadata.namespace`, as metrics-server's `ObjectMetaFieldsSet`).
 * @throws StatusError 400 for a selector that does not parse.
 */
function selectorOf(query: Record<string, string | undefined>): (meta: { name?: string; namespace?: string; labels?: Record<string, string> } | undefined) => boolean {
  const labelText = query["labelSelector"] ?? "";
  const fieldText = query["fieldSelector"] ?? "";
  const labels = labelText === "" ? undefined : parseLabelSelector(labelText);
  if (labels && !labels.ok) throw newBadRequest(`unable to parse requirement: ${labels.error}`);
  const fields = fieldText === "" ? undefined : parseFieldSelector(fieldText);
  if (fields && !fields.ok) throw newBadRequest(fields.error);
  return (meta) =>
    (labels?.ok !== true || labels.value.matches(meta?.labels ?? {})) &&
    (fields?.ok !== true || fields.value.matches({ "metadata.name": meta?.name ?? "", ...(meta?.namespace !== undefined ? { "metadata.namespace": meta.namespace } : {}) }));
}

/**
 * The `metrics.k8s.io/v1beta1` routes (pass in `extraRoutes`; they run behind the server's
 * authentication and authorization as `get`/`list` on `nodes.metrics.k8s.io` and
 * `pods.metrics.k8s.io`; other methods answer 405). `labelSelector` and `fieldSelector`
 * (`metadata.name`, `metadata.namespace`) filter lists.
 * @example
 * createAPIServer({ ..., extraRoutes: [...discoveryRoutes([...reviewResources, ...metricsResources]), ...metricsRoutes({ strategies, storage })] });
 */
export function metricsRoutes(config: MetricsAPIConfig): NonResourceRoute[] {
  const { pods, nodes } = podAndNodeStores(config.strategies, config.storage);
  const scraper = new NodeMetricsScraper(config);
  const apiVersion = `${group}/${version}`;

  const listNodes = async (): Promise<NodeView[]> => (await config.storage.list(nodes.keyPrefix(undefined))).items as NodeView[];
  const nodeMetrics = async (node: NodeView) => {
    const name = node.metadata?.name ?? "";
    const h = await scraper.points(name, node);
    const u = usageBetween(h?.prev?.node, h?.last.node);
    if (!u) return undefined;
    return { metadata: { name, creationTimestamp: rfc3339(Date.now()), ...(node.metadata?.labels ? { labels: node.metadata.labels } : {}) }, ...usageFields(u) };
  };
  const podMetrics = async (pod: PodView, nodeByName: ReadonlyMap<string, NodeView>) => {
    const node = nodeByName.get(pod.spec?.nodeName ?? "");
    if (!node) return undefined;
    const h = await scraper.points(node.metadata?.name ?? "", node);
    if (!h) return undefined;
    const ns = pod.metadata?.namespace ?? "";
    const name = pod.metadata?.name ?? "";
    const containers: { name: string; usage: { cpu: string; memory: string } }[] = [];
    let newest: Usage | undefined;
    for (const c of pod.spec?.containers ?? []) {
      const key = `${ns}/${name}/${c.name}`;
      const u = usageBetween(h.prev?.containers.get(key), h.last.containers.get(key));
      if (!u) continue;
      if (!newest || u.timestampMs > newest.timestampMs) newest = u;
      containers.push({ name: c.name, usage: usageFields(u).usage });
    }
    if (!newest) return undefined;
    const { timestamp, window } = usageFields(newest);
    return { metadata: { name, namespace: ns, creationTimestamp: rfc3339(Date.now()), ...(pod.metadata?.labels ? { labels: pod.metadata.labels } : {}) }, timestamp, window, containers };
  };
  const send = (reply: Parameters<NonResourceRoute["handler"]>[1], body: unknown) => reply.code(200).header("content-type", "application/json").send(JSON.stringify(body));
  const fail = (reply: Parameters<NonResourceRoute["handler"]>[1], e: unknown) => {
    const s = errorToStatus(e);
    return reply.code(s.code).header("content-type", "application/json").send(JSON.stringify(s));
  };

  const nodesHandler: NonResourceRoute["handler"] = async (req, reply) => {
    try {
      const { name } = req.params as { name?: string };
      if (name !== undefined) {
        const node = (await config.storage.get(nodes.key(undefined, name), { ignoreNotFound: true })) as NodeView | null;
        const m = node ? await nodeMetrics(node) : undefined;
        if (!m) throw newNotFound({ group, resource: "nodemetrics" }, name);
        return await send(reply, { kind: "NodeMetrics", apiVersion, ...m });
      }
      const matches = selectorOf(req.query as Record<string, string | undefined>);
      const items = (await Promise.all((await listNodes()).filter((n) => matches(n.metadata)).map(nodeMetrics))).filter((m) => m !== undefined);
      return await send(reply, { kind: "NodeMetricsList", apiVersion, metadata: {}, items });
    } catch (e) {
      return fail(reply, e);
    }
  };
  const podsHandler: NonResourceRoute["handler"] = async (req, reply) => {
    try {
      const { namespace, name } = req.params as { namespace?: string; name?: string };
      const nodeByName = new Map((await listNodes()).map((n) => [n.metadata?.name ?? "", n]));
      if (namespace !== undefined && name !== undefined) {
        const pod = (await config.storage.get(pods.key(namespace, name), { ignoreNotFound: true })) as PodView | null;
        const m = pod ? await podMetrics(pod, nodeByName) : undefined;
        if (!m) throw newNotFound({ group, resource: "podmetrics" }, name);
        return await send(reply, { kind: "PodMetrics", apiVersion, ...m });
      }
      const matches = selectorOf(req.query as Record<string, string | undefined>);
      const all = (await config.storage.list(pods.keyPrefix(namespace))).items as PodView[];
      const items = (await Promise.all(all.filter((p) => matches(p.metadata)).map((p) => podMetrics(p, nodeByName)))).filter((m) => m !== undefined);
      return await send(reply, { kind: "PodMetricsList", apiVersion, metadata: {}, items });
    } catch (e) {
      return fail(reply, e);
    }
  };
  const base = `/apis/${group}/${version}`;
  return [
    { method: "GET", url: `${base}/nodes`, handler: nodesHandler },
    { method: "GET", url: `${base}/nodes/:name`, handler: nodesHandler },
    { method: "GET", url: `${base}/pods`, handler: podsHandler },
    { method: "GET", url: `${base}/namespaces/:namespace/pods`, handler: podsHandler },
    { method: "GET", url: `${base}/namespaces/:namespace/pods/:name`, handler: podsHandler },
  ];
}
