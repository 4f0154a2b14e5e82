import { describe, expect, it } from "vitest";
import type { Pod, PodStatus } from "@skiff/api-types";
import { StatusManager } from "./status-manager.js";

const pod: Pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default", uid: "u1" }, spec: { containers: [{ name: "c", image: "i" }] } };

function clock(): { now: () => string; tick: () => void } {
  let s = 0;
  return { now: () => `2026-11-29T00:00:${String(s).padStart(2, "0")}Z`, tick: () => void s++ };
}

describe("StatusManager", () => {
  it("stores a copy, tells listeners once per change, and answers an unchanged status with the stored object", () => {
    const c = clock();
    const m = new StatusManager(c.now);
    const seen: PodStatus[] = [];
    m.subscribe((_p, st) => seen.push(st));
    const input: PodStatus = { phase: "Pending", conditions: [{ type: "Ready", status: "False", reason: "ContainersNotReady" }] };
    const first = m.set(pod, input);
    expect(input.conditions?.[0]).not.toHaveProperty("lastTransitionTime");
    expect(first).not.toBe(input);
    expect(first.conditions?.[0]?.lastTransitionTime).toBe("2026-11-29T00:00:00Z");
    c.tick();
    const again = m.set(pod, { phase: "Pending", conditions: [{ type: "Ready", status: "False", reason: "ContainersNotReady" }] });
    expect(again).toBe(first);
    expect(seen).toHaveLength(1);
    // Changing the caller's object afterwards changes nothing stored.
    input.phase = "Failed";
    expect(m.get("u1")?.phase).toBe("Pending");
    const running = m.set(pod, { phase: "Running", conditions: [{ type: "Ready", status: "True" }] });
    expect(running.conditions?.[0]?.lastTransitionTime).toBe("2026-11-29T00:00:01Z");
    expect(seen.map((s) => s.phase)).toEqual(["Pending", "Running"]);
  });

  it("keeps an unchanged condition's transition time and a terminal phase with its reason", () => {
    const c = clock();
    const m = new StatusManager(c.now);
    m.set(pod, { phase: "Running", conditions: [{ type: "Ready", status: "True" }, { type: "PodScheduled", status: "True" }] });
    c.tick();
    const next = m.set(pod, { phase: "Running", conditions: [{ type: "Ready", status: "False" }, { type: "PodScheduled", status: "True" }] });
    expect(next.conditions?.map((x) => x.lastTransitionTime)).toEqual(["2026-11-29T00:00:01Z", "2026-11-29T00:00:00Z"]);
    m.set(pod, { phase: "Failed", reason: "Evicted", message: "low on memory" });
    expect(m.set(pod, { phase: "Running" })).toMatchObject({ phase: "Failed", reason: "Evicted", message: "low on memory" });
  });
});
