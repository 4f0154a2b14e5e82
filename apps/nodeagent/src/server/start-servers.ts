import { readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import type { AgentView } from "../agent-view.js";
import { createAuthenticator } from "./authn.js";
import { createAuthorizer } from "./authz.js";
import { installCommon, installHealthzServer, installMainServer, installReadOnlyServer } from "./routes.js";
import { loadServingKeyPair, resolveTLSSettings } from "./tls.js";
import { routeUpgradeRequests } from "./upgrade.js";
import { ServerStartError } from "./server-options.js";
import type { RunningServers, ServerAddresses, ServerLogger, ServerOptions } from "./server-options.js";
import { answerGoClientError } from "./client-error.js";

const fourHoursMs = 4 * 60 * 60 * 1000;

const silentLogger: ServerLogger = { info: () => undefined, error: () => undefined };

function listenPort(port: number | "ephemeral"): number {
  return port === "ephemeral" ? 0 : port;
}

function isEnabled(port: number | "ephemeral"): boolean {
  return port === "ephemeral" || port > 0;
}

/**
 * Starts the node agent's servers over `view`: the main HTTPS server (when `enableServer`), the
 * read-only HTTP server (unless `readOnlyPort` is 0) and the healthz HTTP server (unless
 * `healthzPort` is 0), in that order (the kubelet starts healthz last). Everything that can be wrong
 * in the options is checked before anything listens; a bind failure closes what already started.
 * @throws ServerStartError `NoAuthentication` ("No authentication method configured"),
 *   `InvalidTLSConfig` (unknown TLS version or cipher, unreadable client CA or key pair),
 *   `CertificateGeneration`, `Listen`
 * @see pkg/kubelet/server/server.go (ListenAndServeKubeletServer, ListenAndServeKubeletReadOnlyServer) in kubernetes/kubernetes v1.23
 * @see cmd/kubelet/app/server.go (healthz server) in kubernetes/kubernetes v1.23
 * @example
 * ```ts
 * const servers = await startServers({ ...opts, port: 10250 }, view, logger);
 * console.log(servers.addresses.main?.port);
 * await servers.close();
 * ```
 */
export async function startServers(opts: ServerOptions, view: AgentView, log: ServerLogger = silentLogger): Promise<RunningServers> {
  const nowMs = opts.nowMs ?? Date.now;
  const idleMs = opts.idleTimeoutMs ?? fourHoursMs;
  const requestMs = opts.requestTimeoutMs ?? fourHoursMs;
  const bodyLimit = opts.bodyLimitBytes ?? 10 * 1024 * 1024;
  const common = { logger: false, connectionTimeout: idleMs, keepAliveTimeout: idleMs, requestTimeout: requestMs, bodyLimit, forceCloseConnections: true, return503OnClosing: false, clientErrorHandler: answerGoClientError } as const;

  const apps: Array<{ key: keyof ServerAddresses; app: FastifyInstance; host: string; port: number }> = [];

  if (opts.enableServer) {
    const clientCertificates = opts.clientCAFile !== undefined && opts.clientCAFile !== "";
    const authenticate = createAuthenticator({
      clientCertificates,
      ...(opts.tokenWebhook !== undefined ? { tokenWebhook: opts.tokenWebhook } : {}),
      anonymous: opts.anonymousAuth,
      nowMs,
    });
    if (authenticate === undefined) throw new ServerStartError("NoAuthentication", "No authentication method configured");
    const authorize = createAuthorizer(opts.authorization, nowMs);
    const tls = resolveTLSSettings(opts.tlsMinVersion, opts.tlsCipherSuites);
    let ca: string | undefined;
    if (clientCertificates) {
      try {
        ca = await readFile(opts.clientCAFile ?? "", "utf8");
      } catch (err) {
        throw new ServerStartError("InvalidTLSConfig", `unable to load client CA file ${JSON.stringify(opts.clientCAFile)}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    }
    const pair = await loadServingKeyPair({
      ...(opts.tlsCertFile !== undefined ? { certFile: opts.tlsCertFile } : {}),
      ...(opts.tlsPrivateKeyFile !== undefined ? { keyFile: opts.tlsPrivateKeyFile } : {}),
      certDir: opts.certDir,
      host: opts.hostname ?? view.nodeName,
    });
    let app: FastifyInstance;
    try {
      app = Fastify({
        ...common,
        https: {
          key: pair.key,
          cert: pair.cert,
          ...(ca !== undefined ? { ca, requestCert: true, rejectUnauthorized: false } : {}),
          ...(tls.minVersion !== undefined ? { minVersion: tls.minVersion } : {}),
          ...(tls.ciphers !== undefined ? { ciphers: tls.ciphers } : {}),
        },
      }) as unknown as FastifyInstance;
    } catch (err) {
      throw new ServerStartError("InvalidTLSConfig", `invalid TLS configuration: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    installCommon(app, bodyLimit);
    installMainServer(app, {
      view,
      log,
      authenticate,
      authorize,
      clientCertificates,
      enableDebuggingHandlers: opts.enableDebuggingHandlers,
      ...(opts.enableSystemLogHandler !== undefined ? { enableSystemLogHandler: opts.enableSystemLogHandler } : {}),
      ...(opts.enableProfilingHandler !== undefined ? { enableProfilingHandler: opts.enableProfilingHandler } : {}),
      ...(opts.enableDebugFlagsHandler !== undefined ? { enableDebugFlagsHandler: opts.enableDebugFlagsHandler } : {}),
      ...(opts.setVerbosity !== undefined ? { setVerbosity: opts.setVerbosity } : {}),
      configz: opts.configz,
      logDir: opts.logDir,
      nowMs,
      ...(opts.stats ? { stats: opts.stats } : {}),
      streamLimits: { idleTimeoutMs: opts.idleTimeoutMs ?? fourHoursMs, maxDurationMs: fourHoursMs },
    });
    routeUpgradeRequests(app);
    apps.push({ key: "main", app, host: opts.address, port: listenPort(opts.port) });
  }
  if (isEnabled(opts.readOnlyPort)) {
    const app = Fastify(common) as unknown as FastifyInstance;
    installCommon(app, bodyLimit);
    installReadOnlyServer(app, view, log, opts.stats);
    apps.push({ key: "readOnly", app, host: opts.address, port: listenPort(opts.readOnlyPort) });
  }
  if (isEnabled(opts.healthzPort)) {
    const app = Fastify(common) as unknown as FastifyInstance;
    installCommon(app, bodyLimit);
    installHealthzServer(app, log);
    apps.push({ key: "healthz", app, host: opts.healthzBindAddress, port: listenPort(opts.healthzPort) });
  }

  const addresses: { -readonly [K in keyof ServerAddresses]: ServerAddresses[K] } = {};
  const started: FastifyInstance[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.allSettled(started.splice(0).map((a) => a.close()));
  };
  for (const { key, app, host, port } of apps) {
    try {
      await app.listen({ host, port });
    } catch (err) {
      await closeAll();
      throw new ServerStartError("Listen", `failed to listen on ${host}:${port}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    started.push(app);
    const bound = app.server.address() as AddressInfo;
    addresses[key] = { address: bound.address, port: bound.port };
    log.info("Starting to listen", { server: key, address: bound.address, port: bound.port });
  }
  return { addresses, close: closeAll };
}
