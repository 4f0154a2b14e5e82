/**
 * The node agent's three servers over real sockets and real TLS. The AgentView is a FAKE on purpose:
 * the servers are the unit under test here (authentication, authorization, TLS, routing, encodings);
 * the real view is `pods/`' business and is tested there.
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { request as httpsRequest } from "node:https";
import { request as httpRequest } from "node:http";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { TLSSocket } from "node:tls";
import { generate } from "selfsigned";
import { parse as parseYAML } from "yaml";
import type { Pod } from "@skiff/api-types";
import { createServer as createNetServer } from "node:net";
import type { Server as NetServer, Socket } from "node:net";
import { ContainerLogError, StreamingError } from "../src/agent-view.js";
import type { AgentView, ContainerLogOptions, HealthCheck, StreamOptions } from "../src/agent-view.js";
import { startServers, ServerStartError } from "../src/server/index.js";
import type { RunningServers, ServerOptions, SubjectAccessReviewSpec, TokenReviewSpec } from "../src/server/index.js";

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  readonly cipher?: string;
}

interface RequestOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly ca?: string;
  readonly servername?: string;
  readonly maxVersion?: "TLSv1.2" | "TLSv1.3";
  readonly ciphers?: string;
}

function call(tls: boolean, port: number, path: string, o: RequestOptions = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const common = { host: "127.0.0.1", port, path, method: o.method ?? "GET", headers: o.headers ?? {}, agent: false as const };
    const req = tls
      ? httpsRequest({
          ...common,
          rejectUnauthorized: o.ca !== undefined,
          ...(o.ca !== undefined ? { ca: o.ca } : {}),
          ...(o.servername !== undefined ? { servername: o.servername } : {}),
          ...(o.cert !== undefined ? { cert: o.cert, key: o.key } : {}),
          ...(o.maxVersion !== undefined ? { maxVersion: o.maxVersion } : {}),
          ...(o.ciphers !== undefined ? { ciphers: o.ciphers } : {}),
        })
      : httpRequest(common);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      const cipher = tls ? (res.socket as TLSSocket).getCipher().name : undefined;
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8"), ...(cipher !== undefined ? { cipher } : {}) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(o.body);
  });
}

const pod: Pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web-node-1", namespace: "default", uid: "u1" },
  spec: { containers: [{ name: "app", image: "busybox" }, { name: "gone", image: "busybox" }, { name: "weird", image: "busybox" }] },
  status: { phase: "Running" },
};

const followPod: Pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "tail", namespace: "follow", uid: "u2" },
  spec: { containers: [{ name: "app", image: "busybox" }] },
};

class FakeView implements AgentView {
  readonly nodeName = "node-1";
  syncLoopHealthy = true;
  readonly logCalls: Array<{ ns: string; pod: string; container: string; opts: ContainerLogOptions }> = [];
  readonly submitted = new Map<string, Pod>();
  readonly followStreams: Readable[] = [];
  listPods(): readonly Pod[] {
    return [pod, followPod, ...this.submitted.values()];
  }
  async listRunningPods(): Promise<readonly Pod[]> {
    return [];
  }
  async containerLogs(ns: string, podName: string, container: string, opts: ContainerLogOptions): Promise<Readable> {
    this.logCalls.push({ ns, pod: podName, container, opts });
    if (container === "gone") throw new ContainerLogError("NotFound", "previous terminated container \"gone\" not found");
    if (container === "weird") throw new ContainerLogError("BadRequest", "container \"weird\" is waiting to start");
    if (opts.follow === true && container === "app" && ns === "follow") {
      const stream = new Readable({ read: () => undefined });
      stream.push("first\n");
      this.followStreams.push(stream);
      return stream;
    }
    return Readable.from(["line 1\n", "line 2\n"]);
  }
  healthChecks(): readonly HealthCheck[] {
    return [
      {
        name: "syncloop",
        check: () => {
          if (!this.syncLoopHealthy) throw new Error("sync loop stalled");
        },
      },
    ];
  }
  submitManifest(m: { body: string }): { ok: true; pod: Pod } | { ok: false; errors: string[] } {
    let obj: unknown;
    try {
      obj = parseYAML(m.body);
    } catch (err) {
      return { ok: false, errors: [String(err)] };
    }
    const p = obj as Pod;
    if (typeof obj !== "object" || obj === null || p.kind !== "Pod" || typeof p.metadata?.name !== "string") return { ok: false, errors: ["kind: Required value: a Pod"] };
    const named: Pod = { ...p, metadata: { ...p.metadata, name: `${p.metadata.name}-node-1`, namespace: p.metadata.namespace ?? "default" } };
    this.submitted.set(`${named.metadata?.namespace}/${named.metadata?.name}`, named);
    return { ok: true, pod: named };
  }
  removeSubmittedManifest(namespace: string, name: string): boolean {
    return this.submitted.delete(`${namespace}/${name}`);
  }
  /** The runtime's streaming server (a fake one the test starts). */
  streamingURL = "http://127.0.0.1:1/";
  readonly execCalls: Array<{ container: string; cmd: readonly string[]; opts: StreamOptions }> = [];
  async getExec(_ns: string, _pod: string, _uid: string, container: string, cmd: readonly string[], opts: StreamOptions): Promise<string> {
    if (container !== "app") throw new StreamingError(500, `container not found (${JSON.stringify(container)})`);
    this.execCalls.push({ container, cmd, opts });
    return `${this.streamingURL}exec/tok123`;
  }
  async getAttach(_ns: string, _pod: string, _uid: string, container: string): Promise<string> {
    if (container !== "app") throw new StreamingError(500, `container not found (${JSON.stringify(container)})`);
    return `${this.streamingURL}attach/tok456`;
  }
  async getPortForward(_ns: string, _pod: string, _uid: string, ports: readonly number[]): Promise<string> {
    return `${this.streamingURL}portforward/tok789?ports=${ports.join(",")}`;
  }
  async runInContainer(_ns: string, _pod: string, _uid: string, container: string, cmd: readonly string[]): Promise<Buffer> {
    if (cmd[0] === "false") throw new StreamingError(500, "command 'false' exited with 1: ");
    return Buffer.from(`ran in ${container}: ${JSON.stringify(cmd)}`);
  }
}

/** An upgrade request over TLS: the status line, and the socket when it was switched (101). */
function upgradeCall(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string; socket?: Socket; head?: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: "127.0.0.1", port, path, method: "POST", rejectUnauthorized: false, agent: false, headers: { Connection: "Upgrade", Upgrade: "SPDY/3.1", "X-Stream-Protocol-Version": "v4.channel.k8s.io", ...headers } });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("upgrade", (res, socket, head) => resolve({ status: res.statusCode ?? 0, body: "", socket: socket as Socket, head }));
    req.on("error", reject);
    req.end();
  });
}

interface PKI {
  readonly caCert: string;
  readonly clientCert: string;
  readonly clientKey: string;
  readonly strangerCert: string;
  readonly strangerKey: string;
}

async function makePKI(): Promise<PKI> {
  const caExt = [
    { name: "basicConstraints" as const, cA: true, critical: true },
    { name: "keyUsage" as const, keyCertSign: true, digitalSignature: true, critical: true },
  ];
  const clientExt = [
    { name: "basicConstraints" as const, cA: false },
    { name: "keyUsage" as const, digitalSignature: true, keyEncipherment: true },
    { name: "extKeyUsage" as const, clientAuth: true },
  ];
  const ca = await generate([{ name: "commonName", value: "test-ca" }], { keySize: 2048, algorithm: "sha256", extensions: caExt });
  const client = await generate(
    [
      { name: "commonName", value: "alice" },
      { name: "organizationName", value: "admins" },
      { name: "organizationName", value: "devs" },
    ],
    { keySize: 2048, algorithm: "sha256", ca: { key: ca.private, cert: ca.cert }, extensions: clientExt },
  );
  const otherCA = await generate([{ name: "commonName", value: "other-ca" }], { keySize: 2048, algorithm: "sha256", extensions: caExt });
  const stranger = await generate([{ name: "commonName", value: "mallory" }], { keySize: 2048, algorithm: "sha256", ca: { key: otherCA.private, cert: otherCA.cert }, extensions: clientExt });
  return { caCert: ca.cert, clientCert: client.cert, clientKey: client.private, strangerCert: stranger.cert, strangerKey: stranger.private };
}

const tokens: Record<string, { username: string; groups?: string[] }> = {
  "good-token": { username: "bob", groups: ["readers"] },
  "cache-token": { username: "carol" },
  "denied-token": { username: "eve" },
  "broken-authz-token": { username: "oops" },
};

describe("nodeagent servers", () => {
  let base: string;
  let pki: PKI;
  const view = new FakeView();
  const tokenReviews: TokenReviewSpec[] = [];
  const accessReviews: SubjectAccessReviewSpec[] = [];
  let nowMs = 1_000_000;
  let secure: RunningServers;
  let mainPort = 0;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "na-server-"));
    pki = await makePKI();
    await writeFile(join(base, "client-ca.crt"), pki.caCert);
    const logDir = join(base, "log");
    await mkdir(join(logDir, "pods"), { recursive: true });
    await writeFile(join(logDir, "syslog"), "boot ok\n");
    await writeFile(join(base, "secret.txt"), "top secret\n");
    await symlink(join(base, "secret.txt"), join(logDir, "escape"));
    const opts: ServerOptions = {
      address: "127.0.0.1",
      port: 0,
      readOnlyPort: "ephemeral",
      healthzBindAddress: "127.0.0.1",
      healthzPort: "ephemeral",
      enableServer: true,
      enableDebuggingHandlers: true,
      certDir: join(base, "pki"),
      anonymousAuth: false,
      clientCAFile: join(base, "client-ca.crt"),
      tokenWebhook: {
        cacheTTLMs: 120_000,
        review: async (spec) => {
          tokenReviews.push(spec);
          const user = tokens[spec.token];
          return user === undefined ? { authenticated: false } : { authenticated: true, user };
        },
      },
      authorization: {
        mode: "Webhook",
        cacheAuthorizedTTLMs: 300_000,
        cacheUnauthorizedTTLMs: 30_000,
        review: async (spec) => {
          accessReviews.push(spec);
          if (spec.user === "oops") throw new Error("apiserver unreachable");
          return spec.user === "eve" ? { allowed: false, reason: "eve may not" } : { allowed: true };
        },
      },
      configz: () => ({ kind: "NodeAgentConfiguration", port: 10250, syncFrequency: "1m0s" }),
      logDir,
      nowMs: () => nowMs,
    };
    secure = await startServers(opts, view);
    mainPort = secure.addresses.main!.port;
  });

  afterAll(async () => {
    await secure?.close();
    if (base !== undefined) await rm(base, { recursive: true, force: true });
  });

  const asBob = { headers: { Authorization: "Bearer good-token" } };

  describe("healthz port", () => {
    it("serves ping only, plain HTTP, no auth", async () => {
      const port = secure.addresses.healthz!.port;
      const r = await call(false, port, "/healthz");
      expect(r).toMatchObject({ status: 200, body: "ok" });
      expect(r.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(r.headers["x-content-type-options"]).toBe("nosniff");
      expect(await call(false, port, "/healthz?verbose")).toMatchObject({ status: 200, body: "[+]ping ok\nhealthz check passed\n" });
      expect(await call(false, port, "/healthz/ping")).toMatchObject({ status: 200, body: "ok" });
      expect(await call(false, port, "/healthz/syncloop")).toMatchObject({ status: 404, body: "404 page not found\n" });
      expect(await call(false, port, "/healthz/")).toMatchObject({ status: 404 });
      expect(await call(false, port, "/pods")).toMatchObject({ status: 404 });
    });
  });

  describe("read-only port", () => {
    it("serves /healthz, /pods, /spec/ without authentication", async () => {
      const port = secure.addresses.readOnly!.port;
      expect(await call(false, port, "/healthz")).toMatchObject({ status: 200, body: "ok" });
      const pods = await call(false, port, "/pods");
      expect(pods.status).toBe(200);
      expect(pods.headers["content-type"]).toBe("application/json");
      expect(JSON.parse(pods.body)).toEqual({ kind: "PodList", apiVersion: "v1", metadata: {}, items: [pod, followPod] });
      const spec = JSON.parse((await call(false, port, "/spec/")).body) as { num_cores: number; memory_capacity: number };
      expect(spec.num_cores).toBeGreaterThan(0);
      expect(spec.memory_capacity).toBeGreaterThan(0);
    });

    it("answers nothing else: debug paths 405, others 404", async () => {
      const port = secure.addresses.readOnly!.port;
      expect(await call(false, port, "/logs/")).toMatchObject({ status: 405, body: "Debug endpoints are disabled.\n" });
      expect(await call(false, port, "/containerLogs/default/web-node-1/app")).toMatchObject({ status: 405 });
      expect(await call(false, port, "/configz")).toMatchObject({ status: 404 });
      expect(await call(false, port, "/manifests", { method: "POST", body: "{}" })).toMatchObject({ status: 404 });
      expect(await call(false, port, "/nothing")).toMatchObject({ status: 404, body: "404 page not found\n" });
    });
  });

  describe("main port authentication", () => {
    it("uses a generated certificate from the cert dir that verifies for the node name", async () => {
      const certPEM = await readFile(join(base, "pki", "nodeagent.crt"), "utf8");
      expect(certPEM.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
      const ca = certPEM.slice(certPEM.lastIndexOf("-----BEGIN CERTIFICATE-----"));
      expect(await call(true, mainPort, "/pods", { ...asBob, ca, servername: "node-1" })).toMatchObject({ status: 200 });
    });

    it("401s without credentials (anonymous disabled), with a wrong token and an untrusted certificate", async () => {
      expect(await call(true, mainPort, "/pods")).toMatchObject({ status: 401, body: "Unauthorized" });
      expect(await call(true, mainPort, "/healthz")).toMatchObject({ status: 401, body: "Unauthorized" });
      expect(await call(true, mainPort, "/pods", { headers: { Authorization: "Bearer wrong" } })).toMatchObject({ status: 401, body: "Unauthorized" });
      expect(await call(true, mainPort, "/pods", { cert: pki.strangerCert, key: pki.strangerKey })).toMatchObject({ status: 401, body: "Unauthorized" });
    });

    it("accepts a client certificate signed by the client CA (user CN, groups O)", async () => {
      const before = accessReviews.length;
      const r = await call(true, mainPort, "/pods", { cert: pki.clientCert, key: pki.clientKey });
      expect(r.status).toBe(200);
      expect(accessReviews.slice(before)).toEqual([
        {
          resourceAttributes: { verb: "get", version: "v1", resource: "nodes", subresource: "proxy", name: "node-1" },
          user: "alice",
          groups: ["admins", "devs", "system:authenticated"],
        },
      ]);
    });

    it("reviews a token once per cache TTL", async () => {
      const asCarol = { headers: { Authorization: "Bearer cache-token" } };
      const count = (): number => tokenReviews.filter((t) => t.token === "cache-token").length;
      expect(await call(true, mainPort, "/pods", asCarol)).toMatchObject({ status: 200 });
      expect(await call(true, mainPort, "/pods", asCarol)).toMatchObject({ status: 200 });
      expect(count()).toBe(1);
      nowMs += 120_000;
      expect(await call(true, mainPort, "/pods", asCarol)).toMatchObject({ status: 200 });
      expect(await call(true, mainPort, "/pods", asCarol)).toMatchObject({ status: 200 });
      expect(count()).toBe(2);
    });
  });

  describe("main port authorization", () => {
    it("403s with the kubelet's message and caches the denial for the unauthorized TTL", async () => {
      const eve = { headers: { Authorization: "Bearer denied-token" } };
      const count = (): number => accessReviews.filter((a) => a.user === "eve").length;
      expect(await call(true, mainPort, "/logs/", eve)).toMatchObject({ status: 403, body: "Forbidden (user=eve, verb=get, resource=nodes, subresource=log)" });
      expect(await call(true, mainPort, "/logs/", eve)).toMatchObject({ status: 403 });
      expect(count()).toBe(1);
      nowMs += 30_000;
      expect(await call(true, mainPort, "/logs/", eve)).toMatchObject({ status: 403 });
      expect(count()).toBe(2);
      expect(await call(true, mainPort, "/manifests", { ...eve, method: "POST", body: "{}" })).toMatchObject({ status: 403, body: "Forbidden (user=eve, verb=create, resource=nodes, subresource=proxy)" });
    });

    it("caches an allowed answer for the authorized TTL", async () => {
      const count = (): number => accessReviews.filter((a) => a.user === "bob" && a.resourceAttributes?.subresource === "spec").length;
      expect(await call(true, mainPort, "/spec/", asBob)).toMatchObject({ status: 200 });
      nowMs += 299_000;
      expect(await call(true, mainPort, "/spec/", asBob)).toMatchObject({ status: 200 });
      expect(count()).toBe(1);
    });

    it("500s when the authorizer fails", async () => {
      expect(await call(true, mainPort, "/pods", { headers: { Authorization: "Bearer broken-authz-token" } })).toMatchObject({
        status: 500,
        body: "Authorization error (user=oops, verb=get, resource=nodes, subresource=proxy)",
      });
    });
  });

  describe("streaming endpoints", () => {
    let fake: NetServer;
    const seen: string[] = [];
    beforeAll(async () => {
      // A streaming server that switches protocols and echoes every byte back, upper-cased.
      fake = createNetServer((sock) => {
        let head = "";
        let switched = false;
        sock.on("data", (d: Buffer) => {
          if (switched) return void sock.write(d.toString().toUpperCase());
          head += d.toString("latin1");
          const end = head.indexOf("\r\n\r\n");
          if (end < 0) return;
          seen.push(head.slice(0, end));
          switched = true;
          sock.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n");
          const rest = head.slice(end + 4);
          if (rest !== "") sock.write(rest.toUpperCase());
        });
        sock.on("error", () => sock.destroy());
      });
      await new Promise<void>((r) => fake.listen(0, "127.0.0.1", r));
      view.streamingURL = `http://127.0.0.1:${(fake.address() as { port: number }).port}/`;
    });
    afterAll(async () => {
      await new Promise((r) => fake.close(r));
    });

    it("refuses what it cannot serve with the kubelet's answers", async () => {
      expect(await call(true, mainPort, "/exec/default/web-node-1/app?command=ls", { ...asBob, method: "POST" })).toMatchObject({ status: 400, body: "you must specify at least 1 of stdin, stdout, stderr" });
      expect(await call(true, mainPort, "/exec/default/nope/app?output=1", { ...asBob, method: "POST" })).toMatchObject({ status: 404, body: "pod does not exist" });
      expect(await call(true, mainPort, "/exec/default/web-node-1/missing?output=1", { ...asBob, method: "POST" })).toMatchObject({ status: 500, body: 'container not found ("missing")' });
      expect(await call(true, mainPort, "/exec/default/web-node-1/app?output=1", { ...asBob, method: "POST" })).toMatchObject({ status: 500, body: "Upgrade request required\n" });
      expect(await call(true, mainPort, "/exec/default/web-node-1", { ...asBob, method: "POST" })).toMatchObject({ status: 404 });
      expect(await call(true, mainPort, "/portForward/default/web-node-1?port=http", { ...asBob, method: "POST" })).toMatchObject({ status: 400 });
      expect(await call(true, mainPort, "/portForward/default/web-node-1/other-uid", { ...asBob, method: "POST" })).toMatchObject({ status: 404, body: "pod not found" });
    });

    it("/run answers the command's output, or the failure as 500", async () => {
      expect(await call(true, mainPort, "/run/default/web-node-1/app?cmd=echo%20hi", { ...asBob, method: "POST" })).toMatchObject({ status: 200, body: 'ran in app: ["echo","hi"]', headers: { "content-type": "application/json" } });
      expect(await call(true, mainPort, "/run/default/web-node-1/app?cmd=false", { ...asBob, method: "POST" })).toMatchObject({ status: 500, body: "command 'false' exited with 1: " });
    });

    it("authenticates and authorizes an upgrade before any stream opens", async () => {
      const before = seen.length;
      expect(await upgradeCall(mainPort, "/exec/default/web-node-1/app?output=1&command=ls", {})).toMatchObject({ status: 401, body: "Unauthorized" });
      expect(await upgradeCall(mainPort, "/exec/default/web-node-1/app?output=1&command=ls", { Authorization: "Bearer denied-token" })).toMatchObject({
        status: 403,
        body: "Forbidden (user=eve, verb=create, resource=nodes, subresource=proxy)",
      });
      expect(seen.length).toBe(before);
    });

    it("proxies an authorized upgrade to the runtime's streaming URL, without the client's credentials", async () => {
      const r = await upgradeCall(mainPort, "/exec/default/web-node-1/app?output=1&error=1&tty=1&command=sh&command=-c&command=echo%20a", { Authorization: "Bearer good-token" });
      expect(r.status).toBe(101);
      expect(view.execCalls.at(-1)).toEqual({ container: "app", cmd: ["sh", "-c", "echo a"], opts: { stdin: false, stdout: true, stderr: false, tty: true } });
      const socket = r.socket!;
      const echoed = await new Promise<string>((resolve) => {
        socket.once("data", (d: Buffer) => resolve(d.toString()));
        socket.write("frame bytes");
      });
      expect(echoed).toBe("FRAME BYTES");
      socket.destroy();
      const head = seen.at(-1) ?? "";
      expect(head.split("\r\n")[0]).toBe("POST /exec/tok123 HTTP/1.1");
      expect(head).toMatch(/\r\nUpgrade: SPDY\/3\.1/);
      expect(head).toMatch(/\r\nX-Stream-Protocol-Version: v4\.channel\.k8s\.io/);
      expect(head.toLowerCase()).not.toContain("authorization");
      expect(accessReviews.some((a) => a.user === "bob" && a.resourceAttributes?.verb === "create" && a.resourceAttributes.subresource === "proxy")).toBe(true);
    });

    it("proxies port-forward and attach the same way", async () => {
      const pf = await upgradeCall(mainPort, "/portForward/default/web-node-1", { Authorization: "Bearer good-token" });
      expect(pf.status).toBe(101);
      pf.socket?.destroy();
      expect(seen.at(-1)?.split("\r\n")[0]).toBe("POST /portforward/tok789?ports= HTTP/1.1");
      const at = await upgradeCall(mainPort, "/attach/default/web-node-1/u1/app?output=1", { Authorization: "Bearer good-token" });
      expect(at.status).toBe(101);
      at.socket?.destroy();
      expect(seen.at(-1)?.split("\r\n")[0]).toBe("POST /attach/tok456 HTTP/1.1");
    });
  });

  describe("main port endpoints", () => {
    it("/healthz runs the agent's checks", async () => {
      expect(await call(true, mainPort, "/healthz?verbose", asBob)).toMatchObject({ status: 200, body: "[+]ping ok\n[+]syncloop ok\nhealthz check passed\n" });
      view.syncLoopHealthy = false;
      try {
        expect(await call(true, mainPort, "/healthz", asBob)).toMatchObject({ status: 500, body: "[+]ping ok\n[-]syncloop failed: reason withheld\nhealthz check failed\n" });
        expect(await call(true, mainPort, "/healthz/syncloop", asBob)).toMatchObject({ status: 500, body: "internal server error: sync loop stalled\n" });
      } finally {
        view.syncLoopHealthy = true;
      }
    });

    it("/configz and /runningpods/", async () => {
      const r = await call(true, mainPort, "/configz", asBob);
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body)).toEqual({ nodeagentconfig: { kind: "NodeAgentConfiguration", port: 10250, syncFrequency: "1m0s" } });
      expect(JSON.parse((await call(true, mainPort, "/runningpods/", asBob)).body)).toEqual({ kind: "PodList", apiVersion: "v1", metadata: {}, items: null });
    });

    it("/logs/ lists and serves files but never leaves the log directory", async () => {
      const listing = await call(true, mainPort, "/logs/", asBob);
      expect(listing).toMatchObject({ status: 200, body: '<pre>\n<a href="escape">escape</a>\n<a href="pods/">pods/</a>\n<a href="syslog">syslog</a>\n</pre>\n' });
      expect(await call(true, mainPort, "/logs/syslog", asBob)).toMatchObject({ status: 200, body: "boot ok\n" });
      expect(await call(true, mainPort, "/logs", asBob)).toMatchObject({ status: 301 });
      expect(await call(true, mainPort, "/logs/pods", asBob)).toMatchObject({ status: 301, headers: expect.objectContaining({ location: "pods/" }) });
      for (const path of ["/logs/../secret.txt", "/logs/%2e%2e/secret.txt", "/logs/pods/..%2f..%2fsecret.txt"]) {
        const r = await call(true, mainPort, path, asBob);
        expect(r.status, path).toBe(400);
        expect(r.body).not.toContain("top secret");
      }
      expect(await call(true, mainPort, "/logs/escape", asBob)).toMatchObject({ status: 404 });
    });

    it("/containerLogs passes validated parameters to the view", async () => {
      const r = await call(true, mainPort, "/containerLogs/default/web-node-1/app?follow=true&tailLines=5&previous=false&timestamps=1&sinceSeconds=60&limitBytes=100", asBob);
      expect(r).toMatchObject({ status: 200, body: "line 1\nline 2\n" });
      expect(view.logCalls.at(-1)).toEqual({ ns: "default", pod: "web-node-1", container: "app", opts: { follow: true, tailLines: 5, previous: false, timestamps: true, sinceSeconds: 60, limitBytes: 100 } });
      expect(await call(true, mainPort, "/containerLogs/default/web-node-1/app?tailLines=x", asBob)).toMatchObject({ status: 400, body: `{"message": "Unable to decode query."}` });
      expect(await call(true, mainPort, "/containerLogs/default/web-node-1/app?tailLines=-1", asBob)).toMatchObject({ status: 422, body: `{"message": "Invalid request."}` });
      expect(await call(true, mainPort, "/containerLogs/default/nope/app", asBob)).toMatchObject({ status: 404, body: 'pod "nope" does not exist' });
      expect(await call(true, mainPort, "/containerLogs/default/web-node-1/zzz", asBob)).toMatchObject({ status: 404, body: 'container "zzz" not found in pod "web-node-1"' });
      expect(await call(true, mainPort, "/containerLogs/default/web-node-1/gone?previous=true", asBob)).toMatchObject({ status: 404 });
      expect(await call(true, mainPort, "/containerLogs/default/web-node-1/weird", asBob)).toMatchObject({ status: 400, body: 'container "weird" is waiting to start' });
      expect(await call(true, mainPort, "/containerLogs/default//app", asBob)).toMatchObject({ status: 400, body: `{"message": "Missing podID."}` });
    });

    it("a followed log streams until the client goes away, then the view's stream is destroyed", async () => {
      const firstChunk = await new Promise<string>((resolve, reject) => {
        const req = httpsRequest({ host: "127.0.0.1", port: mainPort, path: "/containerLogs/follow/tail/app?follow=true", headers: asBob.headers, rejectUnauthorized: false, agent: false });
        req.on("response", (res) => {
          res.once("data", (chunk: Buffer) => {
            resolve(chunk.toString("utf8"));
            req.destroy();
          });
        });
        req.on("error", () => undefined);
        req.on("close", () => reject(new Error("closed before data")));
        req.end();
      });
      expect(firstChunk).toBe("first\n");
      const stream = view.followStreams.at(-1)!;
      if (!stream.destroyed) await new Promise((resolve) => stream.once("close", resolve));
      expect(stream.destroyed).toBe(true);
    });

    it("the manifest API adds and removes pods", async () => {
      const yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: extra\nspec:\n  containers:\n  - name: c\n    image: busybox\n";
      const created = await call(true, mainPort, "/manifests", { ...asBob, method: "POST", body: yaml, headers: { ...asBob.headers, "Content-Type": "application/yaml" } });
      expect(created.status).toBe(201);
      expect(JSON.parse(created.body)).toMatchObject({ kind: "Pod", metadata: { name: "extra-node-1", namespace: "default" } });
      expect(accessReviews.some((a) => a.user === "bob" && a.resourceAttributes?.verb === "create" && a.resourceAttributes.subresource === "proxy")).toBe(true);
      const pods = JSON.parse((await call(true, mainPort, "/pods", asBob)).body) as { items: Pod[] };
      expect(pods.items.map((p) => p.metadata?.name)).toEqual(["web-node-1", "tail", "extra-node-1"]);
      const bad = await call(true, mainPort, "/manifests", { ...asBob, method: "POST", body: '{"kind":"Service"}', headers: { ...asBob.headers, "Content-Type": "application/json" } });
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.body)).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400, details: { causes: [{ message: "kind: Required value: a Pod" }] } });
      expect((await call(true, mainPort, "/manifests", { ...asBob, method: "POST" })).status).toBe(400);
      const deleted = await call(true, mainPort, "/manifests/default/extra-node-1", { ...asBob, method: "DELETE" });
      expect(deleted.status).toBe(200);
      expect(JSON.parse(deleted.body)).toMatchObject({ kind: "Status", status: "Success" });
      const again = await call(true, mainPort, "/manifests/default/extra-node-1", { ...asBob, method: "DELETE" });
      expect(again.status).toBe(404);
      expect(JSON.parse(again.body)).toMatchObject({ reason: "NotFound", message: 'pods "extra-node-1" not found' });
    });
  });
});

describe("nodeagent servers: anonymous, debugging off, TLS settings", () => {
  let base: string;
  const view = new FakeView();
  const running: RunningServers[] = [];
  const baseOpts = async (over: Partial<ServerOptions>): Promise<ServerOptions> => ({
    address: "127.0.0.1",
    port: "ephemeral",
    readOnlyPort: 0,
    healthzBindAddress: "127.0.0.1",
    healthzPort: 0,
    enableServer: true,
    enableDebuggingHandlers: false,
    certDir: join(base, "pki"),
    anonymousAuth: true,
    authorization: { mode: "AlwaysAllow" },
    configz: () => ({}),
    logDir: base,
    ...over,
  });

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "na-server2-"));
  });
  afterAll(async () => {
    for (const r of running) await r.close();
    if (base !== undefined) await rm(base, { recursive: true, force: true });
  });

  it("anonymous requests pass AlwaysAllow, a bad token does not become anonymous, disabled ports stay closed", async () => {
    const s = await startServers(await baseOpts({ tokenWebhook: { cacheTTLMs: 1000, review: async () => ({ authenticated: false }) } }), view);
    running.push(s);
    expect(s.addresses.readOnly).toBeUndefined();
    expect(s.addresses.healthz).toBeUndefined();
    const port = s.addresses.main!.port;
    expect(await call(true, port, "/pods")).toMatchObject({ status: 200 });
    expect(await call(true, port, "/pods", { headers: { Authorization: "Bearer bad" } })).toMatchObject({ status: 401, body: "Unauthorized" });
  });

  it("closes a stream after --streaming-connection-idle-timeout without a byte either way", async () => {
    // A streaming server that switches protocols and then stays silent.
    const silent = createNetServer((sock) => {
      sock.once("data", () => sock.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n"));
      sock.on("error", () => sock.destroy());
    });
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const idleView = new FakeView();
    idleView.streamingURL = `http://127.0.0.1:${(silent.address() as { port: number }).port}/`;
    try {
      const s = await startServers(await baseOpts({ enableDebuggingHandlers: true, idleTimeoutMs: 1000 }), idleView);
      running.push(s);
      const r = await upgradeCall(s.addresses.main!.port, "/exec/default/web-node-1/app?output=1&command=sleep", {});
      expect(r.status).toBe(101);
      const socket = r.socket!;
      // Traffic keeps it open past the limit...
      for (let i = 0; i < 15; i++) {
        await new Promise((res) => setTimeout(res, 100));
        socket.write("x");
      }
      expect(socket.destroyed).toBe(false);
      // ...silence closes it.
      await new Promise<void>((res) => socket.once("close", () => res()));
    } finally {
      await new Promise((r) => silent.close(r));
    }
  });

  it("debugging handlers off: 405 for the debug paths, 404 for /configz", async () => {
    const s = await startServers(await baseOpts({}), view);
    running.push(s);
    const port = s.addresses.main!.port;
    for (const path of ["/logs/", "/logs/syslog", "/containerLogs/default/web-node-1/app", "/runningpods/", "/exec/a/b/c"]) {
      expect(await call(true, port, path), path).toMatchObject({ status: 405, body: "Debug endpoints are disabled.\n" });
    }
    expect(await call(true, port, "/configz")).toMatchObject({ status: 404 });
    expect(await call(true, port, "/pods")).toMatchObject({ status: 200 });
  });

  it("enableSystemLogHandler false: /logs/ answers 405 'logs endpoint is disabled.', other debug paths stay", async () => {
    const s = await startServers(await baseOpts({ enableDebuggingHandlers: true, enableSystemLogHandler: false }), view);
    running.push(s);
    const port = s.addresses.main!.port;
    for (const path of ["/logs/", "/logs/syslog"]) {
      expect(await call(true, port, path), path).toMatchObject({ status: 405, body: "logs endpoint is disabled.\n" });
    }
    expect(await call(true, port, "/logs")).toMatchObject({ status: 301 });
    expect(await call(true, port, "/runningpods/")).toMatchObject({ status: 200 });
  });

  it("enableProfilingHandler / enableDebugFlagsHandler false: 405 with 1.23's texts", async () => {
    const s = await startServers(await baseOpts({ enableDebuggingHandlers: true, enableProfilingHandler: false, enableDebugFlagsHandler: false, setVerbosity: () => {} }), view);
    running.push(s);
    const port = s.addresses.main!.port;
    expect(await call(true, port, "/debug/pprof/profile?seconds=2")).toMatchObject({ status: 405, body: "profiling endpoint is disabled.\n" });
    expect(await call(true, port, "/debug/flags/v", { method: "PUT", body: "4" })).toMatchObject({ status: 405, body: "flags endpoint is disabled.\n" });
  });

  it("enableProfilingHandler (default): /debug/pprof/ serves a V8 CPU profile, a heap snapshot and the command line; Go-only profiles 404", async () => {
    const s = await startServers(await baseOpts({ enableDebuggingHandlers: true }), view);
    running.push(s);
    const port = s.addresses.main!.port;
    const index = await call(true, port, "/debug/pprof/");
    expect(index.status).toBe(200);
    expect(index.body).toContain("profile");
    expect(await call(true, port, "/debug/pprof")).toMatchObject({ status: 301 });
    const profile = await call(true, port, "/debug/pprof/profile?seconds=1");
    expect(profile.status).toBe(200);
    const cpu = JSON.parse(profile.body) as { nodes: unknown[]; startTime: number; endTime: number };
    expect(cpu.nodes.length).toBeGreaterThan(0);
    expect(cpu.endTime - cpu.startTime).toBeGreaterThanOrEqual(900_000); // microseconds
    const heap = await call(true, port, "/debug/pprof/heap");
    expect(heap.status).toBe(200);
    expect((JSON.parse(heap.body) as { snapshot: { node_count: number } }).snapshot.node_count).toBeGreaterThan(0);
    const cmdline = await call(true, port, "/debug/pprof/cmdline");
    expect(cmdline).toMatchObject({ status: 200, body: process.argv.join("\x00") });
    expect(await call(true, port, "/debug/pprof/goroutine")).toMatchObject({ status: 404, body: "Unknown profile\n" });
    expect(await call(true, port, "/debug/pprof/profile?seconds=999999")).toMatchObject({ status: 400, body: "profile duration exceeds server's WriteTimeout\n" });
  });

  it("PUT /debug/flags/v sets the verbosity, as 1.23's StringFlagPutHandler(GlogSetter)", async () => {
    const levels: number[] = [];
    const s = await startServers(await baseOpts({ enableDebuggingHandlers: true, setVerbosity: (l) => levels.push(l) }), view);
    running.push(s);
    const port = s.addresses.main!.port;
    expect(await call(true, port, "/debug/flags/v", { method: "PUT", body: "4" })).toMatchObject({ status: 200, body: "successfully set klog.logging.verbosity to 4\n" });
    expect(await call(true, port, "/debug/flags/v", { method: "PUT", body: "x" })).toMatchObject({
      status: 400,
      body: 'failed set klog.logging.verbosity x: strconv.ParseInt: parsing "x": invalid syntax\n',
    });
    expect(await call(true, port, "/debug/flags/v")).toMatchObject({ status: 406, body: "unsupported http method\n" });
    expect(levels).toEqual([4]);
  });

  it("refuses clients below --tls-min-version", async () => {
    const s = await startServers(await baseOpts({ tlsMinVersion: "VersionTLS13" }), view);
    running.push(s);
    const port = s.addresses.main!.port;
    expect(await call(true, port, "/pods")).toMatchObject({ status: 200, cipher: expect.stringMatching(/^TLS_/) });
    await expect(call(true, port, "/pods", { maxVersion: "TLSv1.2" })).rejects.toThrow();
  });

  it("offers only the configured TLS 1.2 cipher suites", async () => {
    const s = await startServers(await baseOpts({ tlsCipherSuites: ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"] }), view);
    running.push(s);
    const port = s.addresses.main!.port;
    expect(await call(true, port, "/pods", { maxVersion: "TLSv1.2" })).toMatchObject({ status: 200, cipher: "ECDHE-RSA-AES128-GCM-SHA256" });
    await expect(call(true, port, "/pods", { maxVersion: "TLSv1.2", ciphers: "ECDHE-RSA-AES256-GCM-SHA384" })).rejects.toThrow();
  });

  it("fails to start on bad settings with a typed error", async () => {
    await expect(startServers(await baseOpts({ tlsCipherSuites: ["TLS_NOPE"] }), view)).rejects.toMatchObject({ name: "ServerStartError", code: "InvalidTLSConfig" });
    // Known to Go but not offered by OpenSSL 3: a clear start-up error instead of a server nobody can reach.
    await expect(startServers(await baseOpts({ tlsCipherSuites: ["TLS_RSA_WITH_RC4_128_SHA"] }), view)).rejects.toMatchObject({ code: "InvalidTLSConfig" });
    await expect(startServers(await baseOpts({ anonymousAuth: false }), view)).rejects.toThrow(new ServerStartError("NoAuthentication", "No authentication method configured"));
    await expect(startServers(await baseOpts({ clientCAFile: join(base, "missing.crt") }), view)).rejects.toMatchObject({ code: "InvalidTLSConfig" });
    const s = await startServers(await baseOpts({ enableServer: false, readOnlyPort: "ephemeral" }), view);
    running.push(s);
    expect(s.addresses.main).toBeUndefined();
    await expect(startServers(await baseOpts({ enableServer: false, readOnlyPort: s.addresses.readOnly!.port }), view)).rejects.toMatchObject({ code: "Listen" });
  });
});
