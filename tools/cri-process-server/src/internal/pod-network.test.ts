import { describe, expect, it } from "vitest";
import { PodMasquerade, pluginsFor, podConfList, podNetworkUnavailable, splitRuleSpec, subnetsOf, type IptablesRunner } from "./pod-network.js";

describe("pod network conflist", () => {
  it("is a bridge with gateway and hairpin veths (masquerade is the runtime's, not per pod), host-local over the pod CIDR, and portmap", () => {
    const list = podConfList("/var/lib/skiff/cri", "10.244.3.0/24");
    expect(list.cniVersion).toBe("0.4.0");
    expect(list.name).toMatch(/^skiff-process-[0-9a-f]{8}$/);
    const [bridge, portmap] = list.plugins;
    expect(bridge).toMatchObject({ type: "bridge", isGateway: true, ipMasq: false, hairpinMode: true, ipam: { type: "host-local", dataDir: "/var/lib/skiff/cri/cni/ipam", ranges: [[{ subnet: "10.244.3.0/24" }]], routes: [{ dst: "0.0.0.0/0" }] } });
    expect(String(bridge?.bridge)).toMatch(/^skp[0-9a-f]{8}$/);
    expect(String(bridge?.bridge).length).toBeLessThanOrEqual(15);
    expect(portmap).toMatchObject({ type: "portmap", capabilities: { portMappings: true } });
  });

  it("derives a /24 from the state directory without a pod CIDR; takes both families of a dual-stack CIDR", () => {
    expect(podConfList("/a", "").plugins[0]).toMatchObject({ ipam: { ranges: [[{ subnet: expect.stringMatching(/^10\.90\.\d+\.0\/24$/) as unknown }]] } });
    expect(podConfList("/a", "").plugins[0]?.bridge).not.toBe(podConfList("/b", "").plugins[0]?.bridge);
    // A subnet another bridge routes already is skipped.
    const first = (podConfList("/a", "").plugins[0]?.ipam as { ranges: Array<Array<{ subnet: string }>> }).ranges[0]?.[0]?.subnet ?? "";
    const next = (podConfList("/a", "", new Set([first])).plugins[0]?.ipam as { ranges: Array<Array<{ subnet: string }>> }).ranges[0]?.[0]?.subnet ?? "";
    expect(next).not.toBe(first);
    expect(next).toMatch(/^10\.90\.\d+\.0\/24$/);
    expect(podConfList("/a", "10.1.0.0/24,fd00::/64").plugins[0]).toMatchObject({ ipam: { ranges: [[{ subnet: "10.1.0.0/24" }], [{ subnet: "fd00::/64" }]], routes: [{ dst: "0.0.0.0/0" }, { dst: "::/0" }] } });
  });

  it("says why it is unavailable: not root, or plugins missing", async () => {
    expect(await podNetworkUnavailable("/usr/lib/cni", 1000)).toBe("not running as root");
    expect(await podNetworkUnavailable("/nonexistent", 0)).toBe("the CNI plugins bridge, host-local, portmap are missing from /nonexistent (Debian/Ubuntu: apt-get install -y containernetworking-plugins)");
  });
  it("runs portmap only for a sandbox with host ports", () => {
    const list = podConfList("/a", "10.1.0.0/24");
    expect(pluginsFor(list, []).map((p) => p.type)).toEqual(["bridge"]);
    expect(pluginsFor(list, [{ hostPort: 8080, containerPort: 80, protocol: "tcp", hostIP: "" }]).map((p) => p.type)).toEqual(["bridge", "portmap"]);
  });

  it("lists its subnets", () => {
    expect(subnetsOf(podConfList("/a", "10.1.0.0/24,fd00::/64"))).toEqual(["10.1.0.0/24", "fd00::/64"]);
  });
});

/**
 * The iptables commands are recorded by a fake runner (the real ones run in
 * test/pod-network.integration.test.ts as root): a table in memory that answers `-S POSTROUTING`.
 */
function fakeIptables(): { run: IptablesRunner; calls: string[]; postrouting: Map<string, string[]> } {
  const postrouting = new Map<string, string[]>([["iptables", ['-A POSTROUTING -s 10.9.0.0/24 -m comment --comment "someone else" -j MASQUERADE']], ["ip6tables", []]]);
  const calls: string[] = [];
  const run: IptablesRunner = async (binary, args) => {
    calls.push(`${binary} ${args.join(" ")}`);
    const rules = postrouting.get(binary) ?? [];
    if (args[2] === "-S") return `-P POSTROUTING ACCEPT\n${rules.join("\n")}\n`;
    if (args[3] === "POSTROUTING") {
      const text = args.slice(4).map((a) => (a.includes(" ") ? `"${a}"` : a)).join(" ");
      if (args[2] === "-A") rules.push(`-A POSTROUTING ${text}`);
      if (args[2] === "-D") {
        const i = rules.indexOf(`-A POSTROUTING ${text}`);
        if (i < 0) throw new Error("iptables: Bad rule (does a matching rule exist in that chain?).");
        rules.splice(i, 1);
      }
    }
    return "";
  };
  return { run, calls, postrouting };
}

describe("pod masquerade", () => {
  it("splits iptables -S lines, keeping quoted comments whole", () => {
    expect(splitRuleSpec('-A POSTROUTING -s 10.1.0.0/24 -m comment --comment "a \\"b\\" c" -j SKP-1')).toEqual(["-A", "POSTROUTING", "-s", "10.1.0.0/24", "-m", "comment", "--comment", 'a "b" c', "-j", "SKP-1"]);
  });

  it("keeps one chain with an ACCEPT per subnet then MASQUERADE, and one POSTROUTING jump per subnet; a later sync replaces the jumps; remove leaves others' rules", async () => {
    const f = fakeIptables();
    const m = new PodMasquerade("/var/lib/x", f.run);
    expect(m.chain).toMatch(/^SKP-[0-9A-F]{8}$/);
    await m.sync(["10.1.0.0/24"]);
    expect(f.calls.filter((c) => c.includes(" -A ")).map((c) => c.replace(/ -m comment --comment .* -j/, " -j"))).toEqual([
      `iptables -t nat -A ${m.chain} -d 10.1.0.0/24 -j ACCEPT`,
      `iptables -t nat -A ${m.chain} ! -d 224.0.0.0/4 -j MASQUERADE`,
      `iptables -t nat -A POSTROUTING -s 10.1.0.0/24 -j ${m.chain}`,
    ]);
    expect(f.calls.some((c) => c.startsWith("ip6tables"))).toBe(false);
    await m.sync(["10.1.0.0/24", "10.2.0.0/24", "fd00::/64"]);
    const jumps = (b: string) => (f.postrouting.get(b) ?? []).filter((r) => r.endsWith(`-j ${m.chain}`)).map((r) => r.split(" ")[3]);
    expect(jumps("iptables")).toEqual(["10.1.0.0/24", "10.2.0.0/24"]);
    expect(jumps("ip6tables")).toEqual(["fd00::/64"]);
    expect(f.calls).toContain(`ip6tables -t nat -A ${m.chain} ! -d ff00::/8 -m comment --comment skiff process runtime: SNAT for traffic leaving the pod subnet -j MASQUERADE`);
    await m.remove();
    expect(jumps("iptables")).toEqual([]);
    expect(jumps("ip6tables")).toEqual([]);
    expect(f.postrouting.get("iptables")).toEqual(['-A POSTROUTING -s 10.9.0.0/24 -m comment --comment "someone else" -j MASQUERADE']);
    expect(f.calls.slice(-2)).toEqual([`ip6tables -t nat -F ${m.chain}`, `ip6tables -t nat -X ${m.chain}`]);
  });

  it("a failed command rejects that sync but not the next one", async () => {
    const f = fakeIptables();
    let fail = true;
    const run: IptablesRunner = async (b, a) => {
      if (fail && a[2] === "-F") throw new Error("iptables: boom");
      return f.run(b, a);
    };
    const m = new PodMasquerade("/x", run);
    await expect(m.sync(["10.1.0.0/24"])).rejects.toThrow("iptables: boom");
    fail = false;
    await m.sync(["10.1.0.0/24"]);
    expect((f.postrouting.get("iptables") ?? []).filter((r) => r.endsWith(m.chain))).toHaveLength(1);
  });
});
