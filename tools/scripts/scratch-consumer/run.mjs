// Installs the packed tarballs into a fresh project outside the workspace (npm, as a user would),
// then type-checks and runs consumer.ts there. Every @skiff dependency is forced to the local
// tarball with `overrides`, so nothing is fetched for our own packages.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../../..");
const tarballDir = process.argv[2];
if (!tarballDir) throw new Error("usage: run.mjs <dir with .tgz files>");

const scratch = mkdtempSync(join(tmpdir(), "skiff-consumer-"));
try {
  const deps = {};
  for (const f of readdirSync(tarballDir).filter((f) => f.endsWith(".tgz"))) {
    // pnpm names tarballs skiff-<name>-<version>.tgz
    const m = /^skiff-(.+)-\d+\.\d+\.\d+.*\.tgz$/.exec(f);
    if (!m) continue;
    cpSync(join(tarballDir, f), join(scratch, f));
    deps[`@skiff/${m[1]}`] = `file:./${f}`;
  }
  writeFileSync(
    join(scratch, "package.json"),
    JSON.stringify({ name: "scratch-consumer", private: true, type: "module", dependencies: deps, overrides: deps }, null, 2),
  );
  cpSync(join(here, "consumer.ts"), join(scratch, "consumer.ts"));
  writeFileSync(
    join(scratch, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        types: [],
        skipLibCheck: false,
      },
      files: ["consumer.ts"],
    }),
  );
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], { cwd: scratch, stdio: "inherit" });
  // Type-check with the workspace's TypeScript (the consumer's own would be fetched from the registry).
  execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: scratch, stdio: "inherit" });
  // Run it: strip types with the workspace's tsx? No: compile is enough to prove types; run the JS
  // form of the same program, emitted by tsc into out/.
  execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json", "--noEmit", "false", "--outDir", "out"], { cwd: scratch, stdio: "inherit" });
  const out = execFileSync(process.execPath, ["out/consumer.js"], { cwd: scratch, encoding: "utf8" });
  process.stdout.write(out);
  if (!out.includes("consumer ok")) throw new Error("consumer did not report success");
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
