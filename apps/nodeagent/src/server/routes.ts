/**
 * The handlers of the three servers, installed on Fastify instances: the healthz server (`ping`
 * only, as the kubelet's), the read-only server and the authenticated main server.
 * @see pkg/kubelet/server/server.go (InstallDefaultHandlers, InstallDebuggingHandlers, InstallDebuggingDisabledHandlers) in kubernetes/kubernetes v1.23
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { TLSSocket } from "node:tls";
import type { Pod } from "@skiff/api-types";
import { newBadRequest, newNotFound } from "@skiff/apimachinery";
import { formatGoQuoted } from "@skiff/flags";
import type { AgentView, HealthCheck } from "../agent-view.js";
import { serveHealthz, serveHealthzCheck, withPing, pingCheck } from "./healthz.js";
import { readMachineInfo } from "./machine-info.js";
import { resolveLogPath } from "./log-files.js";
import { parseContainerLogQuery } from "./container-log-query.js";
import { installProfilingHandler } from "./pprof.js";
import { formatAuthorizationErrorMessage, formatForbiddenMessage, getRequestAttributes } from "./authz.js";
import type { AuthorizationDecision, RequestAttributes } from "./authz.js";
import type { AuthenticationResult, RequestCredentials } from "./authn.js";
import type { ServerLogger } from "./server-options.js";
import { installStatsRoutes, type StatsEndpoints } from "./stats-routes.js";
import { installStreamingRoutes } from "./streaming-routes.js";
import type { StreamLimits } from "./upgrade.js";

const textPlain = "text/plain; charset=utf-8";

/** Go's `http.Error`: text, `nosniff`, newline-terminated. */
function sendGoError(reply: FastifyReply, statusCode: number, message: string): FastifyReply {
  return reply.code(statusCode).header("Content-Type", textPlain).header("X-Content-Type-Options", "nosniff").send(`${message}\n`);
}

/** component-base's `writePlainText` (routes/flags.go): the text and a newline, `text/plain`. */
function sendPlainText(reply: FastifyReply, statusCode: number, text: string): FastifyReply {
  return reply.code(statusCode).header("Content-Type", "text/plain").header("X-Content-Type-Options", "nosniff").send(`${text}\n`);
}

/** Go's `strconv.ParseInt(s, 10, 32)`: the value, or the error text (`strconv.ParseInt: parsing "x": invalid syntax`). */
function parseGoInt32(s: string): number | string {
  const fail = (why: string): string => `strconv.ParseInt: parsing ${formatGoQuoted(s)}: ${why}`;
  if (!/^[+-]?\d+$/.test(s)) return fail("invalid syntax");
  const n = Number(s);
  if (n < -2147483648 || n > 2147483647) return fail("value out of range");
  return n;
}

/** go-restful's `WriteErrorString`: the bare text. */
function sendRestfulError(reply: FastifyReply, statusCode: number, message: string): FastifyReply {
  return reply.code(statusCode).header("Content-Type", textPlain).send(message);
}

function sendJSON(reply: FastifyReply, statusCode: number, body: unknown): FastifyReply {
  // A Buffer, so Fastify does not append a charset: the kubelet sends bare `application/json`.
  return reply.code(statusCode).header("Content-Type", "application/json").send(Buffer.from(JSON.stringify(body)));
}

/** The raw request path (percent-encoded, no query) and its query parameters. */
function splitURL(req: FastifyRequest): { rawPath: string; query: URLSearchParams } {
  const url = req.raw.url ?? "/";
  const q = url.indexOf("?");
  return q < 0 ? { rawPath: url, query: new URLSearchParams() } : { rawPath: url.slice(0, q), query: new URLSearchParams(url.slice(q + 1)) };
}

function decodePath(rawPath: string): string | undefined {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    return undefined;
  }
}

/** `{"kind":"PodList",...}`; `items` is `null` when there are no pods, as the kubelet encodes it. */
export function formatPodList(pods: readonly Pod[]): unknown {
  return { kind: "PodList", apiVersion: "v1", metadata: {}, items: pods.length === 0 ? null : pods };
}

/** Common behaviour of every server: Go's 404 text, bodies read as text for the manifest API. */
export function installCommon(app: FastifyInstance, bodyLimitBytes: number): void {
  app.setNotFoundHandler((_req, reply) => sendGoError(reply, 404, "404 page not found"));
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit: bodyLimitBytes }, (_req, body, done) => done(null, body));
  app.setErrorHandler((err: { statusCode?: number; message?: string }, _req, reply) => {
    const code = typeof err.statusCode === "number" && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    return sendGoError(reply, code, code === 500 ? "Internal Server Error" : (err.message ?? "error"));
  });
}

function installHealthz(app: FastifyInstance, checks: () => readonly HealthCheck[], log: ServerLogger): void {
  app.get("/healthz", async (req, reply) => {
    const answer = await serveHealthz(checks(), splitURL(req).query, (name, err) => log.info("healthz check failed", { check: name, err: err.message }));
    if (answer.statusCode !== 200) return sendGoError(reply, answer.statusCode, answer.body.replace(/\n$/, ""));
    return reply.code(200).header("Content-Type", textPlain).header("X-Content-Type-Options", "nosniff").send(answer.body);
  });
  app.get("/healthz/:name", async (req, reply) => {
    const name = (req.params as { name: string }).name;
    const answer = await serveHealthzCheck(checks(), name);
    if (answer === undefined) return sendGoError(reply, 404, "404 page not found");
    if (answer.statusCode !== 200) return sendGoError(reply, answer.statusCode, answer.body.replace(/\n$/, ""));
    return reply.code(200).header("Content-Type", textPlain).send(answer.body);
  });
}

/** The healthz server: `/healthz` and `/healthz/ping`, nothing else. */
export function installHealthzServer(app: FastifyInstance, log: ServerLogger): void {
  installHealthz(app, () => [pingCheck], log);
}

const debugPaths = ["/run", "/exec", "/attach", "/portForward", "/containerLogs", "/runningpods", "/debug/pprof", "/logs"];

function installDebuggingDisabled(app: FastifyInstance): void {
  for (const p of debugPaths) {
    for (const path of [p, `${p}/*`]) app.all(path, async (_req, reply) => sendGoError(reply, 405, "Debug endpoints are disabled."));
  }
}

function installDefault(app: FastifyInstance, view: AgentView, log: ServerLogger, stats?: StatsEndpoints): void {
  installHealthz(app, () => withPing(view.healthChecks()), log);
  if (stats) installStatsRoutes(app, stats, log);
  app.get("/pods", async (_req, reply) => sendJSON(reply, 200, formatPodList(view.listPods())));
  for (const path of ["/spec", "/spec/"]) app.get(path, async (_req, reply) => sendJSON(reply, 200, await readMachineInfo()));
}

/** The read-only server: `/healthz`, `/pods`, `/spec/`; debugging paths answer 405. No authentication. */
export function installReadOnlyServer(app: FastifyInstance, view: AgentView, log: ServerLogger, stats?: StatsEndpoints): void {
  installDefault(app, view, log, stats);
  installDebuggingDisabled(app);
}

/** What the main server needs besides the view. */
export interface MainServerDeps {
  readonly view: AgentView;
  readonly log: ServerLogger;
  readonly authenticate: (creds: RequestCredentials) => Promise<AuthenticationResult>;
  readonly authorize: (attrs: RequestAttributes) => Promise<AuthorizationDecision>;
  readonly clientCertificates: boolean;
  readonly enableDebuggingHandlers: boolean;
  /**
   * `enableSystemLogHandler`: serve `/logs/` (with debugging handlers on); off answers 405
   * `logs endpoint is disabled.`, as 1.23's `InstallSystemLogHandler(false)`. @defaultValue true
   */
  readonly enableSystemLogHandler?: boolean;
  /**
   * `enableProfilingHandler` (with debugging handlers on): true serves V8 profiles under `/debug/pprof/`
   * (see pprof.ts); false answers `/debug/pprof/` with 405
   * `profiling endpoint is disabled.`, as 1.23.
   * @defaultValue true
   */
  readonly enableProfilingHandler?: boolean;
  /**
   * `enableDebugFlagsHandler` (with debugging handlers on): `PUT /debug/flags/v` sets the log
   * verbosity through {@link setVerbosity}; false answers 405 `flags endpoint is disabled.`, as 1.23.
   * @defaultValue true
   */
  readonly enableDebugFlagsHandler?: boolean;
  /** Sets the `-v` level of the agent's loggers (`PUT /debug/flags/v`); absent: the path is not served. */
  readonly setVerbosity?: (level: number) => void;
  readonly configz: () => unknown;
  readonly logDir: string;
  readonly nowMs: () => number;
  /** `/stats/summary`, `/metrics*`; absent: not served. */
  readonly stats?: StatsEndpoints;
  /** Limits of `/exec`, `/attach`, `/portForward` streams (`--streaming-connection-idle-timeout`, 4 h). */
  readonly streamLimits: StreamLimits;
}

function asArray(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

function credentialsOf(req: FastifyRequest, clientCertificates: boolean): RequestCredentials {
  const authorization = req.headers.authorization;
  let clientCertificate: RequestCredentials["clientCertificate"];
  if (clientCertificates) {
    const socket = req.raw.socket as TLSSocket;
    const cert = typeof socket.getPeerCertificate === "function" ? socket.getPeerCertificate() : undefined;
    if (cert !== undefined && cert !== null && Object.keys(cert).length > 0) {
      const subject = (cert.subject ?? {}) as unknown as Record<string, string | string[] | undefined>;
      const cn = asArray(subject["CN"])[0];
      clientCertificate = {
        trusted: socket.authorized,
        ...(socket.authorizationError !== undefined && socket.authorizationError !== null ? { verifyError: String(socket.authorizationError) } : {}),
        ...(cn !== undefined ? { commonName: cn } : {}),
        organizations: asArray(subject["O"]),
      };
    }
  }
  return { ...(authorization !== undefined ? { authorization } : {}), ...(clientCertificate !== undefined ? { clientCertificate } : {}) };
}

function findPod(view: AgentView, namespace: string, name: string): Pod | undefined {
  return view.listPods().find((p) => (p.metadata?.namespace ?? "default") === namespace && p.metadata?.name === name);
}

function podHasContainer(pod: Pod, container: string): boolean {
  const spec = pod.spec;
  const all = [...(spec?.containers ?? []), ...(spec?.initContainers ?? []), ...(spec?.ephemeralContainers ?? [])];
  return all.some((c) => c.name === container);
}

function isContainerLogError(err: unknown): err is { code: "NotFound" | "BadRequest"; message: string } {
  return typeof err === "object" && err !== null && (err as { name?: unknown }).name === "ContainerLogError";
}

/**
 * The main server. Every request is authenticated (401 `Unauthorized`) and authorized
 * (403 `Forbidden (...)`, 500 `Authorization error (...)`) first, then served:
 * `/healthz`, `/pods`, `/spec/`, the manifest API (`POST /manifests`, `DELETE /manifests/{ns}/{name}`),
 * and with debugging handlers `/configz`, `/runningpods/`, `/logs/`, `/containerLogs/...`,
 * `/exec/...`, `/attach/...`, `/portForward/...`, `/run/...` (streaming-routes.ts) (without them those answer 405 `Debug endpoints are disabled.`, `/configz` 404).
 */
export function installMainServer(app: FastifyInstance, deps: MainServerDeps): void {
  const { view, log } = deps;
  app.addHook("onRequest", async (req, reply) => {
    const result = await deps.authenticate(credentialsOf(req, deps.clientCertificates));
    if (result.kind !== "ok") {
      if (result.kind === "error") log.info("Unable to authenticate the request due to an error", { err: result.message });
      return sendRestfulError(reply, 401, "Unauthorized");
    }
    const path = decodePath(splitURL(req).rawPath) ?? splitURL(req).rawPath;
    const attrs = getRequestAttributes(result.user, req.method, path, view.nodeName);
    let decision: AuthorizationDecision;
    try {
      decision = await deps.authorize(attrs);
    } catch (err) {
      const msg = formatAuthorizationErrorMessage(attrs);
      log.error(msg, { err: err instanceof Error ? err.message : String(err) });
      return sendRestfulError(reply, 500, msg);
    }
    if (decision.kind !== "allow") return sendRestfulError(reply, 403, formatForbiddenMessage(attrs));
    return undefined;
  });

  installDefault(app, view, log, deps.stats);
  installManifestAPI(app, view);

  if (!deps.enableDebuggingHandlers) {
    installDebuggingDisabled(app);
    return;
  }
  app.get("/configz", async (_req, reply) => sendJSON(reply, 200, { nodeagentconfig: deps.configz() }));
  installStreamingRoutes(app, { view, limits: deps.streamLimits });
  app.get("/runningpods/", async (_req, reply) => sendJSON(reply, 200, formatPodList(await view.listRunningPods())));
  for (const path of ["/logs", "/logs/*"]) {
    app.get(path, async (req, reply) => {
      const rawPath = splitURL(req).rawPath;
      if (rawPath === "/logs") return reply.code(301).header("Location", "/logs/").send();
      if (deps.enableSystemLogHandler === false) return sendGoError(reply, 405, "logs endpoint is disabled.");
      const relative = decodePath(rawPath.slice("/logs/".length));
      if (relative === undefined) return sendGoError(reply, 400, "invalid URL path");
      const answer = await resolveLogPath(deps.logDir, relative);
      switch (answer.kind) {
        case "badRequest":
          return sendGoError(reply, 400, answer.message);
        case "notFound":
          return sendGoError(reply, 404, "404 page not found");
        case "redirect":
          return reply.code(301).header("Location", answer.location).send();
        case "listing":
          return reply.code(200).header("Content-Type", "text/html; charset=utf-8").send(answer.html);
        case "file":
          return reply.code(200).header("Content-Type", textPlain).header("Content-Length", String(answer.sizeBytes)).send(answer.stream);
      }
    });
  }
  if (deps.enableProfilingHandler === false) {
    for (const path of ["/debug/pprof/", "/debug/pprof/*"]) app.all(path, async (_req, reply) => sendGoError(reply, 405, "profiling endpoint is disabled."));
  } else {
    installProfilingHandler(app);
  }
  if (deps.enableDebugFlagsHandler === false) {
    app.all("/debug/flags/v", async (_req, reply) => sendGoError(reply, 405, "flags endpoint is disabled."));
  } else if (deps.setVerbosity !== undefined) {
    const setVerbosity = deps.setVerbosity;
    app.all("/debug/flags/v", async (req, reply) => {
      if (req.method !== "PUT") return sendPlainText(reply, 406, "unsupported http method");
      const value = typeof req.body === "string" ? req.body : "";
      const level = parseGoInt32(value);
      if (typeof level === "string") return sendPlainText(reply, 400, `failed set klog.logging.verbosity ${value}: ${level}`);
      setVerbosity(level);
      return sendPlainText(reply, 200, `successfully set klog.logging.verbosity to ${value}`);
    });
  }
  app.get("/containerLogs/*", async (req, reply) => {
    const { rawPath, query } = splitURL(req);
    const parts = rawPath.slice("/containerLogs/".length).split("/").map((s) => decodePath(s));
    if (parts.length !== 3 || parts.some((p) => p === undefined)) return sendGoError(reply, 404, "404 page not found");
    const [namespace = "", podName = "", container = ""] = parts as string[];
    if (podName === "") return sendRestfulError(reply, 400, `{"message": "Missing podID."}`);
    if (container === "") return sendRestfulError(reply, 400, `{"message": "Missing container name."}`);
    if (namespace === "") return sendRestfulError(reply, 400, `{"message": "Missing podNamespace."}`);
    const parsed = parseContainerLogQuery(query, deps.nowMs());
    if (!parsed.ok) return sendRestfulError(reply, parsed.statusCode, parsed.message);
    const pod = findPod(view, namespace, podName);
    if (pod === undefined) return sendRestfulError(reply, 404, `pod ${JSON.stringify(podName)} does not exist`);
    if (!podHasContainer(pod, container)) return sendRestfulError(reply, 404, `container ${JSON.stringify(container)} not found in pod ${JSON.stringify(podName)}`);
    let stream;
    try {
      stream = await view.containerLogs(namespace, podName, container, parsed.value);
    } catch (err) {
      if (isContainerLogError(err) && err.code === "NotFound") return sendRestfulError(reply, 404, err.message);
      return sendRestfulError(reply, 400, err instanceof Error ? err.message : String(err));
    }
    return reply.code(200).header("Content-Type", textPlain).send(stream);
  });
}

/**
 * The agent's manifest API (a third static-pod source). Authorized like every request: verb `create`
 * or `delete` on `nodes/proxy`. `POST /manifests` takes one Pod as YAML or JSON → 201 with the pod,
 * or 400 with a `Status` listing the errors; `DELETE /manifests/{namespace}/{name}` → 200 `Status`
 * Success, or 404 `Status` NotFound.
 */
function installManifestAPI(app: FastifyInstance, view: AgentView): void {
  app.post("/manifests", async (req, reply) => {
    const body = typeof req.body === "string" ? req.body : "";
    if (body.trim() === "") return sendJSON(reply, 400, newBadRequest("empty manifest").status);
    const result = view.submitManifest({ body });
    if (result.ok) return sendJSON(reply, 201, result.pod);
    const bad = newBadRequest(result.errors.join("; ")).status;
    return sendJSON(reply, 400, { ...bad, details: { causes: result.errors.map((message) => ({ message })) } });
  });
  app.delete("/manifests/:namespace/:name", async (req, reply) => {
    const { namespace, name } = req.params as { namespace: string; name: string };
    if (!view.removeSubmittedManifest(namespace, name)) return sendJSON(reply, 404, newNotFound({ group: "", resource: "pods" }, name).status);
    return sendJSON(reply, 200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name, kind: "pods" } });
  });
}
