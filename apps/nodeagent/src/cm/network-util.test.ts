import { describe, expect, it } from "vitest";
import { effectiveHairpinMode, iptablesMark } from "./network-util.js";

describe("iptablesMark", () => {
  it("prints the bit's fwmark as Go's %#08x", () => {
    expect(iptablesMark(14)).toBe("0x004000");
    expect(iptablesMark(15)).toBe("0x008000");
    expect(iptablesMark(0)).toBe("0x000001");
    expect(iptablesMark(31)).toBe("0x80000000");
  });
});

describe("effectiveHairpinMode", () => {
  it("falls back from promiscuous-bridge to hairpin-veth with 1.23's log line; keeps the others", () => {
    const logs: string[] = [];
    expect(effectiveHairpinMode("promiscuous-bridge", (m) => logs.push(m))).toBe("hairpin-veth");
    expect(logs).toEqual(['Hairpin mode is set but kubenet is not enabled, falling back to HairpinVeth hairpinMode="promiscuous-bridge"']);
    expect(effectiveHairpinMode("none", (m) => logs.push(m))).toBe("none");
    expect(effectiveHairpinMode("hairpin-veth", (m) => logs.push(m))).toBe("hairpin-veth");
    expect(logs).toHaveLength(1);
  });
});
