/**
 * How a benchmark runs a Skiff app: BUILT (`apps/<app>/dist/main.js`, plain `node`, as users run
 * it) when that bundle and the `dist/index.js` of every `@skiff/*` package it imports exist and are
 * newer than their sources; otherwise from source through tsx (`SKIFF_BENCH_FROM_SOURCE=1` forces
 * that). Rows say which, since tsx costs startup time and memory. Build with `pnpm build`.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");

function newestMtimeMs(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtimeMs(p));
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts")) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * Why the app in `dir` (relative to the repository root: `apps/<app>`, `tools/cri-process-server`)
 * cannot run built, or undefined when its bundle and its @skiff deps' bundles are fresh.
 */
export function whyNotBuilt(dir: string): string | undefined {
  const app = dir.split("/").pop() ?? dir;
  const abs = join(repoRoot, dir);
  const main = join(abs, "dist/main.js");
  if (!existsSync(main)) return `${app}: no dist/main.js`;
  if (statSync(main).mtimeMs < newestMtimeMs(join(abs, "src"))) return `${app}: dist/main.js older than src`;
  const pkg = JSON.parse(readFileSync(join(abs, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  for (const dep of Object.keys(pkg.dependencies ?? {}).filter((d) => d.startsWith("@skiff/"))) {
    const pdir = join(repoRoot, "packages", dep.slice("@skiff/".length));
    if (!existsSync(pdir)) continue; // a private tool (tools/*), run from its own bundle or source
    const index = join(pdir, "dist/index.js");
    if (!existsSync(index)) return `${dep}: no dist/index.js`;
    if (statSync(index).mtimeMs < newestMtimeMs(join(pdir, "src"))) return `${dep}: dist older than src`;
  }
  return undefined;
}

/** How an app is launched: node arguments, whether it is the bundle, and why not when it is not. */
export interface AppCommand {
  readonly args: string[];
  readonly built: boolean;
  readonly why?: string;
}

/** The node arguments that run `apps/<app>`: the bundle when fresh, else the source through tsx. */
export function appCommand(app: string): AppCommand {
  const why = process.env["SKIFF_BENCH_FROM_SOURCE"] ? "SKIFF_BENCH_FROM_SOURCE set" : whyNotBuilt(`apps/${app}`);
  if (why === undefined) return { args: [join(repoRoot, "apps", app, "dist/main.js")], built: true };
  return { args: ["--conditions=@skiff/source", "--import", "tsx", join(repoRoot, "apps", app, "src/main.ts")], built: false, why };
}

/** "built dist/main.js" or "from source (why)", for a row's note. */
export function describeCommand(app: string, c: AppCommand): string {
  return `${app} ${c.built ? "built dist/main.js" : `from source (${c.why ?? ""})`}`;
}
