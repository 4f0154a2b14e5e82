// etcd out of space (issue 14): a real etcd with a tiny backend quota raises its NOSPACE alarm.
// Its "database space exceeded" answer means the write was not applied, so the storage reports it
// at once as `Internal` with etcd's words (kube-apiserver answers 500 with them), instead of
// treating it as an unknown outcome and retrying until the request deadline.
import { afterAll, describe, expect, it } from "vitest";
import { findEtcdBinary, isStorageError, openEtcdStorage, startLocalEtcd } from "../src/index.js";
import type { LocalEtcd } from "../src/index.js";

const haveEtcd = findEtcdBinary() !== undefined;
let etcd: LocalEtcd | undefined;
afterAll(async () => {
  await etcd?.stop();
});

function payload(i: number, bytes: number): Record<string, unknown> {
  let s = "";
  for (let n = 0; s.length < bytes; n++) s += ((i * 7919 + n * 104729) % 1_000_003).toString(36);
  return { metadata: { name: `o${i}` }, data: s.slice(0, bytes) };
}

describe.skipIf(!haveEtcd)(haveEtcd ? "etcd out of space" : "etcd out of space (skipped: no etcd binary; Debian package etcd-server)", () => {
  it("answers Internal with etcd's words at once, keeps every acknowledged write readable", async () => {
    etcd = await startLocalEtcd({ extraArgs: ["--quota-backend-bytes=2097152"] });
    // A long request deadline: a refusal that waited for it would show as Unreachable after 60 s.
    const storage = await openEtcdStorage({ servers: [etcd.clientUrl], prefix: "/space", compactionIntervalMs: 0, requestTimeoutMs: 60_000 });
    const acked = new Map<string, number>();
    let refused: unknown;
    try {
      for (let i = 0; i < 2000 && refused === undefined; i++) {
        const key = `/registry/things/o${i}`;
        try {
          acked.set(key, (await storage.create(key, payload(i, 32 * 1024))).revision);
        } catch (err) {
          refused = err;
        }
      }
      expect(refused, "the quota was never reached").toBeDefined();
      expect(isStorageError(refused, "Internal")).toBe(true);
      expect((refused as Error).message).toMatch(/database space exceeded/);
      expect(acked.size).toBeGreaterThan(5);
      for (const [key, revision] of acked) {
        const got = await storage.get(key);
        expect((got.metadata as { resourceVersion?: string }).resourceVersion).toBe(String(revision));
      }
      // Updates are refused the same way and change nothing.
      const [firstKey, firstRevision] = [...acked][0] as [string, number];
      let updateError: unknown;
      try {
        await storage.guaranteedUpdate(firstKey, () => payload(99_999, 1024));
      } catch (err) {
        updateError = err;
      }
      expect(isStorageError(updateError, "Internal")).toBe(true);
      const current = await storage.get(firstKey);
      expect((current.metadata as { resourceVersion?: string }).resourceVersion).toBe(String(firstRevision));
    } finally {
      await storage.close();
    }
  });
});
