import { createHash } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Container, CSIDriver, CSIVolumeSource, Pod } from "@skiff/api-types";
import { CSIEphemeralKey, CSIPodNameKey, CSIPodNamespaceKey, CSIPodUIDKey } from "@skiff/api-types";
import type { Mount } from "@skiff/cri-api";
import { createCsiClient } from "./csi-client.js";
import type { RegisteredCsiDriver } from "./plugin-manager.js";
import { mkdirAll } from "../internal/mkdir-all.js";
import { csiSupportsFSGroup, setVolumeOwnership } from "../pods/volume-ownership.js";

/**
 * Volume-context key: the pod's service account name (with `podInfoOnMount`).
 * @see pkg/volume/csi/csi_mounter.go (podInfo) in kubernetes/kubernetes v1.23
 */
export const CSIServiceAccountNameKey = "csi.storage.example.io/serviceAccount.name";

/** The plugin directory name of CSI volumes under a pod's `volumes/`. */
export const csiPluginDirName = "kubernetes.io~csi";

/**
 * The volume handle of an inline ephemeral CSI volume: `csi-` + hex SHA-256 of pod UID followed by
 * the volume name. Pure; stable across restarts.
 * @see pkg/volume/csi/csi_plugin.go (makeVolumeHandle) in kubernetes/kubernetes v1.23
 */
export function csiVolumeHandle(podUID: string, volumeName: string): string {
  return `csi-${createHash("sha256").update(`${podUID}${volumeName}`).digest("hex")}`;
}

/**
 * The NodePublishVolume target path of a pod's CSI volume:
 * `<rootDir>/pods/<podUID>/volumes/kubernetes.io~csi/<volumeName>/mount`.
 * @see pkg/volume/csi/csi_mounter.go (GetPath) in kubernetes/kubernetes v1.23
 */
export function csiVolumeTargetPath(rootDir: string, podUID: string, volumeName: string): string {
  return join(rootDir, "pods", podUID, "volumes", csiPluginDirName, volumeName, "mount");
}

/**
 * The `volume_context` of an inline volume: its `volumeAttributes`, plus, when the driver's
 * CSIDriver sets `podInfoOnMount`, `csi.storage.example.io/pod.name`, `pod.namespace`, `pod.uid`,
 * `serviceAccount.name` and `ephemeral: "true"` (these win over attributes of the same name). Pure.
 * @see pkg/volume/csi/csi_mounter.go (SetUpAt, podInfo) in kubernetes/kubernetes v1.23
 */
export function buildVolumeContext(pod: Pod, source: CSIVolumeSource, csiDriver: CSIDriver | undefined): Record<string, string> {
  const ctx: Record<string, string> = { ...(source.volumeAttributes ?? {}) };
  if (csiDriver?.spec.podInfoOnMount === true) {
    ctx[CSIPodNameKey] = pod.metadata?.name ?? "";
    ctx[CSIPodNamespaceKey] = pod.metadata?.namespace ?? "";
    ctx[CSIPodUIDKey] = pod.metadata?.uid ?? "";
    ctx[CSIServiceAccountNameKey] = pod.spec?.serviceAccountName ?? "";
    ctx[CSIEphemeralKey] = "true";
  }
  return ctx;
}

/** Why a CSI volume could not be set up or torn down. */
export type CsiVolumeErrorReason = "DriverNotRegistered" | "NotSupported" | "PublishFailed" | "UnpublishFailed";

/** A failed CSI volume operation; `message` is what the pod's status and the FailedMount event show. */
export class CsiVolumeError extends Error {
  override readonly name = "CsiVolumeError";
  constructor(
    readonly reason: CsiVolumeErrorReason,
    message: string,
  ) {
    super(message);
  }
}

/** An event the volume manager wants recorded on a pod (API-server mode passes its recorder). */
export type PodEventSink = (pod: Pod, type: "Normal" | "Warning", reason: string, message: string) => void;

/** What {@link CsiVolumeManager} needs. */
export interface CsiVolumeManagerOptions {
  /** `--root-dir`: volumes live under `<rootDir>/pods/<uid>/volumes/`. */
  readonly rootDir: string;
  /** The registered driver of a name (the plugin manager's `driver`). */
  readonly driver: (name: string) => RegisteredCsiDriver | undefined;
  /**
   * The CSIDriver object of a name, `undefined` when none exists (API-server mode: through the
   * client). Without it every driver is treated as having no CSIDriver (no pod info, no republish).
   */
  readonly getCSIDriver?: (name: string) => Promise<CSIDriver | undefined>;
  /** Deadline of each CSI call, in ms. @defaultValue 10_000 */
  readonly csiTimeoutMs?: number;
  /** Log sink. @defaultValue discards */
  readonly log?: (message: string) => void;
  /** Event sink (FailedMount warnings). @defaultValue discards */
  readonly onEvent?: PodEventSink;
}

interface Published {
  readonly driver: string;
  readonly volumeId: string;
  readonly targetPath: string;
  readonly requiresRepublish: boolean;
}

function csiVolumes(pod: Pod): Array<{ name: string; csi: CSIVolumeSource }> {
  return (pod.spec?.volumes ?? []).flatMap((v) => (v.csi ? [{ name: v.name, csi: v.csi }] : []));
}

/**
 * The pod runtime's CSI volume hooks for inline ephemeral volumes (`volumes[].csi`): before the
 * containers start, {@link setUp} publishes each volume (NodePublishVolume at
 * {@link csiVolumeTargetPath}, volume id {@link csiVolumeHandle}); on later syncs it publishes
 * again only for drivers whose CSIDriver sets `requiresRepublish`; {@link tearDown}
 * unpublishes on pod removal; {@link mounts} gives the CRI mounts of a container's volumeMounts.
 * A CSIDriver with `tokenRequests` is refused with a NotSupported error (no TokenRequest API is
 * served).
 * @see pkg/volume/csi/csi_mounter.go, pkg/volume/csi/csi_plugin.go and
 *   pkg/kubelet/volumemanager/reconciler/reconciler.go in kubernetes/kubernetes v1.23
 */
export class CsiVolumeManager {
  private readonly published = new Map<string, Map<string, Published>>();

  constructor(private readonly o: CsiVolumeManagerOptions) {}

  /** True when `pod` has at least one CSI volume. */
  static hasCsiVolumes(pod: Pod): boolean {
    return csiVolumes(pod).length > 0;
  }

  /**
   * Publishes the pod's CSI volumes that are not published yet (and republishes those whose driver
   * asks for it). Idempotent per pod.
   * @throws CsiVolumeError on the first volume that fails (a FailedMount event is emitted too).
   */
  async setUp(pod: Pod): Promise<void> {
    const uid = pod.metadata?.uid ?? "";
    const vols = csiVolumes(pod);
    if (vols.length === 0) return;
    let done = this.published.get(uid);
    if (!done) {
      done = new Map();
      this.published.set(uid, done);
    }
    for (const v of vols) {
      const prev = done.get(v.name);
      if (prev && !prev.requiresRepublish) continue;
      try {
        done.set(v.name, await this.publish(pod, v.name, v.csi));
      } catch (err) {
        const message = `MountVolume.SetUp failed for volume "${v.name}" : ${err instanceof Error ? err.message : String(err)}`;
        this.o.onEvent?.(pod, "Warning", "FailedMount", message);
        this.o.log?.(`pod ${pod.metadata?.namespace}/${pod.metadata?.name}: ${message}`);
        throw new CsiVolumeError(err instanceof CsiVolumeError ? err.reason : "PublishFailed", message);
      }
    }
  }

  private async publish(pod: Pod, volumeName: string, source: CSIVolumeSource): Promise<Published> {
    const uid = pod.metadata?.uid ?? "";
    const driver = this.o.driver(source.driver);
    if (!driver) throw new CsiVolumeError("DriverNotRegistered", `csi: mounter.SetUpAt failed to get CSI client: driver name ${source.driver} not found in the list of registered CSI drivers`);
    const csiDriver = this.o.getCSIDriver ? await this.o.getCSIDriver(source.driver) : undefined;
    if ((csiDriver?.spec.tokenRequests ?? []).length > 0) {
      throw new CsiVolumeError(
        "NotSupported",
        `NotSupported: CSIDriver "${source.driver}" sets tokenRequests, but this node agent cannot pass service account tokens (${"csi.storage.example.io/serviceAccount.tokens"}): no TokenRequest API is served`,
      );
    }
    const modes = csiDriver?.spec.volumeLifecycleModes;
    if (csiDriver && !(modes ?? ["Persistent"]).includes("Ephemeral")) {
      throw new CsiVolumeError("NotSupported", `volume mode "Ephemeral" not supported by driver ${source.driver} (only supports ${JSON.stringify(modes ?? ["Persistent"])})`);
    }
    const volumeId = csiVolumeHandle(uid, volumeName);
    const targetPath = csiVolumeTargetPath(this.o.rootDir, uid, volumeName);
    await mkdirAll(targetPath, 0o750);
    await writeFile(
      join(dirname(targetPath), "vol_data.json"),
      JSON.stringify({ driverName: source.driver, volumeHandle: volumeId, specVolID: volumeName, volumeLifecycleMode: "Ephemeral" }),
    );
    const csi = createCsiClient(driver.endpoint, this.o.csiTimeoutMs ?? 10_000);
    try {
      await csi.nodePublishVolume({
        volumeId,
        targetPath,
        volumeCapability: { mount: { fsType: source.fsType ?? "", mountFlags: [] }, accessMode: { mode: "SINGLE_NODE_WRITER" } },
        readonly: source.readOnly === true,
        volumeContext: buildVolumeContext(pod, source, csiDriver),
      });
    } catch (err) {
      throw new CsiVolumeError("PublishFailed", `rpc error: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      csi.close();
    }
    const fsGroup = pod.spec?.securityContext?.fsGroup;
    if (csiSupportsFSGroup(fsGroup, csiDriver?.spec.fsGroupPolicy, source.readOnly === true, source.fsType ?? "")) {
      await setVolumeOwnership(targetPath, fsGroup, { readOnly: false, fsGroupChangePolicy: pod.spec?.securityContext?.fsGroupChangePolicy, ...(this.o.log ? { log: this.o.log } : {}) });
    }
    this.o.log?.(`published CSI volume ${volumeName} (${volumeId}) of pod ${pod.metadata?.namespace}/${pod.metadata?.name} at ${targetPath}`);
    return { driver: source.driver, volumeId, targetPath, requiresRepublish: csiDriver?.spec.requiresRepublish === true };
  }

  /**
   * Unpublishes the pod's CSI volumes (those published by this process and, after a restart,
   * those named in the spec) and removes their directories. A driver that is gone is logged and
   * skipped, so pod removal is never blocked.
   */
  async tearDown(pod: Pod): Promise<void> {
    const uid = pod.metadata?.uid ?? "";
    const known = this.published.get(uid) ?? new Map<string, Published>();
    for (const v of csiVolumes(pod)) {
      if (!known.has(v.name)) known.set(v.name, { driver: v.csi.driver, volumeId: csiVolumeHandle(uid, v.name), targetPath: csiVolumeTargetPath(this.o.rootDir, uid, v.name), requiresRepublish: false });
    }
    for (const [name, p] of known) {
      const driver = this.o.driver(p.driver);
      if (!driver) {
        this.o.log?.(`cannot unpublish CSI volume ${name} of pod ${uid}: driver ${p.driver} is not registered`);
      } else {
        const csi = createCsiClient(driver.endpoint, this.o.csiTimeoutMs ?? 10_000);
        try {
          await csi.nodeUnpublishVolume(p.volumeId, p.targetPath);
          this.o.log?.(`unpublished CSI volume ${name} (${p.volumeId}) of pod ${uid}`);
        } catch (err) {
          this.o.log?.(`NodeUnpublishVolume of ${name} (${p.volumeId}) of pod ${uid} failed: ${err instanceof Error ? err.message : String(err)}`);
        } finally {
          csi.close();
        }
      }
      await rm(dirname(p.targetPath), { recursive: true, force: true });
    }
    this.published.delete(uid);
  }

  /** The CRI mounts of `container`'s volumeMounts that refer to CSI volumes of `pod` (subPath appended). */
  mounts(pod: Pod, container: Container): Mount[] {
    const uid = pod.metadata?.uid ?? "";
    const byName = new Map(csiVolumes(pod).map((v) => [v.name, v.csi]));
    const out: Mount[] = [];
    for (const vm of container.volumeMounts ?? []) {
      const src = byName.get(vm.name);
      // A subPath leaving the volume is refused by API validation; never mount one from here.
      if (!src || (vm.subPath ?? "").split("/").includes("..")) continue;
      const base = csiVolumeTargetPath(this.o.rootDir, uid, vm.name);
      out.push({ containerPath: vm.mountPath, hostPath: vm.subPath ? join(base, vm.subPath) : base, readonly: vm.readOnly === true || src.readOnly === true });
    }
    return out;
  }
}
