import { createHash } from "node:crypto";
import { parseAllDocuments } from "yaml";
import type { Pod, Toleration } from "@skiff/api-types";
import { ConfigHashAnnotation } from "@skiff/api-types";
import { checkDocumentLimits, estimateYAMLDepth, formatFieldError, maxDocumentDepth } from "@skiff/apimachinery";
import { applyDefaults, decodeObject, formatDecodeError, validateObject } from "@skiff/validation";

/** Largest manifest file or HTTP body accepted, in bytes (the kubelet's 10 MiB). */
export const maxManifestBytes = 10 * 1024 * 1024;

/** Where a static pod came from: a file (with its path) or a URL. */
export type StaticPodOrigin = { readonly kind: "file"; readonly path: string } | { readonly kind: "url"; readonly url: string } | { readonly kind: "manifest" };

/** Result of decoding a manifest: the defaulted, validated pods, or every problem. */
export type DecodeManifestResult = { readonly ok: true; readonly pods: Pod[] } | { readonly ok: false; readonly errors: string[] };

// Bounded as the apiserver's decoders: at most maxDocumentDepth levels, at most 100 YAML aliases,
// none inside its own anchor; a manifest over the bounds is refused (and logged by the source).
function parseText(text: string): { ok: true; value: unknown } | { ok: false; errors: string[] } {
  const trimmed = text.trimStart();
  let value: unknown;
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      value = JSON.parse(text) as unknown;
    } catch (err) {
      return { ok: false, errors: [`invalid JSON: ${err instanceof Error ? err.message : String(err)}`] };
    }
    const problem = checkDocumentLimits(value);
    return problem ? { ok: false, errors: [`invalid JSON: ${problem.message}`] } : { ok: true, value };
  }
  if (estimateYAMLDepth(text) > 4 * maxDocumentDepth) return { ok: false, errors: [`invalid YAML: exceeded max depth of ${maxDocumentDepth}`] };
  try {
    const docs = parseAllDocuments(text);
    const list = Array.isArray(docs) ? docs : [docs];
    const first = list[0];
    if (!first) return { ok: false, errors: ["empty manifest"] };
    if (first.errors.length > 0) return { ok: false, errors: first.errors.map((e) => `invalid YAML: ${e.message}`) };
    value = first.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (err) {
    return { ok: false, errors: [`invalid YAML: ${err instanceof Error ? err.message : String(err)}`] };
  }
  const problem = checkDocumentLimits(value);
  return problem ? { ok: false, errors: [`invalid YAML: ${problem.message}`] } : { ok: true, value };
}

/**
 * The UID of a static pod without one: 32 hex chars of MD5 over the defaulted pod and the origin
 * (`host:<node>file:<path>` for files, `url:<url>` for URLs). Stable for equal input.
 * @see pkg/kubelet/config/common.go (applyDefaults) in kubernetes/kubernetes v1.23
 */
export function computeStaticPodUID(pod: Pod, nodeName: string, origin: StaticPodOrigin): string {
  const hash = createHash("md5");
  hash.update(JSON.stringify(pod));
  if (origin.kind === "file") hash.update(`host:${nodeName}file:${origin.path}`);
  else if (origin.kind === "url") hash.update(`url:${origin.url}`);
  else hash.update(`host:${nodeName}manifest:`);
  return hash.digest("hex");
}

/**
 * Applies the static-pod defaults to a decoded, API-defaulted pod, mutating it: UID (when empty),
 * name `<name>-<nodeName>`, namespace `default`, `spec.nodeName`, selfLink, the config-hash
 * annotation, a NoExecute toleration (file pods and submitted manifests), phase Pending.
 * @see pkg/kubelet/config/common.go (applyDefaults)
 */
export function applyStaticPodDefaults(pod: Pod, nodeName: string, origin: StaticPodOrigin): void {
  const meta = (pod.metadata ??= {});
  if (!meta.uid) meta.uid = computeStaticPodUID(pod, nodeName, origin);
  meta.name = `${meta.name ?? ""}-${nodeName}`;
  if (!meta.namespace) meta.namespace = "default";
  meta.selfLink = `/api/v1/namespaces/${meta.namespace}/pods/${meta.name}`;
  meta.annotations = { ...(meta.annotations ?? {}), [ConfigHashAnnotation]: meta.uid };
  const spec = (pod.spec ??= { containers: [] });
  spec.nodeName = nodeName;
  if (origin.kind !== "url") {
    const tolerations: Toleration[] = spec.tolerations ?? [];
    const exists = tolerations.some((t) => t.operator === "Exists" && t.effect === "NoExecute" && !t.key);
    if (!exists) spec.tolerations = [...tolerations, { operator: "Exists", effect: "NoExecute" }];
  }
  pod.status = { ...(pod.status ?? {}), phase: "Pending" };
}

function decodeOne(raw: unknown, nodeName: string, origin: StaticPodOrigin, where: string): { ok: true; pod: Pod } | { ok: false; errors: string[] } {
  const obj = raw as { apiVersion?: unknown; kind?: unknown } | null;
  if (typeof obj !== "object" || obj === null || Array.isArray(obj)) return { ok: false, errors: [`${where}: not an object`] };
  if (obj.apiVersion !== "v1" || obj.kind !== "Pod") {
    return { ok: false, errors: [`${where}: want apiVersion "v1" and kind "Pod", got apiVersion ${JSON.stringify(obj.apiVersion ?? "")} kind ${JSON.stringify(obj.kind ?? "")}`] };
  }
  const decoded = decodeObject("Pod", raw, { fieldValidation: "Ignore" });
  if (!decoded.ok) return { ok: false, errors: decoded.errors.map((e) => `${where}: ${formatDecodeError(e)}`) };
  const pod = decoded.value;
  applyDefaults("Pod", pod);
  applyStaticPodDefaults(pod, nodeName, origin);
  const errs = validateObject("Pod", pod);
  if (errs.length > 0) return { ok: false, errors: errs.map((e) => `${where}: invalid pod: ${formatFieldError(e)}`) };
  return { ok: true, pod };
}

/**
 * Decodes one manifest (YAML or JSON; YAML's first document only) into static pods: a file or
 * submitted manifest holds exactly one `v1` Pod; a URL body may also be a `v1` PodList. Each pod
 * is API-defaulted, static-defaulted ({@link applyStaticPodDefaults}) and validated as a create.
 * Never throws.
 * @see pkg/kubelet/config/common.go (tryDecodeSinglePod, tryDecodePodList)
 * @example
 * const r = decodeManifest(text, "node-1", { kind: "file", path: "/etc/nodeagent/manifests/web.yaml" });
 * if (!r.ok) log(r.errors.join("; "));
 */
export function decodeManifest(text: string, nodeName: string, origin: StaticPodOrigin): DecodeManifestResult {
  if (Buffer.byteLength(text) > maxManifestBytes) return { ok: false, errors: [`manifest is larger than ${maxManifestBytes} bytes`] };
  const parsed = parseText(text);
  if (!parsed.ok) return parsed;
  const raw = parsed.value as { kind?: unknown; apiVersion?: unknown; items?: unknown } | null;
  if (origin.kind === "url" && typeof raw === "object" && raw !== null && raw.kind === "PodList") {
    if (raw.apiVersion !== "v1") return { ok: false, errors: [`want apiVersion "v1" for a PodList, got ${JSON.stringify(raw.apiVersion ?? "")}`] };
    const items = Array.isArray(raw.items) ? (raw.items as unknown[]) : [];
    const pods: Pod[] = [];
    const errors: string[] = [];
    items.forEach((item, i) => {
      const withKind = typeof item === "object" && item !== null ? { apiVersion: "v1", kind: "Pod", ...(item as object) } : item;
      const r = decodeOne(withKind, nodeName, origin, `items[${i}]`);
      if (r.ok) pods.push(r.pod);
      else errors.push(...r.errors);
    });
    return errors.length > 0 ? { ok: false, errors } : { ok: true, pods };
  }
  const r = decodeOne(raw, nodeName, origin, "pod");
  return r.ok ? { ok: true, pods: [r.pod] } : r;
}
