import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect, isIP } from "node:net";
import * as grpc from "@grpc/grpc-js";
import type { Container, HTTPGetAction, Pod, Probe, TCPSocketAction } from "@skiff/api-types";
import { isCRIError, type RuntimeClient } from "@skiff/cri-api";

/**
 * The outcome of one probe attempt, as pkg/probe's `Result`: `Warning` counts as a success but is
 * reported (an HTTP redirect that was not followed); `Unknown` counts as a failure.
 * @see pkg/probe/probe.go in kubernetes/kubernetes v1.23
 */
export type ProbeOutcome = "Success" | "Warning" | "Failure" | "Unknown";

/** One probe attempt's outcome and its output (the failure text shown in the `Unhealthy` event). */
export interface ProbeAttempt {
  readonly outcome: ProbeOutcome;
  readonly output: string;
}

/**
 * A probe that could not be run at all (bad port name, missing handler, runtime error). The worker
 * throws such a result away, as the kubelet; `reason` is stable.
 */
export class ProbeError extends Error {
  override readonly name = "ProbeError";
  constructor(
    readonly reason: "InvalidPort" | "MissingHandler" | "RuntimeError",
    message: string,
  ) {
    super(message);
  }
}

/** What a probe attempt needs besides the probe itself. */
export interface ProbeContext {
  readonly pod: Pod;
  readonly container: Container;
  /** The container's runtime ID (without the `<runtime>://` prefix), for exec probes. */
  readonly containerId: string;
  /** The pod's IP (status.podIP): the default host of httpGet, tcpSocket and grpc probes. */
  readonly podIP: string;
  /** The CRI runtime service (exec probes run through ExecSync). */
  readonly runtime: Pick<RuntimeClient, "execSync">;
  /** Whether the GRPCContainerProbe gate is on. @defaultValue true */
  readonly grpcEnabled?: boolean;
}

/** `User-Agent` of HTTP probes (`kube-probe/<major>.<minor>` in the kubelet). */
export const probeUserAgent = "kube-probe/1.23";

const maxResponseBodyBytes = 10 * 1024;
const maxRedirects = 10;

function podDescription(pod: Pod): string {
  return `${pod.metadata?.name ?? ""}_${pod.metadata?.namespace ?? ""}(${pod.metadata?.uid ?? ""})`;
}

/**
 * Resolves a probe's port (a number, a numeric string or a container-port name) to a number.
 * @throws ProbeError `InvalidPort` for an unknown name or a number outside 1–65535.
 * @see pkg/kubelet/prober/prober.go (extractPort, findPortByName) in kubernetes/kubernetes v1.23
 */
export function resolveProbePort(port: number | string, container: Container): number {
  let n: number;
  if (typeof port === "number") n = port;
  else if (/^[0-9]+$/.test(port)) n = Number(port);
  else {
    const found = (container.ports ?? []).find((p) => p.name === port);
    if (!found) throw new ProbeError("InvalidPort", `couldn't find port: ${port} in ${container.name}`);
    n = found.containerPort;
  }
  if (!Number.isInteger(n) || n <= 0 || n >= 65536) throw new ProbeError("InvalidPort", `invalid port number: ${n}`);
  return n;
}

/** `host:port`, with an IPv6 host in brackets (Go's `net.JoinHostPort`). */
export function hostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Runs one attempt of `probe` against the container: exec through CRI ExecSync (bounded by
 * `timeoutSeconds`; exit 0 is success), httpGet (status 200–399; redirects followed only to the
 * same host, at most 10; another host's redirect is a `Warning`), tcpSocket (connects) or grpc
 * (grpc.health.v1.Health/Check answers SERVING). Failures are outcomes with the kubelet's
 * output text; nothing is retried here.
 * @throws ProbeError when the probe cannot be run (bad port, no handler, runtime error).
 * @see pkg/kubelet/prober/prober.go (runProbe) and pkg/probe/{exec,http,tcp,grpc} in kubernetes/kubernetes v1.23
 * @example
 * ```ts
 * const r = await runProbeAttempt(container.livenessProbe, { pod, container, containerId, podIP, runtime });
 * if (r.outcome === "Failure") console.log(r.output);
 * ```
 */
export async function runProbeAttempt(probe: Probe, ctx: ProbeContext): Promise<ProbeAttempt> {
  const timeoutMs = Math.max(1, probe.timeoutSeconds ?? 1) * 1000;
  if (probe.exec) return runExecProbe(probe.exec.command ?? [], timeoutMs, ctx);
  if (probe.httpGet) return runHttpProbe(probe.httpGet, timeoutMs, ctx);
  if (probe.tcpSocket) return runTcpProbe(probe.tcpSocket, timeoutMs, ctx);
  if (probe.grpc && ctx.grpcEnabled !== false) {
    const host = ctx.podIP;
    return runGrpcProbe(host, resolveProbePort(probe.grpc.port, ctx.container), probe.grpc.service ?? "", timeoutMs);
  }
  throw new ProbeError("MissingHandler", `missing probe handler for ${podDescription(ctx.pod)}:${ctx.container.name}`);
}

async function runExecProbe(command: string[], timeoutMs: number, ctx: ProbeContext): Promise<ProbeAttempt> {
  const timeoutSeconds = Math.ceil(timeoutMs / 1000);
  try {
    const r = await ctx.runtime.execSync({ containerId: ctx.containerId, cmd: command, timeout: timeoutSeconds });
    const output = Buffer.concat([Buffer.from(r.stdout), Buffer.from(r.stderr)]).toString("utf8");
    return r.exitCode === 0 ? { outcome: "Success", output } : { outcome: "Failure", output };
  } catch (err) {
    if (isCRIError(err, "DeadlineExceeded")) return { outcome: "Failure", output: `command ${JSON.stringify(command.join(" "))} timed out` };
    throw new ProbeError("RuntimeError", err instanceof Error ? err.message : String(err));
  }
}

function runHttpProbe(action: HTTPGetAction, timeoutMs: number, ctx: ProbeContext): Promise<ProbeAttempt> {
  const port = resolveProbePort(action.port, ctx.container);
  const scheme = (action.scheme ?? "HTTP").toLowerCase();
  const host = action.host || ctx.podIP;
  let path = action.path ?? "";
  if (!path.startsWith("/")) path = `/${path}`;
  const url = new URL(`${scheme}://${hostPort(host, port)}${path}`);
  const headers: Record<string, string | string[]> = {};
  let hostHeader: string | undefined;
  for (const h of action.httpHeaders ?? []) {
    const name = h.name.toLowerCase();
    if (name === "host") {
      hostHeader = h.value;
      continue;
    }
    const prev = headers[name];
    headers[name] = prev === undefined ? h.value : [...(Array.isArray(prev) ? prev : [prev]), h.value];
  }
  if (headers["user-agent"] === undefined) headers["user-agent"] = probeUserAgent;
  if (headers.accept === undefined) headers.accept = "*/*";
  return doHttpGet(url, headers, hostHeader, timeoutMs, Date.now() + timeoutMs, 0, url.hostname);
}

function doHttpGet(url: URL, headers: Record<string, string | string[]>, hostHeader: string | undefined, timeoutMs: number, deadlineMs: number, redirects: number, firstHost: string): Promise<ProbeAttempt> {
  return new Promise((resolve) => {
    const remaining = Math.max(1, deadlineMs - Date.now());
    const requestFn = url.protocol === "https:" ? httpsRequest : httpRequest;
    let settled = false;
    const finish = (a: ProbeAttempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(a);
    };
    const req = requestFn(url, { method: "GET", headers: { ...headers, ...(hostHeader !== undefined ? { host: hostHeader } : {}) }, rejectUnauthorized: false, agent: false });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ outcome: "Failure", output: `Get ${JSON.stringify(url.toString())}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)` });
    }, remaining);
    req.on("error", (err: NodeJS.ErrnoException) => finish({ outcome: "Failure", output: `Get ${JSON.stringify(url.toString())}: ${describeDialError(err, url)}` }));
    req.on("response", (res: IncomingMessage) => {
      const code = res.statusCode ?? 0;
      const location = res.headers.location;
      if (code >= 300 && code < 400 && location !== undefined && code !== 304) {
        res.resume();
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          finish({ outcome: "Failure", output: `Get ${JSON.stringify(url.toString())}: failed to parse Location header ${JSON.stringify(location)}` });
          return;
        }
        if (redirects + 1 > maxRedirects) {
          finish({ outcome: "Failure", output: `Get ${JSON.stringify(next.toString())}: stopped after 10 redirects` });
          return;
        }
        if (next.hostname === firstHost && (next.protocol === "http:" || next.protocol === "https:")) {
          clearTimeout(timer);
          settled = true;
          void doHttpGet(next, headers, hostHeader, timeoutMs, deadlineMs, redirects + 1, firstHost).then(resolve);
          return;
        }
        // Not followed: the kubelet keeps the redirect response and calls it a warning.
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        if (size < maxResponseBodyBytes) chunks.push(c.subarray(0, maxResponseBodyBytes - size));
        size += c.length;
      });
      res.on("error", (err) => finish({ outcome: "Failure", output: err.message }));
      res.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        if (code >= 200 && code < 400) {
          if (code >= 300) finish({ outcome: "Warning", output: `Probe terminated redirects, Response body: ${body}` });
          else finish({ outcome: "Success", output: body });
        } else finish({ outcome: "Failure", output: `HTTP probe failed with statuscode: ${code}` });
      });
    });
    req.end();
  });
}

/**
 * Go's `net/http` text for a failed connection to `url` (`dial tcp 127.0.0.1:80: connect: connection
 * refused`), without the `Get "<url>": ` prefix; Node's message for other errors.
 */
export function describeDialError(err: NodeJS.ErrnoException, url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const addr = hostPort(url.hostname.replace(/^\[|\]$/g, ""), Number(port));
  switch (err.code) {
    case "ECONNREFUSED":
      return `dial tcp ${addr}: connect: connection refused`;
    case "ECONNRESET":
      return `read tcp ${addr}: read: connection reset by peer`;
    case "EHOSTUNREACH":
      return `dial tcp ${addr}: connect: no route to host`;
    case "ENOTFOUND":
      return `dial tcp: lookup ${url.hostname}: no such host`;
    default:
      return err.message;
  }
}

function runTcpProbe(action: TCPSocketAction, timeoutMs: number, ctx: ProbeContext): Promise<ProbeAttempt> {
  const port = resolveProbePort(action.port, ctx.container);
  const host = action.host || ctx.podIP;
  const addr = hostPort(host, port);
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ outcome: "Failure", output: `dial tcp ${addr}: i/o timeout` });
    }, timeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ outcome: "Success", output: "" });
    });
    socket.once("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      const text = err.code === "ECONNREFUSED" ? "connect: connection refused" : err.code === "EHOSTUNREACH" ? "connect: no route to host" : err.message;
      resolve({ outcome: "Failure", output: `dial tcp ${addr}: ${text}` });
    });
  });
}

// grpc.health.v1: HealthCheckRequest { string service = 1; } → HealthCheckResponse { ServingStatus status = 1; }
const servingStatusNames = ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"];

function encodeHealthCheckRequest(req: { service: string }): Buffer {
  const service = Buffer.from(req.service, "utf8");
  if (service.length === 0) return Buffer.alloc(0);
  return Buffer.concat([Buffer.from([0x0a]), encodeVarint(service.length), service]);
}

function encodeVarint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

function readVarint(buf: Buffer, at: number): { value: number; next: number } {
  let value = 0;
  let shift = 1;
  let i = at;
  for (; i < buf.length; i++) {
    const b = buf[i] ?? 0;
    value += (b & 0x7f) * shift;
    shift *= 128;
    if ((b & 0x80) === 0) return { value, next: i + 1 };
  }
  throw new Error("truncated varint");
}

/** Decodes a HealthCheckResponse; unknown fields are skipped. @throws Error on malformed bytes. */
export function decodeHealthCheckResponse(buf: Buffer): { status: number } {
  let status = 0;
  let i = 0;
  while (i < buf.length) {
    const key = readVarint(buf, i);
    i = key.next;
    const field = Math.floor(key.value / 8);
    const wire = key.value & 7;
    if (wire === 0) {
      const v = readVarint(buf, i);
      i = v.next;
      if (field === 1) status = v.value;
    } else if (wire === 2) {
      const len = readVarint(buf, i);
      i = len.next + len.value;
    } else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  if (i > buf.length) throw new Error("truncated message");
  return { status };
}

/**
 * The `grpc.health.v1.Health` service definition (Check only), with hand-written codecs; servers
 * in tests use it too.
 */
export const healthServiceDefinition = {
  check: {
    path: "/grpc.health.v1.Health/Check",
    requestStream: false,
    responseStream: false,
    requestSerialize: encodeHealthCheckRequest,
    requestDeserialize: (buf: Buffer): { service: string } => {
      let service = "";
      let i = 0;
      while (i < buf.length) {
        const key = readVarint(buf, i);
        i = key.next;
        if ((key.value & 7) === 2) {
          const len = readVarint(buf, i);
          if (Math.floor(key.value / 8) === 1) service = buf.subarray(len.next, len.next + len.value).toString("utf8");
          i = len.next + len.value;
        } else if ((key.value & 7) === 0) i = readVarint(buf, i).next;
        else break;
      }
      return { service };
    },
    responseSerialize: (res: { status: number }): Buffer => (res.status === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x08]), encodeVarint(res.status)])),
    responseDeserialize: decodeHealthCheckResponse,
  },
} satisfies grpc.ServiceDefinition;

const HealthClient = grpc.makeGenericClientConstructor(healthServiceDefinition, "grpc.health.v1.Health");

function runGrpcProbe(host: string, port: number, service: string, timeoutMs: number): Promise<ProbeAttempt> {
  const addr = hostPort(host, port);
  const timeoutText = `${timeoutMs / 1000}s`;
  const client = new HealthClient(addr, grpc.credentials.createInsecure());
  const deadline = new Date(Date.now() + timeoutMs);
  return new Promise<ProbeAttempt>((resolve) => {
    client.waitForReady(deadline, (err) => {
      if (err) {
        resolve({ outcome: "Failure", output: `timeout: failed to connect service ${JSON.stringify(addr)} within ${timeoutText}: context deadline exceeded` });
        return;
      }
      client.makeUnaryRequest(
        healthServiceDefinition.check.path,
        healthServiceDefinition.check.requestSerialize,
        healthServiceDefinition.check.responseDeserialize,
        { service },
        new grpc.Metadata(),
        { deadline },
        (callErr: grpc.ServiceError | null, res?: { status: number }) => {
          if (callErr) {
            if (callErr.code === grpc.status.UNIMPLEMENTED) resolve({ outcome: "Failure", output: `error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ${callErr.details}` });
            else if (callErr.code === grpc.status.DEADLINE_EXCEEDED) resolve({ outcome: "Failure", output: `timeout: health rpc did not complete within ${timeoutText}` });
            else resolve({ outcome: "Failure", output: `error: health rpc probe failed: rpc error: code = ${grpc.status[callErr.code]} desc = ${callErr.details}` });
            return;
          }
          const status = res?.status ?? 0;
          if (status !== 1) resolve({ outcome: "Failure", output: `service unhealthy (responded with ${JSON.stringify(servingStatusNames[status] ?? String(status))})` });
          else resolve({ outcome: "Success", output: "service healthy" });
        },
      );
    });
  }).finally(() => client.close());
}
