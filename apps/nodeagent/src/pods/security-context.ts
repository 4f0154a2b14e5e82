import { join } from "node:path";
import type { Container, Pod, PodSecurityContext, SeccompProfile, SecurityContext } from "@skiff/api-types";
import type { ImageStatusResponse__Output, LinuxContainerSecurityContext, LinuxPodSandboxConfig, NamespaceOption, SecurityProfile } from "@skiff/cri-api";

/** What the security-context translation needs besides the pod. */
export interface SecurityContextOptions {
  /** `<root-dir>/seccomp`: `Localhost` profiles are relative to it. */
  readonly seccompProfileRoot: string;
  /** `--seccomp-default` (only accepted with gate SeccompDefault): `RuntimeDefault` when nothing is set. @defaultValue false */
  readonly seccompDefault?: boolean;
  /** Gate ProcMountType: `procMount: Unmasked` takes effect only with it (else treated as `Default`). @defaultValue false */
  readonly procMountType?: boolean;
}

/**
 * The user an image runs as, from CRI ImageStatus: `uid` when the image's user is numeric,
 * `username` when it is a name; neither (or an absent image) means root.
 */
export interface ImageUser {
  readonly uid?: number;
  readonly username: string;
}

/** Seccomp annotation keys (deprecated since 1.19, still read by 1.23's kubelet). */
export const seccompAnnotations = {
  pod: "seccomp.security.alpha.kubernetes.io/pod",
  containerPrefix: "container.seccomp.security.alpha.kubernetes.io/",
} as const;

/** The AppArmor annotation of a container: `container.apparmor.security.beta.kubernetes.io/<container>`. */
export const appArmorAnnotationPrefix = "container.apparmor.security.beta.kubernetes.io/";

/**
 * The masked and read-only /proc paths of `procMount: Default`, kept in sync with moby as 1.23 does.
 * @see pkg/securitycontext/util.go in kubernetes/kubernetes v1.23
 */
export const defaultMaskedPaths: readonly string[] = Object.freeze([
  "/proc/acpi",
  "/proc/kcore",
  "/proc/keys",
  "/proc/latency_stats",
  "/proc/timer_list",
  "/proc/timer_stats",
  "/proc/sched_debug",
  "/proc/scsi",
  "/sys/firmware",
]);

/** See {@link defaultMaskedPaths}. */
export const defaultReadonlyPaths: readonly string[] = Object.freeze(["/proc/asound", "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]);

/**
 * The container's effective security context: the pod's `seLinuxOptions`, `runAsUser`,
 * `runAsGroup`, `runAsNonRoot`, overridden field by field by the container's own security context
 * (which alone carries capabilities, privileged, readOnlyRootFilesystem, allowPrivilegeEscalation,
 * procMount). Seccomp is resolved separately ({@link seccompProfileOf}). Pure; returns a new object.
 * @see pkg/securitycontext/util.go (DetermineEffectiveSecurityContext) in kubernetes/kubernetes v1.23
 */
export function determineEffectiveSecurityContext(pod: Pod, container: Container): SecurityContext {
  const psc = pod.spec?.securityContext;
  const out: SecurityContext = {};
  if (psc?.seLinuxOptions !== undefined) out.seLinuxOptions = { ...psc.seLinuxOptions };
  if (psc?.runAsUser !== undefined) out.runAsUser = psc.runAsUser;
  if (psc?.runAsGroup !== undefined) out.runAsGroup = psc.runAsGroup;
  if (psc?.runAsNonRoot !== undefined) out.runAsNonRoot = psc.runAsNonRoot;
  const csc = container.securityContext;
  if (!csc) return out;
  if (csc.seLinuxOptions !== undefined) out.seLinuxOptions = { ...csc.seLinuxOptions };
  if (csc.capabilities !== undefined) out.capabilities = { ...csc.capabilities };
  if (csc.privileged !== undefined) out.privileged = csc.privileged;
  if (csc.runAsUser !== undefined) out.runAsUser = csc.runAsUser;
  if (csc.runAsGroup !== undefined) out.runAsGroup = csc.runAsGroup;
  if (csc.runAsNonRoot !== undefined) out.runAsNonRoot = csc.runAsNonRoot;
  if (csc.readOnlyRootFilesystem !== undefined) out.readOnlyRootFilesystem = csc.readOnlyRootFilesystem;
  if (csc.allowPrivilegeEscalation !== undefined) out.allowPrivilegeEscalation = csc.allowPrivilegeEscalation;
  if (csc.procMount !== undefined) out.procMount = csc.procMount;
  return out;
}

/** The kubelet's `format.Pod`: `<name>_<namespace>(<uid>)`. */
export function formatPodForMessage(pod: Pod): string {
  return `${pod.metadata?.name ?? ""}_${pod.metadata?.namespace ?? ""}(${pod.metadata?.uid ?? ""})`;
}

/**
 * 1.23's `verifyRunAsNonRoot`: with an effective `runAsNonRoot: true`, a `runAsUser` of 0, an image
 * user of root (uid 0, or no user at all) or a non-numeric image user is refused. Returns the
 * error message (the container's `CreateContainerConfigError` message), or `undefined` when the
 * container may run. Pure.
 * @see pkg/kubelet/kuberuntime/security_context_others.go in kubernetes/kubernetes v1.23
 */
export function verifyRunAsNonRoot(pod: Pod, container: Container, image: ImageUser): string | undefined {
  const sc = determineEffectiveSecurityContext(pod, container);
  if (sc.runAsNonRoot !== true) return undefined;
  const where = `(pod: ${JSON.stringify(formatPodForMessage(pod))}, container: ${container.name})`;
  if (sc.runAsUser !== undefined) return sc.runAsUser === 0 ? `container's runAsUser breaks non-root policy ${where}` : undefined;
  if (image.uid === 0 || (image.uid === undefined && image.username === "")) return `container has runAsNonRoot and image will run as root ${where}`;
  if (image.uid === undefined) return `container has runAsNonRoot and image has non-numeric user (${image.username}), cannot verify user is non-root ${where}`;
  return undefined;
}

/**
 * The CRI namespace modes of a pod: network NODE with hostNetwork else POD; PID NODE with hostPID,
 * POD with shareProcessNamespace, else CONTAINER; IPC NODE with hostIPC else POD. Pure.
 * @see pkg/kubelet/kuberuntime/helpers.go (namespacesForPod) in kubernetes/kubernetes v1.23
 */
export function namespacesForPod(pod: Pod): NamespaceOption {
  const spec = pod.spec;
  const pid = spec?.hostPID === true ? "NODE" : spec?.shareProcessNamespace === true ? "POD" : "CONTAINER";
  return { network: spec?.hostNetwork === true ? "NODE" : "POD", pid, ipc: spec?.hostIPC === true ? "NODE" : "POD" };
}

type ProfileName = "runtime/default" | "unconfined" | `localhost/${string}` | "";

function fieldProfile(p: SeccompProfile | undefined, root: string, fallbackToRuntimeDefault: boolean): ProfileName {
  if (p === undefined) return fallbackToRuntimeDefault ? "runtime/default" : "";
  if (p.type === "RuntimeDefault") return "runtime/default";
  if (p.type === "Localhost" && p.localhostProfile) return `localhost/${join(root, p.localhostProfile)}`;
  if (p.type === "Unconfined") return "unconfined";
  return fallbackToRuntimeDefault ? "runtime/default" : "";
}

function annotationProfile(profile: string, root: string): string {
  if (profile.startsWith("localhost/")) return `localhost/${join(root, profile.slice("localhost/".length))}`;
  return profile;
}

/**
 * The seccomp profile of a container (`containerName` non-empty) or of the sandbox (empty), as
 * 1.23's `getSeccompProfilePath` names it: the container's `seccompProfile`, else the container
 * annotation, else the pod's `seccompProfile`, else the pod annotation, else `runtime/default`
 * with `--seccomp-default`, else `""` (the runtime's unconfined default). `Localhost` profiles
 * become `localhost/<seccompProfileRoot>/<localhostProfile>`. Pure.
 * @see pkg/kubelet/kuberuntime/helpers.go (getSeccompProfilePath) in kubernetes/kubernetes v1.23
 */
export function seccompProfilePathOf(pod: Pod, containerName: string, containerSc: SecurityContext | undefined, opts: SecurityContextOptions): string {
  const root = opts.seccompProfileRoot;
  const fallback = opts.seccompDefault === true;
  if (containerSc?.seccompProfile !== undefined) return fieldProfile(containerSc.seccompProfile, root, fallback);
  const annotations = pod.metadata?.annotations ?? {};
  if (containerName !== "") {
    const a = annotations[seccompAnnotations.containerPrefix + containerName];
    if (a !== undefined) return annotationProfile(a, root);
  }
  const psc: PodSecurityContext | undefined = pod.spec?.securityContext;
  if (psc?.seccompProfile !== undefined) return fieldProfile(psc.seccompProfile, root, fallback);
  const a = annotations[seccompAnnotations.pod];
  if (a !== undefined) return annotationProfile(a, root);
  return fallback ? "runtime/default" : "";
}

/**
 * {@link seccompProfilePathOf} as a CRI `SecurityProfile` (the `seccomp` field, which containerd
 * prefers over the deprecated path): `runtime/default` → RuntimeDefault, `localhost/<path>` →
 * Localhost with `localhostRef`, anything else (`unconfined`, `""`, `docker/default`) → Unconfined,
 * except `docker/default` → RuntimeDefault as containerd reads it. Pure.
 *
 * Unlike 1.23's `getSeccompProfile` this also honours the deprecated annotations: 1.23 relies on
 * the API server copying them into the fields, which static pods never pass through.
 * @see pkg/kubelet/kuberuntime/helpers.go (getSeccompProfile) in kubernetes/kubernetes v1.23
 */
export function seccompProfileOf(path: string): SecurityProfile {
  if (path === "runtime/default" || path === "docker/default") return { profileType: "RuntimeDefault" };
  if (path.startsWith("localhost/")) return { profileType: "Localhost", localhostRef: path.slice("localhost/".length) };
  return { profileType: "Unconfined" };
}

/** The container's AppArmor profile from its annotation (`runtime/default`, `unconfined`, `localhost/<name>`), or `""`. */
export function appArmorProfileOf(pod: Pod, containerName: string): string {
  return pod.metadata?.annotations?.[appArmorAnnotationPrefix + containerName] ?? "";
}

function groupsOf(psc: PodSecurityContext | undefined): number[] {
  const groups: number[] = [];
  if (psc?.fsGroup !== undefined) groups.push(psc.fsGroup);
  for (const g of psc?.supplementalGroups ?? []) groups.push(g);
  return groups;
}

/**
 * The CRI `LinuxContainerSecurityContext` of `container`: the effective security context
 * ({@link determineEffectiveSecurityContext}) with capabilities (names as given: `ALL`,
 * `NET_BIND_SERVICE`), privileged, readonlyRootfs, runAsUser/runAsGroup (the image's uid or
 * username when runAsUser is unset), SELinux options, `noNewPrivs` = `allowPrivilegeEscalation ==
 * false`, masked/read-only paths by procMount (`Unmasked` only with gate ProcMountType), seccomp
 * (path and profile), AppArmor (annotation), namespace options, and supplemental groups (fsGroup
 * first, then supplementalGroups). Pure.
 * @see pkg/kubelet/kuberuntime/security_context.go (determineEffectiveSecurityContext,
 *   convertToRuntimeSecurityContext) and pkg/securitycontext/util.go in kubernetes/kubernetes v1.23
 */
export function containerSecurityContext(pod: Pod, container: Container, image: ImageUser | undefined, opts: SecurityContextOptions): LinuxContainerSecurityContext {
  const sc = determineEffectiveSecurityContext(pod, container);
  const out: LinuxContainerSecurityContext = {
    privileged: sc.privileged === true,
    readonlyRootfs: sc.readOnlyRootFilesystem === true,
    namespaceOptions: namespacesForPod(pod),
  };
  if (sc.capabilities) out.capabilities = { addCapabilities: [...(sc.capabilities.add ?? [])], dropCapabilities: [...(sc.capabilities.drop ?? [])] };
  if (sc.seLinuxOptions) out.selinuxOptions = { user: sc.seLinuxOptions.user ?? "", role: sc.seLinuxOptions.role ?? "", type: sc.seLinuxOptions.type ?? "", level: sc.seLinuxOptions.level ?? "" };
  if (sc.runAsUser !== undefined) out.runAsUser = { value: sc.runAsUser };
  else {
    if (image?.uid !== undefined) out.runAsUser = { value: image.uid };
    out.runAsUsername = image?.username ?? "";
  }
  if (sc.runAsGroup !== undefined) out.runAsGroup = { value: sc.runAsGroup };
  const seccompPath = seccompProfilePathOf(pod, container.name, container.securityContext, opts);
  out.seccompProfilePath = seccompPath;
  out.seccomp = seccompProfileOf(seccompPath);
  out.apparmorProfile = appArmorProfileOf(pod, container.name);
  const groups = groupsOf(pod.spec?.securityContext);
  if (groups.length > 0) out.supplementalGroups = groups;
  out.noNewPrivs = sc.allowPrivilegeEscalation === false;
  const unmasked = sc.procMount === "Unmasked" && opts.procMountType === true;
  out.maskedPaths = unmasked ? [] : [...defaultMaskedPaths];
  out.readonlyPaths = unmasked ? [] : [...defaultReadonlyPaths];
  return out;
}

/**
 * The `securityContext` and `sysctls` of the CRI `LinuxPodSandboxConfig`: privileged when any
 * (init) container is privileged, the pod's seccomp (path and profile), runAsUser/runAsGroup,
 * namespace options, supplemental groups (fsGroup first), SELinux options, and the pod's
 * `securityContext.sysctls` (already admitted, see `SysctlAllowlist`). Pure.
 * @see pkg/kubelet/kuberuntime/kuberuntime_sandbox_linux.go, kuberuntime_sandbox.go
 *   (generatePodSandboxLinuxConfig) in kubernetes/kubernetes v1.23
 */
export function sandboxSecurity(pod: Pod, opts: SecurityContextOptions): Required<Pick<LinuxPodSandboxConfig, "securityContext" | "sysctls">> {
  const spec = pod.spec;
  const psc = spec?.securityContext;
  const privileged = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].some((c) => c.securityContext?.privileged === true);
  const seccompPath = seccompProfilePathOf(pod, "", undefined, opts);
  const securityContext: NonNullable<LinuxPodSandboxConfig["securityContext"]> = {
    privileged,
    seccompProfilePath: seccompPath,
    seccomp: seccompProfileOf(seccompPath),
    namespaceOptions: namespacesForPod(pod),
  };
  if (psc?.runAsUser !== undefined) securityContext.runAsUser = { value: psc.runAsUser };
  if (psc?.runAsGroup !== undefined) securityContext.runAsGroup = { value: psc.runAsGroup };
  const groups = groupsOf(psc);
  if (groups.length > 0) securityContext.supplementalGroups = groups;
  if (psc?.seLinuxOptions) securityContext.selinuxOptions = { user: psc.seLinuxOptions.user ?? "", role: psc.seLinuxOptions.role ?? "", type: psc.seLinuxOptions.type ?? "", level: psc.seLinuxOptions.level ?? "" };
  const sysctls: Record<string, string> = {};
  for (const s of psc?.sysctls ?? []) sysctls[s.name] = s.value;
  return { securityContext, sysctls };
}

/**
 * The image user of a CRI ImageStatus answer, as 1.23's `getImageUser`: `uid` when set, else
 * `username`; an absent image or neither field means root (`uid` 0). Pure.
 * @see pkg/kubelet/kuberuntime/helpers.go (getImageUser) in kubernetes/kubernetes v1.23
 */
export function imageUserOf(status: ImageStatusResponse__Output): ImageUser {
  const image = status.image;
  if (image?.uid) return { uid: Number(image.uid.value), username: "" };
  if (image?.username) return { username: image.username };
  return { uid: 0, username: "" };
}
