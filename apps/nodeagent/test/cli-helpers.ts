/** Helpers for the node agent's black-box CLI tests: start the real entry point, find free ports, wait for health. */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";

const repoRoot = join(import.meta.dirname, "..", "..", "..");
const entry = join(repoRoot, "apps", "nodeagent", "src", "main.ts");

/** A started agent process with its collected output. */
export interface AgentProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name). */
  readonly exited: Promise<number | string>;
}

/** Starts `node --conditions=@skiff/source --import tsx apps/nodeagent/src/main.ts ...args`. */
export function startAgent(args: readonly string[]): AgentProcess {
  const child = spawn(process.execPath, ["--conditions=@skiff/source", "--import", "tsx", entry, ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs the agent to completion. */
export async function runAgent(args: readonly string[]): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const a = startAgent(args);
  const code = await a.exited;
  return { code, stdout: a.stdout(), stderr: a.stderr() };
}

export { freePort } from "@skiff/test-support";

/** Polls `http://127.0.0.1:<port>/healthz` until it answers `ok` (or the process exits / time runs out). */
export async function waitHealthy(port: number, agent: AgentProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let done = false;
  void agent.exited.then(() => (done = true));
  while (Date.now() < deadline && !done) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.ok && (await r.text()) === "ok") return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`agent not healthy on ${port}; stderr:\n${agent.stderr()}`);
}
