// The hook runner alone: exec hooks through a fake CRI ExecSync (the runtime's own ExecSync is
// exercised by the lifecycle integration suites on the process runtime and containerd), httpGet
// hooks against a real HTTP server on loopback.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import { CRIError, type RuntimeClient } from "@skiff/cri-api";
import { freePort } from "@skiff/test-support";
import { generateSelfSignedPair } from "../server/tls.js";
import { lifecycleUserAgent, runLifecycleHook, type LifecycleHookContext } from "./lifecycle-hooks.js";

const pod: Pod = { metadata: { name: "web", namespace: "default", uid: "u1" }, spec: { containers: [] } };
const where = `for Container "main" in Pod "web_default(u1)"`;

type ExecSync = Pick<RuntimeClient, "execSync">["execSync"];
const execResult = (exitCode: number, stdout = "", stderr = ""): ExecSync => async () => ({ stdout: Buffer.from(stdout), stderr: Buffer.from(stderr), exitCode });

function ctx(execSync: ExecSync = execResult(0), extra: Partial<LifecycleHookContext> = {}): LifecycleHookContext {
  return { pod, container: { name: "main", ports: [{ name: "http", containerPort: port }] }, containerId: "c1", podIP: "127.0.0.1", runtime: { execSync }, ...extra };
}

let server: Server;
let port: number;
const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    if (req.url === "/hop") {
      res.writeHead(302, { location: "/final" });
      res.end();
      return;
    }
    if (req.url === "/loop") {
      res.writeHead(302, { location: "/loop" });
      res.end();
      return;
    }
    res.statusCode = req.url === "/broken" ? 500 : 200;
    res.end("body");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("exec hooks", () => {
  it("succeed on exit status 0 and run the command without a deadline", async () => {
    const calls: unknown[] = [];
    const exec: ExecSync = async (req) => {
      calls.push(req);
      return { stdout: Buffer.from("out"), stderr: Buffer.from(""), exitCode: 0 };
    };
    expect(await runLifecycleHook({ exec: { command: ["sh", "-c", "echo hi"] } }, ctx(exec))).toBeUndefined();
    expect(calls).toEqual([{ containerId: "c1", cmd: ["sh", "-c", "echo hi"], timeout: 0 }]);
  });

  it("fail on another exit status with 1.23's message: the command, the status, stderr, and stdout followed by stderr", async () => {
    const msg = await runLifecycleHook({ exec: { command: ["sh", "-c", "echo out; echo err >&2; exit 3"] } }, ctx(execResult(3, "out\n", "err\n")));
    expect(msg).toBe(`Exec lifecycle hook ([sh -c echo out; echo err >&2; exit 3]) ${where} failed - error: command 'sh -c echo out; echo err >&2; exit 3' exited with 3: err\n, message: "out\\nerr\\n"`);
  });

  it("fail with the runtime's error when ExecSync cannot run (the container is gone)", async () => {
    const exec: ExecSync = async () => {
      throw new CRIError({ method: "ExecSync", code: "NotFound", details: 'container "c1" not found' });
    };
    expect(await runLifecycleHook({ exec: { command: ["true"] } }, ctx(exec))).toBe(`Exec lifecycle hook ([true]) ${where} failed - error: rpc error: code = NotFound desc = container "c1" not found, message: ""`);
  });
});

describe("httpGet hooks", () => {
  it("succeed on any response, a 500 included, sending the path once-slashed, the headers and the lifecycle User-Agent", async () => {
    seen.length = 0;
    expect(await runLifecycleHook({ httpGet: { path: "/broken", port, httpHeaders: [{ name: "X-Hook", value: "pre-stop" }] } }, ctx())).toBeUndefined();
    expect(await runLifecycleHook({ httpGet: { path: "/ok", port: "http" } }, ctx())).toBeUndefined();
    expect(seen.map((s) => s.url)).toEqual(["/broken", "/ok"]);
    expect(seen[0]?.headers["x-hook"]).toBe("pre-stop");
    expect(seen[0]?.headers["user-agent"]).toBe(lifecycleUserAgent);
    expect(await runLifecycleHook({ httpGet: { path: "/ua", port, httpHeaders: [{ name: "User-Agent", value: "mine" }] } }, ctx())).toBeUndefined();
    expect(seen[2]?.headers["user-agent"]).toBe("mine");
  });

  it("go to `host` when it is set, else to the pod IP", async () => {
    seen.length = 0;
    expect(await runLifecycleHook({ httpGet: { path: "/h", port, host: "127.0.0.1" } }, ctx(undefined, { podIP: "" }))).toBeUndefined();
    expect(seen.map((s) => s.url)).toEqual(["/h"]);
    expect(await runLifecycleHook({ httpGet: { path: "/h", port } }, ctx(undefined, { podIP: "" }))).toBe(`HTTP lifecycle hook (/h) ${where} failed - error: failed to find networking container, message: ""`);
  });

  it("follow redirects, and fail after 10 of them", async () => {
    seen.length = 0;
    expect(await runLifecycleHook({ httpGet: { path: "/hop", port } }, ctx())).toBeUndefined();
    expect(seen.map((s) => s.url)).toEqual(["/hop", "/final"]);
    expect(await runLifecycleHook({ httpGet: { path: "/loop", port } }, ctx())).toBe(`HTTP lifecycle hook (/loop) ${where} failed - error: Get "http://127.0.0.1:${port}/loop": stopped after 10 redirects, message: ""`);
  });

  it("fail when nothing answers, with Go's dial error", async () => {
    const closed = await freePort();
    expect(await runLifecycleHook({ httpGet: { path: "/stop", port: closed } }, ctx())).toBe(
      `HTTP lifecycle hook (/stop) ${where} failed - error: Get "http://127.0.0.1:${closed}/stop": dial tcp 127.0.0.1:${closed}: connect: connection refused, message: ""`,
    );
  });

  it("use HTTPS when the scheme says so, without verifying the certificate", async () => {
    const pair = await generateSelfSignedPair("127.0.0.1");
    const paths: string[] = [];
    const tls = createHttpsServer({ cert: pair.cert, key: pair.key }, (req, res) => {
      paths.push(req.url ?? "");
      res.end("secure");
    });
    await new Promise<void>((r) => tls.listen(0, "127.0.0.1", r));
    try {
      const tlsPort = (tls.address() as AddressInfo).port;
      expect(await runLifecycleHook({ httpGet: { path: "/tls", port: tlsPort, scheme: "HTTPS" } }, ctx())).toBeUndefined();
      expect(paths).toEqual(["/tls"]);
    } finally {
      await new Promise<void>((r) => tls.close(() => r()));
    }
  }, 30_000);

  it("fail on a port name the container does not have", async () => {
    expect(await runLifecycleHook({ httpGet: { path: "/", port: "admin" } }, ctx())).toBe(`HTTP lifecycle hook (/) ${where} failed - error: couldn't find port: admin in main, message: ""`);
  });
});

describe("other handlers", () => {
  it("a tcpSocket hook, which 1.23 accepts but cannot run, fails with `Cannot run handler`", async () => {
    expect(await runLifecycleHook({ tcpSocket: { port: 8080 } }, ctx())).toBe("Cannot run handler: invalid handler: &LifecycleHandler{Exec:nil,HTTPGet:nil,TCPSocket:&TCPSocketAction{Port:{0 8080 },Host:,},}");
    expect(await runLifecycleHook({ tcpSocket: { port: "http", host: "h" } }, ctx())).toBe("Cannot run handler: invalid handler: &LifecycleHandler{Exec:nil,HTTPGet:nil,TCPSocket:&TCPSocketAction{Port:{1 0 http},Host:h,},}");
  });
});
