/**
 * The pod source `api`: pods bound to this node, watched through the apiserver, fed to the pod
 * runtime; graceful deletion of those pods once they are stopped.
 *
 * @see pkg/kubelet/config/apiserver.go (NewSourceApiserver) in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/status/status_manager.go (canBeDeleted, syncPod: the final delete with grace 0 and a UID precondition)
 */
import type { Pod } from "@skiff/api-types";
import { ConfigMirrorAnnotation, ConfigSourceAnnotation } from "@skiff/api-types";
import { isConflict, isNotFound } from "@skiff/apimachinery";
import type { Client, Informer } from "@skiff/client";
import { createInformer, DeletedFinalStateUnknown } from "@skiff/client";
import type { PodRuntime } from "../pods/index.js";
import { agentTracer } from "../internal/trace.js";
import type { ClusterLog } from "./node-status-manager.js";

/** Whether `pod` is a mirror pod (has the `example.io/config.mirror` annotation). */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata?.annotations?.[ConfigMirrorAnnotation] !== undefined;
}

/** Options of {@link ApiPodSource}. */
export interface ApiPodSourceOptions {
  readonly client: Client;
  readonly nodeName: string;
  readonly runtime: PodRuntime;
  readonly log: ClusterLog;
  /**
   * Called after every change of the watched pods (mirror pods included; changes handled in the same
   * microtask turn are coalesced), with whether a mirror pod was among them (added, changed or
   * deleted, or a pod that was a mirror pod before the change).
   */
  readonly onChange?: (mirrorPodChanged: boolean) => void;
}

/**
 * Watches the pods with `spec.nodeName=<node>` (an informer on all namespaces) and hands the
 * non-mirror ones to the runtime as source `api` after each change. When the runtime reports a
 * pod with a `deletionTimestamp` stopped, deletes it with `gracePeriodSeconds: 0` and a UID
 * precondition (a NotFound or a UID Conflict means it is already gone).
 */
export class ApiPodSource {
  readonly informer: Informer<Pod>;
  private pushScheduled = false;
  private mirrorPodChanged = false;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly o: ApiPodSourceOptions) {
    this.informer = createInformer(o.client.pods, {
      fieldSelector: `spec.nodeName=${o.nodeName}`,
      onError: (err, context) => o.log(`pod watch (${context}): ${err instanceof Error ? err.message : String(err)}`),
    });
    const changed = (p: Pod, old?: Pod) => {
      if (isMirrorPod(p) || (old !== undefined && isMirrorPod(old))) this.mirrorPodChanged = true;
      this.schedulePush();
    };
    const added = (p: Pod) => {
      if (agentTracer.enabled) {
        const now = agentTracer.now();
        agentTracer.record("pod-seen", now, now, { pod: `${p.metadata?.namespace ?? ""}/${p.metadata?.name ?? ""}`, uid: p.metadata?.uid ?? "", attrs: { node: o.nodeName } });
      }
      changed(p);
    };
    this.informer.addEventHandler({ onAdd: added, onUpdate: (old, p) => changed(p, old), onDelete: (p) => changed(p instanceof DeletedFinalStateUnknown ? p.obj : p) });
  }

  /** The mirror pods bound to this node, as last seen. */
  mirrorPods(): Pod[] {
    return this.informer.store.list().filter(isMirrorPod);
  }

  /** The regular (non-mirror) pods bound to this node, as last seen. */
  regularPods(): Pod[] {
    return this.informer.store.list().filter((p) => !isMirrorPod(p));
  }

  /** Starts the informer; resolves once the first list is in. */
  async start(signal?: AbortSignal): Promise<void> {
    this.unsubscribe = this.o.runtime.onPodTerminated((pod) => void this.deletePod(pod));
    this.informer.start();
    await this.informer.waitForSync(signal);
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.informer.stop();
  }

  private schedulePush(): void {
    if (this.pushScheduled) return;
    this.pushScheduled = true;
    queueMicrotask(() => {
      this.pushScheduled = false;
      if (this.stopped) return;
      const mirrorPodChanged = this.mirrorPodChanged;
      this.mirrorPodChanged = false;
      this.o.runtime.setApiPods(this.regularPods());
      this.o.onChange?.(mirrorPodChanged);
    });
  }

  private async deletePod(pod: Pod): Promise<void> {
    if (pod.metadata?.annotations?.[ConfigSourceAnnotation] !== "api") return;
    const name = pod.metadata.name ?? "";
    const namespace = pod.metadata.namespace ?? "";
    const uid = pod.metadata.uid ?? "";
    for (let attempt = 0; attempt < 5 && !this.stopped; attempt++) {
      try {
        await this.o.client.pods.delete(name, { namespace, gracePeriodSeconds: 0, preconditions: { uid } });
        this.o.log(`Pod fully terminated and removed from etcd: ${namespace}/${name}`, 2);
        return;
      } catch (err) {
        if (isNotFound(err) || isConflict(err)) return;
        this.o.log(`Failed to delete pod ${namespace}/${name}: ${err instanceof Error ? err.message : String(err)}`);
        await new Promise((r) => setTimeout(r, 500 * (attempt + 1)).unref());
      }
    }
  }
}
