import type { CSIDriver } from "@skiff/api-types";
import { isNotFound } from "@skiff/apimachinery";
import type { Client } from "@skiff/client";
import { ensureCSINode } from "./csi-node.js";
import { startCsiPluginManager, type CsiPluginManager } from "./plugin-manager.js";
import { CsiVolumeManager, type GetServiceAccountToken, type PodEventSink } from "./volumes.js";

/** What {@link createCsiSupport} needs. */
export interface CsiSupportOptions {
  /** `--root-dir`. */
  readonly rootDir: string;
  /** The node's name. */
  readonly nodeName: string;
  /** API-server mode client: CSINode/Node upkeep and CSIDriver lookups. Absent: standalone. */
  readonly client?: Client;
  /** Period of the `plugins_registry` re-scan, in ms. @defaultValue 1_000 */
  readonly scanPeriodMs?: number;
  /** Period of the wait for the Node before the start-up CSINode is created, in ms. @defaultValue 1_000 */
  readonly nodeWaitPeriodMs?: number;
  /** Log sink. @defaultValue discards */
  readonly log?: (message: string) => void;
  /** Pod event sink (FailedMount warnings). @defaultValue discards */
  readonly onEvent?: PodEventSink;
  /** In-tree plugins migrated to CSI (`migratedInTreePlugins(gates)`), written on the start-up CSINode. @defaultValue [] */
  readonly migratedPlugins?: readonly string[];
  /**
   * Service-account tokens for CSIDrivers with `tokenRequests` (the node agent's token manager,
   * shared with projected token volumes). Absent: such volumes fail to mount.
   */
  readonly getServiceAccountToken?: GetServiceAccountToken;
  /** Gate CSIInlineVolume: false leaves inline `csi` volumes unsupported. @defaultValue true */
  readonly inlineVolumes?: boolean;
  /** Gate DelegateFSGroupToCSIDriver (see CsiVolumeManagerOptions). @defaultValue true */
  readonly delegateFSGroupToCSIDriver?: boolean;
}

/** The node agent's CSI support: pass `volumes` to the pod runtime, then `start()`. */
export interface CsiSupport {
  /** The pod runtime's volume hooks (`PodRuntimeOptions.volumes`). */
  readonly volumes: CsiVolumeManager;
  /** The plugin manager once started. */
  plugins(): CsiPluginManager | undefined;
  /**
   * Starts the plugin manager and, with a client, creates the CSINode (empty drivers) once the Node
   * exists, in the background (retried every `nodeWaitPeriodMs` until stopped).
   * @throws Error when `plugins_registry` cannot be created.
   */
  start(): Promise<void>;
  /** Stops the plugin manager and the CSINode wait. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Wires the CSI pieces of the node agent: the plugin manager ({@link startCsiPluginManager}), the
 * inline-volume manager ({@link CsiVolumeManager}, CSIDriver objects read through the client with
 * NotFound → no CSIDriver) and, in API-server mode, the start-up CSINode ({@link ensureCSINode})
 * as 1.23's kubelet creates it once the Node is registered.
 * @see pkg/kubelet/kubelet.go (initializeRuntimeDependentModules: pluginManager, CSINode init) in kubernetes/kubernetes v1.23
 * @example
 * ```ts
 * const csi = createCsiSupport({ rootDir, nodeName, client });
 * const runtime = createPodRuntime({ ...podOptions, volumes: csi.volumes });
 * await runtime.start();
 * await csi.start();
 * // ...
 * await csi.stop();
 * ```
 */
export function createCsiSupport(opts: CsiSupportOptions): CsiSupport {
  const log = opts.log ?? (() => {});
  const client = opts.client;
  let plugins: CsiPluginManager | undefined;
  const abort = new AbortController();
  const getCSIDriver = client
    ? async (name: string): Promise<CSIDriver | undefined> => {
        try {
          return await client.csiDrivers.get(name);
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      }
    : undefined;
  const volumes = new CsiVolumeManager({
    rootDir: opts.rootDir,
    driver: (name) => plugins?.driver(name),
    ...(getCSIDriver ? { getCSIDriver } : {}),
    ...(opts.getServiceAccountToken ? { getServiceAccountToken: opts.getServiceAccountToken } : {}),
    log,
    ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
    ...(opts.inlineVolumes !== undefined ? { inlineVolumes: opts.inlineVolumes } : {}),
    ...(opts.delegateFSGroupToCSIDriver !== undefined ? { delegateFSGroupToCSIDriver: opts.delegateFSGroupToCSIDriver } : {}),
  });

  async function initCSINode(c: Client): Promise<void> {
    const periodMs = opts.nodeWaitPeriodMs ?? 1_000;
    while (!abort.signal.aborted) {
      try {
        const node = await c.nodes.get(opts.nodeName);
        await ensureCSINode(c, node, opts.migratedPlugins ?? []);
        log(`CSINode ${opts.nodeName} initialized`);
        return;
      } catch (err) {
        if (!isNotFound(err)) log(`failed to initialize CSINode ${opts.nodeName}: ${err instanceof Error ? err.message : String(err)}`);
      }
      await new Promise((r) => setTimeout(r, periodMs).unref());
    }
  }

  return {
    volumes,
    plugins: () => plugins,
    async start() {
      plugins = await startCsiPluginManager({
        rootDir: opts.rootDir,
        nodeName: opts.nodeName,
        ...(client ? { client } : {}),
        ...(opts.scanPeriodMs !== undefined ? { scanPeriodMs: opts.scanPeriodMs } : {}),
        log,
      });
      if (client) void initCSINode(client);
    },
    async stop() {
      abort.abort();
      await plugins?.stop();
    },
  };
}
