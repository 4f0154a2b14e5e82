import type { CSINode, CSINodeDriver, Node } from "@skiff/api-types";
import { NodeIDAnnotation } from "@skiff/api-types";
import type { Client } from "@skiff/client";
import { isAlreadyExists, isConflict, isNotFound } from "@skiff/apimachinery";

/** What a registered driver reported through NodeGetInfo, as the CSINode and Node need it. */
export interface CsiDriverNodeInfo {
  /** The driver name (GetInfo / GetPluginInfo name). */
  readonly name: string;
  /** NodeGetInfo.node_id; never empty for a registered driver. */
  readonly nodeId: string;
  /** NodeGetInfo.max_volumes_per_node; 0 = unlimited (then no `allocatable`). */
  readonly maxVolumesPerNode: number;
  /** NodeGetInfo.accessible_topology segments (label key → value); `{}` without topology. */
  readonly topology: Readonly<Record<string, string>>;
}

/** Typed failure of a CSINode or Node update, with a stable `reason`. */
export class CsiNodeUpdateError extends Error {
  override readonly name = "CsiNodeUpdateError";
  constructor(
    readonly reason: "EmptyNodeID" | "TopologyConflict" | "NodeNotFound" | "RetriesExhausted",
    message: string,
  ) {
    super(message);
  }
}

const maxInt32 = 2 ** 31 - 1;

/**
 * The `spec.drivers[]` entry of a driver: `{name, nodeID, topologyKeys (sorted), allocatable.count}`,
 * `allocatable` only when `maxVolumesPerNode` > 0 (clamped to int32). Pure.
 * @throws CsiNodeUpdateError `EmptyNodeID` when the node ID is empty.
 * @see pkg/volume/csi/nodeinfomanager/nodeinfomanager.go (installDriverToCSINode) in kubernetes/kubernetes v1.23
 */
export function buildCSINodeDriver(info: CsiDriverNodeInfo): CSINodeDriver {
  if (info.nodeId === "") throw new CsiNodeUpdateError("EmptyNodeID", "error adding CSI driver node info: driverNodeID must not be empty");
  const entry: CSINodeDriver = { name: info.name, nodeID: info.nodeId, topologyKeys: Object.keys(info.topology).sort() };
  if (info.maxVolumesPerNode > 0) entry.allocatable = { count: Math.min(Math.floor(info.maxVolumesPerNode), maxInt32) };
  return entry;
}

function sameDriver(a: CSINodeDriver, b: CSINodeDriver): boolean {
  const ka = [...(a.topologyKeys ?? [])].sort().join("\n");
  const kb = [...(b.topologyKeys ?? [])].sort().join("\n");
  return a.nodeID === b.nodeID && ka === kb && a.allocatable?.count === b.allocatable?.count;
}

/**
 * `csiNode` with `entry` installed (replacing any entry of the same name, others kept in order),
 * or `undefined` when an equal entry is already there. Does not mutate `csiNode`.
 * @see pkg/volume/csi/nodeinfomanager/nodeinfomanager.go (installDriverToCSINode) in kubernetes/kubernetes v1.23
 */
export function mergeCSINodeDriver(csiNode: CSINode, entry: CSINodeDriver): CSINode | undefined {
  const drivers = csiNode.spec.drivers;
  const existing = drivers.find((d) => d.name === entry.name);
  if (existing && sameDriver(existing, entry)) return undefined;
  return { ...csiNode, spec: { ...csiNode.spec, drivers: [...drivers.filter((d) => d.name !== entry.name), entry] } };
}

/**
 * `csiNode` without the entry of `driverName`, or `undefined` when it has none. The object stays
 * (with possibly empty `drivers`). Does not mutate `csiNode`.
 * @see pkg/volume/csi/nodeinfomanager/nodeinfomanager.go (uninstallDriverFromCSINode) in kubernetes/kubernetes v1.23
 */
export function removeCSINodeDriver(csiNode: CSINode, driverName: string): CSINode | undefined {
  if (!csiNode.spec.drivers.some((d) => d.name === driverName)) return undefined;
  return { ...csiNode, spec: { ...csiNode.spec, drivers: csiNode.spec.drivers.filter((d) => d.name !== driverName) } };
}

/** CSINode annotation listing the in-tree plugins migrated to CSI (1.23: `storage.alpha.kubernetes.io/migrated-plugins`). */
export const MigratedPluginsAnnotation = "storage.alpha.example.io/migrated-plugins";

/** The in-tree volume plugin each `CSIMigration<backend>` gate migrates (1.23 names, `example.io` domain). */
export const csiMigrationPlugins: Readonly<Record<string, string>> = Object.freeze({
  CSIMigrationAWS: "example.io/aws-ebs",
  CSIMigrationAzureDisk: "example.io/azure-disk",
  CSIMigrationAzureFile: "example.io/azure-file",
  CSIMigrationGCE: "example.io/gce-pd",
  CSIMigrationOpenStack: "example.io/cinder",
  CSIMigrationPortworx: "example.io/portworx-volume",
  CSIMigrationRBD: "example.io/rbd",
  CSIMigrationvSphere: "example.io/vsphere-volume",
});

/**
 * The in-tree plugins whose migration is on: gate `CSIMigration` and the backend's gate both
 * enabled; sorted (the annotation's value joins them with `,`).
 * @see pkg/volume/csi/csi_plugin.go (Init: migratedPlugins) in kubernetes/kubernetes v1.23
 */
export function migratedInTreePlugins(gates: { enabled(name: never): boolean }): string[] {
  const on = (name: string): boolean => (gates.enabled as (n: string) => boolean)(name);
  if (!on("CSIMigration")) return [];
  return Object.entries(csiMigrationPlugins)
    .filter(([gate]) => on(gate))
    .map(([, plugin]) => plugin)
    .sort();
}

/**
 * `csiNode` with the {@link MigratedPluginsAnnotation} set to `plugins` (removed when empty), or
 * `undefined` when it already lists the same set. Does not mutate `csiNode`.
 * @see pkg/volume/csi/nodeinfomanager/nodeinfomanager.go (setMigrationAnnotation) in kubernetes/kubernetes v1.23
 */
export function applyMigrationAnnotation(csiNode: CSINode, plugins: readonly string[]): CSINode | undefined {
  const current = csiNode.metadata?.annotations?.[MigratedPluginsAnnotation] ?? "";
  const have = new Set(current === "" ? [] : current.split(","));
  const want = new Set(plugins);
  if (have.size === want.size && [...want].every((p) => have.has(p))) return undefined;
  const annotations: Record<string, string> = { ...(csiNode.metadata?.annotations ?? {}) };
  if (want.size > 0) annotations[MigratedPluginsAnnotation] = [...want].sort().join(",");
  else delete annotations[MigratedPluginsAnnotation];
  const metadata = { ...csiNode.metadata };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  return { ...csiNode, metadata };
}

/**
 * The new CSINode of `node`: same name, ownerReference to the Node, no drivers, and the
 * {@link MigratedPluginsAnnotation} when `migratedPlugins` is not empty. Pure.
 */
export function newCSINode(node: Node, migratedPlugins: readonly string[] = []): CSINode {
  const name = node.metadata?.name ?? "";
  const csiNode: CSINode = {
    apiVersion: "storage.example.io/v1",
    kind: "CSINode",
    metadata: { name, ownerReferences: [{ apiVersion: "v1", kind: "Node", name, uid: node.metadata?.uid ?? "" }] },
    spec: { drivers: [] },
  };
  return applyMigrationAnnotation(csiNode, migratedPlugins) ?? csiNode;
}

function parseNodeIDs(node: Node): Record<string, string> {
  const text = node.metadata?.annotations?.[NodeIDAnnotation];
  if (text === undefined || text === "") return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === "string"));
  } catch {
    return {};
  }
}

/**
 * `node` with the driver's node ID in the `csi.volume.example.io/nodeid` annotation (a JSON map
 * merged with other drivers') and its topology segments as labels, or `undefined` when nothing
 * changes. Does not mutate `node`.
 * @throws CsiNodeUpdateError `TopologyConflict` when a topology label exists with another value.
 * @see pkg/volume/csi/nodeinfomanager/nodeinfomanager.go (updateNodeIDInNode, updateTopologyLabels) in kubernetes/kubernetes v1.23
 */
export function applyDriverToNode(node: Node, info: CsiDriverNodeInfo): Node | undefined {
  const labels = { ...(node.metadata?.labels ?? {}) };
  let changed = false;
  for (const [k, v] of Object.entries(info.topology)) {
    const old = labels[k];
    if (old !== undefined && old !== v) throw new CsiNodeUpdateError("TopologyConflict", `detected topology value collision: driver reported "${k}":"${v}" but existing label is "${k}":"${old}"`);
    if (old === undefined) {
      labels[k] = v;
      changed = true;
    }
  }
  const ids = parseNodeIDs(node);
  const annotations = { ...(node.metadata?.annotations ?? {}) };
  if (ids[info.name] !== info.nodeId) {
    ids[info.name] = info.nodeId;
    annotations[NodeIDAnnotation] = JSON.stringify(ids);
    changed = true;
  }
  if (!changed) return undefined;
  return { ...node, metadata: { ...node.metadata, labels, annotations } };
}

/**
 * `node` without the driver's node-ID annotation entry (the annotation goes when empty) and
 * without the labels `dropLabels`, or `undefined` when nothing changes. Does not mutate `node`.
 * Kubernetes 1.23 keeps the topology labels; Skiff drops those no other registered driver reports.
 * @see pkg/volume/csi/nodeinfomanager/nodeinfomanager.go (removeNodeIDFromNode) in kubernetes/kubernetes v1.23
 */
export function removeDriverFromNode(node: Node, driverName: string, dropLabels: readonly string[]): Node | undefined {
  const labels = { ...(node.metadata?.labels ?? {}) };
  const annotations = { ...(node.metadata?.annotations ?? {}) };
  let changed = false;
  for (const k of dropLabels) {
    if (k in labels) {
      delete labels[k];
      changed = true;
    }
  }
  const ids = parseNodeIDs(node);
  if (driverName in ids) {
    delete ids[driverName];
    if (Object.keys(ids).length === 0) delete annotations[NodeIDAnnotation];
    else annotations[NodeIDAnnotation] = JSON.stringify(ids);
    changed = true;
  }
  if (!changed) return undefined;
  return { ...node, metadata: { ...node.metadata, labels, annotations } };
}

const maxAttempts = 10;

async function retryOnConflict(what: string, fn: () => Promise<void>): Promise<void> {
  let delayMs = 10;
  for (let attempt = 1; ; attempt++) {
    try {
      await fn();
      return;
    } catch (err) {
      if (!isConflict(err) && !isAlreadyExists(err)) throw err;
      if (attempt >= maxAttempts) throw new CsiNodeUpdateError("RetriesExhausted", `${what}: still conflicting after ${maxAttempts} attempts: ${err instanceof Error ? err.message : String(err)}`);
      await new Promise((r) => setTimeout(r, delayMs));
      delayMs = Math.min(delayMs * 2, 1_000);
    }
  }
}

async function getNode(client: Client, nodeName: string): Promise<Node> {
  try {
    return await client.nodes.get(nodeName);
  } catch (err) {
    if (isNotFound(err)) throw new CsiNodeUpdateError("NodeNotFound", `node "${nodeName}" not found`);
    throw err;
  }
}

/**
 * Makes sure the CSINode named after `node` exists: creates it with an ownerReference to the Node
 * (`{apiVersion: v1, kind: Node, name, uid}`) and empty `drivers` when missing, and returns it.
 * With `migratedPlugins` ({@link migratedInTreePlugins}) the CSINode carries them in the
 * {@link MigratedPluginsAnnotation} (an existing CSINode is updated when its list differs; without
 * `migratedPlugins` an existing object is returned unchanged). API-server mode calls this once the
 * Node is registered, as 1.23's kubelet does at start-up. Retries a create race or an update conflict.
 * @throws StatusError (apimachinery) from the API server; ClientError on network failures.
 * @see pkg/volume/csi/nodeinfomanager/nodeinfomanager.go (CreateCSINode, InitializeCSINodeWithAnnotation) in kubernetes/kubernetes v1.23
 * @example
 * ```ts
 * const node = await client.nodes.get("node-1");
 * await ensureCSINode(client, node);
 * ```
 */
export async function ensureCSINode(client: Client, node: Node, migratedPlugins?: readonly string[]): Promise<CSINode> {
  const name = node.metadata?.name ?? "";
  for (let attempt = 1; ; attempt++) {
    let existing: CSINode | undefined;
    try {
      existing = await client.csiNodes.get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (existing !== undefined) {
      const annotated = migratedPlugins === undefined ? undefined : applyMigrationAnnotation(existing, migratedPlugins);
      if (annotated === undefined) return existing;
      try {
        return await client.csiNodes.update(annotated);
      } catch (err) {
        if (!isConflict(err) || attempt >= maxAttempts) throw err;
        continue;
      }
    }
    try {
      return await client.csiNodes.create(newCSINode(node, migratedPlugins));
    } catch (err) {
      if (!isAlreadyExists(err) || attempt >= maxAttempts) throw err;
    }
  }
}

/**
 * Installs a registered driver: the Node gets the node-ID annotation and topology labels, the
 * CSINode (created when missing) gets the driver's entry. Conflicts are retried (re-read, re-apply).
 * @throws CsiNodeUpdateError (`EmptyNodeID`, `TopologyConflict`, `NodeNotFound`, `RetriesExhausted`),
 *   StatusError or ClientError.
 * @see pkg/volume/csi/nodeinfomanager/nodeinfomanager.go (InstallCSIDriver) in kubernetes/kubernetes v1.23
 */
export async function installCSIDriver(client: Client, nodeName: string, info: CsiDriverNodeInfo): Promise<void> {
  const entry = buildCSINodeDriver(info);
  let node: Node | undefined;
  await retryOnConflict(`updating node ${nodeName}`, async () => {
    node = await getNode(client, nodeName);
    const updated = applyDriverToNode(node, info);
    if (updated) node = await client.nodes.update(updated);
  });
  await retryOnConflict(`updating CSINode ${nodeName}`, async () => {
    const current = await ensureCSINode(client, node ?? (await getNode(client, nodeName)));
    const merged = mergeCSINodeDriver(current, entry);
    if (merged) await client.csiNodes.update(merged);
  });
}

/**
 * Uninstalls a driver: its entry leaves the CSINode (which stays, possibly with no drivers), its
 * node ID leaves the Node annotation, and the labels `dropLabels` leave the Node. A missing CSINode
 * or Node is not an error. Conflicts are retried.
 * @throws CsiNodeUpdateError `RetriesExhausted`, StatusError or ClientError.
 * @see pkg/volume/csi/nodeinfomanager/nodeinfomanager.go (UninstallCSIDriver) in kubernetes/kubernetes v1.23
 */
export async function uninstallCSIDriver(client: Client, nodeName: string, driverName: string, dropLabels: readonly string[]): Promise<void> {
  await retryOnConflict(`updating CSINode ${nodeName}`, async () => {
    let current: CSINode;
    try {
      current = await client.csiNodes.get(nodeName);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const updated = removeCSINodeDriver(current, driverName);
    if (updated) await client.csiNodes.update(updated);
  });
  await retryOnConflict(`updating node ${nodeName}`, async () => {
    let node: Node;
    try {
      node = await client.nodes.get(nodeName);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const updated = removeDriverFromNode(node, driverName, dropLabels);
    if (updated) await client.nodes.update(updated);
  });
}
