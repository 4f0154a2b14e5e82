/**
 * The kubelet's healthz handlers: `/healthz` runs every check (`?verbose` lists them, `?exclude=x`
 * skips one) and `/healthz/<name>` runs one.
 * @see staging/src/k8s.io/apiserver/pkg/server/healthz/healthz.go in kubernetes/kubernetes v1.23
 */
import type { HealthCheck } from "../agent-view.js";

/** A plain-text answer: HTTP status and body (failure bodies end in a newline, as Go's `http.Error` writes them). */
export interface TextResponse {
  readonly statusCode: number;
  readonly body: string;
}

/** The always-passing `ping` check every healthz endpoint has. */
export const pingCheck: HealthCheck = { name: "ping", check: () => undefined };

async function runCheck(check: HealthCheck): Promise<Error | undefined> {
  try {
    await check.check();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

function goQuoteList(names: readonly string[]): string {
  return names.map((n) => JSON.stringify(n)).join(",");
}

/**
 * Answers `/healthz` with `query` (URLSearchParams of the request). Failing checks answer 500 with
 * `[-]<name> failed: reason withheld` lines and `healthz check failed` (details are logged, not sent).
 */
export async function serveHealthz(checks: readonly HealthCheck[], query: URLSearchParams, logFailure?: (name: string, err: Error) => void): Promise<TextResponse> {
  const excluded = new Set(query.getAll("exclude").flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== ""));
  let out = "";
  let failed = false;
  for (const check of checks) {
    if (excluded.delete(check.name)) {
      out += `[+]${check.name} excluded: ok\n`;
      continue;
    }
    const err = await runCheck(check);
    if (err === undefined) {
      out += `[+]${check.name} ok\n`;
    } else {
      failed = true;
      out += `[-]${check.name} failed: reason withheld\n`;
      logFailure?.(check.name, err);
    }
  }
  if (excluded.size > 0) out += `warn: some health checks cannot be excluded: no matches for ${goQuoteList([...excluded].sort())}\n`;
  if (failed) return { statusCode: 500, body: `${out}healthz check failed\n` };
  if (!query.has("verbose")) return { statusCode: 200, body: "ok" };
  return { statusCode: 200, body: `${out}healthz check passed\n` };
}

/** Answers `/healthz/<name>`: `ok`, or 500 `internal server error: <reason>`; undefined for an unknown name (404). */
export async function serveHealthzCheck(checks: readonly HealthCheck[], name: string): Promise<TextResponse | undefined> {
  const check = checks.find((c) => c.name === name);
  if (check === undefined) return undefined;
  const err = await runCheck(check);
  if (err === undefined) return { statusCode: 200, body: "ok" };
  return { statusCode: 500, body: `internal server error: ${err.message}\n` };
}

/** `ping` followed by the agent's checks (an agent check named `ping` replaces the built-in one). */
export function withPing(checks: readonly HealthCheck[]): HealthCheck[] {
  return checks.some((c) => c.name === "ping") ? [...checks] : [pingCheck, ...checks];
}
