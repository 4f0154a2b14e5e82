/**
 * Mirror pods: the apiserver's read-only copies of the static pods (API-server mode).
 *
 * @see pkg/kubelet/pod/mirror_client.go (CreateMirrorPod, DeleteMirrorPod) in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/kubelet.go (syncPod: the mirror pod part; HandlePodCleanups: orphaned mirror pods)
 */
import type { Pod } from "@skiff/api-types";
import { ConfigMirrorAnnotation } from "@skiff/api-types";
import { isAlreadyExists, isConflict, isNotFound } from "@skiff/apimachinery";
import type { Client } from "@skiff/client";
import type { ClusterLog } from "./node-status-manager.js";

/** The Node a mirror pod is owned by. */
export interface NodeOwner {
  readonly name: string;
  readonly uid: string;
}

/**
 * The mirror pod of `staticPod`: its metadata (name, namespace, labels, annotations) and spec, the
 * annotation `example.io/config.mirror` = the static pod's hash (its UID), and a controller
 * ownerReference to the Node. UID, resourceVersion and status are not copied. Pure.
 * @see pkg/kubelet/pod/mirror_client.go (CreateMirrorPod) in kubernetes/kubernetes v1.23
 */
export function buildMirrorPod(staticPod: Pod, node: NodeOwner): Pod {
  const meta = staticPod.metadata ?? {};
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: meta.name ?? "",
      namespace: meta.namespace ?? "default",
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      annotations: { ...(meta.annotations ?? {}), [ConfigMirrorAnnotation]: meta.uid ?? "" },
      ownerReferences: [{ apiVersion: "v1", kind: "Node", name: node.name, uid: node.uid, controller: true }],
    },
    spec: structuredClone(staticPod.spec ?? { containers: [] }),
  };
}

/** What {@link planMirrorPods} decided. */
export interface MirrorPodPlan {
  /** Static pods whose mirror pod must be created. */
  readonly create: readonly Pod[];
  /** Mirror pods to delete (orphaned, outdated hash, or being deleted), with their UID as precondition. */
  readonly remove: readonly Pod[];
}

function keyOf(p: Pod): string {
  return `${p.metadata?.namespace ?? ""}/${p.metadata?.name ?? ""}`;
}

/**
 * Compares the static pods with the mirror pods seen in the apiserver: a static pod without a
 * mirror pod gets one; a mirror pod whose hash differs from its static pod's, that has a
 * `deletionTimestamp`, or whose static pod is gone is removed (and recreated on the next pass when
 * the static pod still exists). Pure.
 * @see pkg/kubelet/kubelet.go (syncPod, HandlePodCleanups) in kubernetes/kubernetes v1.23
 */
export function planMirrorPods(staticPods: readonly Pod[], mirrorPods: readonly Pod[]): MirrorPodPlan {
  const byKey = new Map(staticPods.map((p) => [keyOf(p), p]));
  const mirrors = new Map(mirrorPods.map((p) => [keyOf(p), p]));
  const create: Pod[] = [];
  const remove: Pod[] = [];
  for (const [key, m] of mirrors) {
    const s = byKey.get(key);
    const stale = !s || m.metadata?.annotations?.[ConfigMirrorAnnotation] !== s.metadata?.uid || m.metadata?.deletionTimestamp !== undefined;
    if (stale) remove.push(m);
  }
  for (const [key, s] of byKey) if (!mirrors.has(key)) create.push(s);
  return { create, remove };
}

/** Options of {@link MirrorPodManager}. */
export interface MirrorPodManagerOptions {
  readonly client: Client;
  readonly node: NodeOwner;
  readonly staticPods: () => readonly Pod[];
  readonly mirrorPods: () => readonly Pod[];
  readonly log: ClusterLog;
}

/**
 * Keeps one mirror pod per static pod: {@link reconcile} (run after every pod change and
 * periodically) creates the missing ones (an AlreadyExists answer with the same hash counts as
 * done) and deletes stale or orphaned ones with a UID precondition. Passes never overlap; a
 * request during a pass runs one more pass after it.
 */
export class MirrorPodManager {
  private running = false;
  private again = false;

  constructor(private readonly o: MirrorPodManagerOptions) {}

  /** Runs a reconcile pass (or schedules one after the running pass). Never rejects. */
  async reconcile(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        await this.pass();
      } while (this.again);
    } finally {
      this.running = false;
    }
  }

  private async pass(): Promise<void> {
    const plan = planMirrorPods(this.o.staticPods(), this.o.mirrorPods());
    for (const m of plan.remove) {
      const namespace = m.metadata?.namespace ?? "";
      const name = m.metadata?.name ?? "";
      try {
        await this.o.client.pods.delete(name, { namespace, gracePeriodSeconds: 0, preconditions: { uid: m.metadata?.uid ?? "" } });
        this.o.log(`Deleted mirror pod ${namespace}/${name}`, 2);
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) this.o.log(`Failed deleting mirror pod ${namespace}/${name}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    for (const s of plan.create) {
      const mirror = buildMirrorPod(s, this.o.node);
      const namespace = mirror.metadata?.namespace ?? "";
      const name = mirror.metadata?.name ?? "";
      try {
        await this.o.client.pods.create(mirror, { namespace });
        this.o.log(`Created mirror pod ${namespace}/${name}`, 2);
      } catch (err) {
        if (isAlreadyExists(err)) continue;
        this.o.log(`Failed creating a mirror pod for ${namespace}/${name}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}
