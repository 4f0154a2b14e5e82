// --make-iptables-util-chains, --iptables-drop-bit and --iptables-masquerade-bit (issue 18 item 4):
// the rules of 1.23's syncNetworkUtil, written by the real iptables/ip6tables binaries into a
// network namespace the test creates (so the host's tables are left alone), kept when synced again,
// and restored by the canary monitor after the tables are flushed. Needs root and iptables; with
// CI=true (root) it must run.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execIPTables, iptablesMark, monitorTurn, syncNetworkUtil } from "../src/cm/network-util.js";

const canRun = process.getuid?.() === 0 && (existsSync("/usr/sbin/iptables") || existsSync("/sbin/iptables"));
const ns = `skiff-nu-${process.pid}`;
const inNs = ["ip", "netns", "exec", ns];
const rules = (bin: string, table: string): string => execFileSync("ip", ["netns", "exec", ns, bin, "-w", "-t", table, "-S"], { encoding: "utf8" });
const logs: string[] = [];

beforeAll(() => {
  if (canRun) execFileSync("ip", ["netns", "add", ns]);
});
afterAll(() => {
  if (canRun) execFileSync("ip", ["netns", "del", ns]);
});

describe.skipIf(!canRun)(canRun ? "iptables utility chains" : "iptables utility chains (skipped: needs root and iptables)", () => {
  it("writes 1.23's KUBE-MARK-DROP, KUBE-FIREWALL, KUBE-MARK-MASQ and KUBE-POSTROUTING rules with the configured bits", async () => {
    const v4 = execIPTables("IPv4", inNs);
    expect(await syncNetworkUtil(v4, 16, 3, (m) => logs.push(m))).toBe(true);
    expect(iptablesMark(16)).toBe("0x010000");
    const nat = rules("iptables", "nat");
    expect(nat).toContain("-A KUBE-MARK-DROP -j MARK --set-xmark 0x10000/0x10000");
    expect(nat).toContain("-A KUBE-MARK-MASQ -j MARK --set-xmark 0x8/0x8");
    expect(nat).toMatch(/-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING/);
    expect(nat).toContain("-A KUBE-POSTROUTING -m mark ! --mark 0x8/0x8 -j RETURN");
    expect(nat).toContain("-A KUBE-POSTROUTING -j MARK --set-xmark 0x8/0x0");
    expect(nat).toMatch(/-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE( --random-fully)?/);
    const filter = rules("iptables", "filter");
    expect(filter).toMatch(/-A INPUT -j KUBE-FIREWALL/);
    expect(filter).toMatch(/-A OUTPUT -j KUBE-FIREWALL/);
    expect(filter).toContain('-A KUBE-FIREWALL -m comment --comment "kubernetes firewall for dropping marked packets" -m mark --mark 0x10000/0x10000 -j DROP');
    expect(filter).toMatch(/-A KUBE-FIREWALL ! -s 127\.0\.0\.0\/8 -d 127\.0\.0\.0\/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP/);
    expect(rules("iptables", "mangle")).toContain("-N KUBE-IPTABLES-HINT");

    // Idempotent: a second sync adds nothing.
    expect(await syncNetworkUtil(v4, 16, 3, (m) => logs.push(m))).toBe(true);
    expect(rules("iptables", "nat")).toBe(nat);
    expect(rules("iptables", "filter")).toBe(filter);
  });

  it("writes the IPv6 rules without the IPv4-only localnet rule", async () => {
    const v6 = execIPTables("IPv6", inNs);
    expect(await syncNetworkUtil(v6, 15, 14, (m) => logs.push(m))).toBe(true);
    const filter = rules("ip6tables", "filter");
    expect(filter).toContain('-A KUBE-FIREWALL -m comment --comment "kubernetes firewall for dropping marked packets" -m mark --mark 0x8000/0x8000 -j DROP');
    expect(filter).not.toContain("block incoming localnet connections");
  });

  it("restores the rules when the tables are flushed (the canary chains are gone)", async () => {
    const v4 = execIPTables("IPv4", inNs);
    const sync = () => syncNetworkUtil(v4, 16, 3, (m) => logs.push(m));
    expect(await monitorTurn(v4, true, sync, (m) => logs.push(m))).toBe(false);
    expect(await monitorTurn(v4, false, sync, (m) => logs.push(m))).toBe(false);
    for (const table of ["nat", "filter", "mangle"]) {
      execFileSync("ip", ["netns", "exec", ns, "iptables", "-w", "-t", table, "-F"]);
      execFileSync("ip", ["netns", "exec", ns, "iptables", "-w", "-t", table, "-X"]);
    }
    expect(rules("iptables", "nat")).not.toContain("KUBE-MARK-DROP");
    expect(await monitorTurn(v4, false, sync, (m) => logs.push(m))).toBe(true);
    expect(rules("iptables", "nat")).toContain("-A KUBE-MARK-DROP -j MARK --set-xmark 0x10000/0x10000");
    expect(logs.some((l) => l.startsWith("iptables canary deleted, reloading rules"))).toBe(true);
  });
});
