/**
 * A small JSON client for the apiserver over HTTPS with a bearer token, and a `kubectl` runner:
 * what the end-to-end tests and benchmarks need, with no dependency on the packages under test.
 */
import { execFile } from "node:child_process";
import { request } from "node:https";

/** Any API object, as JSON. */
export type ApiObject = { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; deletionTimestamp?: string; labels?: Record<string, string> } } & Record<string, unknown>;

/** A non-2xx answer: `status` is the HTTP status, `body` the server's text (a Status object as JSON). */
export class ApiError extends Error {
  readonly code = "ApiError";
  constructor(
    readonly status: number,
    readonly body: string,
    method: string,
    path: string,
  ) {
    super(`${method} ${path}: HTTP ${status}: ${body.slice(0, 500)}`);
    this.name = "ApiError";
  }
}

/** Where the apiserver is and how to authenticate. */
export interface ApiEndpoint {
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** PEM of the serving certificate's CA. */
  readonly ca: string;
  readonly token: string;
}

/**
 * JSON requests to `endpoint`. Paths are absolute API paths (`/apis/batch/v1/namespaces/default/jobs`).
 * Every method rejects with {@link ApiError} for non-2xx answers.
 * @example
 * const api = new ApiClient(endpoint);
 * const job = await api.get<Job>("/apis/batch/v1/namespaces/default/jobs/pi");
 */
export class ApiClient {
  constructor(readonly endpoint: ApiEndpoint) {}

  /** One request; `body` is sent as JSON (or as `contentType` for patches). A JSON answer is parsed; any other comes back as its text. */
  request<T>(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<T> {
    const url = new URL(path, this.endpoint.server);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<T>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method,
          ca: this.endpoint.ca,
          headers: {
            authorization: `Bearer ${this.endpoint.token}`,
            accept: "application/json",
            ...(payload !== undefined ? { "content-type": contentType, "content-length": Buffer.byteLength(payload) } : {}),
          },
          timeout: 30_000,
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (d: string) => (text += d));
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) return reject(new ApiError(status, text, method, path));
            const json = /json/.test(String(res.headers["content-type"] ?? ""));
            try {
              resolve((json ? (text === "" ? {} : JSON.parse(text)) : text) as T);
            } catch (e) {
              reject(e instanceof Error ? e : new Error(String(e)));
            }
          });
        },
      );
      req.on("error", reject);
      req.on("timeout", () => req.destroy(new Error(`${method} ${path}: timeout`)));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  get<T = ApiObject>(path: string): Promise<T> {
    return this.request<T>("GET", path);
  }
  create<T = ApiObject>(path: string, obj: unknown): Promise<T> {
    return this.request<T>("POST", path, obj);
  }
  /** A merge patch (`application/merge-patch+json`). */
  patch<T = ApiObject>(path: string, patch: unknown): Promise<T> {
    return this.request<T>("PATCH", path, patch, "application/merge-patch+json");
  }
  delete<T = ApiObject>(path: string, options?: unknown): Promise<T> {
    return this.request<T>("DELETE", path, options);
  }
  /** The items of a list (one page of up to 10000). */
  async list<T = ApiObject>(path: string, labelSelector?: string): Promise<T[]> {
    const q = new URLSearchParams({ limit: "10000" });
    if (labelSelector !== undefined) q.set("labelSelector", labelSelector);
    const l = await this.get<{ items?: T[] }>(`${path}?${q.toString()}`);
    return l.items ?? [];
  }
}

/** Whether `e` is an {@link ApiError} with HTTP status `status`. */
export function isApiStatus(e: unknown, status: number): boolean {
  return e instanceof ApiError && e.status === status;
}

/** What {@link runKubectl} returns: exit code and both outputs (it never rejects for a non-zero exit). */
export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `kubectl --kubeconfig=<kubeconfig> ...args` (the `kubectl` on PATH, or `$KUBECTL`), with
 * `input` on stdin when given. Resolves with the exit code and outputs.
 */
export function runKubectl(kubeconfig: string, args: readonly string[], input?: string, timeoutMs = 180_000): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(process.env.KUBECTL ?? "kubectl", [`--kubeconfig=${kubeconfig}`, ...args], { timeout: timeoutMs, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Polls `fn` every `intervalMs` until it returns a value other than undefined/false; rejects with the last error after `timeoutMs`. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 60_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last !== undefined ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
