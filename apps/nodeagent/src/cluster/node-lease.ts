/**
 * The node lease controller (API-server mode): creates and renews `kube-node-lease/<nodeName>`,
 * the node's heartbeat, as 1.23's kubelet does with the NodeLease feature.
 *
 * @see staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/util/nodelease.go (SetNodeOwnerFunc) in kubernetes/kubernetes v1.23
 */
import type { Lease, Node } from "@skiff/api-types";
import { NamespaceNodeLease } from "@skiff/api-types";
import { isConflict, isNotFound } from "@skiff/apimachinery";
import type { ResourceClient } from "@skiff/client";
import type { ClusterLog } from "./node-status-manager.js";

/** Fraction of the lease duration after which the lease is renewed (1.23: 0.25). */
export const nodeLeaseRenewIntervalFraction = 0.25;

/** Immediate update attempts per renewal before waiting for the next interval (1.23: 5). */
export const nodeLeaseMaxUpdateRetries = 5;

/** Back-off of {@link NodeLeaseController}'s get-or-create (ms): 200 doubling to 7000, as 1.23. */
export const nodeLeaseBackoff = Object.freeze({ initialMs: 200, maxMs: 7_000 });

/** Options of {@link NodeLeaseController}. */
export interface NodeLeaseControllerOptions {
  /** The Lease client (`client.resource("leases.coordination.k8s.io")`). */
  readonly leases: Pick<ResourceClient<Lease>, "get" | "create" | "update">;
  /** The Node client, read once to set the lease's ownerReference. */
  readonly nodes: Pick<ResourceClient<Node>, "get">;
  /** The node's name: the lease's name and `holderIdentity`. */
  readonly nodeName: string;
  /** `nodeLeaseDurationSeconds` (> 0); the lease is renewed every quarter of it. @defaultValue 40 in the config */
  readonly leaseDurationSeconds: number;
  readonly log: ClusterLog;
  /** Called when an update fails (not a conflict) a second time in one renewal, as 1.23's onRepeatedHeartbeatFailure. */
  readonly onRepeatedHeartbeatFailure?: () => void;
  /** The current time as MicroTime (`2024-01-02T03:04:05.123456Z`). @defaultValue now, with microseconds 000 appended to the milliseconds */
  readonly nowMicro?: () => string;
  /** Waits `ms` (tests pass a fake). @defaultValue an unref'd timer */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** `new Date().toISOString()` as MicroTime: six fractional digits. */
export function formatMicroTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Creates and renews the node's Lease in `kube-node-lease`: named after the node, `holderIdentity`
 * the node name, `leaseDurationSeconds` from the config, `renewTime` now (MicroTime), and an
 * ownerReference to the Node (`v1`/`Node`, name and uid; set once the Node can be read, so the
 * lease goes with its Node).
 *
 * {@link sync} is one renewal: with a lease from the previous renewal it updates that (fast
 * path); otherwise it gets the lease, creating it when missing (retrying with back-off 200 ms
 * doubling to 7 s until it succeeds or the controller stops) — a freshly created lease is not
 * updated again in the same renewal. Updates are tried up to 5 times; a conflict re-reads the
 * lease first. {@link start} runs {@link sync} now and then every `leaseDurationSeconds / 4`
 * (10 s for 40) after the previous one ends, with up to 4 % jitter, until {@link stop}.
 */
export class NodeLeaseController {
  private latest: Lease | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private readonly wakers = new Set<() => void>();
  private readonly nowMicro: () => string;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly o: NodeLeaseControllerOptions) {
    this.nowMicro = o.nowMicro ?? (() => formatMicroTime(new Date()));
    this.sleep = o.sleep ?? defaultSleep;
  }

  /** The renewal interval in ms: `leaseDurationSeconds × 0.25 × 1000`. */
  get renewIntervalMs(): number {
    return this.o.leaseDurationSeconds * nodeLeaseRenewIntervalFraction * 1000;
  }

  /** The lease as last written (or read) by this controller; `undefined` before the first success. */
  get latestLease(): Lease | undefined {
    return this.latest;
  }

  /** Starts the renewal loop (idempotent). */
  start(): void {
    if (this.running || this.stopped) return;
    this.running = this.loop();
  }

  /** Stops the loop; a renewal in flight finishes. Resolves when the loop has ended. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const wake of this.wakers) wake();
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      await this.sync();
      if (this.stopped) return;
      await this.pause(this.renewIntervalMs * (1 + Math.random() * 0.04));
    }
  }

  // Sleeps, or less when stop() is called.
  private async pause(ms: number): Promise<void> {
    let wake: (() => void) | undefined;
    await new Promise<void>((resolve) => {
      wake = resolve;
      this.wakers.add(resolve);
      void this.sleep(ms).then(resolve);
    });
    if (wake) this.wakers.delete(wake);
  }

  /** One renewal; never throws (failures are logged and retried at the next renewal). */
  async sync(): Promise<void> {
    if (this.latest !== undefined) {
      if (await this.retryUpdate(this.latest)) return;
      this.o.log(`failed to update lease using latest lease, fallback to ensure lease (node ${this.o.nodeName})`, 2);
    }
    const ensured = await this.backoffEnsureLease();
    if (ensured === undefined || ensured.created) return;
    await this.retryUpdate(ensured.lease);
  }

  private async backoffEnsureLease(): Promise<{ lease: Lease; created: boolean } | undefined> {
    let delayMs: number = nodeLeaseBackoff.initialMs;
    while (!this.stopped) {
      try {
        return await this.ensureLease();
      } catch (err) {
        this.o.log(`Failed to ensure lease exists, will retry in ${delayMs / 1000}s: ${errText(err)} (node ${this.o.nodeName})`);
      }
      if (this.stopped) break;
      await this.pause(delayMs);
      delayMs = Math.min(delayMs * 2, nodeLeaseBackoff.maxMs);
    }
    return undefined;
  }

  private async ensureLease(): Promise<{ lease: Lease; created: boolean }> {
    try {
      const lease = await this.o.leases.get(this.o.nodeName, { namespace: NamespaceNodeLease });
      return { lease, created: false };
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const lease = await this.o.leases.create(await this.newLease(undefined), { namespace: NamespaceNodeLease });
    this.latest = lease;
    return { lease, created: true };
  }

  private async retryUpdate(base: Lease): Promise<boolean> {
    let current: Lease | undefined = base;
    for (let i = 0; i < nodeLeaseMaxUpdateRetries && !this.stopped; i++) {
      try {
        this.latest = await this.o.leases.update(await this.newLease(current), { namespace: NamespaceNodeLease });
        return true;
      } catch (err) {
        this.o.log(`Failed to update lease: ${errText(err)} (node ${this.o.nodeName})`);
        if (isConflict(err)) {
          // The lease changed under us: continue from the stored one.
          current = (await this.backoffEnsureLease())?.lease;
          if (current === undefined) return false;
          continue;
        }
        if (i > 0) this.o.onRepeatedHeartbeatFailure?.();
      }
    }
    if (this.stopped) return false;
    this.o.log(`failed ${nodeLeaseMaxUpdateRetries} attempts to update lease (node ${this.o.nodeName})`);
    return false;
  }

  private async newLease(base: Lease | undefined): Promise<Lease> {
    const lease: Lease = base
      ? structuredClone(base)
      : {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name: this.o.nodeName, namespace: NamespaceNodeLease },
          spec: { holderIdentity: this.o.nodeName, leaseDurationSeconds: this.o.leaseDurationSeconds },
        };
    lease.spec = { ...lease.spec, renewTime: this.nowMicro() };
    const meta = (lease.metadata ??= {});
    if ((meta.ownerReferences ?? []).length === 0) {
      try {
        const node = await this.o.nodes.get(this.o.nodeName);
        if (node.metadata?.uid) meta.ownerReferences = [{ apiVersion: "v1", kind: "Node", name: this.o.nodeName, uid: node.metadata.uid }];
      } catch (err) {
        this.o.log(`failed to get node ${this.o.nodeName} when trying to set owner ref to the node lease: ${errText(err)}`);
      }
    }
    return lease;
  }
}
