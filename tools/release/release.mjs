#!/usr/bin/env node
// The release flow (README "Release"):
//   pnpm release:version   changeset version: consumes .changeset/*.md, bumps versions (the fixed
//                          group of .changeset/config.json moves together), writes CHANGELOG.md.
//   pnpm release           guards, a fresh build of every public package, then changeset publish
//                          (pnpm publish underneath, so `workspace:` ranges become real versions).
// `pnpm release` refuses, before anything is built or published, with uncommitted or untracked
// files, with changesets not yet versioned, with a fixed group whose versions differ, with a
// package still at 0.0.0, with a public package whose LICENSE is not the root LICENSE, and when
// the build changes a tracked file. dist/ is deleted and rebuilt for every package that is
// published or built into one, so a stale or hand-edited dist/ is never published; when the old
// dist/ held files the fresh build does not write (stale output, files put there by hand), the
// release stops and names them, before anything is published. Arguments after `publish` go to `changeset publish` (e.g. `--tag next`, `--otp 123456`).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** A refusal: printed as one clear message, exit status 1, nothing published. */
class Refusal extends Error {}

/**
 * Runs a command in the workspace root, inheriting stdio unless `capture` is set.
 * @param {string} cmd @param {string[]} args @param {{ capture?: boolean }} [opts]
 * @returns {string} stdout when captured, "" otherwise
 * @throws {Refusal} when the command exits non-zero
 */
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: "utf8", stdio: opts.capture ? ["ignore", "pipe", "inherit"] : "inherit" });
  if (r.error) throw new Refusal(`could not run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Refusal(`\`${cmd} ${args.join(" ")}\` failed (exit status ${r.status ?? r.signal}); nothing was published.`);
  return r.stdout ?? "";
}

/**
 * The workspace's packages, as pnpm sees them.
 * @returns {{ name: string, version: string, path: string, private: boolean }[]}
 */
function workspacePackages() {
  return JSON.parse(run("pnpm", ["ls", "-r", "--depth", "-1", "--json"], { capture: true })).map(
    /** @param {{ name: string, version: string, path: string, private?: boolean }} p */
    (p) => ({ name: p.name, version: p.version, path: p.path, private: p.private === true }),
  );
}

/** The changesets waiting in .changeset/ (every .md but README.md). @returns {string[]} */
function pendingChangesets() {
  return readdirSync(join(root, ".changeset"))
    .filter((f) => f.endsWith(".md") && f !== "README.md")
    .map((f) => `.changeset/${f}`);
}

/** Refuses when a fixed group of .changeset/config.json has members at different versions. */
function checkFixedGroups(/** @type {ReturnType<typeof workspacePackages>} */ pkgs) {
  /** @type {{ fixed?: string[][] }} */
  const config = JSON.parse(readFileSync(join(root, ".changeset/config.json"), "utf8"));
  for (const group of config.fixed ?? []) {
    const versions = group.map((name) => `${name}@${pkgs.find((p) => p.name === name)?.version ?? "(missing)"}`);
    if (new Set(versions.map((v) => v.slice(v.lastIndexOf("@")))).size > 1) {
      throw new Refusal(`the fixed group [${group.join(", ")}] has different versions (${versions.join(", ")}): they are released together. Fix .changeset/config.json or the package.json versions.`);
    }
  }
}

/** Refuses when git reports any modified, staged or untracked file. */
function checkCommitted(/** @type {string} */ when) {
  const status = run("git", ["status", "--porcelain", "--untracked-files=all"], { capture: true }).trimEnd();
  if (status !== "") {
    const lines = status.split("\n");
    const shown = lines.slice(0, 20).map((l) => `  ${l}`).join("\n");
    throw new Refusal(`${when}: the working tree has uncommitted changes (${lines.length} file(s)):\n${shown}${lines.length > 20 ? "\n  ..." : ""}\nCommit or stash them: a release is built from a commit.`);
  }
}

/**
 * Files a published package.json points at (exports after publishConfig, main, types, bin).
 * @param {Record<string, unknown>} manifest @returns {string[]}
 */
function referencedFiles(manifest) {
  /** @type {string[]} */
  const out = [];
  /** @param {unknown} v */
  const walk = (v) => {
    if (typeof v === "string") {
      if (!v.includes("*")) out.push(v);
    } else if (v && typeof v === "object") {
      for (const x of Object.values(v)) walk(x);
    }
  };
  const publishConfig = /** @type {Record<string, unknown>} */ (manifest.publishConfig ?? {});
  walk(publishConfig.exports ?? manifest.exports);
  walk(publishConfig.main ?? manifest.main);
  walk(publishConfig.types ?? manifest.types);
  walk(publishConfig.bin ?? manifest.bin);
  return out;
}

/**
 * Every file under `dir`, as paths relative to `dir` ("/"-separated); empty when `dir` is missing.
 * @param {string} dir @returns {string[]}
 */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((f) => f.split("\\").join("/"))
    .sort();
}

function version() {
  run("pnpm", ["exec", "changeset", "version"]);
  checkFixedGroups(workspacePackages());
  const left = pendingChangesets();
  if (left.length > 0) throw new Refusal(`changeset version left ${left.join(", ")} behind.`);
  console.log("\nrelease: versions and CHANGELOG.md files are updated. Review `git diff`, commit, then run `pnpm release`.");
}

function publish(/** @type {string[]} */ extraArgs) {
  checkCommitted("Refusing to publish");
  const pending = pendingChangesets();
  if (pending.length > 0) {
    throw new Refusal(`Refusing to publish: ${pending.length} changeset(s) are not versioned yet (${pending.slice(0, 5).join(", ")}${pending.length > 5 ? ", ..." : ""}).\nRun \`pnpm release:version\`, review and commit the result, then \`pnpm release\`.`);
  }
  const pkgs = workspacePackages();
  checkFixedGroups(pkgs);
  const published = pkgs.filter((p) => !p.private);
  if (published.length === 0) throw new Refusal("Refusing to publish: no package of the workspace is public.");
  const unversioned = published.filter((p) => p.version === "0.0.0");
  if (unversioned.length > 0) {
    throw new Refusal(`Refusing to publish: ${unversioned.map((p) => p.name).join(", ")} still at 0.0.0; add a changeset and run \`pnpm release:version\`.`);
  }
  // npm packs a package's LICENSE whatever `files` says; each public package keeps a copy of the
  // root one (the licence every package.json declares).
  const license = readFileSync(join(root, "LICENSE"), "utf8");
  const unlicensed = published.filter((p) => !existsSync(join(p.path, "LICENSE")) || readFileSync(join(p.path, "LICENSE"), "utf8") !== license);
  if (unlicensed.length > 0) {
    throw new Refusal(`Refusing to publish: ${unlicensed.map((p) => relative(root, p.path)).join(", ")} ha${unlicensed.length > 1 ? "ve" : "s"} no LICENSE or one that differs from the root LICENSE; copy it there (cp LICENSE <dir>/) and commit.`);
  }

  // A fresh build: every published package and the workspace packages it is built from lose their
  // dist/ (with the .tsbuildinfo inside), then build in dependency order.
  const filters = published.flatMap((p) => ["--filter", `${p.name}...`]);
  /** @type {{ path: string }[]} */
  const selected = JSON.parse(run("pnpm", [...filters, "ls", "--depth", "-1", "--json"], { capture: true }));
  /** @type {Map<string, string[]>} package path → the files its dist/ held before the build */
  const before = new Map(selected.map((p) => [p.path, filesUnder(join(p.path, "dist"))]));
  for (const p of selected) rmSync(join(p.path, "dist"), { recursive: true, force: true });
  console.log(`release: building ${selected.length} package(s) from a clean dist/`);
  run("pnpm", [...filters, "run", "build"]);
  checkCommitted("Refusing to publish: the build changed tracked files (generated code out of date?)");

  // A dirty dist/: files the build does not write. They are gone now (dist/ was rebuilt from
  // scratch), but they were there for a reason worth a look (an earlier build of removed sources,
  // a script or a hand edit), so the maintainer decides before anything is published.
  const stale = selected.flatMap((p) => {
    const now = new Set(filesUnder(join(p.path, "dist")));
    return (before.get(p.path) ?? []).filter((f) => !now.has(f)).map((f) => `${relative(root, p.path)}/dist/${f}`);
  });
  if (stale.length > 0) {
    throw new Refusal(
      `Refusing to publish: dist/ held ${stale.length} file(s) the build does not write (stale output of an earlier build, or put there by hand):\n${stale
        .slice(0, 20)
        .map((f) => `  ${f}`)
        .join("\n")}${stale.length > 20 ? "\n  ..." : ""}\nThe fresh build has removed them; check that nothing needs them, then run \`pnpm release\` again.`,
    );
  }

  for (const p of published) {
    const manifest = JSON.parse(readFileSync(join(p.path, "package.json"), "utf8"));
    const missing = referencedFiles(manifest).filter((f) => !existsSync(join(p.path, f)));
    if (missing.length > 0) throw new Refusal(`Refusing to publish: ${p.name} points at files the build did not write: ${missing.join(", ")} (in ${relative(root, p.path)}).`);
  }

  const registry = run("pnpm", ["config", "get", "registry"], { capture: true }).trim();
  console.log(`release: publishing ${published.map((p) => `${p.name}@${p.version}`).join(", ")} to ${registry}`);
  run("pnpm", ["exec", "changeset", "publish", ...extraArgs]);
  console.log("release: done. Push the new tags: git push --follow-tags");
}

const [command, ...rest] = process.argv.slice(2);
try {
  if (command === "version" && rest.length === 0) version();
  else if (command === "publish") publish(rest);
  else throw new Refusal("usage: release.mjs version | publish [changeset publish flags]");
} catch (err) {
  if (!(err instanceof Refusal)) throw err;
  console.error(`release: ${err.message}`);
  process.exit(1);
}
