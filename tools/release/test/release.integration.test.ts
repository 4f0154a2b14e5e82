// The release flow end to end, as a maintainer runs it and a user sees it (README "Release"):
// a copy of this working tree (tracked and untracked files, as its own git repository) gets
// `pnpm install`, then `pnpm release` is refused while the tree is dirty or a changeset waits,
// `pnpm release:version` versions a changeset (CHANGELOG.md, the fixed group together), and
// `pnpm release` publishes to a real npm registry on loopback (Verdaccio, no uplinks). Then the
// tarballs are checked, and in empty directories outside the workspace the published packages are
// installed with npm and with pnpm and a consumer program is type-checked and run against them; the
// `skiff` command is installed with npm from that registry and runs a Job with kubectl.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, freePortRange } from "@skiff/test-support";

const workspaceRoot = fileURLToPath(new URL("../../..", import.meta.url));
const verdaccioBin = fileURLToPath(new URL("../node_modules/verdaccio/bin/verdaccio", import.meta.url));
const consumerSource = fileURLToPath(new URL("../consumer/consumer.ts", import.meta.url));
const tscBin = join(workspaceRoot, "node_modules/typescript/bin/tsc");
const kubectlBin = "/usr/bin/kubectl";

interface Installed {
  /** The scratch directory the packages were installed into. */
  dir: string;
  /** "npm" or "pnpm". */
  packageManager: string;
  /** Environment with the registry configuration the install used (for `npx` and the like). */
  env: NodeJS.ProcessEnv;
}

interface Consumer {
  name: string;
  /** The install specs, given the published versions. */
  packages: (versions: Map<string, string>) => string[];
  /** The package managers it is installed with; both unless said. */
  packageManagers?: ("npm" | "pnpm")[];
  /** Extra flags of `npm install`. */
  npmFlags?: string[];
  timeoutMs?: number;
  check: (at: Installed) => Promise<void>;
}

/** Work `afterAll` does before the registry stops (e.g. `skiff down` after a failed check). */
const cleanups: (() => Promise<void>)[] = [];

/**
 * What users install from the registry and what they do with it. Each entry is installed into its
 * own empty directory outside the workspace; `check` then runs there as a user would.
 */
const consumers: Consumer[] = [
  {
    name: "types and zod schemas",
    packages: (versions) => [`@skiff/api-types@${versions.get("@skiff/api-types")}`, "@skiff/validation"],
    check: async ({ dir }) => {
      for (const name of ["@skiff/api-types", "@skiff/validation"]) {
        const installed = JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")) as { version: string };
        expect(installed.version, name).toBe(published.get(name));
      }
      cpSync(consumerSource, join(dir, "consumer.ts"));
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            lib: ["ES2023", "DOM"],
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            exactOptionalPropertyTypes: true,
            types: [],
            skipLibCheck: false,
            outDir: "out",
          },
          files: ["consumer.ts"],
        }),
      );
      // The workspace's TypeScript: the consumer's own would come from the public registry.
      await mustRun(process.execPath, [tscBin, "-p", "tsconfig.json"], { cwd: dir });
      const out = await mustRun(process.execPath, ["out/consumer.js"], { cwd: dir });
      expect(out.stdout).toContain("consumer ok");
    },
  },
  {
    // README "Use it from npm": the skiff command and, as its dependencies, the apps, all from the
    // loopback registry. npm installs with --ignore-scripts and better-sqlite3's native addon is
    // copied from the workspace when the versions match (compiling it takes minutes on a small
    // machine, and its prebuilt download needs GitHub); otherwise `npm rebuild better-sqlite3`
    // builds it as a normal install would.
    name: "the skiff command runs a Job with kubectl",
    packages: (versions) => [`@skiff/cli@${versions.get("@skiff/cli")}`],
    packageManagers: ["npm"],
    npmFlags: ["--ignore-scripts"],
    timeoutMs: 900_000,
    check: async ({ dir, env }) => {
      const version = published.get("@skiff/cli") ?? "";
      for (const name of ["@skiff/cli", "@skiff/apiserver", "@skiff/job-controller", "@skiff/scheduler", "@skiff/nodeagent", "@skiff/cri-process-server"]) {
        const installed = JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")) as { version: string };
        expect(installed.version, name).toBe(published.get(name));
      }
      const sqliteDir = dirname(createRequire(join(dir, "node_modules/@skiff/apiserver/package.json")).resolve("better-sqlite3/package.json"));
      const ours = dirname(createRequire(join(workspaceRoot, "packages/storage/package.json")).resolve("better-sqlite3/package.json"));
      const versionOf = (d: string) => (JSON.parse(readFileSync(join(d, "package.json"), "utf8")) as { version: string }).version;
      if (versionOf(sqliteDir) === versionOf(ours) && existsSync(join(ours, "build/Release/better_sqlite3.node"))) {
        mkdirSync(join(sqliteDir, "build/Release"), { recursive: true });
        cpSync(join(ours, "build/Release/better_sqlite3.node"), join(sqliteDir, "build/Release/better_sqlite3.node"));
      } else {
        await mustRun("npm", ["rebuild", "better-sqlite3"], { cwd: dir, env, timeoutMs: 600_000 });
      }

      const dataDir = join(dir, "skiff-data");
      const skiff = (...args: string[]) => runCmd("npx", ["--no", "skiff", ...args], { cwd: dir, env, timeoutMs: 240_000 });
      cleanups.push(async () => {
        if (existsSync(join(dataDir, "skiff.pid"))) await skiff("down", `--data-dir=${dataDir}`);
      });
      const port = await freePort();
      // The node agent listens on --nodeagent-port and, for healthz, that minus 2: all three free.
      const agentPort = (await freePortRange(3)) + 2;
      const ports = [`--port=${port}`, `--nodeagent-port=${agentPort}`];

      // Bad input: an occupied port, and a data directory of another version. Each is refused
      // with exit status 1 and the data is left as it was.
      const busy = createServer();
      const busyPort = await new Promise<number>((done) => busy.listen(0, "127.0.0.1", () => done((busy.address() as { port: number }).port)));
      const onBusy = await skiff("up", `--data-dir=${join(dir, "busy-data")}`, `--port=${busyPort}`, `--nodeagent-port=${agentPort}`).finally(
        () => new Promise((done) => busy.close(done)),
      );
      expect(onBusy.code, onBusy.stdout + onBusy.stderr).toBe(1);
      expect(onBusy.stderr).toContain(`skiff: port ${busyPort} on 127.0.0.1 (--port) is in use`);
      expect(existsSync(join(dir, "busy-data"))).toBe(false);
      const oldData = join(dir, "old-data");
      mkdirSync(oldData);
      writeFileSync(join(oldData, "skiff-version.json"), '{"skiff":"0.0.9"}\n');
      writeFileSync(join(oldData, "data.db"), "the data of Skiff 0.0.9\n");
      const onOld = await skiff("up", `--data-dir=${oldData}`, ...ports);
      expect(onOld.code, onOld.stdout + onOld.stderr).toBe(1);
      expect(onOld.stderr).toContain(`skiff: ${oldData} holds data of Skiff 0.0.9; this is Skiff ${version}`);
      expect(readdirSync(oldData).sort()).toEqual(["data.db", "skiff-version.json"]);
      expect(readFileSync(join(oldData, "skiff-version.json"), "utf8")).toBe('{"skiff":"0.0.9"}\n');
      expect(readFileSync(join(oldData, "data.db"), "utf8")).toBe("the data of Skiff 0.0.9\n");

      const up = await skiff("up", `--data-dir=${dataDir}`, ...ports, "--node-name=npm-node");
      expect(up.code, up.stdout + up.stderr).toBe(0);
      expect(up.stdout).toContain("skiff: the cluster is up");
      expect(up.stdout).toMatch(/✓ apiserver https:\/\/127\.0\.0\.1:\d+/);
      expect(JSON.parse(readFileSync(join(dataDir, "skiff-version.json"), "utf8"))).toEqual({ skiff: version });

      const kubeconfig = join(dir, "kubeconfig");
      await mustRun("npx", ["--no", "skiff", "kubeconfig", `--data-dir=${dataDir}`, `--output=${kubeconfig}`], { cwd: dir, env });
      expect((await skiff("kubeconfig", `--data-dir=${dataDir}`)).stdout).toBe(readFileSync(kubeconfig, "utf8"));
      // README "Use it from npm", word for word.
      const kubectl = (...args: string[]) => mustRun(kubectlBin, [`--kubeconfig=${kubeconfig}`, ...args], { cwd: dir, env, timeoutMs: 180_000 });
      await kubectl("create", "job", "hello", "--image=busybox:1.36", "--", "echo", "hello");
      await kubectl("wait", "--for=condition=complete", "job/hello", "--timeout=120s");
      expect((await kubectl("get", "job", "hello", "-o", "jsonpath={.status.succeeded}")).stdout).toBe("1");
      expect((await kubectl("logs", "job/hello")).stdout).toBe("hello\n");

      const status = await skiff("status", `--data-dir=${dataDir}`);
      expect(status.code, status.stdout + status.stderr).toBe(0);
      expect(status.stdout).toContain(`Skiff ${version}`);
      expect(status.stdout).toContain("node npm-node: Ready");

      const again = await skiff("up", `--data-dir=${dataDir}`, ...ports);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`a cluster is already running from ${dataDir}`);

      const down = await skiff("down", `--data-dir=${dataDir}`);
      expect(down.code, down.stdout + down.stderr).toBe(0);
      expect(down.stdout).toContain("stopped the cluster");
      expect((await skiff("status", `--data-dir=${dataDir}`)).code).toBe(1);
      expect(existsSync(join(dataDir, "skiff.pid"))).toBe(false);
    },
  },
];

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end without throwing on a non-zero exit. */
function runCmd(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((done) => {
    execFile(cmd, args, { cwd: opts.cwd, env: opts.env ?? baseEnv, maxBuffer: 64 << 20, timeout: opts.timeoutMs ?? 240_000 }, (err, stdout, stderr) => {
      // Killed (by the timeout or a signal) counts as a failure whatever the exit status.
      const code = err ? (typeof err.code === "number" && !err.killed && !err.signal ? err.code : null) : 0;
      done({ code, stdout, stderr });
    });
  });
}

/** Runs a command and fails the test, with its output, when it exits non-zero. */
async function mustRun(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<RunResult> {
  const r = await runCmd(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.code} in ${opts.cwd}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
  return r;
}

/** The environment without what the outer `pnpm`/`npm` put there about its own registry and project. */
const baseEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(npm_package_|npm_lifecycle_|npm_config_(registry|userconfig|globalconfig|store_dir|cache)$|pnpm_config_|PNPM_SCRIPT_SRC_DIR$|INIT_CWD$)/i.test(k)),
);


let tmp = "";
let repo = "";
let registry = "";
let verdaccio: ChildProcess | undefined;
let publishEnv: NodeJS.ProcessEnv = {};
/** What `pnpm install` printed in the fresh copy (no dist/, no node_modules/). */
let installOutput = "";
/** Name → version of every package `pnpm release` published. */
const published = new Map<string, string>();

/** The workspace's package.json files in the copy: name, version, private, path. */
function copyPackages(): { name: string; version: string; private: boolean; dir: string; manifest: Record<string, unknown> }[] {
  const out = [];
  for (const top of ["packages", "apps", "tools"]) {
    for (const name of readdirSync(join(repo, top))) {
      const file = join(repo, top, name, "package.json");
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown> & { name: string; version: string; private?: boolean };
      out.push({ name: manifest.name, version: manifest.version, private: manifest.private === true, dir: join(repo, top, name), manifest });
    }
  }
  return out;
}

async function registryHas(name: string): Promise<boolean> {
  const res = await fetch(`${registry}${name.replace("/", "%2f")}`);
  return res.status === 200;
}

async function git(...args: string[]): Promise<void> {
  await mustRun("git", args, { cwd: repo });
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "skiff-release-"));
  repo = join(tmp, "repo");

  // The working tree as it is (tracked and untracked, not ignored files), as a fresh repository.
  const files = (await mustRun("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: workspaceRoot })).stdout.split("\0").filter(Boolean);
  for (const f of files) {
    if (!existsSync(join(workspaceRoot, f))) continue;
    mkdirSync(dirname(join(repo, f)), { recursive: true });
    cpSync(join(workspaceRoot, f), join(repo, f), { verbatimSymlinks: true });
  }
  await git("init", "-q", "-b", "main");
  await git("config", "user.email", "release-test@skiff.invalid");
  await git("config", "user.name", "release test");
  await git("add", "-A");
  await git("commit", "-q", "-m", "the working tree under test");
  const install = await mustRun("pnpm", ["install", "--frozen-lockfile", "--prefer-offline"], { cwd: repo });
  installOutput = install.stdout + install.stderr;

  // Verdaccio on loopback: no uplinks, anyone may read and publish.
  const port = await freePort();
  registry = `http://127.0.0.1:${port}/`;
  const conf = join(tmp, "registry");
  mkdirSync(conf);
  writeFileSync(
    join(conf, "config.yaml"),
    [
      "storage: ./storage",
      "auth:",
      "  htpasswd:",
      "    file: ./htpasswd",
      "    max_users: 10",
      "uplinks: {}",
      "packages:",
      '  "**":',
      "    access: $all",
      "    publish: $all",
      "    unpublish: $all",
      // JWT tokens: checking one is a signature, not a bcrypt hash per request.
      "security:",
      "  api:",
      "    jwt:",
      "      sign:",
      "        expiresIn: 1d",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  verdaccio = spawn(process.execPath, [verdaccioBin, "--config", join(conf, "config.yaml"), "--listen", `127.0.0.1:${port}`], { stdio: ["ignore", "pipe", "pipe"], env: baseEnv });
  let log = "";
  verdaccio.stdout?.on("data", (b: Buffer) => (log += b.toString()));
  verdaccio.stderr?.on("data", (b: Buffer) => (log += b.toString()));
  for (let i = 0; ; i++) {
    const up = await fetch(`${registry}-/ping`).then((r) => r.ok, () => false);
    if (up) break;
    if (i > 100 || verdaccio.exitCode !== null) throw new Error(`verdaccio did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 300));
  }
  // npm and pnpm want a token to publish, even where anonymous publishing is allowed.
  const user = await fetch(`${registry}-/user/org.couchdb.user:release-test`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "release-test", password: "release-test" }),
  });
  const { token } = (await user.json()) as { token: string };
  const npmrc = join(tmp, "publisher.npmrc");
  writeFileSync(npmrc, `registry=${registry}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  publishEnv = { ...baseEnv, npm_config_registry: registry, NPM_CONFIG_USERCONFIG: npmrc };
}, 300_000);

afterAll(async () => {
  for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  if (verdaccio && verdaccio.exitCode === null) {
    const exited = new Promise((r) => verdaccio?.once("exit", r));
    verdaccio.kill("SIGTERM");
    await exited;
  }
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, 300_000);

describe("release", () => {
  it("installs a fresh checkout without warnings (bins are committed launchers, not unbuilt dist/ files)", () => {
    const warnings = installOutput.split("\n").filter((l) => /\bWARN\b/.test(l));
    expect(warnings).toEqual([]);
  });

  it("refuses to publish with uncommitted changes, before building anything", async () => {
    writeFileSync(join(repo, "notes.txt"), "work in progress\n");
    const r = await runCmd("pnpm", ["release"], { cwd: repo, env: publishEnv });
    rmSync(join(repo, "notes.txt"));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("Refusing to publish: the working tree has uncommitted changes");
    expect(r.stderr).toContain("notes.txt");
    expect(existsSync(join(repo, "packages/api-types/dist"))).toBe(false);
    expect(await registryHas("@skiff/api-types")).toBe(false);
  });

  it("refuses to publish while a changeset is not versioned", async () => {
    writeFileSync(join(repo, ".changeset/release-test.md"), '---\n"@skiff/api-types": patch\n---\n\nRelease test: a patch of the types.\n');
    await git("add", "-A");
    await git("commit", "-q", "-m", "a changeset");
    const r = await runCmd("pnpm", ["release"], { cwd: repo, env: publishEnv });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("not versioned yet");
    expect(r.stderr).toMatch(/changeset\(s\) are not versioned yet \(\.changeset\/[\w-]+\.md/);
    expect(r.stderr).toContain("pnpm release:version");
    expect(await registryHas("@skiff/api-types")).toBe(false);
  });

  it("versions the changesets: versions bumped, the fixed group together, CHANGELOG.md written", async () => {
    const before = new Map(copyPackages().map((p) => [p.name, p.version]));
    await mustRun("pnpm", ["release:version"], { cwd: repo, env: publishEnv });
    const after = new Map(copyPackages().map((p) => [p.name, p.version]));
    expect(readdirSync(join(repo, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md")).toEqual([]);
    const version = after.get("@skiff/api-types") ?? "";
    expect(version).not.toBe(before.get("@skiff/api-types"));
    const { fixed } = JSON.parse(readFileSync(join(repo, ".changeset/config.json"), "utf8")) as { fixed: string[][] };
    for (const group of fixed) {
      expect(new Set(group.map((n) => after.get(n))).size, `fixed group ${group.join(", ")}`).toBe(1);
    }
    const changelog = readFileSync(join(repo, "packages/api-types/CHANGELOG.md"), "utf8");
    expect(changelog).toContain(`## ${version}\n`);
    expect(changelog).toContain("Release test: a patch of the types.");
    expect(readFileSync(join(repo, "packages/validation/CHANGELOG.md"), "utf8")).toContain(`## ${version}\n`);
    await git("add", "-A");
    await git("commit", "-q", "-m", "Version packages");
  });

  it("refuses to publish a package without the root LICENSE, before building anything", async () => {
    rmSync(join(repo, "packages/flags/LICENSE"));
    await git("commit", "-q", "-am", "no licence file");
    const r = await runCmd("pnpm", ["release"], { cwd: repo, env: publishEnv });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("Refusing to publish: packages/flags has no LICENSE or one that differs from the root LICENSE");
    expect(existsSync(join(repo, "packages/api-types/dist"))).toBe(false);
    expect(await registryHas("@skiff/flags")).toBe(false);
    await git("revert", "--no-edit", "HEAD");
  });

  it("refuses to publish when dist/ holds files the build does not write, naming them, before publishing", async () => {
    // Leftovers a dirty dist/ may hold (ignored by git, so the tree is clean).
    mkdirSync(join(repo, "packages/api-types/dist/old"), { recursive: true });
    writeFileSync(join(repo, "packages/api-types/dist/old/stale.test.js"), "throw new Error('stale');\n");
    // A full build of every public package: about 5 minutes on 2 idle cores, 13 on a loaded machine.
    const r = await runCmd("pnpm", ["release"], { cwd: repo, env: publishEnv, timeoutMs: 1_500_000 });
    expect(r.code, `--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`).not.toBe(0);
    expect(r.stderr).toContain("Refusing to publish: dist/ held 1 file(s) the build does not write");
    expect(r.stderr).toContain("  packages/api-types/dist/old/stale.test.js\n");
    expect(r.stderr).toContain("run `pnpm release` again");
    for (const name of ["@skiff/api-types", "@skiff/validation", "@skiff/cli"]) expect(await registryHas(name), name).toBe(false);
  }, 1_560_000);

  it("publishes every public package from a fresh build, never a stale dist/", async () => {
    // A hand-edited dist/ file (ignored by git, so the tree is clean): the release must neither
    // ship it nor trust it (the consumers below import the published file).
    mkdirSync(join(repo, "packages/validation/dist"), { recursive: true });
    writeFileSync(join(repo, "packages/validation/dist/index.js"), "throw new Error('stale dist/ was published');\n");

    const r = await runCmd("pnpm", ["release"], { cwd: repo, env: publishEnv, timeoutMs: 1_500_000 });
    const output = `--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
    if (r.code !== 0) throw new Error(`pnpm release failed (${r.code})\n${output}`);
    const publics = copyPackages().filter((p) => !p.private);
    expect(publics.map((p) => p.name)).toEqual(expect.arrayContaining(["@skiff/api-types", "@skiff/apimachinery", "@skiff/validation"]));
    for (const p of publics) {
      const res = await fetch(`${registry}${p.name.replace("/", "%2f")}`);
      expect(res.status, `${p.name} is not on the registry after pnpm release:\n${output}`).toBe(200);
      const doc = (await res.json()) as { versions: Record<string, unknown>; "dist-tags": Record<string, string> };
      expect(Object.keys(doc.versions), p.name).toEqual([p.version]);
      expect(doc["dist-tags"].latest).toBe(p.version);
      published.set(p.name, p.version);
    }
    // changeset publish tags the release commit.
    const tags = (await mustRun("git", ["tag", "--list"], { cwd: repo })).stdout;
    expect(tags).toContain(`@skiff/api-types@${published.get("@skiff/api-types")}`);
  }, 1_560_000);

  it("publishes tarballs with resolved dependencies, exports, licence and engines, without tests or outside source maps", async () => {
    expect(published.size).toBeGreaterThan(0);
    for (const [name, version] of published) {
      const doc = (await (await fetch(`${registry}${name.replace("/", "%2f")}`)).json()) as { versions: Record<string, { dist: { tarball: string } }> };
      const tgz = join(tmp, "tarballs", `${name.replace("/", "-")}.tgz`);
      mkdirSync(dirname(tgz), { recursive: true });
      writeFileSync(tgz, Buffer.from(await (await fetch(doc.versions[version]!.dist.tarball)).arrayBuffer()));
      const dir = join(tmp, "tarballs", name.replace("/", "-"));
      mkdirSync(dir);
      await mustRun("tar", ["xzf", tgz, "-C", dir], { cwd: tmp });
      const pkg = join(dir, "package");
      const files = (await mustRun("find", [".", "-type", "f"], { cwd: pkg })).stdout.split("\n").filter(Boolean).map((f) => f.slice(2));

      const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as {
        license?: string;
        engines?: { node?: string };
        exports?: unknown;
        bin?: string | Record<string, string>;
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
      };
      expect(manifest.license, name).toBe("Apache-2.0");
      expect(files, `${name} ships no LICENSE`).toContain("LICENSE");
      expect(readFileSync(join(pkg, "LICENSE"), "utf8"), `${name} LICENSE`).toBe(readFileSync(join(repo, "LICENSE"), "utf8"));
      expect(manifest.engines?.node, name).toBe(">=20");
      for (const [dep, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies })) {
        expect(range, `${name} → ${dep}`).not.toMatch(/^workspace:/);
        // workspace:^ is published as ^<version>, workspace:* as the exact version.
        if (dep.startsWith("@skiff/")) expect([`^${published.get(dep)}`, published.get(dep)], `${name} → ${dep}@${range}`).toContain(range);
      }
      // exports (bin-only packages have none): no workspace-only condition, `types` before
      // `default`, every target shipped.
      const exportsText = JSON.stringify(manifest.exports ?? null);
      expect(exportsText, name).not.toContain("@skiff/source");
      const targets: string[] = [];
      const walk = (v: unknown): void => {
        if (typeof v === "string") targets.push(v);
        else if (v && typeof v === "object") {
          const keys = Object.keys(v);
          if (keys.includes("types") && keys.includes("default")) expect(keys.indexOf("types"), `${name} exports`).toBeLessThan(keys.indexOf("default"));
          for (const x of Object.values(v)) walk(x);
        }
      };
      walk(manifest.exports);
      walk(manifest.bin);
      expect(targets.length, `${name} has neither exports nor bin`).toBeGreaterThan(0);
      for (const t of targets.filter((t) => !t.includes("*"))) expect(files, `${name} exports or bin ${t}`).toContain(t.replace(/^\.\//, ""));

      // No tests, no build state, nothing left over in dist/.
      expect(files.filter((f) => /(^|\/)(test|tests|__tests__)\/|\.test(-d)?\.[cm]?[jt]s$|\.bench\.[jt]s$|\.tsbuildinfo$/.test(f)), name).toEqual([]);
      // Source maps: every source inside the package, and either shipped or embedded.
      for (const f of files.filter((f) => f.endsWith(".map"))) {
        const map = JSON.parse(readFileSync(join(pkg, f), "utf8")) as { sources: string[]; sourceRoot?: string; sourcesContent?: (string | null)[] };
        map.sources.forEach((s, i) => {
          const at = resolve(pkg, dirname(f), map.sourceRoot ?? "", s);
          expect(at.startsWith(pkg + sep), `${name} ${f}: source ${s} is outside the package`).toBe(true);
          const shipped = files.includes(relative(pkg, at));
          expect(shipped || typeof map.sourcesContent?.[i] === "string", `${name} ${f}: source ${s} is neither shipped nor embedded`).toBe(true);
        });
      }
    }
  });

  for (const packageManager of ["npm", "pnpm"] as const) {
    for (const consumer of consumers.filter((c) => (c.packageManagers ?? ["npm", "pnpm"]).includes(packageManager))) {
      it(`installs with ${packageManager} into an empty directory: ${consumer.name}`, async () => {
        expect(published.size).toBeGreaterThan(0);
        const dir = mkdtempSync(join(tmp, `consumer-${packageManager}-`));
        // Only @skiff comes from the loopback registry; their other dependencies (zod) come from
        // wherever the user's registry is, with caches of this test's own.
        const npmrc = join(tmp, `${packageManager}-user.npmrc`);
        writeFileSync(npmrc, `@skiff:registry=${registry}\n`);
        const env = { ...baseEnv, NPM_CONFIG_USERCONFIG: npmrc };
        writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "skiff-user", version: "1.0.0", private: true, type: "module" }, null, 2));
        const specs = consumer.packages(published);
        if (packageManager === "npm") {
          await mustRun("npm", ["install", "--no-audit", "--no-fund", "--cache", join(tmp, "npm-cache"), ...(consumer.npmFlags ?? []), ...specs], { cwd: dir, env, timeoutMs: 600_000 });
        } else {
          await mustRun("pnpm", ["add", "--store-dir", join(tmp, "pnpm-store"), "--cache-dir", join(tmp, "pnpm-cache"), ...specs], { cwd: dir, env });
        }
        await consumer.check({ dir, packageManager, env });
      }, consumer.timeoutMs ?? 240_000);
    }
  }
});
