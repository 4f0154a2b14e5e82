import { LabelMetadataName } from "@skiff/api-types";
import { MemoryStorage } from "@skiff/storage";
import { afterEach, describe, expect, it } from "vitest";
import { bootstrapNamespaces, ensureBootstrapNamespaces, ensureSystemPriorityClasses } from "./bootstrap.js";
import { createAllStrategies } from "./registry/index.js";

const strategies = createAllStrategies({ jobReadyPods: false, jobTrackingWithFinalizers: false, jobMutableNodeSchedulingDirectives: false });
let storage: MemoryStorage;
afterEach(async () => {
  await storage.close();
});

describe("ensureBootstrapNamespaces", () => {
  it("creates default, kube-system, kube-public, kube-node-lease as the apiserver always wrote them", async () => {
    storage = new MemoryStorage({ compactionIntervalMs: 0 });
    expect(await ensureBootstrapNamespaces(strategies, storage)).toEqual([...bootstrapNamespaces]);
    expect(bootstrapNamespaces).toEqual(["default", "kube-system", "kube-public", "kube-node-lease"]);
    for (const name of bootstrapNamespaces) {
      const obj = await storage.get(`/registry/core/namespaces/${name}`);
      const created = obj.metadata?.["creationTimestamp"] as string;
      expect(created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      // The object main.ts wrote straight to storage before the namespace store did it.
      expect(obj).toEqual({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: {
          name,
          uid: expect.stringMatching(/^[0-9a-f-]{36}$/),
          resourceVersion: expect.any(String),
          creationTimestamp: created,
          labels: { [LabelMetadataName]: name },
          managedFields: [
            {
              manager: "skiff-apiserver",
              operation: "Update",
              apiVersion: "v1",
              time: created,
              fieldsType: "FieldsV1",
              fieldsV1: { "f:metadata": { "f:labels": { ".": {}, [`f:${LabelMetadataName}`]: {} } } },
            },
          ],
        },
        spec: { finalizers: ["kubernetes"] },
        status: { phase: "Active" },
      });
    }
  });

  it("is idempotent across restarts and leaves existing namespaces untouched", async () => {
    storage = new MemoryStorage({ compactionIntervalMs: 0 });
    await ensureBootstrapNamespaces(strategies, storage);
    const before = await storage.get("/registry/core/namespaces/default");
    await storage.delete("/registry/core/namespaces/kube-public");
    expect(await ensureBootstrapNamespaces(strategies, storage)).toEqual(["kube-public"]);
    expect(await ensureBootstrapNamespaces(strategies, storage)).toEqual([]);
    const after = await storage.get("/registry/core/namespaces/default");
    expect(after).toEqual(before);
  });

  it("lets concurrent apiservers race: each namespace is created once", async () => {
    storage = new MemoryStorage({ compactionIntervalMs: 0 });
    const [a, b] = await Promise.all([ensureBootstrapNamespaces(strategies, storage), ensureBootstrapNamespaces(strategies, storage)]);
    expect([...a!, ...b!].sort()).toEqual([...bootstrapNamespaces].sort());
  });

  it("needs the namespace strategy", async () => {
    storage = new MemoryStorage({ compactionIntervalMs: 0 });
    await expect(ensureBootstrapNamespaces(strategies.filter((s) => s.resource.kind !== "Namespace"), storage)).rejects.toThrow(/namespaces strategy/);
  });
});

describe("ensureSystemPriorityClasses", () => {
  it("creates system-node-critical and system-cluster-critical as 1.23 does, once", async () => {
    storage = new MemoryStorage({ compactionIntervalMs: 0 });
    expect(await ensureSystemPriorityClasses(strategies, storage)).toEqual(["system-node-critical", "system-cluster-critical"]);
    const node = await storage.get("/registry/scheduling.k8s.io/priorityclasses/system-node-critical");
    expect(node).toMatchObject({
      apiVersion: "scheduling.k8s.io/v1",
      kind: "PriorityClass",
      metadata: { name: "system-node-critical", generation: 1, managedFields: [expect.objectContaining({ manager: "skiff-apiserver", operation: "Update" })] },
      value: 2000001000,
      description: "Used for system critical pods that must not be moved from their current node.",
      preemptionPolicy: "PreemptLowerPriority",
    });
    expect(node).not.toHaveProperty("globalDefault");
    expect(await storage.get("/registry/scheduling.k8s.io/priorityclasses/system-cluster-critical")).toMatchObject({ value: 2000000000 });
    expect(await ensureSystemPriorityClasses(strategies, storage)).toEqual([]);
  });
});

