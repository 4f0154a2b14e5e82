// The README walkthrough (its "Walkthrough" section), word for word: `pnpm start` is the
// launcher (tools/local-cluster/start.mjs) with a temporary state dir and free ports; every other
// line of its sh blocks runs in bash, in a directory holding `examples/` and `.skiff/`, with the real
// kubectl. Then Ctrl-C, and a second start that still has the data. The cluster runs under RBAC with
// each component's own identity: no component log holds a 401 or 403.
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePortRange } from "@skiff/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, repoRoot, waitFor } from "../src/index.js";

const work = mkdtempSync(join(tmpdir(), "skiff-walk-"));
symlinkSync(join(repoRoot, "examples"), join(work, "examples"));
const running: ChildProcess[] = [];

afterAll(async () => {
  // A launcher still running (a failed assertion): Ctrl-C it, so it stops its children and the
  // containerd it started; SIGKILL after a minute.
  for (const p of running) {
    if (p.exitCode !== null || p.signalCode !== null) continue;
    const exited = new Promise((resolve) => p.once("exit", resolve));
    p.kill("SIGINT");
    const t = setTimeout(() => p.kill("SIGKILL"), 60_000);
    await exited;
    clearTimeout(t);
  }
  rmSync(work, { recursive: true, force: true });
}, 120_000);

/** The command lines of the walkthrough's ```sh blocks, in order. */
function walkthroughCommands(): string[] {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const start = readme.indexOf("## Walkthrough");
  if (start < 0) throw new Error("README.md has no Walkthrough section");
  const end = readme.indexOf("\n## ", start + 1);
  const text = readme.slice(start, end < 0 ? undefined : end);
  const out: string[] = [];
  for (const m of text.matchAll(/```sh\n([\s\S]*?)```/g)) out.push(...(m[1] ?? "").split("\n").filter((l) => l.trim() !== ""));
  return out;
}

async function agentPort(): Promise<number> {
  // The launcher puts healthz on port - 2: both must be free.
  return (await freePortRange(3)) + 2;
}


interface Launcher {
  readonly proc: ChildProcess;
  output(): string;
}

async function launch(env: NodeJS.ProcessEnv): Promise<Launcher> {
  const proc = spawn(process.execPath, [join(repoRoot, "tools/local-cluster/start.mjs")], { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
  running.push(proc);
  let out = "";
  proc.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  await waitFor(
    "the cluster is up",
    () => {
      if (proc.exitCode !== null) throw new Error(`start.mjs exited ${String(proc.exitCode)}:\n${out}`);
      return out.includes("the cluster is up") || undefined;
    },
    300_000,
    200,
  ).catch((e: unknown) => {
    throw new Error(`${String(e)}\n--- start.mjs output:\n${out}`);
  });
  return { proc, output: () => out };
}

async function interrupt(l: Launcher): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => l.proc.once("exit", (code) => resolve(code)));
  l.proc.kill("SIGINT");
  return exited;
}

function sh(line: string, exports: readonly string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync("bash", ["-c", [...exports, line].join("\n")], { cwd: work, encoding: "utf8", timeout: 240_000 });
  return { code: r.status ?? 1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

describe("README walkthrough", () => {
  it("works word for word, stops on Ctrl-C and keeps its data across a restart", async () => {
    const commands = walkthroughCommands();
    expect(commands[0]).toBe("pnpm start");
    const env = {
      ...process.env,
      SKIFF_STATE_DIR: join(work, ".skiff"),
      SKIFF_PORT: String(await freePort()),
      SKIFF_NODEAGENT_PORT: String(await agentPort()),
      SKIFF_FROM_SOURCE: "1",
      SKIFF_STOP_TIMEOUT_MS: "5000",
    };
    const first = await launch(env);
    expect(first.output()).toMatch(/✓ apiserver https:\/\/127\.0\.0\.1:\d+ \(\d+\.\d s\)/);
    expect(first.output()).toMatch(/✓ node agent \(node \S+ on (containerd|the process CRI server)\)/);

    const exports: string[] = [];
    const results = new Map<string, { code: number; stdout: string; stderr: string }>();
    for (const line of commands.slice(1)) {
      if (line.startsWith("export ")) {
        exports.push(line);
        continue;
      }
      const r = sh(line, exports);
      results.set(line, r);
      expect(r.code, `${line}\n${r.stdout}${r.stderr}`).toBe(0);
    }
    expect(results.get("kubectl get nodes")?.stdout).toMatch(/\sReady\s/);
    expect(results.get("kubectl wait --for=condition=complete job/indexed --timeout=120s")?.stdout).toBe("job.batch/indexed condition met\n");
    expect(results.get("kubectl get pods -l job-name=indexed")?.stdout.match(/Completed/g)).toHaveLength(5);
    expect(results.get("kubectl logs job/indexed")?.stdout).toMatch(/^I am index [0-4]\n$/);
    expect(results.get("kubectl get job indexed -o jsonpath='{.status.completedIndexes}'")?.stdout).toBe("0-4");
    expect(results.get(`kubectl get job failing -o jsonpath='{.status.conditions[?(@.type=="Failed")].reason}'`)?.stdout).toBe("BackoffLimitExceeded");
    expect(results.get("kubectl get pods -l job-name=suspended")?.stderr).toMatch(/No resources found/);
    expect(results.get("kubectl wait --for=condition=complete job/suspended --timeout=120s")?.stdout).toBe("job.batch/suspended condition met\n");
    expect(results.get("kubectl get csidrivers,podtemplates")?.stdout).toMatch(/hostpath\.csi\.example\.io[\s\S]*busybox-echo/);

    // Under RBAC with each component's own identity, no component was refused anything.
    for (const name of ["apiserver", "job-controller", "scheduler", "nodeagent"]) {
      const log = readFileSync(join(work, ".skiff", "logs", `${name}.log`), "utf8");
      expect(log.split("\n").filter((l) => /forbidden|Unauthorized|\b403\b|\b401\b/i.test(l)), `${name}.log`).toEqual([]);
    }
    const tokens = readFileSync(join(work, ".skiff", "tokens.csv"), "utf8");
    expect(tokens).toMatch(/,system:kube-controller-manager,/);
    expect(tokens).toMatch(/,system:kube-scheduler,/);
    expect(tokens).toMatch(/,system:node:[^,]+,[^,]+,"system:nodes"/);
    expect(sh("kubectl get serviceaccounts -n kube-system -o name", exports).stdout.split("\n").sort()).toEqual(
      expect.arrayContaining(["serviceaccount/job-controller", "serviceaccount/node-controller", "serviceaccount/ttl-after-finished-controller"]),
    );

    // Ctrl-C: every component stops, in reverse order, and the launcher exits 0.
    expect(await interrupt(first)).toBe(0);
    const stopped = first
      .output()
      .split("\n")
      .flatMap((l) => /✓ stopped (\S+)/.exec(l)?.slice(1) ?? []);
    const onContainerd = first.output().includes("on containerd)");
    expect(stopped).toEqual(["nodeagent", ...(onContainerd ? [] : ["cri-process-server"]), "scheduler", "job-controller", "apiserver", ...(onContainerd ? ["containerd"] : [])]);

    // A second start keeps the data (.skiff/data) and the credentials.
    const second = await launch(env);
    const again = sh("kubectl get job indexed -o jsonpath='{.status.succeeded}'", exports);
    expect(again.stdout).toBe("5");
    expect(await interrupt(second)).toBe(0);
  }, 900_000);
});
