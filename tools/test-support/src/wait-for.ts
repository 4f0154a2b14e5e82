/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this long. @defaultValue 30_000 */
  readonly timeoutMs?: number;
  /** Pause between polls. @defaultValue 100 */
  readonly intervalMs?: number;
  /** What is awaited, for the timeout message ("timed out waiting for <what>"). @defaultValue "condition" */
  readonly what?: string;
  /** Extra text appended to the timeout message (e.g. the tail of a process log). */
  readonly context?: () => string;
}

/**
 * Polls `fn` until it returns a value other than `undefined` or `false` and resolves with it. A
 * throw from `fn` counts as "not yet"; the last one is named in the timeout error.
 *
 * @throws Error `timed out waiting for <what>[: <last error>]` (plus `context()`) after `timeoutMs`
 * @example
 * ```ts
 * const node = await waitFor(() => client.pods.get("web").then((p) => p.spec?.nodeName || undefined), { what: "web bound" });
 * ```
 */
export async function waitFor<T>(fn: () => T | undefined | false | Promise<T | undefined | false>, options: WaitForOptions = {}): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 100, what = "condition" } = options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const why = last !== undefined ? `: ${last instanceof Error ? last.message : String(last)}` : "";
      const context = options.context?.();
      throw new Error(`timed out waiting for ${what}${why}${context ? `\n${context}` : ""}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
