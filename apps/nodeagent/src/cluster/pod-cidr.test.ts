import { describe, expect, it } from "vitest";
import { updateRuntimePodCIDR } from "./pod-cidr.js";

function fakeRuntime(fail = false) {
  const calls: unknown[] = [];
  return {
    calls,
    runtime: {
      updateRuntimeConfig: async (req: unknown) => {
        calls.push(req);
        if (fail) throw new Error("unavailable");
        return {};
      },
    },
  };
}

describe("updateRuntimePodCIDR (--pod-cidr / spec.podCIDRs → CRI UpdateRuntimeConfig)", () => {
  it("sends the Node's pod CIDRs once, joined with commas, and again only when they change", async () => {
    const f = fakeRuntime();
    const logs: string[] = [];
    const node = { spec: { podCIDR: "10.1.0.0/24", podCIDRs: ["10.1.0.0/24", "fd00::/64"] } };
    const first = await updateRuntimePodCIDR(f.runtime, node, "", (m) => logs.push(m));
    expect(first).toBe("10.1.0.0/24,fd00::/64");
    expect(await updateRuntimePodCIDR(f.runtime, node, first, (m) => logs.push(m))).toBe(first);
    expect(await updateRuntimePodCIDR(f.runtime, { spec: { podCIDR: "10.2.0.0/24" } }, first, (m) => logs.push(m))).toBe("10.2.0.0/24");
    expect(f.calls).toEqual([
      { runtimeConfig: { networkConfig: { podCidr: "10.1.0.0/24,fd00::/64" } } },
      { runtimeConfig: { networkConfig: { podCidr: "10.2.0.0/24" } } },
    ]);
    expect(logs[0]).toBe('Updating Pod CIDR originalPodCIDR="" newPodCIDR="10.1.0.0/24,fd00::/64"');
  });

  it("sends nothing without a pod CIDR, and keeps the old value when the runtime fails", async () => {
    const f = fakeRuntime(true);
    const logs: string[] = [];
    expect(await updateRuntimePodCIDR(f.runtime, { spec: {} }, "", (m) => logs.push(m))).toBe("");
    expect(f.calls).toEqual([]);
    expect(await updateRuntimePodCIDR(f.runtime, { spec: { podCIDR: "10.1.0.0/24" } }, "", (m) => logs.push(m))).toBe("");
    expect(logs).toEqual(["Error updating pod CIDR: failed to update pod CIDR: unavailable"]);
  });
});
