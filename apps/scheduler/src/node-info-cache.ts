/**
 * The scheduler's incremental node snapshot: node names kept sorted, and each node's
 * {@link NodeInfo} (the requests of its assigned pods) kept until an informer event touches that
 * node, so a scheduling cycle costs the nodes that changed since the last one, not every pod of
 * the cluster.
 *
 * @see pkg/scheduler/internal/cache/cache.go in kubernetes/kubernetes v1.23 (`UpdateSnapshot`: only
 *   the node infos whose generation moved since the last snapshot are cloned)
 */

import type { Node, Pod } from "@skiff/api-types";
import type { NodeInfo } from "./predicates.js";
import { addPodsToNodeInfo, newNodeInfo } from "./predicates.js";

/** Where {@link NodeInfoCache} reads the cluster from (the scheduler's informer stores). */
export interface NodeInfoSource {
  /** The Node named `name`, if cached. */
  node(name: string): Node | undefined;
  /** Every cached Node. */
  nodes(): readonly Node[];
  /** The assigned, non-terminated pods of node `name`. */
  podsOn(name: string): readonly Pod[];
}

/**
 * Node infos of the assigned pods, rebuilt per node on demand. The owner reports every change
 * ({@link nodesChanged} when a Node is added or deleted, {@link podsChanged} with the node of a
 * pod added, updated or deleted); a Node updated in place is noticed by object identity (informer
 * stores replace objects, never mutate them). Objects handed in are only read.
 */
export class NodeInfoCache {
  #names: string[] | undefined;
  readonly #infos = new Map<string, NodeInfo>();

  constructor(private readonly source: NodeInfoSource) {}

  /** A Node was added or deleted: the name list is rebuilt at the next snapshot. */
  nodesChanged(name: string): void {
    this.#names = undefined;
    this.#infos.delete(name);
  }

  /** A pod on node `name` was added, changed or removed (`""`: an unassigned pod, ignored). */
  podsChanged(name: string): void {
    if (name !== "") this.#infos.delete(name);
  }

  /**
   * The node infos, in node-name order, each with `extra` pods of its node counted on top (the
   * assumed pods whose bind is in flight; terminated ones are skipped as in {@link newNodeInfo}).
   * Does not mutate `extra`.
   */
  snapshot(extra: ReadonlyMap<string, readonly Pod[]> = new Map()): NodeInfo[] {
    const names = (this.#names ??= this.source
      .nodes()
      .map((n) => n.metadata?.name ?? "")
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const out: NodeInfo[] = [];
    for (const name of names) {
      const node = this.source.node(name);
      if (node === undefined) continue;
      let info = this.#infos.get(name);
      if (info === undefined || info.node !== node) {
        info = newNodeInfo(node, this.source.podsOn(name));
        this.#infos.set(name, info);
      }
      const more = extra.get(name);
      out.push(more === undefined || more.length === 0 ? info : addPodsToNodeInfo(info, more));
    }
    return out;
  }
}
