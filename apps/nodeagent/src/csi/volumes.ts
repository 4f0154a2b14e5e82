import { createHash } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Container, CSIDriver, CSIVolumeSource, Pod, Volume } from "@skiff/api-types";
import { CSIEphemeralKey, CSIPodNameKey, CSIPodNamespaceKey, CSIPodUIDKey, CSIServiceAccountTokensKey } from "@skiff/api-types";
import type { TokenRequest, TokenRequestSpec } from "@skiff/client";
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

/**
 * Requests (or answers from its cache) a token for the service account `namespace`/`name`: the
 * node agent's service-account token manager (`ServiceAccountTokenManager.get`), which requests
 * anew past 80 % of a token's lifetime.
 */
export type GetServiceAccountToken = (namespace: string, name: string, spec: TokenRequestSpec) => Promise<TokenRequest>;

/**
 * The volume-context entries of the service-account tokens `csiDriver` asks for: `{}` without
 * `tokenRequests`, else `{"csi.storage.example.io/serviceAccount.tokens": JSON}` where the JSON maps
 * each audience to `{"token": <JWT>, "expirationTimestamp": <RFC 3339>}` (keys sorted, as Go
 * marshals a map). Each token is requested for the pod's service account, bound to the pod (name
 * and uid), with the entry's `expirationSeconds` (the apiserver's default when unset) and the
 * audience (an empty audience requests the apiserver's own audiences). Does not mutate its inputs.
 * @throws the token getter's error (e.g. `failed to fetch token: ...`) for the first failed request.
 * @see pkg/volume/csi/csi_mounter.go (podServiceAccountTokenAttrs) in kubernetes/kubernetes v1.23
 */
export async function podServiceAccountTokenAttrs(pod: Pod, csiDriver: CSIDriver | undefined, getToken: GetServiceAccountToken): Promise<Record<string, string>> {
  const requests = csiDriver?.spec.tokenRequests ?? [];
  if (requests.length === 0) return {};
  const outputs = new Map<string, { token: string; expirationTimestamp: string }>();
  for (const r of requests) {
    const tr = await getToken(pod.metadata?.namespace ?? "", pod.spec?.serviceAccountName ?? "", {
      audiences: r.audience === "" ? [] : [r.audience],
      ...(r.expirationSeconds !== undefined ? { expirationSeconds: r.expirationSeconds } : {}),
      boundObjectRef: { apiVersion: "v1", kind: "Pod", name: pod.metadata?.name ?? "", uid: pod.metadata?.uid ?? "" },
    });
    outputs.set(r.audience, { token: tr.status.token, expirationTimestamp: tr.status.expirationTimestamp });
  }
  const sorted = Object.fromEntries([...outputs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { [CSIServiceAccountTokensKey]: JSON.stringify(sorted) };
}

/** Why a CSI volume could not be set up or torn down. */
export type CsiVolumeErrorReason = "DriverNotRegistered" | "NotSupported" | "PublishFailed" | "UnpublishFailed" | "TokenRequestFailed";

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
  /**
   * The service-account token getter for drivers whose CSIDriver sets `tokenRequests` (API-server
   * mode: the token manager shared with projected `serviceAccountToken` volumes). Absent: such
   * volumes fail with `... failed to get service accoount token attributes: ServiceAccountTokenGetter is nil`.
   */
  readonly getServiceAccountToken?: GetServiceAccountToken;
  /** Deadline of each CSI call, in ms. @defaultValue 10_000 */
  readonly csiTimeoutMs?: number;
  /** Log sink. @defaultValue discards */
  readonly log?: (message: string) => void;
  /** Event sink (FailedMount warnings). @defaultValue discards */
  readonly onEvent?: PodEventSink;
  /** Gate CSIInlineVolume: false leaves inline `csi` volumes unsupported (they fail to mount). @defaultValue true */
  readonly inlineVolumes?: boolean;
  /**
   * Gate DelegateFSGroupToCSIDriver: a driver with the VOLUME_MOUNT_GROUP node capability gets the
   * pod's fsGroup as `volume_mount_group` and applies it itself (the agent does not chown).
   * @defaultValue true
   */
  readonly delegateFSGroupToCSIDriver?: boolean;
}

interface Published {
  readonly driver: string;
  readonly volumeId: string;
  readonly targetPath: string;
}

function csiVolumes(pod: Pod): Array<{ name: string; csi: CSIVolumeSource }> {
  return (pod.spec?.volumes ?? []).flatMap((v) => (v.csi ? [{ name: v.name, csi: v.csi }] : []));
}

/**
 * The pod runtime's CSI volume hooks for inline ephemeral volumes (`volumes[].csi`): before the
 * containers start, {@link setUp} publishes each volume (NodePublishVolume at
 * {@link csiVolumeTargetPath}, volume id {@link csiVolumeHandle}); on later syncs (every pod sync,
 * as 1.23's volume manager remounts at each `WaitForAttachAndMount`) it publishes again the
 * volumes whose CSIDriver sets `requiresRepublish` now; {@link tearDown} unpublishes on pod
 * removal; {@link mounts} gives the CRI mounts of a container's volumeMounts. A CSIDriver with
 * `tokenRequests` gets the pod's service-account tokens in the volume context
 * ({@link podServiceAccountTokenAttrs}); the token manager answers cached tokens until 80 % of
 * their lifetime, so a republishing driver receives fresh ones before expiry. A failed republish
 * records a FailedMount event and is logged; it does not hold the pod (the volume stays mounted).
 * @see pkg/volume/csi/csi_mounter.go, pkg/volume/csi/csi_plugin.go and
 *   pkg/kubelet/volumemanager/reconciler/reconciler.go in kubernetes/kubernetes v1.23
 */
export class CsiVolumeManager {
  private readonly published = new Map<string, Map<string, Published>>();

  constructor(private readonly o: CsiVolumeManagerOptions) {}

  /** Whether this manager mounts `v`: an inline `csi` volume, with the CSIInlineVolume gate on (1.23's csiPlugin.CanSupport). */
  canSupport(v: Volume): boolean {
    return v.csi !== undefined && this.o.inlineVolumes !== false;
  }

  /** True when `pod` has at least one CSI volume. */
  static hasCsiVolumes(pod: Pod): boolean {
    return csiVolumes(pod).length > 0;
  }

  /**
   * Publishes the pod's CSI volumes that are not published yet, and republishes the published ones
   * whose CSIDriver sets `requiresRepublish` now (call at every pod sync). Idempotent per pod.
   * @throws CsiVolumeError on the first volume whose first publish fails (a FailedMount event is
   *   emitted too). A failed republish throws nothing: it emits the FailedMount event and logs.
   */
  async setUp(pod: Pod): Promise<void> {
    const uid = pod.metadata?.uid ?? "";
    const vols = this.o.inlineVolumes === false ? [] : csiVolumes(pod);
    if (vols.length === 0) return;
    let done = this.published.get(uid);
    if (!done) {
      done = new Map();
      this.published.set(uid, done);
    }
    for (const v of vols) {
      const remount = done.has(v.name);
      let csiDriver: CSIDriver | undefined;
      if (remount) {
        // RequiresRemount: the CSIDriver as it is now; a failed lookup means no republish.
        try {
          csiDriver = await this.o.getCSIDriver?.(v.csi.driver);
        } catch (err) {
          this.o.log?.(`csi: Failed to mark ${JSON.stringify(v.name)} as republish required, err: ${err instanceof Error ? err.message : String(err)}`);
          continue;
        }
        if (csiDriver?.spec.requiresRepublish !== true) continue;
      } else {
        try {
          csiDriver = await this.o.getCSIDriver?.(v.csi.driver);
        } catch (err) {
          const cause = `csi: mounter.SetUpAt failed to assemble volume attributes: ${err instanceof Error ? err.message : String(err)}`;
          throw this.failed(pod, v.name, new CsiVolumeError("PublishFailed", cause));
        }
      }
      try {
        done.set(v.name, await this.publish(pod, v.name, v.csi, csiDriver, remount));
      } catch (err) {
        const failure = this.failed(pod, v.name, err);
        // A failed republish leaves the volume mounted (1.23 keeps it in the actual state of the
        // world): the event is the whole effect, the pod's sync goes on.
        if (!remount) throw failure;
      }
    }
  }

  private failed(pod: Pod, volumeName: string, err: unknown): CsiVolumeError {
    const message = `MountVolume.SetUp failed for volume "${volumeName}" : ${err instanceof Error ? err.message : String(err)}`;
    this.o.onEvent?.(pod, "Warning", "FailedMount", message);
    this.o.log?.(`pod ${pod.metadata?.namespace}/${pod.metadata?.name}: ${message}`);
    return new CsiVolumeError(err instanceof CsiVolumeError ? err.reason : "PublishFailed", message);
  }

  private async publish(pod: Pod, volumeName: string, source: CSIVolumeSource, csiDriver: CSIDriver | undefined, remount: boolean): Promise<Published> {
    const uid = pod.metadata?.uid ?? "";
    const driver = this.o.driver(source.driver);
    if (!driver) throw new CsiVolumeError("DriverNotRegistered", `csi: mounter.SetUpAt failed to get CSI client: driver name ${source.driver} not found in the list of registered CSI drivers`);
    const modes = csiDriver?.spec.volumeLifecycleModes;
    if (csiDriver && !(modes ?? ["Persistent"]).includes("Ephemeral")) {
      throw new CsiVolumeError("NotSupported", `volume mode "Ephemeral" not supported by driver ${source.driver} (only supports ${JSON.stringify(modes ?? ["Persistent"])})`);
    }
    const volumeContext = buildVolumeContext(pod, source, csiDriver);
    if ((csiDriver?.spec.tokenRequests ?? []).length > 0) {
      // 1.23's message, spelling included.
      const prefix = "csi: mounter.SetUpAt failed to get service accoount token attributes";
      const getToken = this.o.getServiceAccountToken;
      if (!getToken) throw new CsiVolumeError("TokenRequestFailed", `${prefix}: ServiceAccountTokenGetter is nil`);
      try {
        Object.assign(volumeContext, await podServiceAccountTokenAttrs(pod, csiDriver, getToken));
      } catch (err) {
        throw new CsiVolumeError("TokenRequestFailed", `${prefix}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const volumeId = csiVolumeHandle(uid, volumeName);
    const targetPath = csiVolumeTargetPath(this.o.rootDir, uid, volumeName);
    await mkdirAll(targetPath, 0o750);
    await writeFile(
      join(dirname(targetPath), "vol_data.json"),
      JSON.stringify({ driverName: source.driver, volumeHandle: volumeId, specVolID: volumeName, volumeLifecycleMode: "Ephemeral" }),
    );
    const csi = createCsiClient(driver.endpoint, this.o.csiTimeoutMs ?? 10_000);
    const fsGroup = pod.spec?.securityContext?.fsGroup;
    let driverAppliesFSGroup = false;
    try {
      if (this.o.delegateFSGroupToCSIDriver !== false) {
        try {
          driverAppliesFSGroup = (await csi.nodeGetCapabilities()).includes("VOLUME_MOUNT_GROUP");
        } catch (err) {
          throw new CsiVolumeError("PublishFailed", `csi: mounter.SetUpAt failed to determine if the node service has VOLUME_MOUNT_GROUP capability: rpc error: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      const volumeMountGroup = driverAppliesFSGroup && fsGroup !== undefined ? { volumeMountGroup: String(fsGroup) } : {};
      try {
        await csi.nodePublishVolume({
          volumeId,
          targetPath,
          volumeCapability: { mount: { fsType: source.fsType ?? "", mountFlags: [], ...volumeMountGroup }, accessMode: { mode: "SINGLE_NODE_WRITER" } },
          readonly: source.readOnly === true,
          volumeContext,
        });
      } catch (err) {
        throw new CsiVolumeError("PublishFailed", `rpc error: ${err instanceof Error ? err.message : String(err)}`);
      }
    } finally {
      csi.close();
    }
    // A driver with VOLUME_MOUNT_GROUP applied the fsGroup itself (1.23's DelegateFSGroupToCSIDriver).
    if (!driverAppliesFSGroup && csiSupportsFSGroup(fsGroup, csiDriver?.spec.fsGroupPolicy, source.readOnly === true, source.fsType ?? "")) {
      await setVolumeOwnership(targetPath, fsGroup, { readOnly: false, fsGroupChangePolicy: pod.spec?.securityContext?.fsGroupChangePolicy, ...(this.o.log ? { log: this.o.log } : {}) });
    }
    // Never the volume context: it may hold service-account tokens.
    const tokens = volumeContext[CSIServiceAccountTokensKey] !== undefined ? ` with service-account tokens for ${csiDriver?.spec.tokenRequests?.length ?? 0} audience(s)` : "";
    this.o.log?.(`${remount ? "republished" : "published"} CSI volume ${volumeName} (${volumeId}) of pod ${pod.metadata?.namespace}/${pod.metadata?.name} at ${targetPath}${tokens}`);
    return { driver: source.driver, volumeId, targetPath };
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
      if (!known.has(v.name)) known.set(v.name, { driver: v.csi.driver, volumeId: csiVolumeHandle(uid, v.name), targetPath: csiVolumeTargetPath(this.o.rootDir, uid, v.name) });
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
