/**
 * The node agent's event recorder: Events about the Node and its pods, created through a client of
 * their own (rate-limited by `--event-qps`/`--event-burst`), correlated as client-go's recorder
 * (repeats counted, similar events combined, spam filtered); fire-and-forget.
 *
 * @see staging/src/k8s.io/client-go/tools/record/event.go in kubernetes/kubernetes v1.23
 * @see cmd/kubelet/app/server.go (makeEventRecorder: component "kubelet", host = node name)
 */
import type { Client, KubeObject } from "@skiff/client";
import { createEventRecorder as createCorrelatingRecorder, eventSinkOf } from "@skiff/client";
import type { ClusterLog } from "./node-status-manager.js";

/** Records one event; never throws (failures are logged). */
export type EventRecorderFunc = (obj: KubeObject, type: "Normal" | "Warning", reason: string, message: string) => void;

/** The Node reference events name: kind Node, the node's name as name and UID, as the kubelet's `nodeRef`. */
export function nodeReference(nodeName: string): KubeObject {
  return { apiVersion: "v1", kind: "Node", metadata: { name: nodeName, uid: nodeName } };
}

const recorders = new WeakMap<Client, EventRecorderFunc>();

/**
 * The event recorder over `eventClient` with source component `nodeagent` and host `nodeName`:
 * one per client, so the Node's and the pods' events share one correlator, as the kubelet's one
 * broadcaster. Events go to the object's namespace (`default` for cluster-scoped objects).
 */
export function createEventRecorder(eventClient: Client, nodeName: string, log?: ClusterLog): EventRecorderFunc {
  const existing = recorders.get(eventClient);
  if (existing) return existing;
  const record = createCorrelatingRecorder(eventSinkOf(eventClient), { component: "nodeagent", host: nodeName }, {
    onError: (err, event) => log?.(`Unable to write event ${event.reason ?? ""}: ${err instanceof Error ? err.message : String(err)}`, 2),
  });
  recorders.set(eventClient, record);
  return record;
}
