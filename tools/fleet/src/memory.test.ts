import { describe, expect, it } from "vitest";
import { checkFleetMemory, fleetBaseMemoryBytes, FleetMemoryError } from "./memory.js";

const mib = 1024 ** 2;

describe("checkFleetMemory", () => {
  it("returns the estimate when it fits", () => {
    expect(checkFleetMemory(100, { perNodeBytes: 5 * mib, availableBytes: 4096 * mib })).toEqual({ estimateBytes: fleetBaseMemoryBytes + 500 * mib, availableBytes: 4096 * mib });
  });

  it("refuses more nodes than memory allows, giving the estimate and how many fit", () => {
    let err: unknown;
    try {
      checkFleetMemory(1000, { perNodeBytes: 10 * mib, availableBytes: 2048 * mib });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FleetMemoryError);
    const e = err as FleetMemoryError;
    expect(e.reason).toBe("InsufficientMemory");
    expect(e.estimateBytes).toBe(fleetBaseMemoryBytes + 10_000 * mib);
    expect(e.message).toMatch(/^fleet: 1000 hollow nodes need about 9\.\d\d GiB .* but this process can use 2\.00 GiB .* at most 188 nodes fit/);
  });
});
