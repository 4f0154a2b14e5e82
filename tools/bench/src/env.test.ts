import { describe, expect, it } from "vitest";
import { envNumber } from "./env.js";

describe("envNumber", () => {
  it("gives the fallback when unset or empty, else the value within bounds", () => {
    expect(envNumber("X", 15, {}, {})).toBe(15);
    expect(envNumber("X", 15, {}, { X: " " })).toBe(15);
    expect(envNumber("X", 15, { min: 0 }, { X: "0" })).toBe(0);
    expect(envNumber("X", 15, { min: 0, unit: "seconds" }, { X: "2.5" })).toBe(2.5);
  });

  it("refuses junk, out-of-range and fractional values with the switch's name and what it takes", () => {
    expect(() => envNumber("SKIFF_BENCH_FLEET_IDLE_S", 15, { min: 0, unit: "seconds" }, { SKIFF_BENCH_FLEET_IDLE_S: "abc" })).toThrow('SKIFF_BENCH_FLEET_IDLE_S must be a number of seconds ≥ 0, got "abc"');
    expect(() => envNumber("N", 1, { min: -20, max: 19, integer: true }, { N: "20" })).toThrow('N must be an integer number ≥ -20 and ≤ 19, got "20"');
    expect(() => envNumber("P", 1, { min: 1, integer: true, unit: "pods" }, { P: "1.5" })).toThrow('P must be an integer number of pods ≥ 1, got "1.5"');
    expect(() => envNumber("P", 1, {}, { P: "Infinity" })).toThrow("P must be a number");
  });
});
