// `skiff` as a new user gets it: the app packages and @skiff/cli packed (`pnpm pack`, as they are
// published), installed with npm into an empty directory, then `npx skiff up` with a temporary data
// directory, a Job run to Complete with kubectl 1.32 through `skiff kubeconfig`, `skiff status`, a
// second `skiff up` refused, and `skiff down`.
//
// npm installs with --ignore-scripts, and better-sqlite3's native addon is copied from the
// workspace when the versions match (compiling it takes minutes on a small machine); otherwise
// `npm rebuild better-sqlite3` builds it as a normal install would.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../../..");
const kubectl = "/usr/bin/kubectl";
const work = mkdtempSync(join(tmpdir(), "skiff-npm-"));
const packs = join(work, "packs");
const project = join(work, "project");
const dataDir = join(work, "data");
const packages = ["packages/api-types", "apps/apiserver", "apps/job-controller", "apps/scheduler", "apps/nodeagent", "tools/cri-process-server", "apps/skiff"];

interface BuildModule {
  buildWorkspace(o: { root: string; roots: string[]; say: (line: string) => void; quiet: boolean }): Promise<void>;
}

function run(file: string, args: string[], cwd: string, timeoutMs = 120_000) {
  const r = spawnSync(file, args, { cwd, encoding: "utf8", timeout: timeoutMs, env: { ...process.env, npm_config_update_notifier: "false" } });
  return { code: r.status ?? 1, out: `${r.stdout ?? ""}${r.stderr ?? ""}`, stdout: r.stdout ?? "" };
}

const skiff = (...args: string[]) => run("npx", ["--no", "skiff", ...args, `--data-dir=${dataDir}`], project, 180_000);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

afterAll(() => {
  if (existsSync(join(dataDir, "skiff.pid"))) skiff("down");
  rmSync(work, { recursive: true, force: true });
}, 180_000);

describe("skiff from npm tarballs", () => {
  it("npx skiff up runs a Job to Complete with kubectl; a second up is refused; skiff down stops it", async () => {
    // Built output of what gets packed (a no-op after `pnpm build`).
    const build = (await import(pathToFileURL(join(root, "tools/local-cluster/build.mjs")).href)) as BuildModule;
    await build.buildWorkspace({ root, roots: packages, say: () => {}, quiet: true });

    mkdirSync(packs);
    for (const dir of packages) {
      const r = run("pnpm", ["pack", "--pack-destination", packs], join(root, dir));
      expect(r.code, r.out).toBe(0);
    }
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "skiff-user", private: true })}\n`);
    const tarballs = readdirSync(packs).map((f) => join(packs, f));
    const install = run("npm", ["install", "--ignore-scripts", "--no-audit", "--no-fund", ...tarballs], project, 600_000);
    expect(install.code, install.out).toBe(0);

    const installed = createRequire(join(project, "node_modules", "@skiff", "apiserver", "package.json"));
    const sqliteDir = dirname(installed.resolve("better-sqlite3/package.json"));
    const ours = dirname(createRequire(join(root, "packages/storage/package.json")).resolve("better-sqlite3/package.json"));
    const version = (dir: string) => (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
    if (version(sqliteDir) === version(ours) && existsSync(join(ours, "build/Release/better_sqlite3.node"))) {
      mkdirSync(join(sqliteDir, "build/Release"), { recursive: true });
      copyFileSync(join(ours, "build/Release/better_sqlite3.node"), join(sqliteDir, "build/Release/better_sqlite3.node"));
    } else {
      const rebuilt = run("npm", ["rebuild", "better-sqlite3"], project, 600_000);
      expect(rebuilt.code, rebuilt.out).toBe(0);
    }

    const port = await freePort();
    let agentPort = await freePort();
    while (agentPort < 3000 || agentPort - 2 === port) agentPort = await freePort();
    const up = skiff("up", `--port=${port}`, `--nodeagent-port=${agentPort}`, "--node-name=npm-node");
    expect(up.code, up.out).toBe(0);
    expect(up.out).toContain("skiff: the cluster is up");
    expect(up.out).toMatch(/✓ apiserver https:\/\/127\.0\.0\.1:\d+/);

    const status = skiff("status");
    expect(status.code, status.out).toBe(0);
    expect(status.out).toContain("node npm-node: Ready");

    const again = skiff("up", `--port=${port}`, `--nodeagent-port=${agentPort}`);
    expect(again.code).toBe(1);
    expect(again.out).toContain(`a cluster is already running from ${dataDir}`);

    const kc = join(work, "kubeconfig");
    const written = skiff("kubeconfig", `--output=${kc}`);
    expect(written.code, written.out).toBe(0);
    expect(skiff("kubeconfig").stdout).toBe(readFileSync(kc, "utf8"));
    // The README's "Use it from npm" commands.
    const k = (...args: string[]) => run(kubectl, [`--kubeconfig=${kc}`, ...args], work);
    const created = k("create", "job", "hello", "--image=busybox:1.36", "--", "echo", "hello");
    expect(created.code, created.out).toBe(0);
    const wait = k("wait", "--for=condition=complete", "job/hello", "--timeout=120s");
    expect(wait.code, wait.out).toBe(0);
    expect(k("logs", "job/hello").stdout).toBe("hello\n");

    const down = skiff("down");
    expect(down.code, down.out).toBe(0);
    expect(down.out).toContain("stopped the cluster");
    expect(skiff("status").code).toBe(1);
    expect(existsSync(join(dataDir, "skiff.pid"))).toBe(false);
  }, 600_000);
});
