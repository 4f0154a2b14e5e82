import { describe, expect, it } from "vitest";
import { computeNodeResources, readMachineResources } from "./node-resources.js";

const gi = 1024 ** 3;
const base = { maxPods: 110, podsPerCore: 0, systemReserved: {}, clusterReserved: {}, evictionHard: {} };

describe("computeNodeResources", () => {
  it("reports the machine as capacity and subtracts nothing by default", () => {
    const r = computeNodeResources({ cpuCores: 4, memoryBytes: 8 * gi, rootfsBytes: 100 * gi }, base);
    expect(r.capacity).toEqual({ cpu: "4", memory: "8Gi", pods: "110", "ephemeral-storage": "100Gi" });
    expect(r.allocatable).toEqual(r.capacity);
  });

  it("subtracts system and cluster reservations and the hard eviction thresholds (absolute and percent)", () => {
    const r = computeNodeResources(
      { cpuCores: 4, memoryBytes: 8 * gi, rootfsBytes: 100 * gi },
      { ...base, systemReserved: { cpu: "500m", memory: "1Gi" }, clusterReserved: { cpu: "250m", memory: "512Mi", "ephemeral-storage": "1Gi" }, evictionHard: { "memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%" } },
    );
    expect(r.allocatable["cpu"]).toBe("3250m");
    expect(r.allocatable["memory"]).toBe(`${8 * 1024 - 1024 - 512 - 100}Mi`);
    expect(r.allocatable["ephemeral-storage"]).toBe("89Gi"); // 100Gi − 1Gi − 10% of 100Gi
    expect(r.allocatable["pods"]).toBe("110");
  });

  it("ignores the eviction thresholds with ignoreEviction, and reservations of resources the node lacks", () => {
    const r = computeNodeResources({ cpuCores: 2, memoryBytes: 4 * gi, rootfsBytes: 0 }, { ...base, evictionHard: { "memory.available": "1Gi", "nodefs.available": "10%" }, systemReserved: { "example.com/gpu": "1" }, ignoreEviction: true });
    expect(r.allocatable).toEqual({ cpu: "2", memory: "4Gi", pods: "110" });
    expect(r.capacity["ephemeral-storage"]).toBeUndefined();
  });

  it("caps pods by podsPerCore × cores when smaller, and never goes below zero", () => {
    expect(computeNodeResources({ cpuCores: 2, memoryBytes: gi, rootfsBytes: 0 }, { ...base, podsPerCore: 10 }).capacity["pods"]).toBe("20");
    expect(computeNodeResources({ cpuCores: 64, memoryBytes: gi, rootfsBytes: 0 }, { ...base, podsPerCore: 10 }).capacity["pods"]).toBe("110");
    const r = computeNodeResources({ cpuCores: 1, memoryBytes: gi, rootfsBytes: 0 }, { ...base, systemReserved: { cpu: "2", memory: "2Gi" } });
    expect(r.allocatable["cpu"]).toBe("0");
    expect(r.allocatable["memory"]).toBe("0");
  });

  it("counts an unparsable reservation as zero", () => {
    const r = computeNodeResources({ cpuCores: 1, memoryBytes: gi, rootfsBytes: 0 }, { ...base, systemReserved: { cpu: "lots" }, evictionHard: { "memory.available": "x%" } });
    expect(r.allocatable["cpu"]).toBe("1");
    expect(r.allocatable["memory"]).toBe("1Gi");
  });
});

describe("readMachineResources", () => {
  it("reads cores and memory; an unreadable root dir gives rootfsBytes 0", async () => {
    const m = await readMachineResources("/nonexistent/skiff/root");
    expect(m.cpuCores).toBeGreaterThan(0);
    expect(m.memoryBytes).toBeGreaterThan(0);
    expect(m.rootfsBytes).toBe(0);
    expect((await readMachineResources("/")).rootfsBytes).toBeGreaterThan(0);
  });
});
