/**
 * @skiff/flags: a full parse of a node-agent-sized command line — a synthetic table of 150 flags
 * of mixed types (bool, string, int32, int, duration, strings, maps, quantity, float64, level)
 * and an argv that sets every one of them, half as `--name=value`, half as `--name value`.
 */
import type { FlagSpec, FlagTableShape, FlagType } from "@skiff/flags";
import { FlagSet, flagTypes as t, formatHelp, mustParseDuration, mustParseQuantity, wordSepNormalize } from "@skiff/flags";
import type { BenchRow } from "./report.js";
import { timeNs } from "./report.js";

export const name = "flags: pflag-compatible parsing of 150 flags";

const FLAGS = 150;

interface Kind {
  readonly type: FlagType<unknown>;
  readonly default: unknown;
  readonly value: (i: number) => string;
}

const kinds: readonly Kind[] = [
  { type: t.bool, default: false, value: () => "true" },
  { type: t.string, default: "", value: (i) => `/var/lib/nodeagent/${i}` },
  { type: t.int32, default: 0, value: (i) => String(10000 + i) },
  { type: t.int, default: -1, value: (i) => String(1_000_000 + i) },
  { type: t.duration, default: mustParseDuration("20s"), value: (i) => `${i % 5}h${i % 60}m3.5s` },
  { type: t.strings, default: ["pods"], value: () => "pods,system-reserved,cluster-reserved" },
  { type: t.mapStringString(), default: {}, value: (i) => `cpu=${i}m,memory=${i}Mi,ephemeral-storage=1Gi` },
  { type: t.mapStringBool, default: {}, value: () => "APIListChunking=true,AllAlpha=false,SeccompDefault=true" },
  { type: t.quantity, default: mustParseQuantity("10Mi"), value: (i) => `${i}.5Gi` },
  { type: t.level, default: 0, value: (i) => String(i % 10) },
];

function buildTable(): FlagTableShape {
  const table: Record<string, FlagSpec<unknown>> = {};
  for (let i = 0; i < FLAGS; i++) {
    const kind = kinds[i % kinds.length];
    if (kind === undefined) continue;
    table[`option${i}`] = { name: `flag-number-${i}`, type: kind.type, default: kind.default, usage: `Synthetic flag ${i}.` };
  }
  return table;
}

function buildArgs(): string[] {
  const args: string[] = [];
  for (let i = 0; i < FLAGS; i++) {
    const kind = kinds[i % kinds.length];
    if (kind === undefined) continue;
    const flag = `--flag-number-${i}`;
    // Booleans cannot take a separate value (pflag NoOptDefVal), so they always use `=`.
    if (i % 2 === 0 || kind.type.noOptDefault !== undefined) args.push(`${flag}=${kind.value(i)}`);
    else args.push(flag, kind.value(i));
  }
  return args;
}

export default async function (): Promise<BenchRow[]> {
  const table = buildTable();
  const args = buildArgs();
  const set = new FlagSet(table, { name: "bench", normalize: wordSepNormalize });
  const check = set.parse(args);
  if (!check.ok) throw new Error(`bench command line does not parse: ${check.errors[0]?.message}`);
  if (check.value.changedFlags.length !== FLAGS) throw new Error(`expected ${FLAGS} flags set, got ${check.value.changedFlags.length}`);

  const parseNs = timeNs(() => set.parse(args), 2000);
  const buildNs = timeNs(() => new FlagSet(table, { name: "bench", normalize: wordSepNormalize }), 2000);
  const helpNs = timeNs(() => formatHelp(table, { columns: 2 }), 200);
  return [
    { what: `parse ${FLAGS} flags (${args.length} args)`, value: parseNs / 1000, unit: "µs/parse" },
    { what: "  per flag", value: parseNs / FLAGS, unit: "ns/flag" },
    { what: `build FlagSet (${FLAGS} flags)`, value: buildNs / 1000, unit: "µs" },
    { what: `formatHelp (${FLAGS} flags)`, value: helpNs / 1000, unit: "µs" },
  ];
}
