import type { Lease } from "@skiff/api-types";
import { GenericStore } from "@skiff/apiserver-core";
import { MemoryStorage } from "@skiff/storage";
import { afterEach, describe, expect, it } from "vitest";
import { createAllStrategies } from "../registry/index.js";
import { LeaderElector, controllersLease } from "./leader-election.js";

let cleanup: (() => Promise<void>) | undefined;

// Two (or three) apiservers sharing one storage, each with its own clock reading the same test
// clock; ticks are driven by hand, so lease expiry is exact.
function setUp() {
  const storage = new MemoryStorage({ compactionIntervalMs: 0 });
  const strategy = createAllStrategies({ jobReadyPods: false, jobTrackingWithFinalizers: false, jobMutableNodeSchedulingDirectives: false }).find(
    (s) => s.resource.group === "coordination.k8s.io" && s.resource.plural === "leases",
  );
  if (!strategy) throw new Error("no lease strategy");
  const leases = new GenericStore(strategy, storage);
  let now = Date.parse("2026-01-01T00:00:00Z");
  const events: string[] = [];
  const elector = (identity: string) =>
    new LeaderElector({
      leases,
      identity,
      leaseDurationSeconds: 15,
      renewDeadlineMs: 10_000,
      clock: () => now,
      onStartedLeading: () => void events.push(`${identity} leads`),
      onStoppedLeading: () => void events.push(`${identity} stops`),
    });
  cleanup = () => storage.close();
  const lease = async () => (await storage.get(`/registry/coordination.k8s.io/leases/${controllersLease.namespace}/${controllersLease.name}`, { ignoreNotFound: true })) as Lease | null;
  return { storage, elector, events, lease, advance: (ms: number) => (now += ms) };
}

afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("LeaderElector", () => {
  it("one apiserver leads; the other takes over only once the lease has not changed for its duration", async () => {
    const t = setUp();
    const a = t.elector("a");
    const b = t.elector("b");
    await a.tick();
    await b.tick();
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);
    expect((await t.lease())?.spec).toMatchObject({ holderIdentity: "a", leaseDurationSeconds: 15, leaseTransitions: 0 });
    // a renews every 2 s: b never takes over.
    for (let i = 0; i < 20; i++) {
      t.advance(2000);
      await a.tick();
      await b.tick();
    }
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);
    // a goes silent: b takes over 15 s after it last saw the lease change, not before.
    t.advance(2000);
    await b.tick();
    t.advance(12_999);
    await b.tick();
    expect(b.isLeader).toBe(false);
    t.advance(1);
    await b.tick();
    expect(b.isLeader).toBe(true);
    expect((await t.lease())?.spec).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
    // a comes back: it cannot renew (b holds the lease), and having last renewed more than its
    // 10 s renew deadline ago, it stops leading at once; b keeps the lease.
    await a.tick();
    expect(a.isLeader).toBe(false);
    expect((await t.lease())?.spec?.holderIdentity).toBe("b");
    expect(t.events).toEqual(["a leads", "b leads", "a stops"]);
  });

  it("a leader that fails to renew keeps leading until its renew deadline", async () => {
    const t = setUp();
    const a = t.elector("a");
    await a.tick();
    const b = t.elector("b");
    await b.tick();
    // b takes the lease behind a's back (as after a partition): a's next renewals fail.
    t.advance(15_000);
    await b.tick();
    expect(b.isLeader).toBe(true);
    t.advance(-9_000); // a last renewed at 0; now 6 s later by a's reckoning of the test clock
    await a.tick();
    expect(a.isLeader).toBe(true);
    t.advance(4_000);
    await a.tick();
    expect(a.isLeader).toBe(false);
  });

  it("a leader that stops releases the lease: the next apiserver takes over at its next try", async () => {
    const t = setUp();
    const a = t.elector("a");
    const b = t.elector("b");
    await a.start();
    await b.tick();
    await a.stop();
    expect((await t.lease())?.spec?.holderIdentity).toBe("");
    t.advance(2000);
    await b.tick();
    expect(b.isLeader).toBe(true);
    expect(t.events).toEqual(["a leads", "a stops", "b leads"]);
  });

  it("two apiservers starting together: exactly one wins the create", async () => {
    const t = setUp();
    const [a, b, c] = [t.elector("a"), t.elector("b"), t.elector("c")];
    await Promise.all([a.tick(), b.tick(), c.tick()]);
    expect([a, b, c].filter((e) => e.isLeader)).toHaveLength(1);
  });
});
