import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadCSIProtos } from "@skiff/csi-api";
import { readPublishRecords, startFakeCsiDriver, type FakeCsiDriver } from "./fake-driver.js";

type Unary = (req: unknown, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;

describe("fake CSI driver record file", () => {
  let dir: string;
  let driver: FakeCsiDriver;
  let node: grpc.Client & Record<string, Unary>;
  const logs: string[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-fakecsi-"));
    logs.length = 0;
    driver = await startFakeCsiDriver({ csiSocketPath: join(dir, "csi.sock"), recordFile: join(dir, "publish.jsonl"), log: (m) => logs.push(m) });
    const Node = loadCSIProtos().Node as unknown as new (address: string, creds: grpc.ChannelCredentials) => grpc.Client & Record<string, Unary>;
    node = new Node(`unix://${driver.csiSocketPath}`, grpc.credentials.createInsecure());
  });
  afterEach(async () => {
    node.close();
    await driver.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const publish = (req: Record<string, unknown>) =>
    new Promise<void>((resolve, reject) => {
      node.NodePublishVolume?.(req, (err) => (err ? reject(err) : resolve()));
    });

  it("appends one JSON line per NodePublishVolume with the volume context, never logging it", async () => {
    expect(await readPublishRecords(join(dir, "publish.jsonl"))).toEqual([]);
    const ctx = { "csi.storage.example.io/serviceAccount.tokens": '{"vault":{"token":"secret-jwt","expirationTimestamp":"2026-01-01T00:10:00Z"}}' };
    await publish({ volumeId: "v1", targetPath: join(dir, "t1"), readonly: true, volumeContext: ctx });
    await publish({ volumeId: "v1", targetPath: join(dir, "t1"), volumeContext: { a: "b" } });
    const records = await readPublishRecords(join(dir, "publish.jsonl"));
    expect(records.map(({ time: _t, ...r }) => r)).toEqual([
      { volumeId: "v1", targetPath: join(dir, "t1"), readonly: true, volumeContext: ctx },
      { volumeId: "v1", targetPath: join(dir, "t1"), readonly: false, volumeContext: { a: "b" } },
    ]);
    expect(Number.isNaN(Date.parse(records[0]?.time ?? ""))).toBe(false);
    expect(statSync(join(dir, "publish.jsonl")).mode & 0o777).toBe(0o600);
    expect(logs.join("\n")).not.toContain("secret-jwt");
  });
});
