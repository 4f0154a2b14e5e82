import { createServer, type Server } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { busyPorts, isPortFree } from "./ports.js";

const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
});

function listen(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    servers.push(s);
    s.listen(0, "127.0.0.1", () => resolve((s.address() as { port: number }).port));
  });
}

describe("port checks", () => {
  it("a listening port is busy, and the message names the port and the flag", async () => {
    const busy = await listen();
    expect(await isPortFree(busy)).toBe(false);
    expect(await busyPorts([{ flag: "--port", port: busy }])).toEqual([`port ${busy} on 127.0.0.1 (--port) is in use: stop what listens there, or choose another port with --port`]);
  });

  it("a closed port is free", async () => {
    const s = createServer();
    const port = await new Promise<number>((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as { port: number }).port)));
    await new Promise((r) => s.close(r));
    expect(await isPortFree(port)).toBe(true);
    expect(await busyPorts([{ flag: "--port", port }])).toEqual([]);
  });
});
