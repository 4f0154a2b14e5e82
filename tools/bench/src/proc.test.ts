import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { stopProcess } from "./proc.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

function idle(script = "setInterval(() => {}, 1000)"): Promise<ChildProcess> {
  const c = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "ignore"] });
  children.push(c);
  // Resolves once the script runs (its handlers are installed).
  return new Promise((resolve) => c.stdout?.once("data", () => resolve(c)));
}

describe("stopProcess", () => {
  it("resolves at once for a child already killed by a signal (its exitCode is null)", async () => {
    const c = await idle("console.log('up'); setInterval(() => {}, 1000)");
    await new Promise((r) => {
      c.once("exit", r);
      c.kill("SIGKILL");
    });
    expect(c.exitCode).toBeNull();
    await stopProcess(c, 60_000);
    expect(c.signalCode).toBe("SIGKILL");
  });

  it("stops a running child with SIGTERM, and kills one that ignores it after the grace period", async () => {
    const polite = await idle("console.log('up'); setInterval(() => {}, 1000)");
    await stopProcess(polite, 60_000);
    expect(polite.signalCode).toBe("SIGTERM");
    const stubborn = await idle("process.on('SIGTERM', () => {}); console.log('up'); setInterval(() => {}, 1000)");
    await stopProcess(stubborn, 200);
    expect(stubborn.signalCode).toBe("SIGKILL");
  });
});
