// The build step of `pnpm start`: builds what the local cluster runs (the apps, the process CRI
// server and the workspace packages their TypeScript project references reach), package by package
// in dependency order, with a listr2 progress line per package and its elapsed time. A package is
// fresh, and skipped, when its build output is there and its build stamp
// (node_modules/.cache/skiff-build-stamp, written by tsup.base.ts and here after a successful build)
// is newer than its sources (src/, package.json, tsconfig.json, tsup.config.ts) and than the
// stamps of the packages it references.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join, relative, resolve } from "node:path";
import { Listr } from "listr2";

const stampPath = ["node_modules", ".cache", "skiff-build-stamp"];

/**
 * The packages to build for `roots` (directories relative to `root`), in dependency order
 * (references first): `{ dir, name, refs }`, `refs` the directories it references.
 * @param {string} root
 * @param {string[]} roots
 * @returns {Array<{ dir: string, name: string, refs: string[] }>}
 */
export function buildOrder(root, roots) {
  const seen = new Map();
  const order = [];
  const visit = (dir, path) => {
    if (seen.get(dir) === "done") return;
    if (seen.get(dir) === "visiting") throw new Error(`project references form a cycle: ${[...path, dir].join(" -> ")}`);
    seen.set(dir, "visiting");
    const tsconfig = JSON.parse(readFileSync(join(root, dir, "tsconfig.json"), "utf8"));
    const refs = (tsconfig.references ?? []).map((r) => relative(root, resolve(root, dir, r.path)));
    for (const r of refs) visit(r, [...path, dir]);
    const name = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")).name;
    seen.set(dir, "done");
    order.push({ dir, name, refs });
  };
  for (const r of roots) visit(r, []);
  return order;
}

function newestMtimeMs(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtimeMs(p));
    else if (!/\.test(-d)?\.ts$/.test(entry.name)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function stampMs(root, dir) {
  const p = join(root, dir, ...stampPath);
  // No stamp, or the build output is gone (rm -rf dist): not built.
  if (!existsSync(p) || !["index.js", "main.js"].some((f) => existsSync(join(root, dir, "dist", f)))) return 0;
  return statSync(p).mtimeMs;
}

/**
 * Why package `pkg` must be built, or undefined when it is fresh.
 * @param {string} root
 * @param {{ dir: string, refs: string[] }} pkg
 * @returns {string | undefined}
 */
export function staleReason(root, pkg) {
  const stamp = stampMs(root, pkg.dir);
  if (stamp === 0) return "not built yet";
  for (const f of ["src", "package.json", "tsconfig.json", "tsup.config.ts"]) {
    if (newestMtimeMs(join(root, pkg.dir, f)) > stamp) return `${f === "src" ? "its sources" : f} changed`;
  }
  for (const r of pkg.refs) if (stampMs(root, r) > stamp) return `${r} was rebuilt`;
  return undefined;
}

function seconds(startedMs) {
  return `${((Date.now() - startedMs) / 1000).toFixed(1)} s`;
}

function runBuildScript(root, dir) {
  const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
  const script = pkg.scripts?.build;
  if (script === undefined) return Promise.resolve();
  // What `pnpm run build` does: the script in a shell, the package's and the root's .bin on PATH.
  const env = { ...process.env, PATH: [join(root, dir, "node_modules/.bin"), join(root, "node_modules/.bin"), dirname(process.execPath), process.env.PATH ?? ""].join(delimiter) };
  return new Promise((resolvePromise, reject) => {
    const child = spawn("sh", ["-c", script], { cwd: join(root, dir), env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`${dir}: \`${script}\` failed (${signal ?? `exit code ${code}`}):\n${out.trimEnd()}`));
    });
  });
}

/**
 * Builds the stale packages of `roots` with a progress line each; says up front how many must be
 * built (and, on a first build, roughly how long it takes) and at the end how long it took.
 * @param {{ root: string, roots: string[], say: (line: string) => void, quiet?: boolean }} o
 * @returns {Promise<void>}
 * @throws Error with the failing package's build output.
 */
export async function buildWorkspace(o) {
  const order = buildOrder(o.root, o.roots);
  const stale = new Map(order.map((p) => [p.dir, staleReason(o.root, p)]));
  // A package goes stale when one it references is rebuilt in this run.
  for (const p of order) if (stale.get(p.dir) === undefined && p.refs.some((r) => stale.get(r) !== undefined)) stale.set(p.dir, `${p.refs.find((r) => stale.get(r) !== undefined)} is rebuilt`);
  const toBuild = order.filter((p) => stale.get(p.dir) !== undefined);
  if (toBuild.length === 0) return;
  const first = order.every((p) => stampMs(o.root, p.dir) === 0);
  o.say(
    first
      ? `skiff: first build: ${toBuild.length} packages, about 3 minutes on a 2-core machine (later starts rebuild only what changed)`
      : `skiff: building ${toBuild.length} of ${order.length} packages (${order.length - toBuild.length} fresh, skipped)`,
  );
  const started = Date.now();
  const tasks = new Listr(
    toBuild.map((p) => ({
      title: `${p.name} (${stale.get(p.dir)})`,
      task: async (_ctx, task) => {
        const t0 = Date.now();
        // On a terminal the running package's line counts its seconds (a log gets one line per package).
        const tick = process.stdout.isTTY && !o.quiet ? setInterval(() => (task.title = `${p.name} (${stale.get(p.dir)}, ${seconds(t0)})`), 1000) : undefined;
        try {
          await runBuildScript(o.root, p.dir);
        } finally {
          clearInterval(tick);
        }
        mkdirSync(join(o.root, p.dir, ...stampPath.slice(0, -1)), { recursive: true });
        writeFileSync(join(o.root, p.dir, ...stampPath), `${new Date().toISOString()}\n`);
        task.title = `${p.name} (${seconds(t0)})`;
      },
    })),
    { concurrent: false, exitOnError: true, renderer: o.quiet ? "silent" : "default", fallbackRenderer: o.quiet ? "silent" : "simple" },
  );
  await tasks.run();
  o.say(`  ✓ build: ${toBuild.length} package${toBuild.length === 1 ? "" : "s"} in ${seconds(started)}`);
}
