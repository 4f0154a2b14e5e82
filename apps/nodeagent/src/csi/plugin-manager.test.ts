// The registration handshake against the project's fake CSI driver, over real unix sockets.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeCsiDriver, type FakeCsiDriver, type FakeCsiDriverOptions } from "@skiff/fake-csi-driver";
import { createCsiClient } from "./csi-client.js";
import { pluginsRegistryDir, startCsiPluginManager, type CsiPluginManager } from "./plugin-manager.js";

async function until<T>(what: string, fn: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("CSI plugin registration", () => {
  let dir: string;
  let manager: CsiPluginManager | undefined;
  const drivers: FakeCsiDriver[] = [];
  const start = async (o: Partial<FakeCsiDriverOptions> = {}) => {
    const d = await startFakeCsiDriver({ csiSocketPath: join(dir, "drivers", `${o.name ?? "fake"}.sock`), pluginsRegistryDir: pluginsRegistryDir(join(dir, "root")), ...o });
    drivers.push(d);
    return d;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "skiff-csi-"));
  });
  afterEach(async () => {
    await manager?.stop();
    manager = undefined;
    for (const d of drivers.splice(0)) await d.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("registers a driver found at start, reports success, and de-registers it when its socket goes", async () => {
    const fake = await start({ name: "a.csi.example.io", nodeId: "node-a", topology: { "topology.a/zone": "z1" }, maxVolumesPerNode: 7 });
    manager = await startCsiPluginManager({ rootDir: join(dir, "root"), nodeName: "n1", scanPeriodMs: 100 });
    const d = await until("registration", () => manager?.driver("a.csi.example.io"));
    expect(d).toMatchObject({ nodeId: "node-a", maxVolumesPerNode: 7, topology: { "topology.a/zone": "z1" }, endpoint: fake.csiSocketPath, version: "1.5.0" });
    await until("status", () => (fake.registrationStatuses.length > 0 ? true : undefined));
    expect(fake.registrationStatuses).toEqual([{ pluginRegistered: true, error: "" }]);
    expect(fake.calls.map((c) => c.method)).toEqual(["GetInfo", "NodeGetInfo", "NotifyRegistrationStatus"]);
    await fake.unregister();
    await until("de-registration", () => (manager?.driver("a.csi.example.io") === undefined ? true : undefined));
    expect(manager.drivers()).toEqual([]);
  });

  it("picks up a driver that appears later", async () => {
    manager = await startCsiPluginManager({ rootDir: join(dir, "root"), nodeName: "n1", scanPeriodMs: 100 });
    expect(manager.drivers()).toEqual([]);
    await start({ name: "late.csi.example.io" });
    await until("registration", () => manager?.driver("late.csi.example.io"));
  });

  it("refuses a plugin type it has no handler for", async () => {
    const fake = await start({ name: "dev", pluginType: "DevicePlugin" });
    manager = await startCsiPluginManager({ rootDir: join(dir, "root"), nodeName: "n1", scanPeriodMs: 100 });
    const s = await until("refusal", () => fake.registrationStatuses[0]);
    expect(s).toEqual({ pluginRegistered: false, error: `RegisterPlugin error -- no handler registered for plugin type: DevicePlugin at socket ${fake.registrationSocketPath ?? ""}` });
    expect(manager.drivers()).toEqual([]);
  });

  it("refuses a driver without a 1.x version", async () => {
    const fake = await start({ name: "old", supportedVersions: ["0.3.0"] });
    manager = await startCsiPluginManager({ rootDir: join(dir, "root"), nodeName: "n1", scanPeriodMs: 100 });
    const s = await until("refusal", () => fake.registrationStatuses[0]);
    expect(s.pluginRegistered).toBe(false);
    expect(s.error).toMatch(/^RegisterPlugin error -- plugin validation failed with err: .*must be v1\.x/);
    expect(fake.callsOf("NodeGetInfo")).toEqual([]);
  });

  it("refuses a driver that reports an empty node ID", async () => {
    const fake = await start({ name: "noid", nodeId: "" });
    manager = await startCsiPluginManager({ rootDir: join(dir, "root"), nodeName: "n1", scanPeriodMs: 100 });
    const s = await until("refusal", () => fake.registrationStatuses[0]);
    expect(s).toEqual({ pluginRegistered: false, error: "RegisterPlugin error -- plugin registration failed with err: error adding CSI driver node info: driverNodeID must not be empty" });
  });

  it("speaks CSI Identity to the driver", async () => {
    const fake = await start({ name: "id.csi.example.io", vendorVersion: "9.9.9" });
    const csi = createCsiClient(fake.csiSocketPath);
    try {
      expect(await csi.getPluginInfo()).toMatchObject({ name: "id.csi.example.io", vendorVersion: "9.9.9" });
      expect(await csi.probe()).toEqual({ ready: true });
      expect(await csi.nodeGetCapabilities()).toEqual([]);
    } finally {
      csi.close();
    }
  });
});
