import { describe, expect, it } from "vitest";
import { findResource, resources } from "./resources.js";

describe("resources", () => {
  it("lists the served resources with Kubernetes 1.23 discovery facts", () => {
    const byPlural = Object.fromEntries(resources.map((r) => [r.plural, r]));
    expect(Object.keys(byPlural).sort()).toEqual([
      "clusterrolebindings",
      "clusterroles",
      "configmaps",
      "csidrivers",
      "csinodes",
      "events",
      "jobs",
      "leases",
      "namespaces",
      "nodes",
      "pods",
      "podtemplates",
      "priorityclasses",
      "rolebindings",
      "roles",
      "secrets",
      "serviceaccounts",
    ]);
    expect(byPlural.configmaps).toMatchObject({ group: "", kind: "ConfigMap", namespaced: true, shortNames: ["cm"], categories: [], subresources: [] });
    expect(byPlural.secrets).toMatchObject({ group: "", kind: "Secret", namespaced: true, shortNames: [], categories: [], subresources: [] });
    expect(byPlural.serviceaccounts).toMatchObject({ group: "", kind: "ServiceAccount", namespaced: true, shortNames: ["sa"], categories: [], subresources: [] });
    expect(byPlural.jobs).toMatchObject({ group: "batch", kind: "Job", listKind: "JobList", singular: "job", namespaced: true, shortNames: [], categories: ["all"], subresources: ["status"] });
    expect(byPlural.pods).toMatchObject({ group: "", shortNames: ["po"], categories: ["all"], subresources: ["status", "ephemeralcontainers", "binding", "eviction", "exec", "attach", "portforward"] });
    expect(byPlural.nodes).toMatchObject({ namespaced: false, shortNames: ["no"], subresources: ["status"] });
    expect(byPlural.events).toMatchObject({ namespaced: true, shortNames: ["ev"] });
    expect(byPlural.namespaces).toMatchObject({ namespaced: false, shortNames: ["ns"], subresources: ["status", "finalize"] });
    expect(byPlural.namespaces?.verbs).not.toContain("deletecollection");
    expect(byPlural.csidrivers).toMatchObject({ group: "storage.example.io", namespaced: false, shortNames: [], categories: [] });
    expect(byPlural.csinodes).toMatchObject({ group: "storage.example.io", namespaced: false });
    expect(byPlural.leases).toMatchObject({ group: "coordination.k8s.io", version: "v1", kind: "Lease", namespaced: true, shortNames: [], subresources: [] });
    expect(byPlural.roles).toMatchObject({ group: "rbac.authorization.k8s.io", version: "v1", kind: "Role", namespaced: true, shortNames: [], categories: [] });
    expect(byPlural.clusterroles).toMatchObject({ group: "rbac.authorization.k8s.io", kind: "ClusterRole", namespaced: false });
    expect(byPlural.rolebindings).toMatchObject({ group: "rbac.authorization.k8s.io", kind: "RoleBinding", namespaced: true });
    expect(byPlural.clusterrolebindings).toMatchObject({ group: "rbac.authorization.k8s.io", kind: "ClusterRoleBinding", namespaced: false });
    expect(byPlural.priorityclasses).toMatchObject({ group: "scheduling.k8s.io", version: "v1", kind: "PriorityClass", namespaced: false, shortNames: ["pc"], categories: [], subresources: [] });
    expect(byPlural.podtemplates).toMatchObject({ group: "", namespaced: true, categories: [] });
    expect(byPlural.jobs?.verbs).toEqual(["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]);
  });

  it("keeps its invariants", () => {
    for (const r of resources) {
      expect(r.listKind).toBe(`${r.kind}List`);
      expect(r.plural).toBe(r.plural.toLowerCase());
      expect(r.singular).toBe(r.kind.toLowerCase());
    }
    const names = resources.flatMap((r) => [r.plural, r.singular, ...r.shortNames]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("is frozen, so no consumer can change it for the others", () => {
    expect(Object.isFrozen(resources)).toBe(true);
    for (const r of resources) {
      expect(Object.isFrozen(r)).toBe(true);
      expect(Object.isFrozen(r.shortNames)).toBe(true);
      expect(Object.isFrozen(r.verbs)).toBe(true);
    }
    expect(() => (resources as unknown as unknown[]).push({})).toThrow(TypeError);
  });
});

describe("findResource", () => {
  it("resolves plural, singular and short names, in any case", () => {
    expect(findResource("jobs")?.kind).toBe("Job");
    expect(findResource("job")?.kind).toBe("Job");
    expect(findResource("po")?.plural).toBe("pods");
    expect(findResource("NS")?.kind).toBe("Namespace");
    expect(findResource("CSIDrivers")?.kind).toBe("CSIDriver");
  });

  it("accepts resource.group and a separate group", () => {
    expect(findResource("jobs.batch")?.kind).toBe("Job");
    expect(findResource("csinodes.storage.example.io")?.kind).toBe("CSINode");
    expect(findResource("jobs.apps")).toBeUndefined();
    expect(findResource({ group: "", resource: "pods" })?.kind).toBe("Pod");
    expect(findResource({ group: "batch", resource: "pods" })).toBeUndefined();
    expect(findResource({ group: "batch", version: "v2", resource: "jobs" })).toBeUndefined();
    expect(findResource({ group: "batch", version: "v1", resource: "jobs" })?.kind).toBe("Job");
  });

  it("finds by exact kind", () => {
    expect(findResource({ kind: "CSINode" })?.plural).toBe("csinodes");
    expect(findResource({ kind: "Job", group: "batch" })?.plural).toBe("jobs");
    expect(findResource({ kind: "job" })).toBeUndefined();
    expect(findResource({ kind: "Job", group: "" })).toBeUndefined();
  });

  it("returns undefined for unknown or empty names instead of throwing", () => {
    expect(findResource("deployments")).toBeUndefined();
    expect(findResource("")).toBeUndefined();
    expect(findResource(".batch")).toBeUndefined();
    expect(findResource({ resource: "" })).toBeUndefined();
    expect(findResource({ kind: "" })).toBeUndefined();
  });
});
