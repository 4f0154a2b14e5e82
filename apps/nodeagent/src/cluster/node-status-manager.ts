/**
 * Node registration and the node status loop (API-server mode).
 *
 * @see pkg/kubelet/kubelet_node_status.go (registerWithAPIServer, tryRegisterWithAPIServer, updateNodeStatus, tryUpdateNodeStatus) in kubernetes/kubernetes v1.23
 */
import { isDeepStrictEqual } from "node:util";
import type { Node, NodeAddress, NodeStatus, NodeSystemInfo } from "@skiff/api-types";
import { isAlreadyExists } from "@skiff/apimachinery";
import type { Client } from "@skiff/client";
import type { RuntimeState } from "../pods/index.js";
import { buildNodeImages, buildNodeStatus, reconcileExistingNode } from "./node-object.js";
import type { NodePressure, RuntimeImage } from "./node-object.js";
import type { NodeResources } from "./node-resources.js";

/** A line logger: level 0 is info, higher is more verbose. */
export type ClusterLog = (message: string, level?: number) => void;

/** Options of {@link NodeStatusManager}. */
export interface NodeStatusManagerOptions {
  readonly client: Client;
  /**
   * The client of the periodic status updates (1.23's kubelet's unthrottled `HeartbeatClient`);
   * registration uses {@link client}. @defaultValue `client`
   */
  readonly heartbeatClient?: Client;
  /** The Node to create (from `buildInitialNode`). */
  readonly initialNode: Node;
  readonly resources: NodeResources;
  /**
   * The device plugins' resources (the device manager's `GetCapacity`): counts per resource, and
   * the resources whose plugin is gone past its grace period (reported as 0). Absent: none.
   */
  readonly devicePluginResources?: () => { capacity: Record<string, number>; allocatable: Record<string, number>; removed: readonly string[] };
  readonly addresses: readonly NodeAddress[];
  /** nodeInfo without `containerRuntimeVersion` (filled from the runtime at each update). */
  readonly nodeInfo: NodeSystemInfo;
  /** The main port (`daemonEndpoints.kubeletEndpoint.Port`). */
  readonly port: number;
  readonly runtimeState: () => RuntimeState;
  /** The eviction manager's MemoryPressure/DiskPressure/PIDPressure. */
  readonly pressure: () => Promise<NodePressure>;
  /** The runtime's images (CRI `ListImages`) for `status.images`; absent: no images reported. */
  readonly listImages?: () => Promise<readonly RuntimeImage[]>;
  /** `--node-status-max-images`: -1 all, 0 none. @defaultValue 50 */
  readonly maxImages?: number;
  /** `--node-status-update-frequency` in ms: how often the status is computed. */
  readonly updateFrequencyMs: number;
  /**
   * `nodeStatusReportFrequency` in ms: how often an unchanged status is posted anyway (the node
   * lease is the heartbeat in between). @defaultValue `updateFrequencyMs` (post every time)
   */
  readonly reportFrequencyMs?: number;
  /** @defaultValue Date.now */
  readonly clock?: () => number;
  readonly log: ClusterLog;
  /** Records a Node event (`NodeReady`, `NodeNotReady`, `RegisteredNode`...). */
  readonly recordEvent?: (type: "Normal" | "Warning", reason: string, message: string) => void;
  /** @defaultValue now, RFC 3339 seconds */
  readonly now?: () => string;
}

const nowSeconds = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * Node capacity/allocatable with the device plugins' resources: capacity = all devices,
 * allocatable = healthy devices; a removed resource is kept at 0 (so it shows it was a device
 * plugin resource), as 1.23's MachineInfo setter. Pure.
 * @see pkg/kubelet/nodestatus/setters.go (MachineInfo) in kubernetes/kubernetes v1.23
 */
export function withDevicePluginResources(r: NodeResources, dp: { capacity: Record<string, number>; allocatable: Record<string, number>; removed: readonly string[] } | undefined): NodeResources {
  if (!dp) return r;
  const capacity = { ...r.capacity };
  const allocatable = { ...r.allocatable };
  for (const [k, v] of Object.entries(dp.capacity)) {
    capacity[k] = String(v);
    allocatable[k] = String(v);
  }
  for (const k of dp.removed) {
    capacity[k] = "0";
    allocatable[k] = "0";
  }
  for (const [k, v] of Object.entries(dp.allocatable)) allocatable[k] = String(v);
  // A resource with only unhealthy devices: allocatable from capacity minus its (absent) healthy count.
  for (const k of Object.keys(dp.capacity)) if (!(k in dp.allocatable)) allocatable[k] = "0";
  return { capacity, allocatable };
}

/** Times of {@link NodeStatusManager.register}'s back-off (ms): 100 doubling to 7000, as the kubelet. */
export const registrationBackoff = Object.freeze({ initialMs: 100, maxMs: 7_000 });

/**
 * Registers the Node and keeps its status current. {@link register} retries (back-off 100 ms
 * doubling to 7 s) until the Node exists: created with its status, or — when it already exists —
 * its default labels and attach-detach annotation reconciled (merge patch) and its status
 * posted. {@link start} then computes the status every `updateFrequencyMs` and posts it through
 * `nodes/status` (a JSON merge patch of `status`, 5 tries per period) when it changed (conditions
 * compared without their heartbeat times) or `reportFrequencyMs` passed since the last post, as
 * 1.23's kubelet with node leases. Ready follows the runtime; Node events are recorded on
 * condition transitions.
 * @see pkg/kubelet/kubelet_node_status.go (tryUpdateNodeStatus, nodeStatusHasChanged) in kubernetes/kubernetes v1.23
 */
export class NodeStatusManager {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastStatus: NodeStatus | undefined;
  private busy = false;
  private lastReportMs = 0;
  /** The status last sent (compared with the next one as computed, not as the server echoes it). */
  private lastSent: NodeStatus | undefined;
  private readonly now: () => string;
  private readonly clock: () => number;

  constructor(private readonly o: NodeStatusManagerOptions) {
    this.now = o.now ?? nowSeconds;
    this.clock = o.clock ?? Date.now;
  }

  private get name(): string {
    return this.o.initialNode.metadata?.name ?? "";
  }

  private async imagesForStatus(): Promise<ReturnType<typeof buildNodeImages> | undefined> {
    if (!this.o.listImages) return undefined;
    try {
      return buildNodeImages(await this.o.listImages(), this.o.maxImages ?? 50);
    } catch (err) {
      this.o.log(`Failed to set some node status fields: error getting image list: ${err instanceof Error ? err.message : String(err)} (node ${this.name})`);
      return [];
    }
  }

  private async statusFor(previous: NodeStatus | undefined): Promise<NodeStatus> {
    const rt = this.o.runtimeState();
    const images = await this.imagesForStatus();
    const { status, transitions } = buildNodeStatus(
      {
        resources: withDevicePluginResources(this.o.resources, this.o.devicePluginResources?.()),
        addresses: this.o.addresses,
        nodeInfo: { ...this.o.nodeInfo, containerRuntimeVersion: rt.runtimeName ? `${rt.runtimeName}://${rt.runtimeVersion ?? ""}` : "" },
        port: this.o.port,
        // 1.23's ReadyCondition: the runtime's errors, then its network's.
        notReadyReasons: [...new Set([...rt.errors, ...(rt.networkError !== "" ? [rt.networkError] : [])])],
        pressure: await this.o.pressure(),
        now: this.now(),
        ...(images !== undefined ? { images } : {}),
      },
      previous,
    );
    for (const t of transitions) {
      if (previous === undefined && t.status === "False" && t.type !== "Ready") continue;
      this.o.recordEvent?.("Normal", t.eventReason, `Node ${this.name} status is now: ${t.eventReason}`);
    }
    return status;
  }

  /** Registers the Node; resolves with it once it exists. Rejects only when `signal` aborts. */
  async register(signal?: AbortSignal): Promise<Node> {
    let delayMs: number = registrationBackoff.initialMs;
    for (;;) {
      if (signal?.aborted || this.stopped) throw Object.assign(new Error("node registration aborted"), { code: "Aborted" });
      try {
        const node = await this.tryRegister();
        this.o.log(`Successfully registered node ${this.name}`);
        return node;
      } catch (err) {
        this.o.log(`Unable to register node with API server: ${err instanceof Error ? err.message : String(err)} (node ${this.name})`);
      }
      await new Promise((r) => setTimeout(r, delayMs).unref());
      delayMs = Math.min(delayMs * 2, registrationBackoff.maxMs);
    }
  }

  private async tryRegister(): Promise<Node> {
    const status = await this.statusFor(undefined);
    try {
      const created = await this.o.client.nodes.create({ ...this.o.initialNode, status });
      // Status is a subresource: post it (a create may drop it).
      const posted = await this.o.client.nodes.patch(this.name, { status }, { subresource: "status" });
      this.lastStatus = posted.status ?? status;
      this.lastSent = status;
      this.lastReportMs = this.clock();
      this.o.recordEvent?.("Normal", "RegisteredNode", `Node ${this.name} event: Registered Node ${this.name} in Controller`);
      return { ...created, status: this.lastStatus };
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    const existing = await this.o.client.nodes.get(this.name);
    const patch = reconcileExistingNode(this.o.initialNode, existing);
    if (patch) await this.o.client.nodes.patch(this.name, { metadata: patch });
    const next = await this.statusFor(existing.status);
    const posted = await this.o.client.nodes.patch(this.name, { status: next }, { subresource: "status" });
    this.lastStatus = posted.status ?? next;
    this.lastSent = next;
    this.lastReportMs = this.clock();
    return posted;
  }

  /** Starts the periodic status update. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.updateNodeStatus(), this.o.updateFrequencyMs);
    this.timer.unref();
  }

  /** Posts the status once (5 tries); logs failures. Concurrent calls are skipped. */
  async updateNodeStatus(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    try {
      for (let i = 0; i < 5; i++) {
        try {
          const next = await this.statusFor(this.lastStatus);
          const reportDue = this.clock() >= this.lastReportMs + (this.o.reportFrequencyMs ?? this.o.updateFrequencyMs);
          if (!reportDue && this.lastSent !== undefined && !nodeStatusHasChanged(this.lastSent, next)) return;
          const posted = await (this.o.heartbeatClient ?? this.o.client).nodes.patch(this.name, { status: next }, { subresource: "status" });
          this.lastStatus = posted.status ?? next;
          this.lastSent = next;
          this.lastReportMs = this.clock();
          return;
        } catch (err) {
          this.o.log(`Error updating node status, will retry: ${err instanceof Error ? err.message : String(err)}`);
          if (this.stopped) return;
        }
      }
      this.o.log("Unable to update node status: update node status exceeds retry count");
    } finally {
      this.busy = false;
    }
  }

  /** Stops the loop. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }
}

/**
 * Whether a node status differs from the last one posted: its conditions compared by type without
 * their `lastHeartbeatTime`, everything else as it is. Pure.
 * @see pkg/kubelet/kubelet_node_status.go (nodeStatusHasChanged, nodeConditionsHaveChanged) in kubernetes/kubernetes v1.23
 */
export function nodeStatusHasChanged(before: NodeStatus, after: NodeStatus): boolean {
  const conditions = (s: NodeStatus) =>
    [...(s.conditions ?? [])].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0)).map(({ lastHeartbeatTime: _t, ...c }) => c);
  const { conditions: _a, ...restBefore } = before;
  const { conditions: _b, ...restAfter } = after;
  return !isDeepStrictEqual(conditions(before), conditions(after)) || !isDeepStrictEqual(restBefore, restAfter);
}
