import { resources } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { negotiateDiscovery, parseAggregatedAccept } from "./index.js";

const kubectlAccept =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

describe("aggregated discovery", () => {
  it("answers /apis with the exact v2 content type", () => {
    const r = negotiateDiscovery("/apis", kubectlAccept, resources);
    expect(r?.contentType).toBe("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    const body = r?.body as { kind: string; apiVersion: string; items: { metadata: { name: string }; versions: { version: string; freshness: string; resources: Record<string, unknown>[] }[] }[] };
    expect(body.kind).toBe("APIGroupDiscoveryList");
    expect(body.apiVersion).toBe("apidiscovery.k8s.io/v2");
    const batch = body.items.find((i) => i.metadata.name === "batch");
    const jobs = batch?.versions[0]?.resources.find((x) => x["resource"] === "jobs");
    expect(batch?.versions[0]?.freshness).toBe("Current");
    expect(jobs).toMatchObject({
      resource: "jobs",
      responseKind: { group: "", version: "", kind: "Job" },
      scope: "Namespaced",
      singularResource: "job",
      categories: ["all"],
      verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
    });
    expect(jobs?.["subresources"]).toEqual([{ subresource: "status", responseKind: { group: "", version: "", kind: "Job" }, verbs: ["get", "patch", "update"] }]);
    expect(JSON.stringify(r?.body)).toContain('"metadata":{"name":"batch"');
  });
  it("answers /api with the core group named \"\" and v2beta1 when asked", () => {
    const r = negotiateDiscovery("/api", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", resources);
    expect(r?.contentType).toBe("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList");
    const body = r?.body as { items: { metadata: { name: string }; versions: { resources: { resource: string; shortNames?: string[] }[] }[] }[] };
    expect(body.items.map((i) => i.metadata.name)).toEqual([""]);
    expect(body.items[0]?.versions[0]?.resources.find((x) => x.resource === "pods")?.shortNames).toEqual(["po"]);
    const pods = body.items[0]?.versions[0]?.resources.find((x) => x.resource === "pods") as { subresources?: { subresource: string; responseKind: unknown; verbs: string[] }[] } | undefined;
    expect(pods?.subresources?.find((x) => x.subresource === "eviction")).toEqual({ subresource: "eviction", responseKind: { group: "policy", version: "v1", kind: "Eviction" }, verbs: ["create"] });
  });
  it("parses Accept", () => {
    expect(parseAggregatedAccept("application/json")).toBeUndefined();
    expect(parseAggregatedAccept(undefined)).toBeUndefined();
    expect(parseAggregatedAccept("application/json;g=apidiscovery.k8s.io;v=v9;as=APIGroupDiscoveryList")).toBeUndefined();
    expect(parseAggregatedAccept(kubectlAccept)).toBe("v2");
  });
});

describe("legacy discovery", () => {
  it("APIVersions, APIGroupList, APIGroup", () => {
    expect(negotiateDiscovery("/api", "application/json", resources)?.body).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    const list = negotiateDiscovery("/apis/", undefined, resources)?.body as { kind: string; groups: { name: string; preferredVersion: unknown }[] };
    expect(list.kind).toBe("APIGroupList");
    expect(list.groups.map((g) => g.name)).toEqual(["batch", "coordination.k8s.io", "rbac.authorization.k8s.io", "scheduling.k8s.io", "storage.example.io"]);
    expect(list.groups[0]?.preferredVersion).toEqual({ groupVersion: "batch/v1", version: "v1" });
    expect(negotiateDiscovery("/apis/batch", undefined, resources)?.body).toMatchObject({ kind: "APIGroup", name: "batch" });
    expect(negotiateDiscovery("/apis/nope", undefined, resources)).toBeUndefined();
  });
  it("APIResourceList with subresources", () => {
    const r = negotiateDiscovery("/api/v1", "application/json", resources);
    expect(r?.contentType).toBe("application/json");
    const body = r?.body as { kind: string; groupVersion: string; resources: { name: string; kind: string; verbs: string[]; namespaced: boolean; singularName: string }[] };
    expect(body.groupVersion).toBe("v1");
    const names = body.resources.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(["pods", "pods/status", "pods/binding", "nodes/status", "namespaces"]));
    expect(body.resources.find((x) => x.name === "pods/binding")).toMatchObject({ kind: "Binding", verbs: ["create"], namespaced: true });
    // 1.23 names the Eviction's group and version; kubectl drain evicts only when it finds them.
    expect(body.resources.find((x) => x.name === "pods/eviction")).toEqual({ name: "pods/eviction", singularName: "", namespaced: true, group: "policy", version: "v1", kind: "Eviction", verbs: ["create"] });
    // 1.23: FinalizeREST is an Updater only, answering with a Namespace.
    expect(body.resources.find((x) => x.name === "namespaces/finalize")).toMatchObject({ kind: "Namespace", verbs: ["update"], namespaced: false });
    expect(body.resources.find((x) => x.name === "nodes")).toMatchObject({ singularName: "node", namespaced: false, kind: "Node" });
    const batch = negotiateDiscovery("/apis/batch/v1", undefined, resources)?.body as { groupVersion: string; resources: { name: string }[] };
    expect(batch.groupVersion).toBe("batch/v1");
    expect(batch.resources.map((x) => x.name)).toEqual(["jobs", "jobs/status"]);
    expect(negotiateDiscovery("/apis/batch/v2", undefined, resources)).toBeUndefined();
    expect(negotiateDiscovery("/api/v1/pods", undefined, resources)).toBeUndefined();
    expect(negotiateDiscovery("/healthz", undefined, resources)).toBeUndefined();
  });
});
