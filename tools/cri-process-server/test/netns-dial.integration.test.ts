// Port-forward's dial into a network namespace for a server listening on the namespace's loopback
// only: the socket is opened inside by a helper under nsenter and handed back (SCM_RIGHTS), so the
// runtime holds the connection itself. Needs root (ip netns, nsenter).
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialInNamespace } from "../src/internal/netns-dial.js";

const root = process.getuid?.() === 0 && existsSync("/usr/bin/nsenter") && spawnSync("ip", ["-V"]).status === 0;
const ns = `skiff-dial-${process.pid}`;
const netnsPath = `/run/netns/${ns}`;
const port = 18000 + (process.pid % 1000);

describe.skipIf(!root)(root ? "dial into a pod network namespace" : "dial into a pod network namespace (skipped: needs root, ip and nsenter)", () => {
  let server: ChildProcess | undefined;

  beforeAll(async () => {
    expect(spawnSync("ip", ["netns", "add", ns]).status).toBe(0);
    expect(spawnSync("ip", ["netns", "exec", ns, "ip", "link", "set", "lo", "up"]).status).toBe(0);
    // A server that speaks first (a banner), then echoes: on the namespace's 127.0.0.1 only.
    const script = `require("net").createServer((s) => { s.write("banner\\n"); s.on("data", (d) => s.write("echo:" + d)); s.on("end", () => s.end()); }).listen(${port}, "127.0.0.1", () => console.log("listening"));`;
    server = spawn("ip", ["netns", "exec", ns, process.execPath, "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      server?.stdout?.once("data", () => resolve());
      server?.once("exit", (code) => reject(new Error(`server exited ${String(code)}`)));
    });
  });

  afterAll(() => {
    server?.kill("SIGKILL");
    spawnSync("ip", ["netns", "del", ns]);
  });

  it("hands back a socket connected inside the namespace: no relay in between, the server's first bytes kept, both directions work", async () => {
    const conn = await dialInNamespace("/usr/bin/nsenter", netnsPath, "10.255.255.1", undefined, port);
    // The connection itself, not pipes to a relay process.
    expect(conn).toBeInstanceOf(Socket);
    let got = "";
    conn.on("data", (d: Buffer) => (got += d.toString()));
    await expect.poll(() => got, { timeout: 10_000 }).toBe("banner\n");
    conn.write("ping");
    await expect.poll(() => got, { timeout: 10_000 }).toBe("banner\necho:ping");
    conn.end();
    await new Promise((r) => conn.once("close", r));
  });

  it("rejects with the dial's message when nothing listens on the port", async () => {
    await expect(dialInNamespace("/usr/bin/nsenter", netnsPath, "10.255.255.1", undefined, port + 1)).rejects.toThrow(`connect ECONNREFUSED 127.0.0.1:${String(port + 1)}`);
  });
});
