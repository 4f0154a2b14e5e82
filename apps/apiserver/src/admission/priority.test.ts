import type { Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { admitNewPodPriority, priorityAdmission } from "./priority.js";

const pod = (spec: Partial<NonNullable<Pod["spec"]>> = {}): Pod => ({ metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "i" }], ...spec } });

describe("Priority admission (1.23 plugin/pkg/admission/priority, built-in classes only)", () => {
  it("gives a pod without a class priority 0 and PreemptLowerPriority", () => {
    const p = pod();
    expect(admitNewPodPriority(p)).toBeUndefined();
    expect(p.spec).toMatchObject({ priority: 0, preemptionPolicy: "PreemptLowerPriority" });
  });

  it("resolves the built-in system classes", () => {
    const cluster = pod({ priorityClassName: "system-cluster-critical" });
    const node = pod({ priorityClassName: "system-node-critical" });
    expect(admitNewPodPriority(cluster)).toBeUndefined();
    expect(admitNewPodPriority(node)).toBeUndefined();
    expect(cluster.spec?.priority).toBe(2000000000);
    expect(node.spec?.priority).toBe(2000001000);
  });

  it("refuses an unknown class, and a priority or preemption policy the class does not give, with 1.23's messages", () => {
    expect(admitNewPodPriority(pod({ priorityClassName: "high" }))).toBe("no PriorityClass with name high was found");
    expect(admitNewPodPriority(pod({ priority: 5 }))).toBe("the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name");
    expect(admitNewPodPriority(pod({ priority: 0, preemptionPolicy: "Never" }))).toBe(
      "the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name",
    );
    const same = pod({ priorityClassName: "system-node-critical", priority: 2000001000, preemptionPolicy: "PreemptLowerPriority" });
    expect(admitNewPodPriority(same)).toBeUndefined();
  });

  it("the plugin answers 403 naming the pod, leaves subresources alone, and keeps the old values on update", async () => {
    const plugin = priorityAdmission();
    const info = (subresource = "") => ({ apiGroup: "", resource: "pods", subresource, name: "" }) as never;
    let err: unknown;
    try {
      await plugin.mutate?.({ operation: "CREATE", info: info(), object: pod({ priorityClassName: "nope" }) as never, oldObject: undefined, ctx: {} as never });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ status: { code: 403, reason: "Forbidden", message: 'pods "p" is forbidden: no PriorityClass with name nope was found' } });
    const status = pod();
    await plugin.mutate?.({ operation: "CREATE", info: info("status"), object: status as never, oldObject: undefined, ctx: {} as never });
    expect(status.spec?.priority).toBeUndefined();
    const updated = pod();
    await plugin.mutate?.({ operation: "UPDATE", info: info(), object: updated as never, oldObject: pod({ priority: 0, preemptionPolicy: "PreemptLowerPriority" }) as never, ctx: {} as never });
    expect(updated.spec).toMatchObject({ priority: 0, preemptionPolicy: "PreemptLowerPriority" });
  });
});
