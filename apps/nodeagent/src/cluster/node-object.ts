/**
 * The Node object the agent registers and the status it posts, as pure functions over plain
 * inputs (the I/O lives in `node-registration.ts` and `node-status-loop.ts`).
 *
 * @see pkg/kubelet/kubelet_node_status.go (initialNode, tryRegisterWithAPIServer, updateDefaultLabels) in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/nodestatus/setters.go (ReadyCondition, MemoryPressureCondition, DiskPressureCondition, PIDPressureCondition)
 */
import { isIP } from "node:net";
import type { ContainerImage, Node, NodeAddress, NodeCondition, NodeStatus, NodeSystemInfo, Taint } from "@skiff/api-types";
import { NodeArchBetaLabel, NodeArchLabel, NodeHostnameLabel, NodeOSBetaLabel, NodeOSLabel, NodeUnschedulableTaintKey } from "@skiff/api-types";
import type { NodeResources } from "./node-resources.js";

/** Annotation set when `--enable-controller-attach-detach` (1.23: `volumes.kubernetes.io/controller-managed-attach-detach`). */
export const ControllerManagedAttachDetachAnnotation = "volumes.example.io/controller-managed-attach-detach";

/** Annotation set when `--keep-terminated-pod-volumes` (1.23: `volumes.kubernetes.io/keep-terminated-pod-volumes`). */
export const KeepTerminatedPodVolumesAnnotation = "volumes.example.io/keep-terminated-pod-volumes";

/** Taint of a node registered with `--cloud-provider=external` until the cloud controller initialises it (1.23: `node.cloudprovider.kubernetes.io/uninitialized`). */
export const CloudProviderUninitializedTaintKey = "node.cloudprovider.example.io/uninitialized";

/** The labels the agent owns on its Node: set at registration and put back on an existing Node. */
export const defaultNodeLabelKeys: readonly string[] = Object.freeze([NodeHostnameLabel, NodeOSLabel, NodeArchLabel, NodeOSBetaLabel, NodeArchBetaLabel]);

/** What {@link buildInitialNode} needs. */
export interface InitialNodeParams {
  readonly nodeName: string;
  /** The host name (`--hostname-override` or the OS's, lower-cased): label `example.io/hostname` and the `Hostname` address. */
  readonly hostname: string;
  /** Go's GOOS / GOARCH spelling (`linux`, `amd64`); see {@link goArch}. */
  readonly os: string;
  readonly arch: string;
  /** `--node-labels`, applied after (and over) the default labels. */
  readonly nodeLabels: Readonly<Record<string, string>>;
  /** `--register-with-taints`. */
  readonly taints: readonly { readonly key: string; readonly value?: string; readonly effect: string }[];
  /** `--register-schedulable`; false sets `spec.unschedulable` and the `node.example.io/unschedulable:NoSchedule` taint. */
  readonly registerSchedulable: boolean;
  /** `--enable-controller-attach-detach`. */
  readonly controllerAttachDetach: boolean;
  /** `--provider-id`; empty omits `spec.providerID`. */
  readonly providerID: string;
  /** `--pod-cidr`; empty omits `spec.podCIDR`. */
  readonly podCIDR: string;
  /** `--keep-terminated-pod-volumes`: annotation {@link KeepTerminatedPodVolumesAnnotation}. @defaultValue false */
  readonly keepTerminatedPodVolumes?: boolean;
  /** `--cloud-provider`; `external` adds the {@link CloudProviderUninitializedTaintKey}`=true:NoSchedule` taint. @defaultValue "" */
  readonly cloudProvider?: string;
}

/** Node's `process.arch` in Go's GOARCH words (`x64` → `amd64`, `ia32` → `386`, others unchanged). */
export function goArch(nodeArch: string): string {
  return nodeArch === "x64" ? "amd64" : nodeArch === "ia32" ? "386" : nodeArch;
}

/**
 * The Node object to create at registration (status is filled by {@link buildNodeStatus}
 * separately): name, the five default labels (`example.io/hostname|os|arch`,
 * `beta.example.io/os|arch`) then `--node-labels` (which may override them), the attach-detach
 * and keep-terminated-pod-volumes annotations, taints (`--register-with-taints`, plus the
 * unschedulable taint when not schedulable, plus the uninitialized taint with
 * `--cloud-provider=external`), `spec.unschedulable`, `providerID`, `podCIDR`. Pure.
 * @see pkg/kubelet/kubelet_node_status.go (initialNode) in kubernetes/kubernetes v1.23
 */
export function buildInitialNode(p: InitialNodeParams): Node {
  const labels: Record<string, string> = {
    [NodeHostnameLabel]: p.hostname,
    [NodeOSLabel]: p.os,
    [NodeArchLabel]: p.arch,
    [NodeOSBetaLabel]: p.os,
    [NodeArchBetaLabel]: p.arch,
    ...p.nodeLabels,
  };
  // The options layer accepted only NoSchedule, PreferNoSchedule and NoExecute.
  const taints: Taint[] = p.taints.map((t) => ({ key: t.key, effect: t.effect as Taint["effect"], ...(t.value !== undefined && t.value !== "" ? { value: t.value } : {}) }));
  if (!p.registerSchedulable && !taints.some((t) => t.key === NodeUnschedulableTaintKey && t.effect === "NoSchedule")) taints.push({ key: NodeUnschedulableTaintKey, effect: "NoSchedule" });
  if (p.cloudProvider === "external") taints.push({ key: CloudProviderUninitializedTaintKey, value: "true", effect: "NoSchedule" });
  const annotations: Record<string, string> = {};
  if (p.controllerAttachDetach) annotations[ControllerManagedAttachDetachAnnotation] = "true";
  if (p.keepTerminatedPodVolumes === true) annotations[KeepTerminatedPodVolumesAnnotation] = "true";
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: p.nodeName,
      labels,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    spec: {
      ...(p.registerSchedulable ? {} : { unschedulable: true }),
      ...(taints.length > 0 ? { taints } : {}),
      ...(p.providerID !== "" ? { providerID: p.providerID } : {}),
      ...(p.podCIDR !== "" ? { podCIDR: p.podCIDR, podCIDRs: [p.podCIDR] } : {}),
    },
  };
}

/**
 * What changes when the Node already exists (registration after a restart): only the
 * attach-detach annotation and the default labels ({@link defaultNodeLabelKeys}) are made
 * to match `initial`; other labels, taints and spec of `existing` stay. Returns the metadata to
 * merge-patch, or `undefined` when nothing differs. Pure.
 * @see pkg/kubelet/kubelet_node_status.go (tryRegisterWithAPIServer, reconcileCMADAnnotationWithExistingNode, updateDefaultLabels) in kubernetes/kubernetes v1.23
 */
export function reconcileExistingNode(initial: Node, existing: Node): { labels?: Record<string, string | null>; annotations?: Record<string, string | null> } | undefined {
  const labels: Record<string, string | null> = {};
  for (const key of defaultNodeLabelKeys) {
    const want = initial.metadata?.labels?.[key];
    if (want === undefined) continue;
    const have = existing.metadata?.labels?.[key];
    if (have !== want) labels[key] = want === "" ? null : want;
  }
  const annotations: Record<string, string | null> = {};
  const wantCMAD = initial.metadata?.annotations?.[ControllerManagedAttachDetachAnnotation] === "true";
  const haveCMAD = existing.metadata?.annotations?.[ControllerManagedAttachDetachAnnotation] === "true";
  if (wantCMAD !== haveCMAD) annotations[ControllerManagedAttachDetachAnnotation] = wantCMAD ? "true" : null;
  const patch: { labels?: Record<string, string | null>; annotations?: Record<string, string | null> } = {};
  if (Object.keys(labels).length > 0) patch.labels = labels;
  if (Object.keys(annotations).length > 0) patch.annotations = annotations;
  return patch.labels || patch.annotations ? patch : undefined;
}

/** Which eviction signals are over their hard threshold (the eviction manager's view). */
export interface NodePressure {
  readonly memory: boolean;
  readonly disk: boolean;
  readonly pid: boolean;
}

/** Everything {@link buildNodeStatus} reads besides the previous status. */
export interface NodeStatusInputs {
  readonly resources: NodeResources;
  readonly addresses: readonly NodeAddress[];
  readonly nodeInfo: NodeSystemInfo;
  /** The main port, reported as `daemonEndpoints.kubeletEndpoint.Port`. */
  readonly port: number;
  /** Why the node is not ready (runtime down...), empty when ready. */
  readonly notReadyReasons: readonly string[];
  readonly pressure: NodePressure;
  /** RFC 3339 time (seconds) of this update. */
  readonly now: string;
  /** `status.images` (see {@link buildNodeImages}); absent or empty: the field is left out. */
  readonly images?: readonly ContainerImage[];
}

interface ConditionText {
  readonly type: string;
  readonly trueReason: string;
  readonly trueMessage: string;
  readonly falseReason: string;
  readonly falseMessage: string;
}

// The kubelet's condition words with "Kubelet"/"kubelet" renamed to the node agent.
const pressureConditions: readonly (ConditionText & { readonly key: keyof NodePressure })[] = [
  { type: "MemoryPressure", key: "memory", trueReason: "NodeAgentHasInsufficientMemory", trueMessage: "nodeagent has insufficient memory available", falseReason: "NodeAgentHasSufficientMemory", falseMessage: "nodeagent has sufficient memory available" },
  { type: "DiskPressure", key: "disk", trueReason: "NodeAgentHasDiskPressure", trueMessage: "nodeagent has disk pressure", falseReason: "NodeAgentHasNoDiskPressure", falseMessage: "nodeagent has no disk pressure" },
  { type: "PIDPressure", key: "pid", trueReason: "NodeAgentHasInsufficientPID", trueMessage: "nodeagent has insufficient PID available", falseReason: "NodeAgentHasSufficientPID", falseMessage: "nodeagent has sufficient PID available" },
];

/** `Ready` reasons. */
export const nodeReadyReasons = Object.freeze({ ready: "NodeAgentReady", notReady: "NodeAgentNotReady" });

/** A condition type whose status changed in {@link buildNodeStatus}, for events (`NodeReady`, `NodeNotReady`, `NodeHasSufficientMemory`...). */
export interface NodeConditionTransition {
  readonly type: string;
  readonly status: "True" | "False" | "Unknown";
  /** The kubelet's event reason for the new state (`NodeReady`, `NodeNotReady`, `NodeHasInsufficientMemory`...). */
  readonly eventReason: string;
}

function eventReasonOf(type: string, isTrue: boolean): string {
  switch (type) {
    case "Ready":
      return isTrue ? "NodeReady" : "NodeNotReady";
    case "MemoryPressure":
      return isTrue ? "NodeHasInsufficientMemory" : "NodeHasSufficientMemory";
    case "DiskPressure":
      return isTrue ? "NodeHasDiskPressure" : "NodeHasNoDiskPressure";
    default:
      return isTrue ? "NodeHasInsufficientPID" : "NodeHasSufficientPID";
  }
}

/**
 * The Node status to post: capacity/allocatable, addresses, nodeInfo, daemonEndpoints and the
 * four conditions — `MemoryPressure`, `DiskPressure`, `PIDPressure` (as the eviction manager
 * reports them) and `Ready` (True `NodeAgentReady` "nodeagent is posting ready status",
 * else False `NodeAgentNotReady` with the reasons joined as Go's aggregate error prints them).
 * `lastHeartbeatTime` is `now`; `lastTransitionTime` is kept from `previous` unless the status
 * changed. Returns the transitions too (for events). Pure; does not mutate `previous`.
 * @see pkg/kubelet/nodestatus/setters.go in kubernetes/kubernetes v1.23
 */
export function buildNodeStatus(inputs: NodeStatusInputs, previous: NodeStatus | undefined): { status: NodeStatus; transitions: NodeConditionTransition[] } {
  const transitions: NodeConditionTransition[] = [];
  const condition = (type: string, isTrue: boolean, reason: string, message: string): NodeCondition => {
    const status = isTrue ? "True" : "False";
    const prev = previous?.conditions?.find((c) => c.type === type);
    const changed = prev?.status !== status;
    if (changed) transitions.push({ type, status, eventReason: eventReasonOf(type, isTrue) });
    return {
      type,
      status,
      reason,
      message,
      lastHeartbeatTime: inputs.now,
      lastTransitionTime: !changed && prev?.lastTransitionTime ? prev.lastTransitionTime : inputs.now,
    };
  };
  const conditions: NodeCondition[] = pressureConditions.map((c) => {
    const on = inputs.pressure[c.key];
    return condition(c.type, on, on ? c.trueReason : c.falseReason, on ? c.trueMessage : c.falseMessage);
  });
  const ready = inputs.notReadyReasons.length === 0;
  const errs = inputs.notReadyReasons;
  const notReadyMessage = errs.length === 1 ? (errs[0] ?? "") : `[${errs.join(", ")}]`;
  // The kubelet lists Ready after the pressure conditions it sets first.
  conditions.push(condition("Ready", ready, ready ? nodeReadyReasons.ready : nodeReadyReasons.notReady, ready ? "nodeagent is posting ready status" : notReadyMessage));
  return {
    status: {
      capacity: { ...inputs.resources.capacity },
      allocatable: { ...inputs.resources.allocatable },
      conditions,
      addresses: inputs.addresses.map((a) => ({ ...a })),
      daemonEndpoints: { kubeletEndpoint: { Port: inputs.port } },
      nodeInfo: { ...inputs.nodeInfo },
      ...(inputs.images !== undefined && inputs.images.length > 0 ? { images: inputs.images.map((i) => ({ ...i, names: [...(i.names ?? [])] })) } : {}),
    },
    transitions,
  };
}

/**
 * `status.addresses` without a cloud provider: `InternalIP` (`--node-ip`'s first parsable address, else
 * `fallbackIP`) and `Hostname`. Pure.
 * @see pkg/kubelet/nodestatus/setters.go (NodeAddress) in kubernetes/kubernetes v1.23
 */
export function buildNodeAddresses(nodeIP: string, fallbackIP: string, hostname: string): NodeAddress[] {
  const ips = nodeIP.split(",").map((s) => s.trim()).filter((s) => isIP(s) !== 0);
  const out: NodeAddress[] = (ips.length > 0 ? ips : [fallbackIP]).map((address) => ({ type: "InternalIP", address }));
  out.push({ type: "Hostname", address: hostname });
  return out;
}

/** Names reported per image in `status.images` (the kubelet's `MaxNamesPerImageInNodeStatus`). */
export const maxNamesPerImageInNodeStatus = 5;

/** An image as the runtime lists it (CRI `Image`: sizes as decimal strings or numbers). */
export interface RuntimeImage {
  readonly id: string;
  readonly repoTags: readonly string[];
  readonly repoDigests: readonly string[];
  readonly size: string | number;
}

/**
 * `status.images`: the images sorted by size, largest first (ties by id, for a stable status),
 * cut to `maxImages` (`--node-status-max-images`; -1 keeps all, 0 none), each named by its repo
 * digests then its repo tags, at most {@link maxNamesPerImageInNodeStatus} names. Pure.
 * @see pkg/kubelet/nodestatus/setters.go (Images), pkg/kubelet/images/image_gc_manager.go (GetImageList, sorted by size) in kubernetes/kubernetes v1.23
 * @example buildNodeImages([{ id: "sha256:a", repoTags: ["busybox:1.36"], repoDigests: [], size: "4860000" }], 50) // [{ names: ["busybox:1.36"], sizeBytes: 4860000 }]
 */
export function buildNodeImages(images: readonly RuntimeImage[], maxImages: number): ContainerImage[] {
  const sorted = [...images].sort((a, b) => Number(b.size) - Number(a.size) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const kept = maxImages > -1 && maxImages < sorted.length ? sorted.slice(0, maxImages) : sorted;
  return kept.map((i) => ({ names: [...i.repoDigests, ...i.repoTags].slice(0, maxNamesPerImageInNodeStatus), sizeBytes: Number(i.size) }));
}
