import { describe, it, expect } from "vitest";
import { cpus, totalmem } from "node:os";
import { readMachineInfo } from "./machine-info.js";

describe("readMachineInfo", () => {
  it("reports this machine in cAdvisor's field names", async () => {
    const info = await readMachineInfo(new Date("2026-01-01T00:00:00Z"));
    expect(info.timestamp).toBe("2026-01-01T00:00:00.000Z");
    expect(info.num_cores).toBe(cpus().length);
    expect(info.memory_capacity).toBe(totalmem());
    expect(info.cpu_frequency_khz).toBeGreaterThanOrEqual(0);
    expect(info.boot_id).toMatch(/^([0-9a-f-]{36})?$/);
    expect(info.machine_id).toMatch(/^([0-9a-f]{32})?$/);
    for (const fs of info.filesystems) {
      expect(fs.capacity).toBeGreaterThan(0);
      expect(typeof fs.device).toBe("string");
    }
    expect(Object.keys(info)).toEqual(expect.arrayContaining(["num_physical_cores", "num_sockets", "system_uuid", "network_devices", "cloud_provider", "instance_type", "instance_id"]));
  });
});
