import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { CSINode, Node } from "@skiff/api-types";
import { NodeIDAnnotation } from "@skiff/api-types";
import { newAlreadyExists, newConflict, newNotFound } from "@skiff/apimachinery";
import type { Client } from "@skiff/client";
import { nodeAgentFeatureGates } from "@skiff/feature-gates";
import {
  CsiNodeUpdateError,
  MigratedPluginsAnnotation,
  applyDriverToNode,
  applyMigrationAnnotation,
  migratedInTreePlugins,
  buildCSINodeDriver,
  ensureCSINode,
  installCSIDriver,
  mergeCSINodeDriver,
  newCSINode,
  removeCSINodeDriver,
  removeDriverFromNode,
  uninstallCSIDriver,
} from "./csi-node.js";

const node: Node = { metadata: { name: "n1", uid: "u-1", labels: { "example.io/hostname": "n1" } } };
const info = { name: "a.csi.example.io", nodeId: "id-1", maxVolumesPerNode: 0, topology: { "topology.a/zone": "z1", "topology.a/rack": "r1" } };

describe("buildCSINodeDriver", () => {
  it("sorts topology keys and omits allocatable when max volumes is 0", () => {
    expect(buildCSINodeDriver(info)).toEqual({ name: "a.csi.example.io", nodeID: "id-1", topologyKeys: ["topology.a/rack", "topology.a/zone"] });
  });
  it("sets allocatable.count from max volumes, clamped to int32", () => {
    expect(buildCSINodeDriver({ ...info, maxVolumesPerNode: 16 }).allocatable).toEqual({ count: 16 });
    expect(buildCSINodeDriver({ ...info, maxVolumesPerNode: 2 ** 40 }).allocatable).toEqual({ count: 2 ** 31 - 1 });
  });
  it("refuses an empty node ID", () => {
    expect(() => buildCSINodeDriver({ ...info, nodeId: "" })).toThrow(CsiNodeUpdateError);
  });
});

describe("newCSINode", () => {
  it("names it after the node with an ownerReference to the Node and no drivers", () => {
    expect(newCSINode(node)).toEqual({
      apiVersion: "storage.example.io/v1",
      kind: "CSINode",
      metadata: { name: "n1", ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "n1", uid: "u-1" }] },
      spec: { drivers: [] },
    });
  });
});

describe("mergeCSINodeDriver / removeCSINodeDriver", () => {
  const base: CSINode = { metadata: { name: "n1" }, spec: { drivers: [{ name: "b", nodeID: "x" }] } };
  it("adds a new entry and keeps the others", () => {
    const merged = mergeCSINodeDriver(base, buildCSINodeDriver(info));
    expect(merged?.spec.drivers.map((d) => d.name)).toEqual(["b", "a.csi.example.io"]);
    expect(base.spec.drivers).toHaveLength(1);
  });
  it("returns undefined when an equal entry exists (topology key order ignored)", () => {
    const once = mergeCSINodeDriver(base, buildCSINodeDriver(info));
    expect(once).toBeDefined();
    const reordered = { ...buildCSINodeDriver(info), topologyKeys: ["topology.a/zone", "topology.a/rack"] };
    expect(mergeCSINodeDriver(once as CSINode, reordered)).toBeUndefined();
  });
  it("replaces an entry whose node ID or allocatable changed", () => {
    const once = mergeCSINodeDriver(base, buildCSINodeDriver(info)) as CSINode;
    const again = mergeCSINodeDriver(once, buildCSINodeDriver({ ...info, nodeId: "id-2", maxVolumesPerNode: 3 }));
    expect(again?.spec.drivers.filter((d) => d.name === info.name)).toEqual([{ name: info.name, nodeID: "id-2", topologyKeys: ["topology.a/rack", "topology.a/zone"], allocatable: { count: 3 } }]);
  });
  it("removes only the named entry; nothing to remove → undefined", () => {
    expect(removeCSINodeDriver(base, "b")?.spec.drivers).toEqual([]);
    expect(removeCSINodeDriver(base, "zzz")).toBeUndefined();
  });
  it("merge then remove gives back the other drivers (property)", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z]{1,6}$/), { maxLength: 5 }), fc.stringMatching(/^[A-Z]{1,6}$/), (others, name) => {
        const start: CSINode = { metadata: { name: "n" }, spec: { drivers: others.map((o) => ({ name: o, nodeID: o })) } };
        const merged = mergeCSINodeDriver(start, { name, nodeID: "id" }) as CSINode;
        expect(removeCSINodeDriver(merged, name)?.spec.drivers).toEqual(start.spec.drivers);
      }),
    );
  });
});

describe("applyDriverToNode / removeDriverFromNode", () => {
  it("adds topology labels and merges the node-ID annotation", () => {
    const withOther: Node = { ...node, metadata: { ...node.metadata, annotations: { [NodeIDAnnotation]: JSON.stringify({ other: "o-1" }) } } };
    const updated = applyDriverToNode(withOther, info);
    expect(updated?.metadata?.labels).toEqual({ "example.io/hostname": "n1", "topology.a/zone": "z1", "topology.a/rack": "r1" });
    expect(JSON.parse(updated?.metadata?.annotations?.[NodeIDAnnotation] ?? "{}")).toEqual({ other: "o-1", "a.csi.example.io": "id-1" });
    expect(applyDriverToNode(updated as Node, info)).toBeUndefined();
  });
  it("refuses a topology label that already has another value", () => {
    const clash: Node = { metadata: { name: "n1", labels: { "topology.a/zone": "z9" } } };
    expect(() => applyDriverToNode(clash, info)).toThrow(/detected topology value collision/);
  });
  it("ignores a malformed node-ID annotation and overwrites it", () => {
    const bad: Node = { metadata: { name: "n1", annotations: { [NodeIDAnnotation]: "[not json" } } };
    expect(applyDriverToNode(bad, { ...info, topology: {} })?.metadata?.annotations?.[NodeIDAnnotation]).toBe(JSON.stringify({ "a.csi.example.io": "id-1" }));
  });
  it("drops the driver's node ID and the given labels; the annotation goes when empty", () => {
    const installed = applyDriverToNode(node, info) as Node;
    const removed = removeDriverFromNode(installed, info.name, ["topology.a/zone"]);
    expect(removed?.metadata?.labels).toEqual({ "example.io/hostname": "n1", "topology.a/rack": "r1" });
    expect(removed?.metadata?.annotations?.[NodeIDAnnotation]).toBeUndefined();
    expect(removeDriverFromNode(node, "absent", [])).toBeUndefined();
  });
});

describe("installCSIDriver / uninstallCSIDriver against an in-memory API", () => {
  // A minimal stand-in for the client: objects by name, a resourceVersion checked on update, and
  // a number of Conflicts to inject on the next updates.
  function fakeApi(initialNode: Node) {
    const nodes = new Map<string, Node>([[initialNode.metadata?.name ?? "", { ...initialNode, metadata: { ...initialNode.metadata, resourceVersion: "1" } }]]);
    const csiNodes = new Map<string, CSINode>();
    let conflicts = 0;
    let rv = 1;
    const rc = <T extends { metadata?: { name?: string; resourceVersion?: string } }>(store: Map<string, T>, resource: string) => ({
      get: (name: string) => {
        const o = store.get(name);
        return o ? Promise.resolve(structuredClone(o)) : Promise.reject(newNotFound({ group: "", resource }, name));
      },
      create: (o: T) => {
        const name = o.metadata?.name ?? "";
        if (store.has(name)) return Promise.reject(newAlreadyExists({ group: "", resource }, name));
        const stored = { ...o, metadata: { ...o.metadata, resourceVersion: String(++rv) } };
        store.set(name, stored);
        return Promise.resolve(structuredClone(stored));
      },
      update: (o: T) => {
        const name = o.metadata?.name ?? "";
        if (conflicts > 0 || store.get(name)?.metadata?.resourceVersion !== o.metadata?.resourceVersion) {
          conflicts = Math.max(0, conflicts - 1);
          return Promise.reject(newConflict({ group: "", resource }, name, "the object has been modified"));
        }
        const stored = { ...o, metadata: { ...o.metadata, resourceVersion: String(++rv) } };
        store.set(name, stored);
        return Promise.resolve(structuredClone(stored));
      },
    });
    const client = { nodes: rc(nodes, "nodes"), csiNodes: rc(csiNodes, "csinodes") } as unknown as Client;
    return { client, nodes, csiNodes, injectConflicts: (n: number) => (conflicts = n) };
  }

  it("retries conflicts and ends with the entry, labels and ownerReference", async () => {
    const api = fakeApi(node);
    api.injectConflicts(3);
    await installCSIDriver(api.client, "n1", { ...info, maxVolumesPerNode: 4 });
    const c = api.csiNodes.get("n1");
    expect(c?.metadata?.ownerReferences?.[0]).toEqual({ apiVersion: "v1", kind: "Node", name: "n1", uid: "u-1" });
    expect(c?.spec.drivers).toEqual([{ name: info.name, nodeID: "id-1", topologyKeys: ["topology.a/rack", "topology.a/zone"], allocatable: { count: 4 } }]);
    expect(api.nodes.get("n1")?.metadata?.labels?.["topology.a/zone"]).toBe("z1");
    await uninstallCSIDriver(api.client, "n1", info.name, ["topology.a/zone", "topology.a/rack"]);
    expect(api.csiNodes.get("n1")?.spec.drivers).toEqual([]);
    expect(api.nodes.get("n1")?.metadata?.labels).toEqual({ "example.io/hostname": "n1" });
  });

  it("gives up with RetriesExhausted when conflicts never stop", async () => {
    const api = fakeApi(node);
    api.injectConflicts(1_000);
    await expect(installCSIDriver(api.client, "n1", info)).rejects.toMatchObject({ reason: "RetriesExhausted" });
  });

  it("fails with NodeNotFound when the Node is missing; uninstall of a missing Node is fine", async () => {
    const api = fakeApi(node);
    await expect(installCSIDriver(api.client, "other", info)).rejects.toMatchObject({ reason: "NodeNotFound" });
    await expect(uninstallCSIDriver(api.client, "other", info.name, [])).resolves.toBeUndefined();
  });

  it("ensureCSINode returns an existing CSINode unchanged", async () => {
    const api = fakeApi(node);
    const first = await ensureCSINode(api.client, node);
    const again = await ensureCSINode(api.client, node);
    expect(again).toEqual(first);
  });

  it("ensureCSINode writes the migrated-plugins annotation on create and fixes a stale one", async () => {
    const api = fakeApi(node);
    const created = await ensureCSINode(api.client, node, ["example.io/gce-pd", "example.io/aws-ebs"]);
    expect(created.metadata?.annotations).toEqual({ [MigratedPluginsAnnotation]: "example.io/aws-ebs,example.io/gce-pd" });
    api.injectConflicts(1);
    const updated = await ensureCSINode(api.client, node, ["example.io/aws-ebs"]);
    expect(api.csiNodes.get("n1")?.metadata?.annotations).toEqual({ [MigratedPluginsAnnotation]: "example.io/aws-ebs" });
    expect(updated.metadata?.annotations?.[MigratedPluginsAnnotation]).toBe("example.io/aws-ebs");
    await ensureCSINode(api.client, node, []);
    expect(api.csiNodes.get("n1")?.metadata?.annotations).toBeUndefined();
  });
});

describe("migrated in-tree plugins (CSINode annotation)", () => {
  it("lists the plugins whose CSIMigration<backend> gate is on, sorted, only with CSIMigration on", () => {
    expect(MigratedPluginsAnnotation).toBe("storage.alpha.example.io/migrated-plugins");
    const defaults = nodeAgentFeatureGates();
    expect(migratedInTreePlugins(defaults)).toEqual(["example.io/aws-ebs", "example.io/azure-disk", "example.io/azure-file", "example.io/cinder", "example.io/gce-pd"]);
    const more = nodeAgentFeatureGates();
    more.setFromMap({ CSIMigrationRBD: true, CSIMigrationGCE: false });
    expect(migratedInTreePlugins(more)).toEqual(["example.io/aws-ebs", "example.io/azure-disk", "example.io/azure-file", "example.io/cinder", "example.io/rbd"]);
    const off = nodeAgentFeatureGates();
    off.setFromMap({ CSIMigration: false });
    expect(migratedInTreePlugins(off)).toEqual([]);
  });

  it("applyMigrationAnnotation compares as a set and keeps other annotations", () => {
    const c: CSINode = { apiVersion: "storage.example.io/v1", kind: "CSINode", metadata: { name: "n1", annotations: { other: "x", [MigratedPluginsAnnotation]: "b,a" } }, spec: { drivers: [] } };
    expect(applyMigrationAnnotation(c, ["a", "b"])).toBeUndefined();
    expect(applyMigrationAnnotation(c, ["c"])?.metadata?.annotations).toEqual({ other: "x", [MigratedPluginsAnnotation]: "c" });
    expect(applyMigrationAnnotation(c, [])?.metadata?.annotations).toEqual({ other: "x" });
    expect(c.metadata?.annotations?.[MigratedPluginsAnnotation]).toBe("b,a");
    expect(newCSINode(node, ["a"]).metadata?.annotations).toEqual({ [MigratedPluginsAnnotation]: "a" });
  });
});
