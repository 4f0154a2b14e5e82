import { appendFile, mkdir, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { loadCSIProtos } from "@skiff/csi-api";

/** How {@link startFakeCsiDriver} behaves. Everything but the two paths has a default. */
export interface FakeCsiDriverOptions {
  /** The CSI socket (Identity + Node services). Its directory is created. */
  readonly csiSocketPath: string;
  /**
   * The node agent's `<root-dir>/plugins_registry` directory: the registration socket
   * `<name>-reg.sock` is created there, as the node-driver-registrar sidecar does. Omit to serve no
   * registration socket (call the CSI socket directly).
   */
  readonly pluginsRegistryDir?: string;
  /** Driver name (GetPluginInfo and PluginInfo.name). @defaultValue `fake.csi.example.io` */
  readonly name?: string;
  /** NodeGetInfo.node_id. @defaultValue `fake-node` */
  readonly nodeId?: string;
  /** NodeGetInfo.accessible_topology segments; empty = no topology. @defaultValue {} */
  readonly topology?: Readonly<Record<string, string>>;
  /** NodeGetInfo.max_volumes_per_node; 0 = unlimited. @defaultValue 0 */
  readonly maxVolumesPerNode?: number;
  /** PluginInfo.supported_versions. @defaultValue ["1.5.0"] */
  readonly supportedVersions?: readonly string[];
  /** PluginInfo.type (tests of refused types). @defaultValue `CSIPlugin` */
  readonly pluginType?: string;
  /** GetPluginInfo.vendor_version. @defaultValue `0.0.0` */
  readonly vendorVersion?: string;
  /** Advertise the VOLUME_MOUNT_GROUP node capability (the driver applies fsGroup itself). @defaultValue false */
  readonly volumeMountGroup?: boolean;
  /**
   * A JSON-lines file (created with mode 0600, appended to) that gets one line per
   * NodePublishVolume: {@link FakePublishRecord}. The volume context is written in full (it may
   * hold service-account tokens: test data). @defaultValue none
   */
  readonly recordFile?: string;
  /** Log sink; log lines never carry the volume context. @defaultValue discards */
  readonly log?: (message: string) => void;
}

/** One line of {@link FakeCsiDriverOptions.recordFile}: what one NodePublishVolume received. */
export interface FakePublishRecord {
  /** When the call arrived (RFC 3339 with ms). */
  readonly time: string;
  readonly volumeId: string;
  readonly targetPath: string;
  readonly readonly: boolean;
  /** The request's `volume_context`, as received. */
  readonly volumeContext: Record<string, string>;
}

/** One recorded gRPC call: method name (as in the proto) and the decoded request. */
export interface FakeCsiCall {
  readonly method: string;
  readonly request: Record<string, unknown>;
}

/** `RegistrationStatus` as the agent sent it. */
export interface FakeRegistrationStatus {
  readonly pluginRegistered: boolean;
  readonly error: string;
}

/** A running fake driver. */
export interface FakeCsiDriver {
  readonly name: string;
  readonly csiSocketPath: string;
  /** The registration socket, when one is served. */
  readonly registrationSocketPath: string | undefined;
  /** Every call received, in order (Identity, Node and Registration). */
  readonly calls: readonly FakeCsiCall[];
  /** Every NotifyRegistrationStatus received, in order. */
  readonly registrationStatuses: readonly FakeRegistrationStatus[];
  /** The calls of one method. */
  callsOf(method: string): FakeCsiCall[];
  /** Removes the registration socket (the agent then de-registers the driver); the CSI socket stays. */
  unregister(): Promise<void>;
  /** Stops both servers and removes both sockets. Idempotent. */
  stop(): Promise<void>;
}

/** The file NodePublishVolume writes into the target directory: the received `volume_context` as JSON. */
export const volumeContextFileName = "volume_context.json";

type Handler = (call: { request: Record<string, unknown> }, cb: grpc.sendUnaryData<unknown>) => void;

async function listen(server: grpc.Server, socketPath: string): Promise<void> {
  await mkdir(dirname(socketPath), { recursive: true });
  await rm(socketPath, { force: true });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
}

/**
 * Starts a small CSI v1 driver of our own for tests: Identity (GetPluginInfo, GetPluginCapabilities,
 * Probe) and Node (NodeGetInfo, NodeGetCapabilities, NodePublishVolume, NodeUnpublishVolume) on
 * `csiSocketPath`, plus the kubelet plugin-registration service on
 * `<pluginsRegistryDir>/<name>-reg.sock` whose PluginInfo points at the CSI socket.
 * NodePublishVolume creates the target directory and writes the request's `volume_context` into
 * `<target>/volume_context.json` (and appends a {@link FakePublishRecord} line to `recordFile`);
 * NodeUnpublishVolume removes the target directory. Every call is recorded in
 * {@link FakeCsiDriver.calls}; {@link readPublishRecords} reads a record file back.
 *
 * @throws Error when a socket cannot be bound.
 * @see https://github.com/kubernetes-csi/node-driver-registrar (what the registration side mimics)
 * @example
 * ```ts
 * const driver = await startFakeCsiDriver({ csiSocketPath: "/tmp/fake/csi.sock", pluginsRegistryDir: "/var/lib/nodeagent/plugins_registry", nodeId: "n1" });
 * // ... the agent registers it, publishes volumes ...
 * console.log(driver.callsOf("NodePublishVolume"));
 * await driver.stop();
 * ```
 */
export async function startFakeCsiDriver(options: FakeCsiDriverOptions): Promise<FakeCsiDriver> {
  const name = options.name ?? "fake.csi.example.io";
  const log = options.log ?? (() => {});
  const defs = loadCSIProtos();
  const calls: FakeCsiCall[] = [];
  const statuses: FakeRegistrationStatus[] = [];
  const record = (method: string, fn: (req: Record<string, unknown>) => Promise<unknown> | unknown): Handler => {
    return (call, cb) => {
      calls.push({ method, request: call.request });
      Promise.resolve()
        .then(() => fn(call.request))
        .then(
          (res) => cb(null, res),
          (err: unknown) => cb({ code: grpc.status.INTERNAL, details: err instanceof Error ? err.message : String(err) }, null),
        );
    };
  };
  const segments = options.topology ?? {};
  const csi = new grpc.Server();
  csi.addService(defs.Identity.service, {
    GetPluginInfo: record("GetPluginInfo", () => ({ name, vendorVersion: options.vendorVersion ?? "0.0.0", manifest: {} })),
    GetPluginCapabilities: record("GetPluginCapabilities", () => ({
      capabilities: Object.keys(segments).length > 0 ? [{ service: { type: "VOLUME_ACCESSIBILITY_CONSTRAINTS" } }] : [],
    })),
    Probe: record("Probe", () => ({ ready: { value: true } })),
  });
  csi.addService(defs.Node.service, {
    NodeGetInfo: record("NodeGetInfo", () => ({
      nodeId: options.nodeId ?? "fake-node",
      maxVolumesPerNode: options.maxVolumesPerNode ?? 0,
      ...(Object.keys(segments).length > 0 ? { accessibleTopology: { segments } } : {}),
    })),
    NodeGetCapabilities: record("NodeGetCapabilities", () => ({ capabilities: options.volumeMountGroup === true ? [{ rpc: { type: "VOLUME_MOUNT_GROUP" } }] : [] })),
    NodePublishVolume: record("NodePublishVolume", async (req) => {
      const target = String(req.targetPath ?? "");
      if (target === "") throw new Error("target_path is required");
      await mkdir(target, { recursive: true });
      await writeFile(join(target, volumeContextFileName), JSON.stringify(req.volumeContext ?? {}, null, 2));
      if (options.recordFile !== undefined) {
        const rec: FakePublishRecord = {
          time: new Date().toISOString(),
          volumeId: String(req.volumeId ?? ""),
          targetPath: target,
          readonly: req.readonly === true,
          volumeContext: (req.volumeContext ?? {}) as Record<string, string>,
        };
        await appendFile(options.recordFile, `${JSON.stringify(rec)}\n`, { mode: 0o600 });
      }
      log(`published ${String(req.volumeId)} at ${target}`);
      return {};
    }),
    NodeUnpublishVolume: record("NodeUnpublishVolume", async (req) => {
      const target = String(req.targetPath ?? "");
      if (target !== "") await rm(target, { recursive: true, force: true });
      log(`unpublished ${String(req.volumeId)} from ${target}`);
      return {};
    }),
  });
  await listen(csi, options.csiSocketPath);

  let reg: grpc.Server | undefined;
  let registrationSocketPath: string | undefined;
  if (options.pluginsRegistryDir !== undefined) {
    reg = new grpc.Server();
    reg.addService(defs.Registration.service, {
      GetInfo: record("GetInfo", () => ({
        type: options.pluginType ?? "CSIPlugin",
        name,
        endpoint: options.csiSocketPath,
        supportedVersions: [...(options.supportedVersions ?? ["1.5.0"])],
      })),
      NotifyRegistrationStatus: record("NotifyRegistrationStatus", (req) => {
        const s = { pluginRegistered: req.pluginRegistered === true, error: String(req.error ?? "") };
        statuses.push(s);
        log(s.pluginRegistered ? "registered with the node agent" : `registration refused: ${s.error}`);
        return {};
      }),
    });
    registrationSocketPath = join(options.pluginsRegistryDir, `${name}-reg.sock`);
    await listen(reg, registrationSocketPath);
  }

  let stopped = false;
  const shutdown = (s: grpc.Server) => new Promise<void>((resolve) => s.tryShutdown(() => resolve()));
  return {
    name,
    csiSocketPath: options.csiSocketPath,
    registrationSocketPath,
    calls,
    registrationStatuses: statuses,
    callsOf: (method) => calls.filter((c) => c.method === method),
    async unregister() {
      if (registrationSocketPath !== undefined) await unlink(registrationSocketPath).catch(() => undefined);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (reg) await shutdown(reg);
      await shutdown(csi);
      if (registrationSocketPath !== undefined) await rm(registrationSocketPath, { force: true });
      await rm(options.csiSocketPath, { force: true });
    },
  };
}

/**
 * The {@link FakePublishRecord}s of a record file, oldest first; `[]` when the file does not exist.
 * @throws Error for a line that is not JSON.
 */
export async function readPublishRecords(recordFile: string): Promise<FakePublishRecord[]> {
  let text: string;
  try {
    text = await readFile(recordFile, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as FakePublishRecord);
}
