/**
 * Runs every `*.bench.ts` in this folder (or those named on the command line), one after the
 * other in this process, and prints each one's report. A bench module exports `name` and a default
 * `async function (): Promise<BenchRow[]>`.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BenchModule } from "./report.js";
import { printRows } from "./report.js";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

for (const f of files) {
  const mod = (await import(pathToFileURL(join(here, f)).href)) as BenchModule;
  console.log(`\n== ${mod.name} (${f})`);
  const rows = await mod.default();
  printRows(rows);
}
