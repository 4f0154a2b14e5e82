import type { CSIDriver, ClusterRoleBinding, RoleBinding, Event, Job, Namespace, Node, Pod, PodTemplate, PriorityClass, Secret } from "@skiff/api-types";
import { setSecretDefaults } from "../core/config.js";
import { setBindingDefaults } from "../rbac/rbac.js";
import { setEventDefaults, setNamespaceDefaults, setNodeDefaults, setPodDefaults, setPodTemplateDefaults } from "../core/index.js";
import type { KindName, KindTypes } from "../schemas/index.js";
import { setCSIDriverDefaults } from "./csidriver.js";
import { setJobDefaults } from "./job.js";
import { setPriorityClassDefaults } from "../scheduling/priorityclass.js";

type Defaulter = (obj: never) => void;

const defaulters: { readonly [K in KindName]?: (obj: KindTypes[K]) => void } = {
  Job: (o: Job) => setJobDefaults(o),
  CSIDriver: (o: CSIDriver) => setCSIDriverDefaults(o),
  PodTemplate: (o: PodTemplate) => setPodTemplateDefaults(o),
  Pod: (o: Pod) => setPodDefaults(o),
  Node: (o: Node) => setNodeDefaults(o),
  Namespace: (o: Namespace) => setNamespaceDefaults(o),
  Event: (o: Event) => setEventDefaults(o),
  Secret: (o: Secret) => setSecretDefaults(o),
  PriorityClass: (o: PriorityClass) => setPriorityClassDefaults(o),
  RoleBinding: (o: RoleBinding) => setBindingDefaults(o),
  ClusterRoleBinding: (o: ClusterRoleBinding) => setBindingDefaults(o),
};

const listItemKinds: { readonly [K in KindName]?: KindName } = {
  JobList: "Job",
  CSIDriverList: "CSIDriver",
  CSINodeList: "CSINode",
  LeaseList: "Lease",
  PriorityClassList: "PriorityClass",
  PodTemplateList: "PodTemplate",
  PodList: "Pod",
  NodeList: "Node",
  EventList: "Event",
  NamespaceList: "Namespace",
  ConfigMapList: "ConfigMap",
  SecretList: "Secret",
  ServiceAccountList: "ServiceAccount",
  RoleList: "Role",
  ClusterRoleList: "ClusterRole",
  RoleBindingList: "RoleBinding",
  ClusterRoleBindingList: "ClusterRoleBinding",
};

/**
 * Applies the defaults of `kind` to `obj`, mutating it in place (the single entry point the
 * apiserver calls after decoding): Job → `setJobDefaults`, CSIDriver → `setCSIDriverDefaults`,
 * PodTemplate → `setPodTemplateDefaults`, Pod → `setPodDefaults`, Node → `setNodeDefaults`,
 * Namespace → `setNamespaceDefaults`, Event → `setEventDefaults`, Secret → `setSecretDefaults`
 * (type Opaque, `stringData` merged into `data`), PriorityClass → `setPriorityClassDefaults`
 * (`preemptionPolicy` PreemptLowerPriority); list kinds default each item. CSINode, Lease,
 * ConfigMap, ServiceAccount, Binding and DeleteOptions have no defaults in 1.23 (no-op). Idempotent; never throws.
 *
 * @see pkg/apis/batch/v1/zz_generated.defaults.go, pkg/apis/storage/v1/zz_generated.defaults.go,
 *   pkg/apis/core/v1/zz_generated.defaults.go (kubernetes/kubernetes, 1.23)
 * @example
 * const r = decodeObject("Job", body, { fieldValidation: "Strict" });
 * if (r.ok) applyDefaults("Job", r.value); // r.value.spec.backoffLimit === 6
 */
export function applyDefaults<K extends KindName>(kind: K, obj: KindTypes[K]): void {
  const itemKind = listItemKinds[kind];
  if (itemKind !== undefined) {
    const items = (obj as { items?: unknown }).items;
    if (Array.isArray(items)) for (const item of items) applyDefaults(itemKind, item as never);
    return;
  }
  const fn = defaulters[kind] as Defaulter | undefined;
  fn?.(obj as never);
}
