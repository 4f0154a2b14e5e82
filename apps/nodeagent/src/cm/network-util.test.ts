import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { effectiveHairpinMode, iptablesMark, networkUtilUnavailable } from "./network-util.js";

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

describe("networkUtilUnavailable", () => {
  it("says why the agent does not manage iptables: not root, or no iptables binary; undefined when it can", () => {
    const dir = mkdtempSync(join(tmpdir(), "na-nu-"));
    try {
      expect(networkUtilUnavailable(1000, dir)).toBe("the node agent is not running as root, so it does not manage the node's iptables rules");
      expect(networkUtilUnavailable(0, dir)).toBe("the iptables binary was not found on PATH (Debian/Ubuntu: apt-get install -y iptables)");
      writeFileSync(join(dir, "iptables"), "#!/bin/sh\n", { mode: 0o755 });
      expect(networkUtilUnavailable(0, `/nonexistent:${dir}`)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
