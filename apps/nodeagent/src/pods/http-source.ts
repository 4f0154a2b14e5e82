import type { Pod } from "@skiff/api-types";
import { decodeManifest } from "./static-pod.js";

/** Options of {@link HttpSource}. */
export interface HttpSourceOptions {
  /** `--manifest-url`. */
  readonly url: string;
  /** `--manifest-url-header`: name → values, sent in order. */
  readonly headers?: Readonly<Record<string, readonly string[]>>;
  readonly nodeName: string;
  /** `--http-check-frequency` in ms. */
  readonly periodMs: number;
  /** Per-request timeout in ms. @defaultValue 10_000 (the kubelet's client timeout) */
  readonly timeoutMs?: number;
  readonly log?: (message: string) => void;
}

/** What one fetch did: new pods (`set`), nothing (`keep`), or an error that keeps the last set. */
export type HttpFetchResult = { readonly kind: "set"; readonly pods: Pod[] } | { readonly kind: "keep" } | { readonly kind: "error"; readonly message: string; readonly pods?: Pod[] };

/**
 * The URL source: GETs the URL every `periodMs` (first poll immediately). A non-200 answer or a
 * network error keeps the last good set; an empty body removes every URL pod; an identical body
 * changes nothing; a Pod or a PodList (YAML or JSON) replaces the set. The first three failures
 * are logged, later ones are not.
 * @see pkg/kubelet/config/http.go
 */
export class HttpSource {
  private timer: NodeJS.Timeout | undefined;
  private lastBody: string | undefined;
  private failures = 0;

  constructor(
    private readonly options: HttpSourceOptions,
    private readonly onPods: (pods: Pod[]) => void,
  ) {}

  /** Fetches once now, then every `periodMs`. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.options.periodMs);
    this.timer.unref();
  }

  /** Stops polling. Idempotent. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One fetch; reports through `onPods` when the set changes. Never throws. */
  async poll(): Promise<HttpFetchResult> {
    const r = await this.fetchOnce();
    if (r.kind === "set") {
      this.failures = 0;
      this.onPods(r.pods);
    } else if (r.kind === "error") {
      this.failures++;
      if (this.failures <= 3) this.options.log?.(`failed to read pods from URL: ${r.message}`);
      if (r.pods) this.onPods(r.pods);
    } else {
      this.failures = 0;
    }
    return r;
  }

  private async fetchOnce(): Promise<HttpFetchResult> {
    const { url } = this.options;
    const headers = new Headers();
    for (const [name, values] of Object.entries(this.options.headers ?? {})) for (const v of values) headers.append(name, v);
    let status: number;
    let statusText: string;
    let body: string;
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000) });
      status = res.status;
      statusText = res.statusText;
      body = await res.text();
    } catch (err) {
      return { kind: "error", message: `${url}: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (status !== 200) return { kind: "error", message: `${url}: ${status} ${statusText}` };
    if (body.length === 0) {
      this.lastBody = "";
      return { kind: "error", message: `zero-length data received from ${url}`, pods: [] };
    }
    if (body === this.lastBody) return { kind: "keep" };
    const r = decodeManifest(body, this.options.nodeName, { kind: "url", url });
    if (!r.ok) return { kind: "error", message: `${url}: ${r.errors.join("; ")}` };
    this.lastBody = body;
    return { kind: "set", pods: r.pods };
  }
}
