/**
 * Query parameters of `/containerLogs/{namespace}/{pod}/{container}`, decoded and validated as the
 * kubelet decodes `v1.PodLogOptions`: booleans are false only for `0`/`false`; integers are Go
 * `ParseInt` base 10; `tail` is the old name of `tailLines` (`tail=all` means no limit).
 * Undecodable values → 400 `{"message": "Unable to decode query."}`; decodable but invalid ones
 * (negative `tailLines`, `sinceSeconds` or `limitBytes` below 1, both `sinceSeconds` and `sinceTime`)
 * → 422 `{"message": "Invalid request."}`, as the kubelet answers.
 * @see pkg/kubelet/server/server.go (getContainerLogs) in kubernetes/kubernetes v1.23
 * @see pkg/apis/core/validation/validation.go (ValidatePodLogOptions)
 */
import type { ContainerLogOptions } from "../agent-view.js";

/** Decoded options, or the kubelet's status and body for a bad query. */
export type ContainerLogQueryResult = { readonly ok: true; readonly value: ContainerLogOptions } | { readonly ok: false; readonly statusCode: 400 | 422; readonly message: string };

const decodeError = { ok: false, statusCode: 400, message: `{"message": "Unable to decode query."}` } as const;
const invalidError = { ok: false, statusCode: 422, message: `{"message": "Invalid request."}` } as const;

function parseGoBool(v: string): boolean {
  return !(v === "0" || v.toLowerCase() === "false");
}

function parseGoInt64(v: string): number | undefined {
  if (!/^[+-]?\d+$/.test(v)) return undefined;
  const n = BigInt(v);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return undefined;
  return Number(n);
}

/**
 * Decodes `query`. `sinceTime` (RFC 3339) is accepted and turned into `sinceSeconds` relative to
 * `nowMs` (at least 1), because the agent's log reader takes seconds.
 */
export function parseContainerLogQuery(query: URLSearchParams, nowMs: number): ContainerLogQueryResult {
  const params = new Map<string, string>();
  for (const [k, v] of query) if (!params.has(k)) params.set(k, v);
  const tail = params.get("tail");
  if (tail !== undefined && tail !== "") {
    if (tail === "all") params.delete("tailLines");
    else params.set("tailLines", tail);
  }
  const opts: { -readonly [K in keyof ContainerLogOptions]: ContainerLogOptions[K] } = {};
  for (const key of ["follow", "previous", "timestamps"] as const) {
    const v = params.get(key);
    if (v !== undefined) opts[key] = parseGoBool(v);
  }
  for (const key of ["tailLines", "sinceSeconds", "limitBytes"] as const) {
    const v = params.get(key);
    if (v === undefined) continue;
    const n = parseGoInt64(v);
    if (n === undefined) return decodeError;
    opts[key] = n;
  }
  let sinceTimeMs: number | undefined;
  const sinceTime = params.get("sinceTime");
  if (sinceTime !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(sinceTime)) return decodeError;
    sinceTimeMs = Date.parse(sinceTime);
    if (Number.isNaN(sinceTimeMs)) return decodeError;
  }
  if (opts.tailLines !== undefined && opts.tailLines < 0) return invalidError;
  if (opts.limitBytes !== undefined && opts.limitBytes < 1) return invalidError;
  if (opts.sinceSeconds !== undefined && sinceTimeMs !== undefined) return invalidError;
  if (opts.sinceSeconds !== undefined && opts.sinceSeconds < 1) return invalidError;
  if (sinceTimeMs !== undefined) opts.sinceSeconds = Math.max(1, Math.ceil((nowMs - sinceTimeMs) / 1000));
  return { ok: true, value: opts };
}
