/**
 * The ServiceAccount admission plugin of 1.23 (mutating, pods on CREATE): defaults
 * `spec.serviceAccountName` to `default` (honouring the deprecated `spec.serviceAccount` alias,
 * and setting it to the same name as 1.23's conversion shows it), refuses a pod whose service
 * account does not exist with 403 Forbidden (`error looking up service account <ns>/<name>:
 * serviceaccount "<name>" not found`; the `default` one is looked up 10 times, 100–200 ms apart,
 * since the service-account controller creates it right after its namespace), copies the service
 * account's `imagePullSecrets` into a pod that has none, and, unless `automountServiceAccountToken`
 * is false on the pod (which wins) or on the service account, adds the projected volume
 * `kube-api-access-<5 random characters>` (a bound token, `kube-root-ca.crt`'s `ca.crt`, the
 * namespace) mounted read-only at `/var/run/secrets/kubernetes.io/serviceaccount` in every
 * container and init container that has nothing mounted there. Mirror pods are not changed; they
 * may not name a service account, reference secrets or project a token (403). A service account
 * annotated `kubernetes.io/enforce-mountable-secrets: "true"` limits its pods' secret volumes and
 * `secretKeyRef` env vars to its `secrets`, and their `imagePullSecrets` to its own (403 in 1.23's
 * words otherwise).
 *
 * @see plugin/pkg/admission/serviceaccount/admission.go (kubernetes/kubernetes v1.23)
 */
import { randomInt } from "node:crypto";
import { ConfigMirrorAnnotation, DefaultServiceAccountName, RootCACertConfigMapName, ServiceAccountRootCAKey, ServiceAccountTokenMountPath } from "@skiff/api-types";
import type { Pod, ServiceAccount, Volume } from "@skiff/api-types";
import type { AdmissionAttributes, AdmissionPlugin, GenericStore } from "@skiff/apiserver-core";
import { isStatusError, newForbidden } from "@skiff/apimachinery";

/** Name prefix of the token volume the plugin adds (`kube-api-access-xxxxx`). @see plugin/pkg/admission/serviceaccount/admission.go (ServiceAccountVolumeName) */
export const serviceAccountVolumeName = "kube-api-access";

/** The service-account annotation that limits its pods' secrets to those it lists. @see plugin/pkg/admission/serviceaccount/admission.go (EnforceMountableSecretsAnnotation) */
export const enforceMountableSecretsAnnotation = "kubernetes.io/enforce-mountable-secrets";

/** `expirationSeconds` of the token the volume projects (1.23's WarnOnlyBoundTokenExpirationSeconds). */
export const boundTokenExpirationSeconds = 3607;

/** Options of {@link serviceAccountAdmission}. */
export interface ServiceAccountAdmissionOptions {
  /** The generic store of core/v1 serviceaccounts (over the apiserver's storage). */
  readonly serviceAccounts: GenericStore;
  /**
   * Whether pods get the `kube-api-access-*` token volume (1.23's `MountServiceAccountToken`,
   * true in kube-apiserver). skiff-apiserver keeps it off until the TokenRequest API
   * (`serviceaccounts/token`) is served: no node agent could fill the token, so no pod would start.
   * @defaultValue true
   */
  readonly mountServiceAccountToken?: boolean;
  /** Look-ups of the `default` service account before a pod is refused. @defaultValue 10 */
  readonly defaultAttempts?: number;
  /** Waits between those look-ups, in ms (1.23: a random 100–200). @defaultValue a random 100–199 */
  readonly retryIntervalMs?: () => number;
  /** The 5-character suffix of a new token volume's name. @defaultValue 5 random characters of `bcdfghjklmnpqrstvwxz2456789` */
  readonly randomSuffix?: () => string;
}

const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789";
const randomSuffix = () => Array.from({ length: 5 }, () => nameAlphabet[randomInt(nameAlphabet.length)]).join("");

/**
 * The projected volume source of `kube-api-access-*`: a bound service-account token at `token`
 * ({@link boundTokenExpirationSeconds}), `ca.crt` from the ConfigMap `kube-root-ca.crt`, and the
 * pod's namespace at `namespace`; mode 0644. Returns a new object.
 * @see plugin/pkg/admission/serviceaccount/admission.go (TokenVolumeSource)
 */
export function tokenVolumeSource(): NonNullable<Volume["projected"]> {
  return {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { expirationSeconds: boundTokenExpirationSeconds, path: "token" } },
      { configMap: { name: RootCACertConfigMapName, items: [{ key: ServiceAccountRootCAKey, path: ServiceAccountRootCAKey }] } },
      { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
    ],
  };
}

/**
 * The ServiceAccount admission plugin; see the module comment. Only `mutate` (1.23's Admit ends
 * with its own Validate).
 * @example admission: [namespaceLifecycle(storage), serviceAccountAdmission({ serviceAccounts: store })]
 */
export function serviceAccountAdmission(o: ServiceAccountAdmissionOptions): AdmissionPlugin {
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
  const interval = o.retryIntervalMs ?? (() => 100 + randomInt(100));
  const suffix = o.randomSuffix ?? randomSuffix;

  const forbidden = (attrs: AdmissionAttributes, pod: Pod, message: string) => {
    const meta = pod.metadata;
    const name = attrs.info.name || meta?.name || meta?.generateName || "Unknown";
    return newForbidden({ group: "", resource: "pods" }, name, new Error(message));
  };

  async function lookUp(attrs: AdmissionAttributes, pod: Pod, namespace: string, name: string): Promise<ServiceAccount> {
    const attempts = name === DefaultServiceAccountName ? (o.defaultAttempts ?? 10) : 1;
    const ctx = { ...attrs.ctx, namespace };
    const wait = interval();
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await sleep(wait);
      try {
        return (await o.serviceAccounts.get(ctx, name)) as ServiceAccount;
      } catch (e) {
        if (!(isStatusError(e) && e.status.code === 404)) {
          throw forbidden(attrs, pod, `error looking up service account ${namespace}/${name}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    }
    throw forbidden(attrs, pod, `error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`);
  }

  return {
    name: "ServiceAccount",
    async mutate(attrs) {
      if (attrs.operation !== "CREATE" || attrs.info.apiGroup !== "" || attrs.info.resource !== "pods" || attrs.info.subresource !== "") return;
      const pod = attrs.object as Pod | undefined;
      if (!pod) return;
      const spec = (pod.spec ??= { containers: [] });
      if (pod.metadata?.annotations?.[ConfigMirrorAnnotation] !== undefined) {
        validateMirrorPod(attrs, pod, forbidden);
        return;
      }
      // 1.23's conversion: the deprecated alias counts when serviceAccountName is empty.
      if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
      if (!spec.serviceAccountName) spec.serviceAccountName = DefaultServiceAccountName;
      spec.serviceAccount = spec.serviceAccountName;
      const namespace = attrs.ctx.namespace ?? "";
      const sa = await lookUp(attrs, pod, namespace, spec.serviceAccountName);
      const automount = spec.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
      if (o.mountServiceAccountToken !== false && automount) mountServiceAccountToken(pod, suffix);
      if ((spec.imagePullSecrets ?? []).length === 0 && (sa.imagePullSecrets ?? []).length > 0) {
        spec.imagePullSecrets = (sa.imagePullSecrets ?? []).map((s) => ({ ...(s.name !== undefined ? { name: s.name } : {}) }));
      }
      // 1.23's Validate, which Admit ends with.
      if (goParseBool(sa.metadata?.annotations?.[enforceMountableSecretsAnnotation])) {
        const refused = limitSecretReferences(sa, pod);
        if (refused !== undefined) throw forbidden(attrs, pod, refused);
      }
    },
    // 1.23's Validate for pods/ephemeralcontainers updates (limitEphemeralContainerSecretReferences):
    // with a service account that enforces mountable secrets, ephemeral containers may reference
    // only its secrets. (1.23 returns this one as a plain error, an InternalError; Skiff answers 403.)
    async validate(attrs) {
      if (attrs.operation !== "UPDATE" || attrs.info.apiGroup !== "" || attrs.info.resource !== "pods" || attrs.info.subresource !== "ephemeralcontainers") return;
      const pod = attrs.object as Pod | undefined;
      if (!pod?.spec) return;
      const namespace = attrs.ctx.namespace ?? "";
      const sa = await lookUp(attrs, pod, namespace, pod.spec.serviceAccountName ?? "");
      if (!goParseBool(sa.metadata?.annotations?.[enforceMountableSecretsAnnotation])) return;
      const mountable = new Set((sa.secrets ?? []).map((x) => x.name ?? ""));
      for (const c of pod.spec.ephemeralContainers ?? []) {
        for (const e of c.env ?? []) {
          const ref = e.valueFrom?.secretKeyRef;
          if (ref !== undefined && !mountable.has(ref.name ?? "")) {
            throw forbidden(attrs, pod, `ephemeral container ${c.name} with envVar ${e.name} referencing secret.secretName="${ref.name ?? ""}" is not allowed because service account ${sa.metadata?.name ?? ""} does not reference that secret`);
          }
        }
      }
    },
  };
}

// Go's strconv.ParseBool true values; anything else (or an error) is false.
const goParseBool = (v: string | undefined) => v !== undefined && ["1", "t", "T", "TRUE", "true", "True"].includes(v);

// 1.23's limitSecretReferences: the first reference the service account does not list, worded as 1.23.
function limitSecretReferences(sa: ServiceAccount, pod: Pod): string | undefined {
  const spec = pod.spec!;
  const saName = sa.metadata?.name ?? "";
  const mountable = new Set((sa.secrets ?? []).map((s) => s.name ?? ""));
  for (const v of spec.volumes ?? []) {
    if (v.secret === undefined) continue;
    const name = v.secret.secretName ?? "";
    if (!mountable.has(name)) return `volume with secret.secretName="${name}" is not allowed because service account ${saName} does not reference that secret`;
  }
  for (const [kind, containers] of [
    ["init container", spec.initContainers ?? []],
    ["container", spec.containers],
  ] as const) {
    for (const c of containers) {
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref !== undefined && !mountable.has(ref.name ?? "")) {
          return `${kind} ${c.name} with envVar ${e.name} referencing secret.secretName="${ref.name ?? ""}" is not allowed because service account ${saName} does not reference that secret`;
        }
      }
    }
  }
  const pullSecrets = new Set((sa.imagePullSecrets ?? []).map((s) => s.name ?? ""));
  for (const [i, ref] of (spec.imagePullSecrets ?? []).entries()) {
    if (!pullSecrets.has(ref.name ?? "")) return `imagePullSecrets[${String(i)}].name="${ref.name ?? ""}" is not allowed because service account ${saName} does not reference that imagePullSecret`;
  }
  return undefined;
}

function mountServiceAccountToken(pod: Pod, suffix: () => string): void {
  const spec = pod.spec!;
  const existing = (spec.volumes ?? []).find((v) => v.name.startsWith(`${serviceAccountVolumeName}-`));
  const volumeName = existing?.name ?? `${serviceAccountVolumeName}-${suffix()}`;
  let needsVolume = false;
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
    if ((c.volumeMounts ?? []).some((m) => m.mountPath === ServiceAccountTokenMountPath)) continue;
    c.volumeMounts = [...(c.volumeMounts ?? []), { name: volumeName, readOnly: true, mountPath: ServiceAccountTokenMountPath }];
    needsVolume = true;
  }
  if (existing === undefined && needsVolume) spec.volumes = [...(spec.volumes ?? []), { name: volumeName, projected: tokenVolumeSource() }];
}

function validateMirrorPod(attrs: AdmissionAttributes, pod: Pod, forbidden: (a: AdmissionAttributes, p: Pod, m: string) => Error): void {
  const spec = pod.spec!;
  if (spec.serviceAccountName) throw forbidden(attrs, pod, "a mirror pod may not reference service accounts");
  if (referencesSecrets(pod)) throw forbidden(attrs, pod, "a mirror pod may not reference secrets");
  for (const v of spec.volumes ?? []) {
    if ((v.projected?.sources ?? []).some((s) => s.serviceAccountToken !== undefined)) throw forbidden(attrs, pod, "a mirror pod may not use ServiceAccountToken volume projections");
  }
}

// 1.23's podutil.VisitPodSecretNames over all containers.
function referencesSecrets(pod: Pod): boolean {
  const spec = pod.spec!;
  if ((spec.imagePullSecrets ?? []).some((s) => s.name)) return true;
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
    if ((c.envFrom ?? []).some((e) => e.secretRef?.name)) return true;
    if ((c.env ?? []).some((e) => e.valueFrom?.secretKeyRef?.name)) return true;
  }
  for (const v of spec.volumes ?? []) {
    if (v.secret?.secretName) return true;
    if ((v.projected?.sources ?? []).some((s) => s.secret?.name)) return true;
    if (v.csi?.nodePublishSecretRef?.name) return true;
  }
  return false;
}
