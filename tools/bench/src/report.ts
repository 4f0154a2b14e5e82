/** One line of a benchmark report: a measured value with its unit, and optionally a target. */
export interface BenchRow {
  /** What was measured, e.g. `formatIndexes 100k`. */
  readonly what: string;
  /** The measured number. */
  readonly value: number;
  /** Its unit, e.g. `ns/index`, `ms`, `req/s`, `MiB`. */
  readonly unit: string;
  /** Free text: a ratio to a baseline, a target and whether it is met. */
  readonly note?: string;
}

/** The shape of a `*.bench.ts` module. */
export interface BenchModule {
  readonly name: string;
  default(): Promise<BenchRow[]>;
}

/** Prints rows as an aligned table on stdout. */
export function printRows(rows: readonly BenchRow[]): void {
  const w = Math.max(...rows.map((r) => r.what.length), 4);
  for (const r of rows) {
    const v = r.value >= 100 ? r.value.toFixed(0) : r.value >= 1 ? r.value.toFixed(2) : r.value.toPrecision(3);
    console.log(`  ${r.what.padEnd(w)}  ${v.padStart(12)} ${r.unit.padEnd(10)} ${r.note ?? ""}`);
  }
}

/**
 * Times `fn` over `iterations` runs after `warmup` runs, returning nanoseconds per run
 * (median of `samples` batches, to damp GC noise on a busy 2-core machine).
 */
export function timeNs(fn: () => unknown, iterations: number, samples = 5, warmup = 1): number {
  for (let i = 0; i < warmup; i++) fn();
  const per: number[] = [];
  for (let s = 0; s < samples; s++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    per.push(Number(process.hrtime.bigint() - t0) / iterations);
  }
  per.sort((a, b) => a - b);
  return per[Math.floor(per.length / 2)] ?? 0;
}
