import * as grpc from "@grpc/grpc-js";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bindUnixSocket, maxUnixSocketPathBytes } from "./grpc-unix.js";

describe("bindUnixSocket", () => {
  const dirs: string[] = [];
  const servers: grpc.Server[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) s.forceShutdown();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("binds a path that fits, and refuses a longer one by name and length instead of binding it truncated", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skiff-sock-"));
    dirs.push(dir);
    const ok = new grpc.Server();
    servers.push(ok);
    await bindUnixSocket(ok, join(dir, "kubelet.sock"), "the test socket");
    expect(existsSync(join(dir, "kubelet.sock"))).toBe(true);
    const long = join(dir, "d".repeat(maxUnixSocketPathBytes), "kubelet.sock");
    const refused = new grpc.Server();
    servers.push(refused);
    await expect(bindUnixSocket(refused, long, "the test socket")).rejects.toThrow(`the test socket ${JSON.stringify(long)} is ${Buffer.byteLength(long)} bytes long, more than the 107 a unix socket path can have: use a shorter --root-dir`);
  });
});
