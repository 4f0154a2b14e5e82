import type { Pod, PriorityClass } from "@skiff/api-types";
import { SystemPriorityClasses } from "@skiff/api-types";
import { MemoryStorage } from "@skiff/storage";
import { describe, expect, it } from "vitest";
import { admitNewPodPriority, defaultPriorityClass, priorityAdmission, priorityClassesPrefix, startPriorityClassCache, staticPriorityClasses } from "./priority.js";

const pod = (spec: Partial<NonNullable<Pod["spec"]>> = {}): Pod => ({ metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "i" }], ...spec } });
const pc = (name: string, value: number, extra: Partial<PriorityClass> = {}): PriorityClass => ({ metadata: { name }, value, ...extra });
const builtIn = SystemPriorityClasses.map((c) => pc(c.name, c.value, { preemptionPolicy: "PreemptLowerPriority" }));
const classes = staticPriorityClasses([...builtIn, pc("high", 1000, { preemptionPolicy: "PreemptLowerPriority" }), pc("batch", 10, { preemptionPolicy: "Never" })]);

async function refusal(run: () => Promise<unknown> | unknown): Promise<unknown> {
  try {
    await run();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe("Priority admission (1.23 plugin/pkg/admission/priority)", () => {
  it("gives a pod without a class priority 0 and PreemptLowerPriority when no class is the global default", async () => {
    const p = pod();
    expect(await admitNewPodPriority(p, classes)).toBeUndefined();
    expect(p.spec).toMatchObject({ priority: 0, preemptionPolicy: "PreemptLowerPriority" });
    expect(p.spec?.priorityClassName).toBeUndefined();
  });

  it("resolves a class's value and preemption policy: built-in and user classes", async () => {
    const cluster = pod({ priorityClassName: "system-cluster-critical" });
    const node = pod({ priorityClassName: "system-node-critical" });
    const batch = pod({ priorityClassName: "batch" });
    for (const p of [cluster, node, batch]) expect(await admitNewPodPriority(p, classes)).toBeUndefined();
    expect(cluster.spec?.priority).toBe(2000000000);
    expect(node.spec?.priority).toBe(2000001000);
    expect(batch.spec).toMatchObject({ priority: 10, preemptionPolicy: "Never" });
  });

  it("a pod without a class gets the global default's name, value and policy; among several defaults the lowest value", async () => {
    const withDefaults = staticPriorityClasses([...builtIn, pc("normal", 100, { globalDefault: true, preemptionPolicy: "Never" }), pc("other-default", 50, { globalDefault: true, preemptionPolicy: "PreemptLowerPriority" })]);
    expect(defaultPriorityClass(withDefaults.list())?.metadata?.name).toBe("other-default");
    const p = pod();
    expect(await admitNewPodPriority(p, withDefaults)).toBeUndefined();
    expect(p.spec).toMatchObject({ priorityClassName: "other-default", priority: 50, preemptionPolicy: "PreemptLowerPriority" });
  });

  it("refuses an unknown class, and a priority or preemption policy the class does not give, with 1.23's messages", async () => {
    expect(await admitNewPodPriority(pod({ priorityClassName: "nope" }), classes)).toBe("no PriorityClass with name nope was found");
    expect(await admitNewPodPriority(pod({ priority: 5 }), classes)).toBe("the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name");
    expect(await admitNewPodPriority(pod({ priority: 0, preemptionPolicy: "Never" }), classes)).toBe(
      "the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name",
    );
    expect(await admitNewPodPriority(pod({ priorityClassName: "batch", preemptionPolicy: "PreemptLowerPriority" }), classes)).toBe(
      "the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name",
    );
    const same = pod({ priorityClassName: "system-node-critical", priority: 2000001000, preemptionPolicy: "PreemptLowerPriority" });
    expect(await admitNewPodPriority(same, classes)).toBeUndefined();
  });

  it("the plugin answers 403 naming the pod, leaves subresources alone, and keeps the old values on update", async () => {
    const plugin = priorityAdmission(classes);
    const info = (subresource = "") => ({ apiGroup: "", resource: "pods", subresource, name: "" }) as never;
    const err = await refusal(() => plugin.mutate?.({ operation: "CREATE", info: info(), object: pod({ priorityClassName: "nope" }) as never, oldObject: undefined, ctx: {} as never }));
    expect(err).toMatchObject({ status: { code: 403, reason: "Forbidden", message: 'pods "p" is forbidden: no PriorityClass with name nope was found' } });
    const status = pod();
    await plugin.mutate?.({ operation: "CREATE", info: info("status"), object: status as never, oldObject: undefined, ctx: {} as never });
    expect(status.spec?.priority).toBeUndefined();
    const updated = pod();
    await plugin.mutate?.({ operation: "UPDATE", info: info(), object: updated as never, oldObject: pod({ priority: 0, preemptionPolicy: "PreemptLowerPriority" }) as never, ctx: {} as never });
    expect(updated.spec).toMatchObject({ priority: 0, preemptionPolicy: "PreemptLowerPriority" });
  });

  it("refuses a second global default class and the deletion of a built-in class; allows the rest", async () => {
    const plugin = priorityAdmission(staticPriorityClasses([...builtIn, pc("normal", 100, { globalDefault: true })]));
    const info = { apiGroup: "scheduling.k8s.io", resource: "priorityclasses", subresource: "", name: "" } as never;
    const second = await refusal(() => plugin.validate?.({ operation: "CREATE", info, object: pc("another", 5, { globalDefault: true }) as never, oldObject: undefined, ctx: {} as never }));
    expect(second).toMatchObject({ status: { code: 403, message: 'priorityclasses.scheduling.k8s.io "another" is forbidden: PriorityClass normal is already marked as default. Only one default can exist' } });
    const marked = await refusal(() => plugin.validate?.({ operation: "UPDATE", info, object: pc("high", 1000, { globalDefault: true }) as never, oldObject: pc("high", 1000) as never, ctx: {} as never }));
    expect(marked).toMatchObject({ status: { code: 403 } });
    // The default itself may be updated; a non-default class may be created.
    await plugin.validate?.({ operation: "UPDATE", info, object: pc("normal", 100, { globalDefault: true, description: "d" }) as never, oldObject: pc("normal", 100, { globalDefault: true }) as never, ctx: {} as never });
    await plugin.validate?.({ operation: "CREATE", info, object: pc("plain", 1) as never, oldObject: undefined, ctx: {} as never });
    const del = await refusal(() => plugin.mutate?.({ operation: "DELETE", info, object: undefined, oldObject: builtIn[0] as never, ctx: {} as never }));
    expect(del).toMatchObject({ status: { code: 403, message: 'priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted' } });
    await plugin.mutate?.({ operation: "DELETE", info, object: undefined, oldObject: pc("normal", 100) as never, ctx: {} as never });
  });

  it("the storage-backed lister follows the watch, and reads storage on a miss", async () => {
    const storage = new MemoryStorage({ compactionIntervalMs: 0 });
    try {
      await storage.create(`${priorityClassesPrefix}first`, pc("first", 1));
      const cache = await startPriorityClassCache(storage);
      expect((await cache.get("first"))?.value).toBe(1);
      // Created after the list: found at once (storage read), then through the watch.
      await storage.create(`${priorityClassesPrefix}second`, pc("second", 2, { globalDefault: true }));
      expect((await cache.get("second"))?.value).toBe(2);
      await expect.poll(() => defaultPriorityClass(cache.list())?.metadata?.name).toBe("second");
      await storage.delete(`${priorityClassesPrefix}second`);
      await expect.poll(() => defaultPriorityClass(cache.list())).toBeUndefined();
      expect(await cache.get("second")).toBeUndefined();
      cache.stop();
    } finally {
      await storage.close();
    }
  });
});
