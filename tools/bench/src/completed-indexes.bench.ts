/**
 * @skiff/completed-indexes at Indexed-Job scale: 100,000 indexes (the spec's parallelism limit),
 * dense (0-99999, one interval) and sparse (every other index, 50,000 single pieces). Reports
 * ns per index for format, lenient parse, strict validation and merge. All four are linear
 * (format/merge add a sort only for unordered input); per-index times still rise from 10k to 100k
 * because V8's number-to-string cache and young-generation GC stop absorbing the work.
 */
import { formatIndexes, mergeIndexes, parseIndexes, validateIndexes } from "@skiff/completed-indexes";
import type { BenchRow } from "./report.js";
import { timeNs } from "./report.js";

export const name = "completed-indexes";

interface Pattern {
  readonly label: string;
  readonly indexes: number[];
  readonly completions: number;
}

function patterns(size: number): Pattern[] {
  const dense = Array.from({ length: size }, (_, i) => i);
  const sparse = Array.from({ length: size / 2 }, (_, i) => 2 * i);
  return [
    { label: `dense ${size / 1000}k`, indexes: dense, completions: size },
    { label: `every-other ${size / 1000}k`, indexes: sparse, completions: size },
  ];
}

export default async (): Promise<BenchRow[]> => {
  const rows: BenchRow[] = [];
  for (const size of [10_000, 100_000]) {
    const iterations = size >= 100_000 ? 5 : 50;
    for (const p of patterns(size)) {
      const n = p.indexes.length;
      const text = formatIndexes(p.indexes);
      const intervals = parseIndexes(text, p.completions);
      // Merge adds the odd indexes (dense: already present) to the parsed intervals.
      const added = Array.from({ length: size / 2 }, (_, i) => 2 * i + 1);
      const shuffled = p.indexes.slice().reverse();
      const per = (ns: number, count: number): number => ns / count;
      rows.push({ what: `formatIndexes ${p.label}`, value: per(timeNs(() => formatIndexes(p.indexes), iterations), n), unit: "ns/index", note: `${text.length} chars` });
      rows.push({ what: `formatIndexes ${p.label} reversed`, value: per(timeNs(() => formatIndexes(shuffled), iterations), n), unit: "ns/index", note: "includes sort" });
      rows.push({ what: `parseIndexes ${p.label}`, value: per(timeNs(() => parseIndexes(text, p.completions), iterations), n), unit: "ns/index", note: `${text.length} chars in` });
      rows.push({ what: `validateIndexes ${p.label}`, value: per(timeNs(() => validateIndexes(text, p.completions), iterations), n), unit: "ns/index", note: `${text.length} chars in` });
      rows.push({ what: `mergeIndexes ${p.label} + ${added.length / 1000}k odd`, value: per(timeNs(() => mergeIndexes(intervals, added), iterations), n + added.length), unit: "ns/index", note: "per index in + added" });
    }
  }
  return rows;
};
