/** One named health check; `check` resolves to nothing when healthy and throws/rejects when not. */
export interface HealthCheck {
  readonly name: string;
  check(): void | Promise<void>;
}

/** A plain HTTP answer: text body, status and headers. */
export interface HealthResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const headers = { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };

async function runCheck(c: HealthCheck): Promise<string | undefined> {
  try {
    await c.check();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * Answers `/healthz`, `/livez` or `/readyz` (`endpoint` names which, e.g. `"readyz"`), optionally
 * a per-check path (`/readyz/ping`), with the query's `verbose` and `exclude` parameters, as
 * Kubernetes' healthz handler does: healthy → 200 `ok` (or `[+]<name> ok` lines then
 * `<endpoint> check passed` when verbose); any failure → 500 with every line and
 * `[-]<name> failed: reason withheld`. Unknown per-check path, or a trailing slash (`/healthz/`) → 404 (`undefined` body is not used).
 * Never throws; check errors are contained.
 *
 * @param path - request path without the query, e.g. `/readyz/ping`.
 * @param query - parsed query (`verbose` present means verbose; `exclude` may repeat).
 * @see staging/src/k8s.io/apiserver/pkg/server/healthz/healthz.go
 * @example await handleHealth("readyz", "/readyz", { verbose: "" }, [pingCheck])
 */
export async function handleHealth(
  endpoint: string,
  path: string,
  query: Readonly<Record<string, string | readonly string[] | undefined>>,
  checks: readonly HealthCheck[],
): Promise<HealthResponse> {
  const base = `/${endpoint}`;
  // 1.23 registers `/<endpoint>` and `/<endpoint>/<check>` as exact paths: a trailing slash is not found.
  const trimmed = path;
  if (trimmed !== base) {
    if (!trimmed.startsWith(`${base}/`)) return { status: 404, headers, body: "404 page not found\n" };
    const name = trimmed.slice(base.length + 1);
    const c = checks.find((x) => x.name === name);
    if (!c) return { status: 404, headers, body: "404 page not found\n" };
    const err = await runCheck(c);
    return err === undefined ? { status: 200, headers, body: "ok" } : { status: 500, headers, body: `internal server error: ${err}\n` };
  }
  const rawExclude = query["exclude"];
  const exclude = new Set<string>(rawExclude === undefined ? [] : typeof rawExclude === "string" ? [rawExclude] : rawExclude);
  const verbose = query["verbose"] !== undefined;
  const lines: string[] = [];
  let failed = false;
  for (const c of checks) {
    if (exclude.delete(c.name)) {
      lines.push(`[+]${c.name} excluded: ok`);
      continue;
    }
    const err = await runCheck(c);
    if (err === undefined) lines.push(`[+]${c.name} ok`);
    else {
      failed = true;
      lines.push(`[-]${c.name} failed: reason withheld`);
    }
  }
  if (exclude.size > 0) lines.push(`warn: some health checks cannot be excluded: no matches for ${[...exclude].sort().map((e) => `"${e}"`).join(",")}`);
  if (failed) return { status: 500, headers, body: `${lines.join("\n")}\n${endpoint} check failed\n` };
  if (verbose) return { status: 200, headers, body: `${lines.join("\n")}\n${endpoint} check passed\n` };
  return { status: 200, headers, body: "ok" };
}

/** The always-healthy `ping` check. */
export const pingCheck: HealthCheck = { name: "ping", check() {} };
/** The `log` check (healthy while the process can log). */
export const logCheck: HealthCheck = { name: "log", check() {} };
