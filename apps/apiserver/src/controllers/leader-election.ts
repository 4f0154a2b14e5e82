/**
 * Lease-based leader election among the apiservers that share one storage (several
 * skiff-apiservers on one etcd), so the controllers they run in-process run in one of them at a
 * time, as kube-controller-manager's do. The lock is a `coordination.k8s.io/v1` Lease
 * (`kube-system/skiff-apiserver-controllers`; `kubectl get lease -n kube-system` shows its holder).
 *
 * As client-go's elector: every `retryPeriodMs` an apiserver tries to acquire or renew the lease;
 * it takes a lease held by another only once that lease has not changed for
 * `leaseDurationSeconds` as this apiserver observed it (its own clock, never the holder's
 * `renewTime`, so clock skew does not matter); a leader that has not renewed for `renewDeadlineMs`
 * stops leading. Writes are compare-and-swap on the lease's resourceVersion. On `stop()` a leader
 * releases the lease (holder emptied), so another apiserver takes over at its next try.
 *
 * @see staging/src/k8s.io/client-go/tools/leaderelection/leaderelection.go (tryAcquireOrRenew, renew)
 * @see staging/src/k8s.io/client-go/tools/leaderelection/resourcelock/leaselock.go
 */
import type { GenericStore } from "@skiff/apiserver-core";
import type { Lease, LeaseSpec } from "@skiff/api-types";
import { hasStatusCode, systemContext } from "./common.js";
import type { ControllerLog } from "./common.js";

/** The Lease the in-process controllers of skiff-apiservers elect their leader with. */
export const controllersLease = { namespace: "kube-system", name: "skiff-apiserver-controllers" } as const;

/** The user the elector writes its lease as. */
export const leaderElectionUser = "system:skiff-apiserver";

/** Options of {@link LeaderElector}. */
export interface LeaderElectorOptions {
  /** The generic store of `leases.coordination.k8s.io`. */
  readonly leases: GenericStore;
  /** This apiserver's identity: the lease's `holderIdentity` while it leads. */
  readonly identity: string;
  /** @defaultValue {@link controllersLease} */
  readonly lease?: { readonly namespace: string; readonly name: string };
  /** How long a lease is valid after it last changed. @defaultValue 15 (client-go's default) */
  readonly leaseDurationSeconds?: number;
  /** A leader that could not renew for this long stops leading. @defaultValue 10000 */
  readonly renewDeadlineMs?: number;
  /** Time between tries. @defaultValue 2000 */
  readonly retryPeriodMs?: number;
  /** Called when this apiserver becomes the leader. */
  readonly onStartedLeading: () => void | Promise<void>;
  /** Called when it stops leading (lost the lease, or {@link LeaderElector.stop}). */
  readonly onStoppedLeading: () => void;
  readonly log?: ControllerLog;
  /** @defaultValue Date.now (ms) */
  readonly clock?: () => number;
}

/** `Date` as a MicroTime (six fractional digits), as Lease times are written. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** Lease-based leader election; see the module comment. */
export class LeaderElector {
  private timer: ReturnType<typeof setInterval> | undefined;
  private leading = false;
  private stopped = false;
  private busy = false;
  /** The lease spec last seen, and when (this apiserver's clock) it was first seen so. */
  private observed: { spec: string; atMs: number } | undefined;
  private lastRenewMs = 0;
  private readonly clock: () => number;
  private readonly durationMs: number;

  constructor(private readonly o: LeaderElectorOptions) {
    this.clock = o.clock ?? Date.now;
    this.durationMs = (o.leaseDurationSeconds ?? 15) * 1000;
  }

  /** Whether this apiserver leads now. */
  get isLeader(): boolean {
    return this.leading;
  }

  /** Tries once now (so a lone apiserver leads at once), then every `retryPeriodMs`. */
  async start(): Promise<void> {
    await this.tick();
    if (this.stopped) return;
    this.timer = setInterval(() => void this.tick(), this.o.retryPeriodMs ?? 2000);
    this.timer.unref?.();
  }

  /** Stops trying; a leader stops leading and releases the lease. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    if (!this.leading) return;
    this.leading = false;
    this.o.onStoppedLeading();
    await this.write((spec) => (spec.holderIdentity === this.o.identity ? { ...spec, holderIdentity: "", leaseDurationSeconds: 1 } : undefined)).catch(() => undefined);
  }

  /** One try to acquire or renew; never throws. */
  async tick(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    try {
      const ok = await this.tryAcquireOrRenew().catch((e: unknown) => {
        this.o.log?.(`leader election: ${e instanceof Error ? e.message : String(e)}`);
        return false;
      });
      const now = this.clock();
      if (ok) {
        this.lastRenewMs = now;
        if (!this.leading && !this.stopped) {
          this.leading = true;
          this.o.log?.(`leader election: ${this.o.identity} became the leader of ${this.leaseName()}`);
          await this.o.onStartedLeading();
        }
      } else if (this.leading && now - this.lastRenewMs >= (this.o.renewDeadlineMs ?? 10_000)) {
        this.leading = false;
        this.o.log?.(`leader election: ${this.o.identity} lost ${this.leaseName()}`);
        this.o.onStoppedLeading();
      }
    } finally {
      this.busy = false;
    }
  }

  private leaseName(): string {
    const l = this.o.lease ?? controllersLease;
    return `${l.namespace}/${l.name}`;
  }

  // True when this apiserver holds the lease after the try.
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock();
    const me = this.o.identity;
    const fresh: LeaseSpec = { holderIdentity: me, leaseDurationSeconds: this.durationMs / 1000, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 };
    const done = await this.write((spec) => {
      const text = JSON.stringify(spec);
      if (this.observed?.spec !== text) this.observed = { spec: text, atMs: now };
      const holder = spec.holderIdentity ?? "";
      const expired = this.observed.atMs + (spec.leaseDurationSeconds ?? 0) * 1000 <= now;
      if (holder !== "" && holder !== me && !expired) return undefined;
      if (holder === me) return { ...spec, renewTime: microTime(now), leaseDurationSeconds: this.durationMs / 1000 };
      // Taken over (from another holder, or a released lease): one more transition.
      return { ...fresh, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 };
    }, fresh);
    return done;
  }

  /**
   * Reads the lease, asks `next` for its new spec (undefined: leave it) and writes it with the
   * read resourceVersion as precondition; creates it with `create` when missing. True when written.
   */
  private async write(next: (spec: LeaseSpec) => LeaseSpec | undefined, create?: LeaseSpec): Promise<boolean> {
    const l = this.o.lease ?? controllersLease;
    const ctx = systemContext(leaderElectionUser, l.namespace);
    let current: Lease;
    try {
      current = (await this.o.leases.get(ctx, l.name)) as Lease;
    } catch (e) {
      if (!hasStatusCode(e, 404) || create === undefined) throw e;
      try {
        await this.o.leases.create(ctx, { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: l.name, namespace: l.namespace }, spec: create });
        return true;
      } catch (err) {
        if (hasStatusCode(err, 409)) return false; // another apiserver created it first
        throw err;
      }
    }
    const spec = next(current.spec ?? {});
    if (spec === undefined) return false;
    try {
      await this.o.leases.update(ctx, l.name, () => ({ ...current, spec }) as never);
      return true;
    } catch (e) {
      if (hasStatusCode(e, 409)) return false; // someone wrote it meanwhile
      throw e;
    }
  }
}
