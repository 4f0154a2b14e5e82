import { describe, expect, it } from "vitest";
import { podConfList, podNetworkUnavailable } from "./pod-network.js";

describe("pod network conflist", () => {
  it("is a bridge with gateway, IP masquerade and hairpin veths, host-local over the pod CIDR, and portmap", () => {
    const list = podConfList("/var/lib/skiff/cri", "10.244.3.0/24");
    expect(list.cniVersion).toBe("0.4.0");
    expect(list.name).toMatch(/^skiff-process-[0-9a-f]{8}$/);
    const [bridge, portmap] = list.plugins;
    expect(bridge).toMatchObject({ type: "bridge", isGateway: true, ipMasq: true, hairpinMode: true, ipam: { type: "host-local", dataDir: "/var/lib/skiff/cri/cni/ipam", ranges: [[{ subnet: "10.244.3.0/24" }]], routes: [{ dst: "0.0.0.0/0" }] } });
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
    expect(await podNetworkUnavailable("/nonexistent", 0)).toBe("the CNI plugins bridge, host-local, loopback, portmap are missing from /nonexistent (Debian/Ubuntu: apt-get install -y containernetworking-plugins)");
  });
});
