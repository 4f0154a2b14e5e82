import { execFile } from "node:child_process";
import { mkdirSync, statSync } from "node:fs";
import { chmod, readdir, rm, rmdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Container, Pod, Volume, VolumeMount } from "@skiff/api-types";
import type { Mount } from "@skiff/cri-api";
import { parseQuantity, quantityValue } from "@skiff/flags";
import { isNotFound } from "@skiff/apimachinery";
import { AtomicWriteCache, writeAtomically, type FileProjection } from "./atomic-writer.js";
import { expandVars } from "./expand.js";
import type { PodObjectManagers } from "./pod-objects.js";
import type { PodEventRecorder, PodVolumeHooks } from "./types.js";
import { setVolumeOwnership } from "./volume-ownership.js";
import { checkHostPathType, downwardAPIFileContent, machineAllocatable, writeVolumeFilesAtomically, type NodeAllocatable, type VolumeFile } from "./volumes-files.js";
import { mkdirAll } from "../internal/mkdir-all.js";
import { agentTracer } from "../internal/trace.js";
import { milliOf, podQOSClass, podRequestsAndLimits, valueOfMilli } from "./resources.js";
import { configMapPayload, formatAggregate, secretPayload, VolumePayloadError } from "./volumes-objects.js";

const run = promisify(execFile);

/** Plugin directory names under `<rootDir>/pods/<uid>/volumes/`, as the kubelet's. */
export const volumePluginDirs = {
  emptyDir: "kubernetes.io~empty-dir",
  downwardAPI: "kubernetes.io~downward-api",
  projected: "kubernetes.io~projected",
  configMap: "kubernetes.io~configmap",
  secret: "kubernetes.io~secret",
} as const;

type BuiltInKind = keyof typeof volumePluginDirs;

/**
 * The directory of a pod's built-in volume: `<rootDir>/pods/<uid>/volumes/<plugin dir>/<name>`.
 * Pure.
 * @see pkg/kubelet/kubelet_getters.go (getPodVolumeDir) in kubernetes/kubernetes v1.23
 */
export function podVolumeDir(rootDir: string, podUID: string, kind: BuiltInKind, volumeName: string): string {
  return join(rootDir, "pods", podUID, "volumes", volumePluginDirs[kind], volumeName);
}

/**
 * A volume that could not be set up. `message` is the FailedMount event's text
 * (`MountVolume.SetUp failed for volume "<name>" : <cause>`); `waitingReason` is what the pod's
 * not-yet-started containers show: `ContainerCreating`, as 1.23 (a missing ConfigMap of a volume
 * leaves the pod ContainerCreating, unlike one of the env).
 */
export class VolumeSetUpError extends Error {
  override readonly name = "VolumeSetUpError";
  readonly reason = "FailedMount";
  constructor(
    message: string,
    readonly waitingReason: "ContainerCreating" | "CreateContainerConfigError",
  ) {
    super(message);
  }
}

/** tmpfs mounting for `emptyDir.medium: Memory`; tests pass a fake. */
export interface TmpfsMounter {
  /** Mounts a tmpfs at `dir` (`size` in bytes when given). */
  mount(dir: string, sizeBytes: number | undefined): Promise<void>;
  unmount(dir: string): Promise<void>;
  /** Whether `dir` is a mount point. */
  isMountPoint(dir: string): Promise<boolean>;
}

/**
 * The command that mounts a tmpfs at `dir`: `mount -t tmpfs -o <opts> tmpfs <dir>`, or, with
 * `--experimental-mounter-path` set to a mounter other than `mount`, that mounter with `mount` as
 * its first argument (`<mounterPath> mount -t tmpfs ...`), as 1.23's mount-utils `doMount` runs it.
 * Pure.
 * @see staging/src/k8s.io/mount-utils/mount_linux.go (`doMount`) in kubernetes/kubernetes v1.23
 */
export function tmpfsMountCommand(mounterPath: string, dir: string, sizeBytes: number | undefined): { file: string; args: string[] } {
  const args = ["-t", "tmpfs", "-o", sizeBytes !== undefined && sizeBytes > 0 ? `size=${sizeBytes}` : "mode=0777", "tmpfs", dir];
  return mounterPath === "" || mounterPath === "mount" ? { file: "mount", args } : { file: mounterPath, args: ["mount", ...args] };
}

/**
 * The real tmpfs mounter (see {@link tmpfsMountCommand}; unmounting runs `umount`, which 1.23
 * never sends through the mounter); needs root.
 */
export function systemTmpfsMounterWith(mounterPath: string): TmpfsMounter {
  return {
    async mount(dir, sizeBytes) {
      const { file, args } = tmpfsMountCommand(mounterPath, dir, sizeBytes);
      await run(file, args);
    },
    async unmount(dir) {
      await run("umount", [dir]);
    },
    async isMountPoint(dir) {
      const [a, b] = await Promise.all([stat(dir).catch(() => undefined), stat(join(dir, "..")).catch(() => undefined)]);
      return a !== undefined && b !== undefined && a.dev !== b.dev;
    },
  };
}

/** The real tmpfs mounter with the default `mount` (`mount -t tmpfs`, `umount`); needs root. */
export const systemTmpfsMounter: TmpfsMounter = systemTmpfsMounterWith("");

/** What {@link PodVolumeManager} needs. */
export interface PodVolumeManagerOptions {
  /** `--root-dir`. */
  readonly rootDir: string;
  /** Hooks for the volume kinds not built in (the CSI inline volumes of `../csi/`), run after the built-in ones. */
  readonly extra?: PodVolumeHooks;
  /** Event sink (FailedMount). @defaultValue discards */
  readonly onEvent?: PodEventRecorder;
  /** Log sink. @defaultValue discards */
  readonly log?: (message: string) => void;
  /**
   * tmpfs mounts for memory-backed emptyDirs; `null` disables them (a plain directory is used).
   * @defaultValue {@link systemTmpfsMounter} when running as root, else `null`
   */
  readonly tmpfs?: TmpfsMounter | null;
  /** `--experimental-mounter-path` for the default tmpfs mounter ({@link systemTmpfsMounterWith}). @defaultValue "" (plain `mount`) */
  readonly mounterPath?: string;
  /** Node capacity for `resourceFieldRef` without a limit, and the size of memory-backed emptyDirs. @defaultValue the machine's */
  readonly nodeAllocatable?: NodeAllocatable;
  /** Gate SizeMemoryBackedVolumes: size memory-backed emptyDirs as {@link emptyDirMemorySizeBytes}. @defaultValue true */
  readonly sizeMemoryBackedVolumes?: boolean;
  /**
   * The ConfigMap and Secret managers (API-server mode); absent in standalone mode, where a
   * configMap/secret volume or projection fails (`... because kube client is not configured`).
   */
  readonly objects?: PodObjectManagers;
}

const defaultFileMode = 0o644;

/**
 * The memory limit of the pod's cgroup in bytes, as 1.23's `ResourceConfigForPod` sets it: the
 * sum of the containers' limits (with overhead) for a Guaranteed pod, or a Burstable pod whose
 * every container declares a memory limit; undefined otherwise.
 * @see pkg/kubelet/cm/helpers_linux.go (ResourceConfigForPod) in kubernetes/kubernetes v1.23
 */
function podMemoryLimitBytes(pod: Pod): bigint | undefined {
  const qos = podQOSClass(pod);
  if (qos === "BestEffort") return undefined;
  const spec = pod.spec ?? { containers: [] };
  if (qos === "Burstable" && [...spec.containers, ...(spec.initContainers ?? [])].some((c) => (milliOf(c.resources?.limits?.memory) ?? 0n) === 0n)) return undefined;
  return valueOfMilli(podRequestsAndLimits(pod).limits.get("memory") ?? 0n);
}

/**
 * The tmpfs size of a memory-backed emptyDir in bytes, as 1.23's `calculateEmptyDirMemorySize`:
 * with the SizeMemoryBackedVolumes gate on, the node's allocatable memory, lowered to the pod's
 * memory limit and then to the volume's `sizeLimit` when each is positive and not larger; with
 * the gate off, undefined (no `size=` option: the kernel's default, half of RAM).
 * @see pkg/volume/emptydir/empty_dir.go (calculateEmptyDirMemorySize) in kubernetes/kubernetes v1.23
 */
export function emptyDirMemorySizeBytes(pod: Pod, sizeLimit: string | number | undefined, nodeAllocatableMemoryBytes: bigint, enabled: boolean): bigint | undefined {
  if (!enabled) return undefined;
  let size = nodeAllocatableMemoryBytes;
  const podLimit = podMemoryLimitBytes(pod);
  if (podLimit !== undefined && podLimit > 0n && podLimit <= size) size = podLimit;
  if (sizeLimit !== undefined) {
    const q = parseQuantity(String(sizeLimit));
    if (q.ok) {
      const volumeLimit = BigInt(quantityValue(q.value));
      if (volumeLimit > 0n && volumeLimit <= size) size = volumeLimit;
    }
  }
  return size > 0n ? size : undefined;
}

function propagationOf(vm: VolumeMount): NonNullable<Mount["propagation"]> {
  switch (vm.mountPropagation) {
    case "HostToContainer":
      return "PROPAGATION_HOST_TO_CONTAINER";
    case "Bidirectional":
      return "PROPAGATION_BIDIRECTIONAL";
    default:
      return "PROPAGATION_PRIVATE";
  }
}

function builtInKind(v: Volume): BuiltInKind | "hostPath" | undefined {
  if (v.emptyDir) return "emptyDir";
  if (v.hostPath) return "hostPath";
  if (v.downwardAPI) return "downwardAPI";
  if (v.projected) return "projected";
  if (v.configMap) return "configMap";
  if (v.secret) return "secret";
  return undefined;
}

/**
 * The node agent's volume manager for the volume kinds the kubelet handles itself:
 * - `emptyDir`: a 0777 directory under {@link podVolumeDir}; `medium: Memory` is a tmpfs (size
 *   `sizeLimit`) when mounting is possible, else a plain directory (logged);
 * - `hostPath`: the node path after 1.23's type check (see `checkHostPathType`);
 * - `downwardAPI` and `projected` (downwardAPI sources): files written atomically
 *   (`..data` symlink), `defaultMode` 0644, per-item `mode`; rewritten when the pod's labels or
 *   annotations change;
 * - `configMap`/`secret` volumes and projected configMap/secret sources: read through the
 *   ConfigMap/Secret managers, all keys or `items` (key → path, `mode`), `defaultMode` 0644,
 *   written atomically and rewritten at each sync when the object changed; a missing object fails
 *   with the manager's message (`configmap "x" not found`) unless `optional` (then empty); a missing
 *   listed key fails (`configmap references non-existent config key: k`) unless `optional`;
 * - projected `serviceAccountToken`: a token requested through TokenRequest for the pod's service
 *   account (audience, `expirationSeconds`, bound to the pod) by the token manager, which requests
 *   a new one past 80 % of its lifetime; the file is rewritten at the next sync. Failures read
 *   `failed to fetch token: <cause>`.
 * Other kinds (CSI) go to `extra`. Failures emit a FailedMount event per volume and throw a
 * {@link VolumeSetUpError}; the other pods are unaffected. {@link mounts} builds the CRI mounts
 * (subPath/subPathExpr, readOnly, mountPropagation) and {@link tearDown} removes the pod's
 * volume directories (unmounting tmpfs first).
 * @see pkg/kubelet/volumemanager, pkg/volume/{emptydir,hostpath,downwardapi,projected} and
 *   pkg/kubelet/kuberuntime/kuberuntime_container.go (makeMounts) in kubernetes/kubernetes v1.23
 * @example
 * ```ts
 * const volumes = new PodVolumeManager({ rootDir: "/var/lib/nodeagent", extra: csi.volumes });
 * await volumes.setUp(pod);            // before the containers start
 * const mounts = volumes.mounts(pod, pod.spec.containers[0]);
 * await volumes.tearDown(pod);         // after the pod is removed
 * ```
 */
export class PodVolumeManager implements PodVolumeHooks {
  private readonly tmpfs: TmpfsMounter | null;
  private readonly node: NodeAllocatable;
  /** What the atomic writer last wrote in each volume directory (unchanged payloads skip reading it back). */
  private readonly written = new AtomicWriteCache();

  constructor(private readonly o: PodVolumeManagerOptions) {
    this.tmpfs = o.tmpfs !== undefined ? o.tmpfs : process.getuid?.() === 0 ? systemTmpfsMounterWith(o.mounterPath ?? "") : null;
    this.node = o.nodeAllocatable ?? machineAllocatable();
  }

  /**
   * Sets up every built-in volume of `pod` (idempotent; called at each sync), then the extra hooks.
   * @throws VolumeSetUpError naming the first failed volume (every failure gets its event).
   */
  async setUp(pod: Pod): Promise<void> {
    const failures: VolumeSetUpError[] = [];
    const unsupported: string[] = [];
    for (const v of pod.spec?.volumes ?? []) {
      const kind = builtInKind(v);
      if (!kind) {
        const supported = this.o.extra ? (this.o.extra.canSupport ? this.o.extra.canSupport(v) : v.csi !== undefined) : false;
        if (!supported) unsupported.push(v.name);
        continue;
      }
      try {
        const dir = kind === "hostPath" ? "" : podVolumeDir(this.o.rootDir, pod.metadata?.uid ?? "", kind, v.name);
        // An emptyDir is set up (and given to the fsGroup) once, as the kubelet mounts it once.
        const existed = kind === "emptyDir" && (await stat(dir).catch(() => undefined)) !== undefined;
        await this.setUpOne(pod, v, kind);
        if (kind !== "hostPath" && !existed) {
          // 1.23's built-in plugins pass no fsGroupChangePolicy: their volumes are always walked.
          await setVolumeOwnership(dir, pod.spec?.securityContext?.fsGroup, { readOnly: kind !== "emptyDir", ...(this.o.log ? { log: this.o.log } : {}) });
        }
      } catch (err) {
        const cause = err instanceof Error ? err.message : String(err);
        const message = `MountVolume.SetUp failed for volume ${JSON.stringify(v.name)} : ${cause}`;
        this.o.onEvent?.(pod, "Warning", "FailedMount", message);
        this.o.log?.(`pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}: ${message}`);
        failures.push(new VolumeSetUpError(message, "ContainerCreating"));
      }
    }
    if (unsupported.length > 0) {
      // 1.23's volume manager cannot add such a volume to its desired state ("failed to get Plugin
      // from volumeSpec ... no volume plugin matched") and the pod waits in ContainerCreating until
      // WaitForAttachAndMount gives up with this event.
      const names = unsupported.sort().join(" ");
      for (const name of unsupported) this.o.log?.(`pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}: failed to get Plugin from volumeSpec for volume ${JSON.stringify(name)} err=no volume plugin matched`);
      const message = `Unable to attach or mount volumes: unmounted volumes=[${names}], unattached volumes=[], failed to process volumes=[${names}]: timed out waiting for the condition`;
      this.o.onEvent?.(pod, "Warning", "FailedMount", message);
      failures.push(new VolumeSetUpError(message, "ContainerCreating"));
    }
    const first = failures[0];
    if (first) throw first;
    await this.o.extra?.setUp(pod);
  }

  private async setUpOne(pod: Pod, v: Volume, kind: BuiltInKind | "hostPath"): Promise<void> {
    const uid = pod.metadata?.uid ?? "";
    switch (kind) {
      case "hostPath":
        await checkHostPathType(v.hostPath?.path ?? "", v.hostPath?.type ?? "");
        return;
      case "emptyDir": {
        const dir = podVolumeDir(this.o.rootDir, uid, "emptyDir", v.name);
        const medium = v.emptyDir?.medium ?? "";
        if (medium !== "" && medium !== "Memory") throw new Error(`unknown storage medium ${JSON.stringify(medium)}`);
        await mkdirAll(dir, 0o777);
        if (medium === "Memory" && this.tmpfs) {
          if (!(await this.tmpfs.isMountPoint(dir))) {
            const size = emptyDirMemorySizeBytes(pod, v.emptyDir?.sizeLimit, BigInt(Math.floor(this.node.memoryBytes)), this.o.sizeMemoryBackedVolumes ?? true);
            await this.tmpfs.mount(dir, size !== undefined ? Number(size) : undefined);
            this.o.log?.(`mounted tmpfs for emptyDir ${v.name} of pod ${uid} at ${dir}`);
          }
        } else if (medium === "Memory") {
          this.o.log?.(`emptyDir ${v.name} of pod ${uid}: medium Memory needs root to mount a tmpfs; using a plain directory`);
        }
        if ((await stat(dir)).mode & 0o2000) return;
        await chmod(dir, 0o777);
        return;
      }
      case "downwardAPI": {
        const src = v.downwardAPI ?? {};
        const defaultMode = src.defaultMode ?? defaultFileMode;
        const files: VolumeFile[] = (src.items ?? []).map((it) => ({ path: it.path, data: downwardAPIFileContent(pod, it, this.node), mode: it.mode ?? defaultMode }));
        await writeVolumeFilesAtomically(podVolumeDir(this.o.rootDir, uid, "downwardAPI", v.name), files, this.written);
        return;
      }
      case "projected":
        await writeAtomically(podVolumeDir(this.o.rootDir, uid, "projected", v.name), await this.projectedPayload(pod, v), this.written);
        return;
      case "configMap": {
        const src = v.configMap ?? {};
        const optional = src.optional === true;
        const cm = await this.fetch("configMap", pod, v.name, src.name ?? "", optional);
        await writeAtomically(podVolumeDir(this.o.rootDir, uid, "configMap", v.name), configMapPayload(src.items, cm, src.defaultMode ?? defaultFileMode, optional), this.written);
        return;
      }
      case "secret": {
        const src = v.secret ?? {};
        const optional = src.optional === true;
        const secret = await this.fetch("secret", pod, v.name, src.secretName ?? "", optional);
        await writeAtomically(podVolumeDir(this.o.rootDir, uid, "secret", v.name), secretPayload(src.items, secret, src.defaultMode ?? defaultFileMode, optional), this.written);
        return;
      }
    }
  }

  // The object of a configMap/secret volume or projection; `{}` when it is optional and absent.
  private async fetch(kind: "configMap" | "secret", pod: Pod, volumeName: string, name: string, optional: boolean): Promise<{ data?: Record<string, string>; binaryData?: Record<string, string> }> {
    const objects = this.o.objects;
    if (!objects) throw new VolumePayloadError(`cannot setup ${kind} volume ${volumeName} because kube client is not configured`, "NoClient");
    const ns = pod.metadata?.namespace ?? "";
    const t0 = agentTracer.now();
    try {
      return kind === "configMap" ? await objects.configMaps.get(ns, name) : await objects.secrets.get(ns, name);
    } catch (err) {
      if (isNotFound(err) && optional) return {};
      throw err;
    } finally {
      agentTracer.record(`volume-${kind}`, t0, agentTracer.now(), { uid: pod.metadata?.uid ?? "" });
    }
  }

  // projected: every source's files in one payload; the failures of all sources aggregated.
  // @see pkg/volume/projected/projected.go (collectData) in kubernetes/kubernetes v1.23
  private async projectedPayload(pod: Pod, v: Volume): Promise<Map<string, FileProjection>> {
    const src = v.projected ?? {};
    const defaultMode = src.defaultMode ?? defaultFileMode;
    const payload = new Map<string, FileProjection>();
    const errors: string[] = [];
    const sources = src.sources ?? [];
    if (!this.o.objects && sources.some((s) => s.configMap || s.secret || s.serviceAccountToken)) {
      throw new VolumePayloadError(`cannot setup projected volume ${v.name} because kube client is not configured`, "NoClient");
    }
    for (const s of sources) {
      try {
        if (s.secret) {
          const optional = s.secret.optional === true;
          const secret = await this.fetch("secret", pod, v.name, s.secret.name ?? "", optional);
          for (const [k, f] of secretPayload(s.secret.items, secret, defaultMode, optional)) payload.set(k, f);
        } else if (s.configMap) {
          const optional = s.configMap.optional === true;
          const cm = await this.fetch("configMap", pod, v.name, s.configMap.name ?? "", optional);
          for (const [k, f] of configMapPayload(s.configMap.items, cm, defaultMode, optional)) payload.set(k, f);
        } else if (s.downwardAPI) {
          const files = new Map<string, FileProjection>();
          for (const it of s.downwardAPI.items ?? []) files.set(it.path, { data: downwardAPIFileContent(pod, it, this.node), mode: it.mode ?? defaultMode });
          for (const [k, f] of files) payload.set(k, f);
        } else if (s.serviceAccountToken) {
          const tokens = this.o.objects?.serviceAccountTokens;
          if (!tokens) throw new VolumePayloadError("failed to fetch token: this node agent has no service-account token manager", "Unsupported");
          const tp = s.serviceAccountToken;
          const tt = agentTracer.now();
          const tr = await tokens.get(pod.metadata?.namespace ?? "", pod.spec?.serviceAccountName ?? "", {
            audiences: tp.audience ? [tp.audience] : [],
            ...(tp.expirationSeconds !== undefined ? { expirationSeconds: tp.expirationSeconds } : {}),
            boundObjectRef: { apiVersion: "v1", kind: "Pod", name: pod.metadata?.name ?? "", uid: pod.metadata?.uid ?? "" },
          });
          agentTracer.record("volume-token", tt, agentTracer.now(), { uid: pod.metadata?.uid ?? "" });
          // 1.23: 0600 when the volume is given to an fsGroup (the token is then group-readable only through it).
          payload.set(tp.path, { data: tr.status.token, mode: pod.spec?.securityContext?.fsGroup !== undefined ? 0o600 : defaultMode });
        }
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
    }
    if (errors.length > 0) throw new Error(formatAggregate(errors));
    return payload;
  }

  /**
   * The CRI mounts of `container`'s volumeMounts: the volume's host directory (or hostPath), with
   * `subPath` (or `subPathExpr` expanded from the container's literal env) appended and created
   * inside the volume when missing; `readOnly` and `mountPropagation` passed through. Mounts of
   * volumes handled by `extra` come from it. A subPath containing `..` is skipped.
   * @see pkg/kubelet/kubelet_pods.go (makeMounts) in kubernetes/kubernetes v1.23
   */
  mounts(pod: Pod, container: Container): Mount[] {
    const uid = pod.metadata?.uid ?? "";
    const byName = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
    const env = new Map<string, string>();
    for (const e of container.env ?? []) if (e.value !== undefined) env.set(e.name, expandVars(e.value, (n) => env.get(n)));
    const out: Mount[] = [];
    for (const vm of container.volumeMounts ?? []) {
      const v = byName.get(vm.name);
      if (!v) continue;
      const kind = builtInKind(v);
      if (!kind) continue;
      const base = kind === "hostPath" ? (v.hostPath?.path ?? "") : podVolumeDir(this.o.rootDir, uid, kind, v.name);
      const sub = vm.subPathExpr ? expandVars(vm.subPathExpr, (n) => env.get(n)) : (vm.subPath ?? "");
      if (sub.split("/").includes("..") || sub.startsWith("/")) continue;
      let hostPath = base;
      if (sub !== "") {
        hostPath = join(base, sub);
        try {
          statSync(hostPath);
        } catch {
          try {
            mkdirSync(hostPath, { recursive: true, mode: statSync(base).mode & 0o7777 });
          } catch {
            // The runtime reports the missing source when it creates the container.
          }
        }
      }
      const readonly = vm.readOnly === true || kind === "downwardAPI" || kind === "projected" || kind === "configMap" || kind === "secret";
      out.push({ containerPath: vm.mountPath, hostPath, readonly, propagation: propagationOf(vm) });
    }
    const extra = this.o.extra?.mounts(pod, container) ?? [];
    return [...out, ...extra];
  }

  /**
   * Removes the pod's built-in volume directories (unmounting the tmpfs of memory-backed emptyDirs
   * first), then runs the extra hooks. Never throws for a missing directory.
   */
  async tearDown(pod: Pod): Promise<void> {
    const uid = pod.metadata?.uid ?? "";
    this.o.objects?.serviceAccountTokens?.deleteForPod(uid);
    const podDir = join(this.o.rootDir, "pods", uid);
    this.written.forgetUnder(podDir);
    const volumesDir = join(podDir, "volumes");
    // Only the plugin folders that exist: one readdir instead of one per built-in kind.
    const present = new Set(await readdir(volumesDir).catch(() => [] as string[]));
    for (const kind of Object.keys(volumePluginDirs) as BuiltInKind[]) {
      if (!present.has(volumePluginDirs[kind])) continue;
      const pluginDir = join(volumesDir, volumePluginDirs[kind]);
      const names = await readdir(pluginDir).catch(() => [] as string[]);
      for (const name of names) {
        const dir = join(pluginDir, name);
        // setUp mounts a tmpfs only for an emptyDir of medium Memory.
        if (kind === "emptyDir" && this.tmpfs && (await this.tmpfs.isMountPoint(dir))) {
          try {
            await this.tmpfs.unmount(dir);
          } catch (err) {
            this.o.log?.(`failed to unmount ${dir}: ${err instanceof Error ? err.message : String(err)}`);
            continue;
          }
        }
        await rm(dir, { recursive: true, force: true });
      }
      await rmdir(pluginDir).catch(() => undefined);
    }
    try {
      await this.o.extra?.tearDown(pod);
    } finally {
      await rmdir(volumesDir).catch(() => undefined);
      await rmdir(podDir).catch(() => undefined);
    }
  }
}
