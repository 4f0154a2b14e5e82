import { execFile } from "node:child_process";
import { mkdirSync, statSync } from "node:fs";
import { chmod, readdir, rm, rmdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Container, Pod, Volume, VolumeMount } from "@skiff/api-types";
import type { Mount } from "@skiff/cri-api";
import { parseQuantity, quantityValue } from "@skiff/flags";
import { expandVars } from "./expand.js";
import type { PodEventRecorder, PodVolumeHooks } from "./types.js";
import { setVolumeOwnership } from "./volume-ownership.js";
import { checkHostPathType, downwardAPIFileContent, machineAllocatable, writeVolumeFilesAtomically, type NodeAllocatable, type VolumeFile } from "./volumes-files.js";
import { mkdirAll } from "../internal/mkdir-all.js";

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
 * not-yet-started containers show (`ContainerCreating`, or `CreateContainerConfigError` for
 * configMap/secret volumes, whose kinds are not served here).
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

/** The real tmpfs mounter (`mount -t tmpfs`, `umount`); needs root. */
export const systemTmpfsMounter: TmpfsMounter = {
  async mount(dir, sizeBytes) {
    await run("mount", ["-t", "tmpfs", "-o", sizeBytes !== undefined && sizeBytes > 0 ? `size=${sizeBytes}` : "mode=0777", "tmpfs", dir]);
  },
  async unmount(dir) {
    await run("umount", [dir]);
  },
  async isMountPoint(dir) {
    const [a, b] = await Promise.all([stat(dir).catch(() => undefined), stat(join(dir, "..")).catch(() => undefined)]);
    return a !== undefined && b !== undefined && a.dev !== b.dev;
  },
};

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
  /** Node capacity for `resourceFieldRef` without a limit. @defaultValue the machine's */
  readonly nodeAllocatable?: NodeAllocatable;
}

const defaultFileMode = 0o644;

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

function aggregate(errors: string[]): string {
  return errors.length === 1 ? (errors[0] ?? "") : `[${errors.join(", ")}]`;
}

/**
 * The node agent's volume manager for the volume kinds the kubelet handles itself:
 * - `emptyDir`: a 0777 directory under {@link podVolumeDir}; `medium: Memory` is a tmpfs (size
 *   `sizeLimit`) when mounting is possible, else a plain directory (logged);
 * - `hostPath`: the node path after 1.23's type check (see `checkHostPathType`);
 * - `downwardAPI` and `projected` (downwardAPI sources): files written atomically
 *   (`..data` symlink), `defaultMode` 0644, per-item `mode`; rewritten when the pod's labels or
 *   annotations change;
 * - `configMap`/`secret` volumes and projected sources, and projected `serviceAccountToken`:
 *   those kinds are not served, so a non-optional one fails with the kubelet's wording
 *   (`configmap "x" not found`); optional ones are empty.
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

  constructor(private readonly o: PodVolumeManagerOptions) {
    this.tmpfs = o.tmpfs !== undefined ? o.tmpfs : process.getuid?.() === 0 ? systemTmpfsMounter : null;
    this.node = o.nodeAllocatable ?? machineAllocatable();
  }

  /**
   * Sets up every built-in volume of `pod` (idempotent; called at each sync), then the extra hooks.
   * @throws VolumeSetUpError naming the first failed volume (every failure gets its event).
   */
  async setUp(pod: Pod): Promise<void> {
    const failures: VolumeSetUpError[] = [];
    for (const v of pod.spec?.volumes ?? []) {
      const kind = builtInKind(v);
      if (!kind) continue;
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
        failures.push(new VolumeSetUpError(message, kind === "configMap" || kind === "secret" ? "CreateContainerConfigError" : "ContainerCreating"));
      }
    }
    const first = failures.find((f) => f.waitingReason === "CreateContainerConfigError") ?? failures[0];
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
            const size = v.emptyDir?.sizeLimit !== undefined ? parseQuantity(String(v.emptyDir.sizeLimit)) : undefined;
            await this.tmpfs.mount(dir, size?.ok ? Number(quantityValue(size.value)) : undefined);
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
        await writeVolumeFilesAtomically(podVolumeDir(this.o.rootDir, uid, "downwardAPI", v.name), files);
        return;
      }
      case "projected": {
        const src = v.projected ?? {};
        const defaultMode = src.defaultMode ?? defaultFileMode;
        const files: VolumeFile[] = [];
        const errors: string[] = [];
        for (const s of src.sources ?? []) {
          if (s.downwardAPI) {
            for (const it of s.downwardAPI.items ?? []) {
              try {
                files.push({ path: it.path, data: downwardAPIFileContent(pod, it, this.node), mode: it.mode ?? defaultMode });
              } catch (err) {
                errors.push(err instanceof Error ? err.message : String(err));
              }
            }
          } else if (s.configMap) {
            if (s.configMap.optional !== true) errors.push(`configmap ${JSON.stringify(s.configMap.name ?? "")} not found`);
          } else if (s.secret) {
            if (s.secret.optional !== true) errors.push(`secret ${JSON.stringify(s.secret.name ?? "")} not found`);
          } else if (s.serviceAccountToken) {
            errors.push(`failed to fetch token: the TokenRequest API (serviceaccounts/token) is not served to this node agent`);
          }
        }
        if (errors.length > 0) throw new Error(aggregate(errors));
        await writeVolumeFilesAtomically(podVolumeDir(this.o.rootDir, uid, "projected", v.name), files);
        return;
      }
      case "configMap":
        if (v.configMap?.optional !== true) throw new Error(`configmap ${JSON.stringify(v.configMap?.name ?? "")} not found`);
        await writeVolumeFilesAtomically(podVolumeDir(this.o.rootDir, uid, "configMap", v.name), []);
        return;
      case "secret":
        if (v.secret?.optional !== true) throw new Error(`secret ${JSON.stringify(v.secret?.secretName ?? "")} not found`);
        await writeVolumeFilesAtomically(podVolumeDir(this.o.rootDir, uid, "secret", v.name), []);
        return;
    }
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

  /** Removes the pod's built-in volume directories (unmounting tmpfs first), then runs the extra hooks. Never throws for a missing directory. */
  async tearDown(pod: Pod): Promise<void> {
    const uid = pod.metadata?.uid ?? "";
    const volumesDir = join(this.o.rootDir, "pods", uid, "volumes");
    for (const kind of Object.keys(volumePluginDirs) as BuiltInKind[]) {
      const pluginDir = join(volumesDir, volumePluginDirs[kind]);
      const names = await readdir(pluginDir).catch(() => [] as string[]);
      for (const name of names) {
        const dir = join(pluginDir, name);
        if (this.tmpfs && (await this.tmpfs.isMountPoint(dir))) {
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
      await rmdir(join(this.o.rootDir, "pods", uid)).catch(() => undefined);
    }
  }
}
