// Helpers for client-node.integration.test.ts (client-node 1.4: node-fetch based, runs on Node 20).

/** The wire `Status` a failed call carried, as client-node's ApiException holds it (a JSON string). */
export interface WireStatus {
  kind?: string;
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; group?: string; kind?: string; causes?: Array<{ reason?: string; message?: string; field?: string }> };
}

/**
 * Runs `call`, expects it to reject with an instance of `exceptionClass` (client-node's
 * ApiException), and answers its HTTP code and the Status body parsed from it.
 */
export async function expectApiError(exceptionClass: abstract new (...args: never[]) => Error, call: () => Promise<unknown>): Promise<{ code: number; status: WireStatus }> {
  let caught: unknown;
  try {
    await call();
  } catch (e) {
    caught = e;
  }
  if (caught === undefined) throw new Error("expected the call to fail");
  const e = caught as { name?: unknown; code?: unknown; body?: unknown };
  if (!(caught instanceof exceptionClass)) throw caught instanceof Error ? caught : new Error(String(caught));
  const body = typeof e.body === "string" ? (JSON.parse(e.body) as WireStatus) : (e.body as WireStatus);
  return { code: Number(e.code), status: body };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
