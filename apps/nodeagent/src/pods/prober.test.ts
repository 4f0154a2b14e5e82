import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as grpc from "@grpc/grpc-js";
import type { Container, Pod, Probe } from "@skiff/api-types";
import { CRIError } from "@skiff/cri-api";
import { freePort } from "@skiff/test-support";
import { decodeHealthCheckResponse, healthServiceDefinition, ProbeError, probeUserAgent, resolveProbePort, runProbeAttempt, type ProbeContext } from "./prober.js";

const pod: Pod = { metadata: { name: "p", namespace: "default", uid: "u1" }, spec: { containers: [] } };

function ctx(container: Partial<Container> = {}, extra: Partial<ProbeContext> = {}): ProbeContext {
  return {
    pod,
    container: { name: "main", image: "busybox", ...container },
    containerId: "c1",
    podIP: "127.0.0.1",
    runtime: { execSync: async () => ({ stdout: Buffer.from(""), stderr: Buffer.from(""), exitCode: 0 }) },
    ...extra,
  };
}

let server: Server;
let port: number;
let lastHeaders: IncomingHttpHeaders = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    lastHeaders = req.headers;
    const url = new URL(req.url ?? "/", "http://x");
    switch (url.pathname) {
      case "/ok":
        res.end("fine");
        return;
      case "/fail":
        res.statusCode = 500;
        res.end("broken");
        return;
      case "/redirect-local":
        res.writeHead(302, { location: "/ok" });
        res.end();
        return;
      case "/redirect-away":
        res.writeHead(301, { location: "http://example.invalid/x" });
        res.end("moved");
        return;
      case "/loop":
        res.writeHead(302, { location: "/loop" });
        res.end();
        return;
      case "/slow":
        setTimeout(() => res.end("late"), 3_000);
        return;
      default:
        res.statusCode = 404;
        res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe("resolveProbePort", () => {
  it("takes numbers, numeric strings and container port names", () => {
    const c: Container = { name: "main", ports: [{ name: "http", containerPort: 8080 }] };
    expect(resolveProbePort(80, c)).toBe(80);
    expect(resolveProbePort("81", c)).toBe(81);
    expect(resolveProbePort("http", c)).toBe(8080);
  });

  it("refuses unknown names and out-of-range numbers", () => {
    const c: Container = { name: "main" };
    expect(() => resolveProbePort("web", c)).toThrow(new ProbeError("InvalidPort", "couldn't find port: web in main"));
    expect(() => resolveProbePort(0, c)).toThrow("invalid port number: 0");
    expect(() => resolveProbePort(70000, c)).toThrow("invalid port number: 70000");
  });
});

describe("httpGet probes", () => {
  const probe = (path: string, extra: Partial<Probe["httpGet"]> = {}, p?: number | string): Probe => ({ httpGet: { path, port: p ?? port, ...extra }, timeoutSeconds: 1 });

  it("succeeds for 2xx, to the pod IP, with kube-probe's headers", async () => {
    expect(await runProbeAttempt(probe("/ok"), ctx())).toEqual({ outcome: "Success", output: "fine" });
    expect(lastHeaders["user-agent"]).toBe(probeUserAgent);
    expect(lastHeaders.accept).toBe("*/*");
  });

  it("sends httpHeaders (Host included) and resolves a named port", async () => {
    const r = await runProbeAttempt(probe("ok", { httpHeaders: [{ name: "X-Custom", value: "1" }, { name: "Host", value: "svc.local" }, { name: "User-Agent", value: "me" }] }, "web"), ctx({ ports: [{ name: "web", containerPort: port }] }));
    expect(r.outcome).toBe("Success");
    expect(lastHeaders["x-custom"]).toBe("1");
    expect(lastHeaders.host).toBe("svc.local");
    expect(lastHeaders["user-agent"]).toBe("me");
  });

  it("fails for other status codes with the kubelet's text", async () => {
    expect(await runProbeAttempt(probe("/fail"), ctx())).toEqual({ outcome: "Failure", output: "HTTP probe failed with statuscode: 500" });
    expect(await runProbeAttempt(probe("/missing"), ctx())).toEqual({ outcome: "Failure", output: "HTTP probe failed with statuscode: 404" });
  });

  it("follows a redirect on the same host, warns about another host's, stops after 10", async () => {
    expect(await runProbeAttempt(probe("/redirect-local"), ctx())).toEqual({ outcome: "Success", output: "fine" });
    expect(await runProbeAttempt(probe("/redirect-away"), ctx())).toEqual({ outcome: "Warning", output: "Probe terminated redirects, Response body: moved" });
    const loop = await runProbeAttempt(probe("/loop"), ctx());
    expect(loop.outcome).toBe("Failure");
    expect(loop.output).toContain("stopped after 10 redirects");
  });

  it("fails on connection refused and on timeout", async () => {
    const closed = await freePort();
    expect(await runProbeAttempt(probe("/", {}, closed), ctx())).toEqual({ outcome: "Failure", output: `Get "http://127.0.0.1:${closed}/": dial tcp 127.0.0.1:${closed}: connect: connection refused` });
    const slow = await runProbeAttempt(probe("/slow"), ctx());
    expect(slow.outcome).toBe("Failure");
    expect(slow.output).toContain("Client.Timeout exceeded");
  });

  it("uses an explicit host instead of the pod IP", async () => {
    expect((await runProbeAttempt(probe("/ok", { host: "127.0.0.1" }), ctx({}, { podIP: "192.0.2.1" }))).outcome).toBe("Success");
  });
});

describe("tcpSocket probes", () => {
  it("succeeds when the port accepts and fails with Go's dial text when refused", async () => {
    expect(await runProbeAttempt({ tcpSocket: { port } }, ctx())).toEqual({ outcome: "Success", output: "" });
    const closed = await freePort();
    expect(await runProbeAttempt({ tcpSocket: { port: closed } }, ctx())).toEqual({ outcome: "Failure", output: `dial tcp 127.0.0.1:${closed}: connect: connection refused` });
  });
});

describe("exec probes", () => {
  it("runs ExecSync with the timeout and judges by exit code, output = stdout + stderr", async () => {
    const seen: unknown[] = [];
    const runtime: ProbeContext["runtime"] = {
      execSync: async (req) => {
        seen.push(req);
        return { stdout: Buffer.from("out "), stderr: Buffer.from("err"), exitCode: req.cmd?.[0] === "false" ? 1 : 0 };
      },
    };
    expect(await runProbeAttempt({ exec: { command: ["true"] }, timeoutSeconds: 4 }, ctx({}, { runtime }))).toEqual({ outcome: "Success", output: "out err" });
    expect(await runProbeAttempt({ exec: { command: ["false"] } }, ctx({}, { runtime }))).toEqual({ outcome: "Failure", output: "out err" });
    expect(seen[0]).toEqual({ containerId: "c1", cmd: ["true"], timeout: 4 });
    expect(seen[1]).toMatchObject({ timeout: 1 });
  });

  it("calls a DeadlineExceeded a timed-out failure and other runtime errors probe errors", async () => {
    const timeout: ProbeContext["runtime"] = { execSync: async () => Promise.reject(new CRIError({ code: "DeadlineExceeded", method: "ExecSync", details: "slow" })) };
    expect(await runProbeAttempt({ exec: { command: ["sleep", "9"] } }, ctx({}, { runtime: timeout }))).toEqual({ outcome: "Failure", output: 'command "sleep 9" timed out' });
    const gone: ProbeContext["runtime"] = { execSync: async () => Promise.reject(new CRIError({ code: "NotFound", method: "ExecSync", details: "no such container" })) };
    await expect(runProbeAttempt({ exec: { command: ["x"] } }, ctx({}, { runtime: gone }))).rejects.toMatchObject({ reason: "RuntimeError" });
  });
});

describe("grpc probes", () => {
  let grpcServer: grpc.Server;
  let grpcPort: number;
  const statusOf: Record<string, number> = { "": 1, down: 2 };

  beforeAll(async () => {
    grpcServer = new grpc.Server();
    grpcServer.addService(healthServiceDefinition, {
      check: (call: grpc.ServerUnaryCall<{ service: string }, { status: number }>, cb: grpc.sendUnaryData<{ status: number }>) => {
        const s = statusOf[call.request.service];
        if (s === undefined) cb({ code: grpc.status.NOT_FOUND, details: "unknown service" });
        else cb(null, { status: s });
      },
    });
    grpcPort = await new Promise<number>((resolve, reject) => grpcServer.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  });

  afterAll(() => {
    grpcServer.forceShutdown();
  });

  it("succeeds for SERVING and fails for NOT_SERVING or an error", async () => {
    expect(await runProbeAttempt({ grpc: { port: grpcPort } }, ctx())).toEqual({ outcome: "Success", output: "service healthy" });
    expect(await runProbeAttempt({ grpc: { port: grpcPort, service: "down" } }, ctx())).toEqual({ outcome: "Failure", output: 'service unhealthy (responded with "NOT_SERVING")' });
    const err = await runProbeAttempt({ grpc: { port: grpcPort, service: "nope" } }, ctx());
    expect(err.outcome).toBe("Failure");
    expect(err.output).toContain("error: health rpc probe failed");
  });

  it("fails with a timeout when nothing listens", async () => {
    const closed = await freePort();
    const r = await runProbeAttempt({ grpc: { port: closed }, timeoutSeconds: 1 }, ctx());
    expect(r).toEqual({ outcome: "Failure", output: `timeout: failed to connect service "127.0.0.1:${closed}" within 1s: context deadline exceeded` });
  });

  it("is a missing handler with the GRPCContainerProbe gate off", async () => {
    await expect(runProbeAttempt({ grpc: { port: grpcPort } }, ctx({}, { grpcEnabled: false }))).rejects.toThrow("missing probe handler for p_default(u1):main");
  });

  it("decodes health responses and refuses malformed ones", () => {
    expect(decodeHealthCheckResponse(Buffer.from([0x08, 0x01]))).toEqual({ status: 1 });
    expect(decodeHealthCheckResponse(Buffer.alloc(0))).toEqual({ status: 0 });
    expect(decodeHealthCheckResponse(Buffer.from([0x12, 0x01, 0x41, 0x08, 0x02]))).toEqual({ status: 2 });
    expect(() => decodeHealthCheckResponse(Buffer.from([0x08]))).toThrow();
    expect(() => decodeHealthCheckResponse(Buffer.from([0x0b]))).toThrow("unsupported wire type 3");
  });
});

describe("a probe without a handler", () => {
  it("errors", async () => {
    await expect(runProbeAttempt({}, ctx())).rejects.toMatchObject({ reason: "MissingHandler" });
  });
});
