// Helpers for client-node.integration.test.ts. Import this module BEFORE @kubernetes/client-node:
// its body polyfills the three Node.js 22 APIs that client-node 2.0.1's undici 8 (engines: node >=
// 22.19) touches while loading or on every request, when the running Node.js lacks them (Node 20):
// zlib.createZstdDecompress (only called for a `Content-Encoding: zstd` response, which Skiff never
// sends), worker_threads.markAsUncloneable (a structured-clone marker) and Promise.withResolvers.
// On Node.js 22 and later every branch is a no-op.
import zlib from "node:zlib";
import workerThreads from "node:worker_threads";

const zlibModule = zlib as unknown as Record<string, unknown>;
if (typeof zlibModule["createZstdDecompress"] !== "function") {
  zlibModule["createZstdDecompress"] = () => {
    throw new Error("zstd decompression is not available on this Node.js");
  };
}
const workerThreadsModule = workerThreads as unknown as Record<string, unknown>;
if (typeof workerThreadsModule["markAsUncloneable"] !== "function") workerThreadsModule["markAsUncloneable"] = () => undefined;
const promiseStatics = Promise as unknown as Record<string, unknown>;
if (typeof promiseStatics["withResolvers"] !== "function") {
  promiseStatics["withResolvers"] = function withResolvers<T>(this: PromiseConstructor) {
    let resolve!: (v: T) => void;
    let reject!: (e: unknown) => void;
    const promise = new this<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

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
