/**
 * The device manager (gate DevicePlugins): serves the device plugin `Registration` service on
 * `<root-dir>/device-plugins/kubelet.sock`, keeps each registered plugin's devices (healthy and
 * unhealthy, from its `ListAndWatch` stream), reports them as node capacity/allocatable, allocates
 * devices to containers at admission, asks the plugin (`Allocate`, `PreStartContainer`) what goes
 * into each container, and checkpoints the allocations in `kubelet_internal_checkpoint`.
 *
 * @see pkg/kubelet/cm/devicemanager/manager.go, endpoint.go, pod_devices.go, checkpoint/checkpoint.go in kubernetes/kubernetes v1.23
 */
import * as grpc from "@grpc/grpc-js";
import { bindUnixSocket } from "../../internal/grpc-unix.js";
import type { Container, Pod } from "@skiff/api-types";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative, isAbsolute } from "node:path";
import { writeCheckpoint } from "../checkpoint-file.js";
import type { ContainerAllocateResponse, Device, DevicePluginOptions, RegisterRequest } from "./api.js";
import { checkpointName, decodeContainerAllocateResponse, encodeContainerAllocateResponse, healthy, kubeletSocketName, loadDevicePluginAPI, supportedVersions } from "./api.js";

/** How long a stopped plugin's resource stays in the node's capacity (`endpointStopGracePeriod`), ms. */
export const endpointStopGracePeriodMs = 5 * 60_000;
/** How long dialling a plugin may take (`dial`'s 10 s timeout), ms. */
const dialTimeoutMs = 10_000;
/** The NUMA key of devices without topology in the checkpoint (`nodeWithoutTopology`). */
const nodeWithoutTopology = -1;

/** The device plugins directory under `rootDir` (1.23's `/var/lib/kubelet/device-plugins/`). */
export function devicePluginsDir(rootDir: string): string {
  return join(rootDir, "device-plugins");
}

/**
 * `v1helper.IsExtendedResourceName`: a name with a domain, not containing `kubernetes.io/`, not
 * prefixed `requests.`, and a qualified name once prefixed `requests.`.
 * @see pkg/apis/core/v1/helper/helpers.go in kubernetes/kubernetes v1.23
 */
export function isExtendedResourceName(name: string): boolean {
  // IsNativeResource: no domain, or containing "kubernetes.io/" anywhere (IsPrefixedNativeResource).
  if (!name.includes("/") || name.includes("kubernetes.io/")) return false;
  if (name.startsWith("requests.")) return false;
  const q = `requests.${name}`;
  const [prefix, local, extra] = q.split("/");
  if (extra !== undefined || prefix === undefined || local === undefined) return false;
  const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
  return prefix.length <= 253 && dns1123Subdomain.test(prefix) && local.length <= 63 && /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/.test(local);
}

/** A plugin's gRPC client as {@link DeviceManager} uses it. */
interface PluginClient extends grpc.Client {
  ListAndWatch(req: object): grpc.ClientReadableStream<{ devices: Device[] }>;
  Allocate(req: object, cb: (err: grpc.ServiceError | null, res?: { containerResponses: ContainerAllocateResponse[] }) => void): void;
  PreStartContainer(req: object, cb: (err: grpc.ServiceError | null) => void): void;
}

/** A registered plugin (1.23's `endpointInfo`): its client, options and when it stopped. */
interface Endpoint {
  readonly client: PluginClient | undefined;
  readonly options: DevicePluginOptions;
  stopTimeMs: number | undefined;
  stream?: grpc.ClientReadableStream<unknown>;
}

/** The devices of one resource given to one container, with the plugin's answer once asked. */
interface ContainerDevices {
  readonly deviceIds: readonly string[];
  readonly numa: Readonly<Record<string, string[]>>;
  response: ContainerAllocateResponse | undefined;
}

/** What the devices of a container add to its CRI `ContainerConfig` (1.23's `DeviceRunContainerOptions`). */
export interface DeviceRunContainerOptions {
  readonly envs: readonly { key: string; value: string }[];
  readonly mounts: readonly { containerPath: string; hostPath: string; readonly: boolean }[];
  readonly devices: readonly { containerPath: string; hostPath: string; permissions: string }[];
  readonly annotations: Readonly<Record<string, string>>;
}

/** The device resources of one container, for the pod resources API. */
export interface ContainerDeviceInfo {
  readonly resourceName: string;
  readonly deviceIds: readonly string[];
  readonly topology?: { readonly nodes: readonly { readonly ID: number }[] };
}

/** An admission outcome in the pod runtime's shape. */
export type DeviceAdmitResult = { readonly admit: true } | { readonly admit: false; readonly reason: string; readonly message: string };

/** Options of {@link DeviceManager.start}. */
export interface DeviceManagerOptions {
  /** `--root-dir`: the socket and checkpoint live in `<rootDir>/device-plugins/`. */
  readonly rootDir: string;
  readonly log: (message: string, level?: number) => void;
  /** @defaultValue Date.now */
  readonly clock?: () => number;
}

/** The checkpoint file's JSON (1.23's `checkpoint.Data`). */
interface CheckpointData {
  Data: {
    PodDeviceEntries: { PodUID: string; ContainerName: string; ResourceName: string; DeviceIDs: Record<string, string[]>; AllocResp: string }[] | null;
    RegisteredDevices: Record<string, string[]> | null;
  };
  Checksum: number;
}

/** A gRPC error as Go's grpc-go prints it: `rpc error: code = Unknown desc = <details>`. */
function goRPCError(err: grpc.ServiceError | null | undefined): string {
  if (!err) return "rpc error: code = Unknown desc = no response";
  const name = (grpc.status[err.code] ?? "UNKNOWN").toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u: string, ch: string) => ch.toUpperCase());
  return `rpc error: code = ${name} desc = ${err.details}`;
}

function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, "utf8")) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * The device manager. {@link start} binds the registration socket (removing everything else in the
 * directory but the checkpoint, as 1.23) and restores the checkpoint.
 * @see pkg/kubelet/cm/devicemanager/manager.go (ManagerImpl) in kubernetes/kubernetes v1.23
 */
export class DeviceManager {
  readonly socketDir: string;
  readonly socketPath: string;
  private readonly checkpointPath: string;
  private server: grpc.Server | undefined;
  private readonly endpoints = new Map<string, Endpoint>();
  /** All devices per resource by ID (`allDevices`). */
  private readonly allDevices = new Map<string, Map<string, Device>>();
  private readonly healthyDevices = new Map<string, Set<string>>();
  private readonly unhealthyDevices = new Map<string, Set<string>>();
  private allocatedDevices = new Map<string, Set<string>>();
  /** pod UID → container → resource → devices (`podDevices`). */
  private readonly podDevices = new Map<string, Map<string, Map<string, ContainerDevices>>>();
  /** Devices of a pod's init containers reusable by its later containers (`devicesToReuse`). */
  private devicesToReuse = new Map<string, Map<string, Set<string>>>();
  /**
   * Resources dropped after their grace period and not registered since: node status keeps them
   * at 0, as 1.23's setter leaves the 0 it wrote in the kubelet's Node.
   */
  private readonly removedResources = new Set<string>();
  private readonly clock: () => number;

  private constructor(private readonly o: DeviceManagerOptions) {
    this.socketDir = devicePluginsDir(o.rootDir);
    this.socketPath = join(this.socketDir, kubeletSocketName);
    this.checkpointPath = join(this.socketDir, checkpointName);
    this.clock = o.clock ?? Date.now;
  }

  /**
   * Starts the manager: restores the checkpoint, empties the directory but for it, and serves
   * `Registration` on `kubelet.sock`.
   * @throws Error when the socket cannot be bound (also when its path is longer than a unix socket
   *   path can be) or the checkpoint is corrupt.
   */
  static async start(o: DeviceManagerOptions): Promise<DeviceManager> {
    const m = new DeviceManager(o);
    mkdirSync(m.socketDir, { recursive: true, mode: 0o750 });
    m.readCheckpoint();
    for (const name of readdirSync(m.socketDir)) if (name !== checkpointName) rmSync(join(m.socketDir, name), { recursive: true, force: true });
    const server = new grpc.Server();
    server.addService(loadDevicePluginAPI().Registration.service, {
      Register: (call: grpc.ServerUnaryCall<RegisterRequest, object>, cb: grpc.sendUnaryData<object>) => {
        const why = m.register(call.request);
        if (why === undefined) cb(null, {});
        else cb({ code: grpc.status.UNKNOWN, details: why }, null);
      },
    });
    // A path too long for a unix socket fails start-up here (see bindUnixSocket).
    await bindUnixSocket(server, m.socketPath, "the device plugin registration socket");
    m.server = server;
    o.log(`Serving device plugin registration server on ${JSON.stringify(m.socketPath)}`);
    return m;
  }

  /** Stops serving, closes the plugins' connections and removes the socket. */
  async stop(): Promise<void> {
    for (const e of this.endpoints.values()) {
      e.stream?.cancel();
      e.client?.close();
    }
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    rmSync(this.socketPath, { force: true });
  }

  /** `Register`: validates the request; the plugin is dialled in the background. Returns the refusal, if any. */
  private register(r: RegisterRequest): string | undefined {
    this.o.log(`Got registration request from device plugin with resource ${JSON.stringify(r.resourceName)}`);
    if (!supportedVersions.includes(r.version)) {
      const why = `requested API version ${JSON.stringify(r.version)} is not supported by kubelet. Supported version is [${supportedVersions.map((v) => JSON.stringify(v)).join(" ")}]`;
      this.o.log(`Bad registration request from device plugin with resource ${JSON.stringify(r.resourceName)}: ${why}`);
      return why;
    }
    if (!isExtendedResourceName(r.resourceName)) {
      const why = `the ResourceName ${JSON.stringify(r.resourceName)} is invalid`;
      this.o.log(`Bad registration request from device plugin: ${why}`);
      return why;
    }
    // 1.23 joins the endpoint to the directory; one leaving the directory is refused here.
    const socket = join(this.socketDir, r.endpoint);
    const rel = relative(this.socketDir, socket);
    if (r.endpoint === "" || rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
      const why = `the endpoint ${JSON.stringify(r.endpoint)} is not a socket in ${JSON.stringify(this.socketDir)}`;
      this.o.log(`Bad registration request from device plugin: ${why}`);
      return why;
    }
    if (r.options?.getPreferredAllocationAvailable) this.o.log(`Device plugin ${JSON.stringify(r.resourceName)} offers GetPreferredAllocation: not consulted by this node agent (devices are taken in ID order)`);
    void this.addEndpoint(r.resourceName, socket, r.options ?? {});
    return undefined;
  }

  /** `addEndpoint`: dials the plugin, registers it (replacing an older one) and runs ListAndWatch. */
  private async addEndpoint(resource: string, socket: string, options: DevicePluginOptions): Promise<void> {
    const Client = loadDevicePluginAPI().DevicePlugin;
    const client = new Client(`unix://${socket}`, grpc.credentials.createInsecure()) as unknown as PluginClient;
    try {
      await new Promise<void>((resolve, reject) => client.waitForReady(Date.now() + dialTimeoutMs, (err) => (err ? reject(err) : resolve())));
    } catch (err) {
      client.close();
      this.o.log(`Failed to dial device plugin ${JSON.stringify(resource)}: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    if (!this.server) {
      client.close();
      return;
    }
    const old = this.endpoints.get(resource);
    const e: Endpoint = { client, options, stopTimeMs: undefined };
    this.endpoints.set(resource, e);
    if (old && old.client) {
      old.stream?.cancel();
      old.client.close();
    }
    this.o.log(`Registered endpoint ${socket} for resource ${resource}`, 2);
    const stream = client.ListAndWatch({});
    e.stream = stream;
    stream.on("data", (res: { devices: Device[] }) => {
      if (this.endpoints.get(resource) !== e) return;
      this.o.log(`State pushed for device plugin ${resource}: ${res.devices.length} devices`, 2);
      this.updateDevices(resource, res.devices);
    });
    let ended = false;
    const end = (why: string) => {
      if (ended) return;
      ended = true;
      e.stopTimeMs = this.clock();
      client.close();
      if (this.endpoints.get(resource) === e) {
        this.o.log(`listAndWatch ended unexpectedly for device plugin ${resource}: ${why}`);
        this.markResourceUnhealthy(resource);
      }
    };
    stream.on("error", (err: Error) => end(err.message));
    stream.on("end", () => end("stream closed"));
  }

  /** `genericDeviceUpdateCallback`: the resource's devices are the plugin's latest list. */
  private updateDevices(resource: string, devices: readonly Device[]): void {
    const all = new Map<string, Device>();
    const good = new Set<string>();
    const bad = new Set<string>();
    for (const d of devices) {
      all.set(d.ID, d);
      (d.health === healthy ? good : bad).add(d.ID);
    }
    this.allDevices.set(resource, all);
    this.removedResources.delete(resource);
    this.healthyDevices.set(resource, good);
    this.unhealthyDevices.set(resource, bad);
    this.writeCheckpoint();
  }

  /** `markResourceUnhealthy`: every device of a stopped plugin becomes unhealthy. */
  private markResourceUnhealthy(resource: string): void {
    const good = this.healthyDevices.get(resource) ?? new Set();
    const bad = this.unhealthyDevices.get(resource) ?? new Set();
    for (const id of good) bad.add(id);
    this.healthyDevices.set(resource, new Set());
    this.unhealthyDevices.set(resource, bad);
    this.writeCheckpoint();
  }

  /**
   * `GetCapacity`: per resource, capacity = all devices and allocatable = healthy devices (counts);
   * a resource whose plugin stopped more than {@link endpointStopGracePeriodMs} ago is dropped and
   * returned in `removed` from then on until its plugin registers again (node status shows 0).
   */
  getCapacity(): { capacity: Record<string, number>; allocatable: Record<string, number>; removed: string[] } {
    const capacity: Record<string, number> = {};
    const allocatable: Record<string, number> = {};
    const removed = new Set<string>();
    const expired = (resource: string) => {
      const e = this.endpoints.get(resource);
      return !e || (e.stopTimeMs !== undefined && this.clock() - e.stopTimeMs > endpointStopGracePeriodMs);
    };
    for (const [resource, devs] of this.healthyDevices) {
      if (expired(resource)) {
        removed.add(resource);
        continue;
      }
      capacity[resource] = devs.size;
      allocatable[resource] = devs.size;
    }
    for (const [resource, devs] of this.unhealthyDevices) {
      if (expired(resource)) {
        removed.add(resource);
        continue;
      }
      capacity[resource] = (capacity[resource] ?? 0) + devs.size;
    }
    if (removed.size > 0) {
      for (const r of removed) {
        this.endpoints.delete(r);
        this.healthyDevices.delete(r);
        this.unhealthyDevices.delete(r);
        this.removedResources.add(r);
      }
      this.writeCheckpoint();
    }
    return { capacity, allocatable, removed: [...this.removedResources].sort() };
  }

  /**
   * The device plugin resources' allocatable for the resource fit of admission: healthy devices
   * per registered resource, 0 for dropped ones, raised to the devices already allocated (1.23's
   * sanitizeNodeAllocatable). Whole units.
   */
  admissionAllocatable(): Map<string, bigint> {
    const out = new Map<string, bigint>();
    for (const [resource, devs] of this.healthyDevices) out.set(resource, BigInt(devs.size));
    for (const resource of this.removedResources) if (!out.has(resource)) out.set(resource, 0n);
    for (const [resource, devs] of this.allocatedDevices) if ((out.get(resource) ?? -1n) < BigInt(devs.size)) out.set(resource, BigInt(devs.size));
    return out;
  }

  private isDevicePluginResource(resource: string): boolean {
    return this.healthyDevices.has(resource) || this.allocatedDevices.has(resource);
  }

  /** `UpdateAllocatedDevices`: forgets the pods that are no longer active. */
  private updateAllocatedDevices(activeUIDs: ReadonlySet<string>): void {
    let changed = false;
    for (const uid of [...this.podDevices.keys()]) {
      if (activeUIDs.has(uid)) continue;
      this.podDevices.delete(uid);
      changed = true;
    }
    if (changed) this.allocatedDevices = this.devicesInUse();
  }

  private devicesInUse(): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    for (const containers of this.podDevices.values()) {
      for (const resources of containers.values()) {
        for (const [resource, d] of resources) {
          const s = out.get(resource) ?? new Set<string>();
          for (const id of d.deviceIds) s.add(id);
          out.set(resource, s);
        }
      }
    }
    return out;
  }

  /** `devicesToAllocate`: the devices to give `container` for `resource`, reusable ones first. @throws Error with 1.23's messages. */
  private devicesToAllocate(uid: string, container: string, resource: string, required: number, reusable: Set<string>): string[] {
    const existing = this.podDevices.get(uid)?.get(container)?.get(resource);
    let needed = required;
    if (existing) {
      needed -= existing.deviceIds.length;
      if (needed !== 0) throw new Error(`pod ${JSON.stringify(uid)} container ${JSON.stringify(container)} changed request for resource ${JSON.stringify(resource)} from ${existing.deviceIds.length} to ${required}`);
    }
    if (needed === 0) return [];
    const healthySet = this.healthyDevices.get(resource);
    if (!healthySet) throw new Error(`can't allocate unregistered device ${resource}`);
    const inUse = this.allocatedDevices.get(resource) ?? new Set<string>();
    const out: string[] = [];
    for (const id of [...reusable].sort()) {
      if (needed === 0) break;
      out.push(id);
      needed--;
    }
    if (needed === 0) {
      for (const id of out) inUse.add(id);
      this.allocatedDevices.set(resource, inUse);
      return out;
    }
    const available = [...healthySet].filter((id) => !inUse.has(id) && !out.includes(id)).sort();
    if (available.length < needed) throw new Error(`requested number of devices unavailable for ${resource}. Requested: ${needed}, Available: ${available.length}`);
    out.push(...available.slice(0, needed));
    for (const id of out) inUse.add(id);
    this.allocatedDevices.set(resource, inUse);
    return out;
  }

  /** `allocateContainerResources` without the plugin call (made later, see {@link runContainerOptions}). */
  private allocateContainer(pod: Pod, c: Container, reusable: Map<string, Set<string>>): void {
    const uid = pod.metadata?.uid ?? "";
    for (const [resource, quantity] of Object.entries(c.resources?.limits ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (!this.isDevicePluginResource(resource)) continue;
      const needed = Number.parseInt(String(quantity), 10);
      if (!Number.isFinite(needed) || needed <= 0) continue;
      const ids = this.devicesToAllocate(uid, c.name, resource, needed, reusable.get(resource) ?? new Set());
      if (ids.length === 0) continue;
      const numa: Record<string, string[]> = {};
      for (const id of ids) {
        const nodes = this.allDevices.get(resource)?.get(id)?.topology?.nodes ?? [];
        for (const key of nodes.length > 0 ? nodes.map((n) => String(n.ID)) : [String(nodeWithoutTopology)]) (numa[key] ??= []).push(id);
      }
      const containers = this.podDevices.get(uid) ?? new Map<string, Map<string, ContainerDevices>>();
      const resources = containers.get(c.name) ?? new Map<string, ContainerDevices>();
      resources.set(resource, { deviceIds: ids, numa, response: undefined });
      containers.set(c.name, resources);
      this.podDevices.set(uid, containers);
    }
  }

  /**
   * The device part of admission (1.23's topology manager admit handler calling the device
   * manager's `Allocate` for the init containers then the containers): devices are chosen for
   * every container's device-plugin limits, init containers' devices reusable by later
   * containers. A shortfall rejects the pod with `UnexpectedAdmissionError` `Allocate failed due to
   * <why>, which is unexpected`; the pod's allocations are then dropped. `active`: the admitted pods;
   * with `sourcesReady` (default true) the allocations of pods not among them are forgotten first
   * (1.23's UpdateAllocatedDevices, which waits for the sources so a restart keeps checkpointed ones).
   */
  admitPod(pod: Pod, active: readonly Pod[], sourcesReady = true): DeviceAdmitResult {
    const uid = pod.metadata?.uid ?? "";
    if (sourcesReady) this.updateAllocatedDevices(new Set([uid, ...active.map((p) => p.metadata?.uid ?? "")]));
    this.devicesToReuse = new Map([[uid, this.devicesToReuse.get(uid) ?? new Map()]]);
    const reuse = this.devicesToReuse.get(uid) ?? new Map<string, Set<string>>();
    const inits = new Set((pod.spec?.initContainers ?? []).map((c) => c.name));
    try {
      for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
        this.allocateContainer(pod, c, reuse);
        const mine = this.podDevices.get(uid)?.get(c.name) ?? new Map<string, ContainerDevices>();
        for (const [resource, d] of mine) {
          const s = reuse.get(resource) ?? new Set<string>();
          // addContainerAllocatedResources for init containers, removeContainerAllocatedResources for the others.
          for (const id of d.deviceIds) {
            if (inits.has(c.name)) s.add(id);
            else s.delete(id);
          }
          reuse.set(resource, s);
        }
      }
    } catch (err) {
      this.podDevices.delete(uid);
      this.allocatedDevices = this.devicesInUse();
      return { admit: false, reason: "UnexpectedAdmissionError", message: `Allocate failed due to ${err instanceof Error ? err.message : String(err)}, which is unexpected` };
    }
    if (this.podDevices.has(uid)) this.writeCheckpoint();
    return { admit: true };
  }

  /**
   * The plugin calls of 1.23's admission-time `Allocate`, made before the pod's first sync (the
   * pod runtime's admission is synchronous): `Allocate` for every container's devices not yet
   * answered, init containers first. Returns the rejection message on failure (`Allocate failed
   * due to rpc error: code = Unknown desc = <why>, which is unexpected`), the pod's devices then
   * released; undefined when all is answered.
   */
  async allocatePending(pod: Pod): Promise<string | undefined> {
    const uid = pod.metadata?.uid ?? "";
    try {
      for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
        for (const [resource, d] of [...(this.podDevices.get(uid)?.get(c.name) ?? [])].sort(([a], [b]) => (a < b ? -1 : 1))) {
          if (d.response === undefined) await this.callAllocate(resource, d);
        }
      }
    } catch (err) {
      this.removePod(uid);
      return `Allocate failed due to ${err instanceof Error ? err.message : String(err)}, which is unexpected`;
    }
    return undefined;
  }

  /** Calls the plugin's `Allocate` for `d` and keeps the answer. @throws Error with Go's gRPC error text. */
  private async callAllocate(resource: string, d: ContainerDevices): Promise<void> {
    const e = this.endpoints.get(resource);
    if (!e?.client || e.stopTimeMs !== undefined) throw new Error(`unknown Device Plugin ${resource}`);
    const client = e.client;
    const res = await new Promise<{ containerResponses: ContainerAllocateResponse[] }>((resolve, reject) =>
      client.Allocate({ containerRequests: [{ devicesIDs: [...d.deviceIds] }] }, (err, r) => (err || !r ? reject(new Error(goRPCError(err))) : resolve(r))),
    );
    const first = res.containerResponses[0];
    if (!first) throw new Error(`no containers return in allocation response ${JSON.stringify(res)}`);
    d.response = first;
    this.writeCheckpoint();
  }

  /**
   * `GetDeviceRunContainerOptions`: asks the plugin for the container's allocation (`Allocate`,
   * once; kept in the checkpoint) and calls `PreStartContainer` when the plugin's options ask for
   * it, then merges the responses (first setting of an env, mount, device or annotation wins).
   * Undefined when the container has no devices.
   * @throws Error when a plugin is gone or its call fails (the container is not created).
   */
  async runContainerOptions(pod: Pod, c: Container): Promise<DeviceRunContainerOptions | undefined> {
    const uid = pod.metadata?.uid ?? "";
    const resources = this.podDevices.get(uid)?.get(c.name);
    if (!resources || resources.size === 0) return undefined;
    for (const [resource, d] of [...resources].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const e = this.endpoints.get(resource);
      if (d.response === undefined) await this.callAllocate(resource, d);
      if (e?.options.preStartRequired) {
        if (!e.client || e.stopTimeMs !== undefined) throw new Error(`endpoint not found in cache for a registered resource: ${resource}`);
        const client = e.client;
        await new Promise<void>((resolve, reject) => client.PreStartContainer({ devicesIDs: [...d.deviceIds] }, (err) => (err ? reject(new Error(goRPCError(err))) : resolve())));
      }
    }
    const envs: { key: string; value: string }[] = [];
    const mounts: { containerPath: string; hostPath: string; readonly: boolean }[] = [];
    const devices: { containerPath: string; hostPath: string; permissions: string }[] = [];
    const annotations: Record<string, string> = {};
    for (const [, d] of [...resources].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const r = d.response;
      if (!r) continue;
      for (const [k, v] of Object.entries(r.envs ?? {})) if (!envs.some((x) => x.key === k)) envs.push({ key: k, value: v });
      for (const m of r.mounts ?? []) if (!mounts.some((x) => x.containerPath === m.containerPath)) mounts.push({ containerPath: m.containerPath, hostPath: m.hostPath, readonly: m.readOnly });
      for (const dv of r.devices ?? []) if (!devices.some((x) => x.containerPath === dv.containerPath)) devices.push({ containerPath: dv.containerPath, hostPath: dv.hostPath, permissions: dv.permissions });
      for (const [k, v] of Object.entries(r.annotations ?? {})) if (!(k in annotations)) annotations[k] = v;
    }
    return { envs, mounts, devices, annotations };
  }

  /** Releases a pod's devices (it terminated or was removed). */
  removePod(uid: string): void {
    if (!this.podDevices.delete(uid)) return;
    this.allocatedDevices = this.devicesInUse();
    this.devicesToReuse.delete(uid);
    this.writeCheckpoint();
  }

  /** The devices of a container, per resource (sorted), for the pod resources API. */
  containerDevices(uid: string, container: string): ContainerDeviceInfo[] {
    const resources = this.podDevices.get(uid)?.get(container);
    if (!resources) return [];
    return [...resources].sort(([a], [b]) => (a < b ? -1 : 1)).map(([resourceName, d]) => ({ resourceName, deviceIds: [...d.deviceIds] }));
  }

  /** The healthy devices pods may be given, per resource, for the pod resources API's `GetAllocatableResources`. */
  allocatableDevices(): ContainerDeviceInfo[] {
    return [...this.healthyDevices].sort(([a], [b]) => (a < b ? -1 : 1)).filter(([, s]) => s.size > 0).map(([resourceName, s]) => ({ resourceName, deviceIds: [...s].sort() }));
  }

  /** `writeCheckpoint`: the allocations and registered devices, as 1.23's JSON. Failures are logged. */
  private writeCheckpoint(): void {
    const entries: NonNullable<CheckpointData["Data"]["PodDeviceEntries"]> = [];
    for (const [uid, containers] of this.podDevices) {
      for (const [container, resources] of containers) {
        for (const [resource, d] of resources) {
          entries.push({ PodUID: uid, ContainerName: container, ResourceName: resource, DeviceIDs: { ...d.numa }, AllocResp: d.response ? encodeContainerAllocateResponse(d.response).toString("base64") : "" });
        }
      }
    }
    // RegisteredDevices: the healthy devices of each resource, as 1.23.
    const registered: Record<string, string[]> = {};
    for (const [resource, devs] of this.healthyDevices) registered[resource] = [...devs];
    const data: CheckpointData["Data"] = { PodDeviceEntries: entries, RegisteredDevices: registered };
    try {
      writeCheckpoint(this.checkpointPath, JSON.stringify({ Data: data, Checksum: fnv32a(JSON.stringify(data)) }));
    } catch (err) {
      this.o.log(`Failed to write checkpoint file: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * `readCheckpoint`: restores the allocations; each registered resource comes back with a stopped
   * endpoint and no devices (capacity 0 until its plugin registers again or the grace period ends).
   * A corrupt file is logged and ignored, as 1.23 (which goes on without it).
   */
  private readCheckpoint(): void {
    if (!existsSync(this.checkpointPath)) return;
    let cp: CheckpointData;
    try {
      cp = JSON.parse(readFileSync(this.checkpointPath, "utf8")) as CheckpointData;
      if (typeof cp?.Data !== "object" || cp.Data === null) throw new Error("no Data");
      if (cp.Checksum !== fnv32a(JSON.stringify(cp.Data))) throw new Error("checkpoint is corrupted");
    } catch (err) {
      this.o.log(`Failed to read data from checkpoint ${checkpointName}: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    for (const e of cp.Data.PodDeviceEntries ?? []) {
      const containers = this.podDevices.get(e.PodUID) ?? new Map<string, Map<string, ContainerDevices>>();
      const resources = containers.get(e.ContainerName) ?? new Map<string, ContainerDevices>();
      const ids = [...new Set(Object.values(e.DeviceIDs ?? {}).flat())];
      let response: ContainerAllocateResponse | undefined;
      try {
        response = e.AllocResp ? decodeContainerAllocateResponse(Buffer.from(e.AllocResp, "base64")) : undefined;
      } catch {
        response = undefined;
      }
      resources.set(e.ResourceName, { deviceIds: ids, numa: e.DeviceIDs ?? {}, response });
      containers.set(e.ContainerName, resources);
      this.podDevices.set(e.PodUID, containers);
    }
    this.allocatedDevices = this.devicesInUse();
    const now = this.clock();
    for (const resource of Object.keys(cp.Data.RegisteredDevices ?? {})) {
      this.healthyDevices.set(resource, new Set());
      this.endpoints.set(resource, { client: undefined, options: {}, stopTimeMs: now });
    }
  }
}
