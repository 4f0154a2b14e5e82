/** Bounds of a number read by {@link envNumber}. */
export interface EnvNumberBounds {
  /** Smallest value accepted (inclusive). */
  readonly min?: number;
  /** Largest value accepted (inclusive). */
  readonly max?: number;
  /** Whether only whole numbers are accepted. */
  readonly integer?: boolean;
  /** What the number counts, for the error ("seconds", "pods"). */
  readonly unit?: string;
}

/**
 * Reads the bench switch `name` from the environment as a number: `fallback` when unset or empty,
 * else the value, which must be a finite number within `bounds`.
 * @throws Error `SKIFF_BENCH_X must be an integer number of pods ≥ 1, got "abc"` for anything else,
 *   so a mistyped switch stops the bench before a cluster starts instead of running with NaN.
 */
export function envNumber(name: string, fallback: number, bounds: EnvNumberBounds = {}, env: NodeJS.ProcessEnv = process.env): number {
  const text = env[name];
  if (text === undefined || text.trim() === "") return fallback;
  const value = Number(text);
  const { min, max, integer = false, unit = "" } = bounds;
  const ok = Number.isFinite(value) && (!integer || Number.isInteger(value)) && (min === undefined || value >= min) && (max === undefined || value <= max);
  if (ok) return value;
  const range = [min !== undefined ? `≥ ${String(min)}` : "", max !== undefined ? `≤ ${String(max)}` : ""].filter((s) => s !== "").join(" and ");
  const what = [integer ? "an integer" : "a", "number", unit !== "" ? `of ${unit}` : ""].filter((s) => s !== "").join(" ");
  throw new Error(`${name} must be ${what}${range !== "" ? ` ${range}` : ""}, got ${JSON.stringify(text)}`);
}
