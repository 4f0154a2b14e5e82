import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { UpCommand } from "./args.js";
import { down, kubeconfig, status, up, upPreflight } from "./commands.js";
import { markDataDir } from "./data-dir.js";

const base = mkdtempSync(join(tmpdir(), "skiff-cmd-"));
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  rmSync(base, { recursive: true, force: true });
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) } }, out, err };
}

async function freePorts(): Promise<{ port: number; agent: number }> {
  const get = () =>
    new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
  for (;;) {
    const port = await get();
    const agent = await get();
    if (agent > 3000 && agent - 2 !== port) return { port, agent };
  }
}

const upCommand = (dataDir: string, port: number, agent: number): UpCommand => ({
  command: "up",
  dataDir,
  port,
  nodeAgentPort: agent,
  nodeName: "n1",
  runtime: "process",
  containerdEndpoint: "unix:///run/containerd/containerd.sock",
  processIsolation: undefined,
  foreground: false,
});

describe("skiff up's checks", () => {
  it("a new data directory and free ports pass", async () => {
    const { port, agent } = await freePorts();
    expect(await upPreflight(upCommand(join(base, "new"), port, agent), "0.1.0")).toEqual([]);
  });

  it("another version's data directory: up says so, exits 1 and touches nothing", async () => {
    const { port, agent } = await freePorts();
    const dir = join(base, "old");
    markDataDir(dir, "0.0.9");
    writeFileSync(join(dir, "tokens.csv"), "t,admin,admin,\"system:masters\"\n");
    const before = readdirSync(dir).sort();
    const c = capture();
    expect(await up(upCommand(dir, port, agent), "0.1.0", "/nonexistent/main.js", c.io)).toBe(1);
    expect(c.err.join("")).toContain(`skiff: ${dir} holds data of Skiff 0.0.9; this is Skiff 0.1.0`);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it("an occupied port: up names it, exits 1 and creates no data directory", async () => {
    const { agent } = await freePorts();
    const s = createServer();
    servers.push(s);
    const busy = await new Promise<number>((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as { port: number }).port)));
    const dir = join(base, "busy");
    const c = capture();
    expect(await up(upCommand(dir, busy, agent), "0.1.0", "/nonexistent/main.js", c.io)).toBe(1);
    expect(c.err.join("")).toContain(`port ${busy} on 127.0.0.1 (--port) is in use`);
    expect(readdirSync(base)).not.toContain("busy");
  });

  it("a cluster already running from the directory (its pid file names a live process) is refused", async () => {
    const { port, agent } = await freePorts();
    const dir = join(base, "running");
    markDataDir(dir, "0.1.0");
    writeFileSync(join(dir, "skiff.pid"), JSON.stringify({ pid: process.pid, port: 6443, nodeName: "n1", version: "0.1.0" }));
    expect((await upPreflight(upCommand(dir, port, agent), "0.1.0")).join("")).toContain(`a cluster is already running from ${dir} (pid ${process.pid}, port 6443)`);
  });
});

describe("down, status and kubeconfig without a cluster", () => {
  it("down says nothing runs (exit 0); status says not running (exit 1); kubeconfig says to run up (exit 1)", async () => {
    const dir = join(base, "empty");
    const c = capture();
    expect(await down(dir, c.io)).toBe(0);
    expect(c.out.join("")).toContain(`no cluster is running from ${dir}`);
    expect(await status(dir, c.io)).toBe(1);
    expect(c.out.join("")).toContain("not running");
    expect(kubeconfig(dir, undefined, c.io)).toBe(1);
    expect(c.err.join("")).toContain(`${dir} has no kubeconfig yet: skiff up --data-dir ${dir} writes it`);
  });
});
