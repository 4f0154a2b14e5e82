/**
 * Defaulting of core/v1 objects, as Kubernetes 1.23 applies it when decoding. Every function mutates
 * its argument in place (filling only unset fields) and returns nothing; applying one twice changes
 * nothing more.
 *
 * @see pkg/apis/core/v1/defaults.go
 */
import type { Event, Namespace, Node, Pod, PodSpec, PodTemplate, PodTemplateSpec } from "@skiff/api-types";
import { isRecord } from "../meta/internal/values.js";
import {
  type ContainerPortView,
  type ContainerView,
  type DownwardAPIFileView,
  type EnvVarView,
  type HandlerView,
  type NamespaceView,
  type NodeView,
  type PodSpecView,
  type PodView,
  type ProbeView,
  type ProjectionView,
  type VolumeView,
} from "./internal-types.js";
import { hasVolumeSource } from "./volumes.js";
import { namespaceNameLabel } from "./well-known.js";

/** Seconds a pod gets to stop before it is killed. */
const defaultTerminationGracePeriodSeconds = 30;
/** Mode of files projected from secrets, config maps and the downward API (0644). */
const defaultVolumeFileMode = 0o644;
/** Lifetime of a projected service-account token. */
const defaultTokenExpirationSeconds = 3600;

function objects<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v.filter(isRecord) as T[]) : [];
}

// Docker reference grammar, enough to find the tag the way Kubernetes' parsers.ParseImageName does.
const domainComponent = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const domainRe = new RegExp(`^${domainComponent}(?:\\.${domainComponent})*(?::[0-9]+)?$`);
const pathComponentRe = /^[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*$/;
const tagRe = /^[\w][\w.-]{0,127}$/;
const digestRe = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;

/**
 * The tag `ParseImageName` would report: the explicit tag, `latest` when neither tag nor digest is
 * given, and "" when the reference is malformed or pinned only by digest.
 */
export function imageTag(image: string): string {
  let rest = image;
  let digest = "";
  const at = rest.indexOf("@");
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!digestRe.test(digest)) return "";
  }
  let tag = "";
  const lastSlash = rest.lastIndexOf("/");
  const colon = rest.lastIndexOf(":");
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!tagRe.test(tag)) return "";
  }
  const parts = rest.split("/");
  const first = parts[0] ?? "";
  const hasDomain = parts.length > 1 && (first.includes(".") || first.includes(":") || first === "localhost");
  if (hasDomain && !domainRe.test(first)) return "";
  const path = hasDomain ? parts.slice(1) : parts;
  if (rest.length > 255 || path.length === 0 || !path.every((c) => pathComponentRe.test(c))) return "";
  return tag === "" && digest === "" ? "latest" : tag;
}

function setHandlerDefaults(h: unknown): void {
  if (!isRecord(h)) return;
  const http = (h as HandlerView).httpGet;
  if (isRecord(http)) {
    if (http.path === undefined || http.path === "") http.path = "/";
    if (http.scheme === undefined || http.scheme === "") http.scheme = "HTTP";
  }
}

function setProbeDefaults(p: unknown): void {
  if (!isRecord(p)) return;
  const probe = p as ProbeView;
  if (!probe.timeoutSeconds) probe.timeoutSeconds = 1;
  if (!probe.periodSeconds) probe.periodSeconds = 10;
  if (!probe.successThreshold) probe.successThreshold = 1;
  if (!probe.failureThreshold) probe.failureThreshold = 3;
  setHandlerDefaults(probe);
}

function setFieldRefDefaults(ref: unknown): void {
  if (isRecord(ref) && (ref["apiVersion"] === undefined || ref["apiVersion"] === "")) ref["apiVersion"] = "v1";
}

function setContainerDefaults(c: ContainerView, hostNetwork: boolean): void {
  if (c.imagePullPolicy === undefined || c.imagePullPolicy === "") {
    c.imagePullPolicy = imageTag(typeof c.image === "string" ? c.image : "") === "latest" ? "Always" : "IfNotPresent";
  }
  if (c.terminationMessagePath === undefined || c.terminationMessagePath === "") {
    c.terminationMessagePath = "/dev/termination-log";
  }
  if (c.terminationMessagePolicy === undefined || c.terminationMessagePolicy === "") c.terminationMessagePolicy = "File";
  for (const port of objects<ContainerPortView>(c.ports)) {
    if (port.protocol === undefined || port.protocol === "") port.protocol = "TCP";
    if (hostNetwork && !port.hostPort) port.hostPort = port.containerPort ?? 0;
  }
  for (const env of objects<EnvVarView>(c.env)) {
    if (isRecord(env.valueFrom)) setFieldRefDefaults(env.valueFrom.fieldRef);
  }
  setProbeDefaults(c.livenessProbe);
  setProbeDefaults(c.readinessProbe);
  setProbeDefaults(c.startupProbe);
  if (isRecord(c.lifecycle)) {
    setHandlerDefaults(c.lifecycle.postStart);
    setHandlerDefaults(c.lifecycle.preStop);
  }
}

function setDownwardAPIFileDefaults(files: unknown): void {
  for (const f of objects<DownwardAPIFileView>(files)) setFieldRefDefaults(f.fieldRef);
}

function setVolumeDefaults(v: VolumeView): void {
  if (!hasVolumeSource(v)) v.emptyDir = {};
  for (const key of ["secret", "configMap", "downwardAPI", "projected"] as const) {
    const source = v[key];
    if (isRecord(source) && source.defaultMode === undefined) source.defaultMode = defaultVolumeFileMode;
  }
  if (isRecord(v.downwardAPI)) setDownwardAPIFileDefaults(v.downwardAPI.items);
  if (isRecord(v.projected)) {
    for (const source of objects<ProjectionView>(v.projected.sources)) {
      if (isRecord(source.downwardAPI)) setDownwardAPIFileDefaults(source.downwardAPI.items);
      const token = source.serviceAccountToken;
      if (isRecord(token) && token.expirationSeconds === undefined) token.expirationSeconds = defaultTokenExpirationSeconds;
    }
  }
  if (isRecord(v.hostPath) && v.hostPath.type === undefined) v.hostPath.type = "";
  if (isRecord(v.iscsi) && !v.iscsi.iscsiInterface) v.iscsi.iscsiInterface = "default";
  if (isRecord(v.rbd)) {
    if (!v.rbd.pool) v.rbd.pool = "rbd";
    if (!v.rbd.user) v.rbd.user = "admin";
    if (!v.rbd.keyring) v.rbd.keyring = "/etc/ceph/keyring";
  }
  if (isRecord(v.azureDisk)) {
    v.azureDisk.cachingMode ??= "ReadWrite";
    v.azureDisk.kind ??= "Shared";
    v.azureDisk.fsType ??= "ext4";
    v.azureDisk.readOnly ??= false;
  }
  if (isRecord(v.scaleIO)) {
    if (!v.scaleIO.storageMode) v.scaleIO.storageMode = "ThinProvisioned";
    if (!v.scaleIO.fsType) v.scaleIO.fsType = "xfs";
  }
}

/**
 * Fills the defaults of a pod spec, wherever it appears (pods and templates), as 1.23's
 * `SetDefaults_PodSpec` and the defaulters of the types inside it:
 * - `dnsPolicy` `ClusterFirst`, `restartPolicy` `Always`, `securityContext` `{}`,
 *   `terminationGracePeriodSeconds` 30, `schedulerName` `default-scheduler`;
 * - with `hostNetwork`, each port's unset `hostPort` becomes its `containerPort`;
 * - every container and init container: `imagePullPolicy` `Always` when the image's tag is
 *   `latest` (or it has neither tag nor digest), else `IfNotPresent`; `terminationMessagePath`
 *   `/dev/termination-log`; `terminationMessagePolicy` `File`; ports' `protocol` `TCP`; env
 *   `fieldRef.apiVersion` `v1`; probes `timeoutSeconds` 1, `periodSeconds` 10, `successThreshold` 1,
 *   `failureThreshold` 3; HTTP handlers `path` `/`, `scheme` `HTTP`;
 * - volumes: no source means `emptyDir: {}`; secret, configMap, downwardAPI and projected
 *   `defaultMode` 0644 (420); service-account token `expirationSeconds` 3600; hostPath `type` "";
 *   downward-API `fieldRef.apiVersion` `v1`; legacy iscsi/rbd/azureDisk/scaleIO fields.
 *
 * Pod-only defaults (`enableServiceLinks`, requests from limits) are in {@link setPodDefaults}, as in
 * Kubernetes, so templates stored in Jobs and PodTemplates do not gain them. Resource quantities
 * are not rounded to milli-units (Kubernetes rounds `0.0001` up to `1m`). Mutates `spec` in place.
 *
 * @example
 * const spec = { containers: [{ name: "c", image: "busybox" }] };
 * setPodSpecDefaults(spec); // spec.containers[0].imagePullPolicy === "Always", spec.restartPolicy === "Always"
 * @see pkg/apis/core/v1/defaults.go `SetDefaults_PodSpec`, `SetDefaults_Container`, `SetDefaults_EphemeralContainer`, `SetDefaults_Volume`
 */
export function setPodSpecDefaults(spec: PodSpec): void {
  if (!isRecord(spec)) return;
  const s = spec as PodSpecView;
  if (s.dnsPolicy === undefined || s.dnsPolicy === "") s.dnsPolicy = "ClusterFirst";
  if (s.restartPolicy === undefined || s.restartPolicy === "") s.restartPolicy = "Always";
  if (!isRecord(s.securityContext)) s.securityContext = {};
  if (typeof s.terminationGracePeriodSeconds !== "number") s.terminationGracePeriodSeconds = defaultTerminationGracePeriodSeconds;
  if (s.schedulerName === undefined || s.schedulerName === "") s.schedulerName = "default-scheduler";
  const hostNetwork = s.hostNetwork === true;
  for (const c of objects<ContainerView>(s.containers)) setContainerDefaults(c, hostNetwork);
  for (const c of objects<ContainerView>(s.initContainers)) setContainerDefaults(c, hostNetwork);
  // SetDefaults_EphemeralContainer: the container defaults (host ports are not derived for them).
  for (const c of objects<ContainerView>(s.ephemeralContainers)) setContainerDefaults(c, false);
  for (const v of objects<VolumeView>(s.volumes)) setVolumeDefaults(v);
}

function setRequestsFromLimits(c: ContainerView): void {
  if (!isRecord(c.resources) || !isRecord(c.resources.limits)) return;
  const requests = isRecord(c.resources.requests) ? c.resources.requests : {};
  for (const [name, value] of Object.entries(c.resources.limits)) if (!(name in requests)) requests[name] = value;
  c.resources.requests = requests;
}

/**
 * Fills a pod's defaults: {@link setPodSpecDefaults} on `spec` (created when missing), and the
 * pod-only ones of 1.23's `SetDefaults_Pod`: each container's and init container's unset
 * `resources.requests` entries copied from `resources.limits`, and `enableServiceLinks` true.
 * Mutates `pod` in place.
 *
 * @example
 * const pod = { metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } };
 * setPodDefaults(pod); // pod.spec.enableServiceLinks === true, imagePullPolicy "IfNotPresent"
 * @see pkg/apis/core/v1/defaults.go `SetDefaults_Pod`
 */
export function setPodDefaults(pod: Pod): void {
  if (!isRecord(pod)) return;
  const p = pod as PodView;
  if (!isRecord(p.spec)) p.spec = {};
  const spec = p.spec;
  for (const c of objects<ContainerView>(spec.containers)) setRequestsFromLimits(c);
  for (const c of objects<ContainerView>(spec.initContainers)) setRequestsFromLimits(c);
  if (typeof spec.enableServiceLinks !== "boolean") spec.enableServiceLinks = true;
  setPodSpecDefaults(spec as PodSpec);
}

/**
 * Fills a pod template's defaults: {@link setPodSpecDefaults} on `template.spec` (created when
 * missing). Mutates `template` in place.
 *
 * @see pkg/apis/core/v1/zz_generated.defaults.go `SetObjectDefaults_PodTemplate`
 */
export function setPodTemplateSpecDefaults(template: PodTemplateSpec): void {
  if (!isRecord(template)) return;
  const t = template as { spec?: unknown };
  if (!isRecord(t.spec)) t.spec = {};
  setPodSpecDefaults(t.spec as PodSpec);
}

/**
 * Fills a PodTemplate's defaults: {@link setPodTemplateSpecDefaults} on `template` (created when
 * missing). Mutates its argument in place.
 */
export function setPodTemplateDefaults(podTemplate: PodTemplate): void {
  if (!isRecord(podTemplate)) return;
  const pt = podTemplate as { template?: unknown };
  if (!isRecord(pt.template)) pt.template = {};
  setPodTemplateSpecDefaults(pt.template as PodTemplateSpec);
}

/**
 * Fills a Node's defaults: `status.allocatable` copied from `status.capacity` when unset (1.23
 * `SetDefaults_NodeStatus`), and `spec.podCIDR` / `spec.podCIDRs` kept in step as the v1 conversion
 * does (`podCIDRs` = `[podCIDR]` when only the singular is set; `podCIDR` = `podCIDRs[0]` when only
 * the list is). Mutates `node` in place.
 *
 * @see pkg/apis/core/v1/defaults.go `SetDefaults_NodeStatus`
 * @see pkg/apis/core/v1/conversion.go `Convert_v1_NodeSpec_To_core_NodeSpec`
 */
export function setNodeDefaults(node: Node): void {
  if (!isRecord(node)) return;
  const n = node as NodeView;
  if (isRecord(n.status) && isRecord(n.status.capacity) && n.status.allocatable === undefined) {
    n.status.allocatable = { ...n.status.capacity };
  }
  if (isRecord(n.spec)) {
    const list = Array.isArray(n.spec.podCIDRs) ? n.spec.podCIDRs : [];
    if (typeof n.spec.podCIDR === "string" && n.spec.podCIDR !== "" && list.length === 0) {
      n.spec.podCIDRs = [n.spec.podCIDR];
    } else if ((n.spec.podCIDR === undefined || n.spec.podCIDR === "") && typeof list[0] === "string") {
      n.spec.podCIDR = list[0];
    }
  }
}

/**
 * Fills a Namespace's defaults: `status.phase` `Active` when unset, the label
 * `example.io/metadata.name` set to the name (1.23 `SetDefaults_Namespace`, gate
 * NamespaceDefaultLabelName, GA). It never touches `spec.finalizers`: the `kubernetes` finalizer
 * is added only at create, by the namespace strategy's `PrepareForCreate`, so defaulting on
 * update and `/finalize` can remove it. Safe to call on every create and update. Mutates
 * `namespace` in place.
 *
 * @see pkg/apis/core/v1/defaults.go `SetDefaults_Namespace`, `SetDefaults_NamespaceStatus`
 * @see pkg/registry/core/namespace/strategy.go `PrepareForCreate` (the finalizer)
 */
export function setNamespaceDefaults(namespace: Namespace): void {
  if (!isRecord(namespace)) return;
  const ns = namespace as NamespaceView;
  if (!isRecord(ns.status)) ns.status = {};
  if (ns.status.phase === undefined || ns.status.phase === "") ns.status.phase = "Active";
  const meta = isRecord(ns.metadata) ? ns.metadata : undefined;
  if (meta !== undefined && typeof meta.name === "string" && meta.name !== "") {
    meta.labels = { ...(isRecord(meta.labels) ? meta.labels : {}), [namespaceNameLabel]: meta.name };
  }
}

/**
 * Fills a core/v1 Event's defaults. Kubernetes 1.23 defines none for this kind, so this does
 * nothing; it exists so every served kind has a defaulting entry point.
 *
 * @see pkg/apis/core/v1/defaults.go (no SetDefaults_Event)
 */
export function setEventDefaults(event: Event): void {
  void event;
}
