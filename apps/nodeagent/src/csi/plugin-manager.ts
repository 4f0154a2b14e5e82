import { join } from "node:path";
import type { Client } from "@skiff/client";
import { createCsiClient, createRegistrationClient } from "./csi-client.js";
import { installCSIDriver, uninstallCSIDriver, type CsiDriverNodeInfo } from "./csi-node.js";
import { PluginWatcher, type FoundSocket } from "./plugin-watcher.js";
import { formatCsiVersion, registrationErrors, validateCsiPluginVersions, type CsiVersion } from "./registration.js";

/** A CSI driver the agent accepted: what NodeGetInfo said plus where to reach it. */
export interface RegisteredCsiDriver extends CsiDriverNodeInfo {
  /** The CSI endpoint (PluginInfo.endpoint, or the registration socket when that was empty). */
  readonly endpoint: string;
  /** The highest supported CSI version (`1.x.y`). */
  readonly version: string;
  /** The registration socket under `plugins_registry/`. */
  readonly socketPath: string;
}

/** What {@link startCsiPluginManager} needs. */
export interface CsiPluginManagerOptions {
  /** `--root-dir`; sockets are watched under `<rootDir>/plugins_registry`. */
  readonly rootDir: string;
  /** The node's name (the CSINode's name). */
  readonly nodeName: string;
  /**
   * API-server mode: the client used to keep the CSINode and the Node's labels/annotation up to
   * date. Without it drivers still register (volumes work) and nothing is written to the API.
   */
  readonly client?: Client;
  /** Period of the full directory re-scan, in ms. @defaultValue 1_000 */
  readonly scanPeriodMs?: number;
  /** First retry delay of a failed registration, in ms; doubles up to `retryMaxMs`. @defaultValue 1_000 */
  readonly retryInitialMs?: number;
  /** Maximum retry delay of a failed registration, in ms. @defaultValue 60_000 */
  readonly retryMaxMs?: number;
  /** Deadline of each CSI call, in ms. @defaultValue 10_000 */
  readonly csiTimeoutMs?: number;
  /** Log sink. @defaultValue discards */
  readonly log?: (message: string) => void;
  /** Called after a driver registered (and its CSINode entry was written in API mode). */
  readonly onRegistered?: (driver: RegisteredCsiDriver) => void;
  /** Called after a driver was de-registered. */
  readonly onUnregistered?: (driver: RegisteredCsiDriver) => void;
}

/** The running plugin manager. */
export interface CsiPluginManager {
  /** The registered drivers, sorted by name. */
  drivers(): RegisteredCsiDriver[];
  /** The registered driver named `name`. */
  driver(name: string): RegisteredCsiDriver | undefined;
  /** Resolves once queued registrations/de-registrations are done (tests). */
  idle(): Promise<void>;
  /** Stops watching; registered drivers stay registered in the API (as a kubelet restart). Idempotent. */
  stop(): Promise<void>;
}

interface SocketState {
  ino: number;
  status: "registering" | "registered" | "failed";
  driverName?: string;
  retryAtMs: number;
  backOffMs: number;
}

/** `<rootDir>/plugins_registry`. @see pkg/kubelet/kubelet_getters.go (getPluginsRegistrationDir) */
export function pluginsRegistryDir(rootDir: string): string {
  return join(rootDir, "plugins_registry");
}

/**
 * Starts the kubelet's plugin manager for CSI drivers: watches `<rootDir>/plugins_registry` for
 * registration sockets; for each one calls `Registration.GetInfo` (1 s deadline), accepts type
 * `CSIPlugin` whose versions include 1.x, calls CSI `NodeGetInfo` on the driver's endpoint, in
 * API-server mode installs the driver in the CSINode and on the Node ({@link installCSIDriver}),
 * and reports the outcome with `NotifyRegistrationStatus`. A removed socket de-registers the
 * driver ({@link uninstallCSIDriver}). Failed registrations are retried with back-off.
 *
 * @throws Error when the directory cannot be created.
 * @see pkg/kubelet/pluginmanager/ (plugin_manager.go, reconciler/, operationexecutor/) and
 *   pkg/volume/csi/csi_plugin.go (RegistrationHandler) in kubernetes/kubernetes v1.23
 * @example
 * ```ts
 * const plugins = await startCsiPluginManager({ rootDir: "/var/lib/nodeagent", nodeName: "node-1", client });
 * plugins.driver("fake.csi.example.io")?.endpoint;
 * await plugins.stop();
 * ```
 */
export async function startCsiPluginManager(opts: CsiPluginManagerOptions): Promise<CsiPluginManager> {
  const log = opts.log ?? (() => {});
  const retryInitialMs = opts.retryInitialMs ?? 1_000;
  const retryMaxMs = opts.retryMaxMs ?? 60_000;
  const drivers = new Map<string, RegisteredCsiDriver>();
  const versions = new Map<string, CsiVersion>();
  const sockets = new Map<string, SocketState>();
  let queue: Promise<void> = Promise.resolve();
  let stopped = false;
  const enqueue = (fn: () => Promise<void>): void => {
    queue = queue.then(fn).catch((err: unknown) => log(`plugin manager: ${err instanceof Error ? err.message : String(err)}`));
  };
  const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

  async function register(path: string, state: SocketState): Promise<void> {
    const fail = (why: string): void => {
      state.status = "failed";
      state.retryAtMs = Date.now() + state.backOffMs;
      state.backOffMs = Math.min(state.backOffMs * 2, retryMaxMs);
      log(`failed to register plugin at ${path}: ${why}`);
    };
    const reg = createRegistrationClient(path);
    try {
      let info;
      try {
        info = await reg.getInfo();
      } catch (err) {
        return fail(`GetInfo failed: ${errText(err)}`);
      }
      const notify = async (ok: boolean, error: string): Promise<void> => {
        await reg.notifyRegistrationStatus(ok, error).catch((err: unknown) => log(`NotifyRegistrationStatus to ${path} failed: ${errText(err)}`));
      };
      if (info.type !== "CSIPlugin") {
        const error = registrationErrors.noHandler(info.type, path);
        await notify(false, error);
        return fail(error);
      }
      const check = validateCsiPluginVersions(info.name, info.supportedVersions, versions.get(info.name));
      if (!check.ok) {
        const error = registrationErrors.validation(check.error);
        await notify(false, error);
        return fail(error);
      }
      const endpoint = info.endpoint !== "" ? info.endpoint : path;
      let driver: RegisteredCsiDriver;
      try {
        const csi = createCsiClient(endpoint, opts.csiTimeoutMs ?? 10_000);
        try {
          const ni = await csi.nodeGetInfo();
          if (ni.nodeId === "") throw new Error("error adding CSI driver node info: driverNodeID must not be empty");
          driver = { name: info.name, nodeId: ni.nodeId, maxVolumesPerNode: ni.maxVolumesPerNode, topology: { ...(ni.accessibleTopology?.segments ?? {}) }, endpoint, version: formatCsiVersion(check.highest), socketPath: path };
        } finally {
          csi.close();
        }
        if (opts.client) await installCSIDriver(opts.client, opts.nodeName, driver);
      } catch (err) {
        const error = registrationErrors.registration(errText(err));
        await notify(false, error);
        return fail(error);
      }
      drivers.set(driver.name, driver);
      versions.set(driver.name, check.highest);
      state.status = "registered";
      state.driverName = driver.name;
      state.backOffMs = retryInitialMs;
      await notify(true, "");
      log(`registered CSI driver ${driver.name} (version ${driver.version}, endpoint ${endpoint}, node ID ${driver.nodeId})`);
      opts.onRegistered?.(driver);
    } finally {
      reg.close();
    }
  }

  async function deregister(path: string, state: SocketState): Promise<void> {
    const name = state.driverName;
    if (state.status !== "registered" || name === undefined) return;
    const driver = drivers.get(name);
    if (!driver || driver.socketPath !== path) return;
    drivers.delete(name);
    versions.delete(name);
    log(`de-registered CSI driver ${name} (socket ${path} removed)`);
    if (opts.client) {
      const stillReported = new Set([...drivers.values()].flatMap((d) => Object.keys(d.topology)));
      const drop = Object.keys(driver.topology).filter((k) => !stillReported.has(k));
      await uninstallCSIDriver(opts.client, opts.nodeName, name, drop).catch((err: unknown) => log(`failed to uninstall CSI driver ${name}: ${errText(err)}`));
    }
    opts.onUnregistered?.(driver);
  }

  function onScan(found: readonly FoundSocket[]): void {
    const now = Date.now();
    const seen = new Set<string>();
    for (const s of found) {
      seen.add(s.path);
      const state = sockets.get(s.path);
      if (state && state.ino === s.ino) {
        if (state.status === "failed" && now >= state.retryAtMs) {
          state.status = "registering";
          enqueue(() => register(s.path, state));
        }
        continue;
      }
      if (state) {
        const old = { ...state };
        enqueue(() => deregister(s.path, old));
      }
      const fresh: SocketState = { ino: s.ino, status: "registering", retryAtMs: 0, backOffMs: retryInitialMs };
      sockets.set(s.path, fresh);
      enqueue(() => register(s.path, fresh));
    }
    for (const [path, state] of sockets) {
      if (seen.has(path)) continue;
      sockets.delete(path);
      enqueue(async () => {
        // A registration still queued for this socket runs first; de-register what it produced.
        await deregister(path, state);
      });
    }
  }

  const watcher = new PluginWatcher({ dir: pluginsRegistryDir(opts.rootDir), scanPeriodMs: opts.scanPeriodMs ?? 1_000, onScan: (s) => !stopped && onScan(s) });
  await watcher.start();
  return {
    drivers: () => [...drivers.values()].sort((a, b) => a.name.localeCompare(b.name)),
    driver: (name) => drivers.get(name),
    idle: async () => {
      let last: Promise<void> | undefined;
      while (last !== queue) {
        last = queue;
        await queue;
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      watcher.stop();
      await queue;
    },
  };
}
