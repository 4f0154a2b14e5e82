// --make-iptables-util-chains, --iptables-drop-bit and --iptables-masquerade-bit (issue 18 item 4):
// the rules of 1.23's syncNetworkUtil, written by the real iptables/ip6tables binaries into a
// network namespace the test creates (so the host's tables are left alone), kept when synced again,
// and restored by the canary monitor after the tables are flushed. Needs root and iptables; with
// CI=true (root) it must run.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

const repoRoot = join(import.meta.dirname, "..", "..", "..");

/** Runs the node agent binary inside the test's network namespace (nsenter: `ip netns exec` would remount /sys without the cgroups) until `until` holds for iptables-save's output. */
async function agentInNamespace(flags: readonly string[], until: (saved: string, stderr: string) => boolean): Promise<{ saved: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), "na-nu-"));
  const child = spawn("nsenter", [`--net=/run/netns/${ns}`, "--", process.execPath, "--conditions=@skiff/source", "--import", "tsx", join(repoRoot, "apps/nodeagent/src/main.ts"),
    `--root-dir=${join(dir, "root")}`, `--cert-dir=${join(dir, "pki")}`, "--port=10250", "--read-only-port=0", "--healthz-port=10248",
    `--container-runtime-endpoint=unix://${join(dir, "no-runtime.sock")}`, ...flags], { cwd: repoRoot, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const saved = execFileSync("ip", ["netns", "exec", ns, "iptables-save"], { encoding: "utf8" });
      if (until(saved, stderr)) return { saved, stderr };
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`agent exited or timed out; stderr:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!canRun)(canRun ? "node agent binary, iptables flags" : "node agent binary, iptables flags (skipped: needs root and iptables)", () => {
  it("--iptables-drop-bit=17 --iptables-masquerade-bit=5 take effect in the agent's network namespace (iptables-save)", async () => {
    execFileSync("ip", ["netns", "exec", ns, "iptables", "-w", "-t", "nat", "-F"]);
    execFileSync("ip", ["netns", "exec", ns, "iptables", "-w", "-t", "nat", "-X"]);
    execFileSync("ip", ["netns", "exec", ns, "ip", "link", "set", "lo", "up"]);
    const { saved, stderr } = await agentInNamespace(["--iptables-drop-bit=17", "--iptables-masquerade-bit=5"], (_saved, err) => /Initialized iptables rules\. protocol=.*IPv6/.test(err));
    expect(saved).toContain("-A KUBE-MARK-DROP -j MARK --set-xmark 0x20000/0x20000");
    expect(saved).toContain("-A KUBE-MARK-MASQ -j MARK --set-xmark 0x20/0x20");
    expect(saved).toContain("-A KUBE-POSTROUTING -m mark ! --mark 0x20/0x20 -j RETURN");
    expect(saved).toContain('-A KUBE-FIREWALL -m comment --comment "kubernetes firewall for dropping marked packets" -m mark --mark 0x20000/0x20000 -j DROP');
    expect(saved).toContain(":KUBE-KUBELET-CANARY - [0:0]");
    // The default --hairpin-mode falls back as 1.23's does with a CRI runtime.
    expect(stderr).toContain("falling back to HairpinVeth");
  });

  it("--make-iptables-util-chains=false leaves the namespace's tables alone", async () => {
    for (const table of ["nat", "filter", "mangle"]) {
      execFileSync("ip", ["netns", "exec", ns, "iptables", "-w", "-t", table, "-F"]);
      execFileSync("ip", ["netns", "exec", ns, "iptables", "-w", "-t", table, "-X"]);
    }
    const { saved, stderr } = await agentInNamespace(["--make-iptables-util-chains=false"], (_saved, err) => err.includes("Started nodeagent"));
    expect(saved).not.toContain("KUBE-");
    expect(stderr).not.toContain("Initialized iptables rules");
  });
});
