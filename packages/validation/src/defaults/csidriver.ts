import type { CSIDriver } from "@skiff/api-types";

/**
 * Applies the CSIDriver defaults, mutating `driver` in place: `spec.attachRequired` → `true`,
 * `spec.podInfoOnMount` → `false`, `spec.requiresRepublish` → `false`, `spec.storageCapacity` →
 * `false`, `spec.fsGroupPolicy` → `"ReadWriteOnceWithFSType"`, and an unset or empty
 * `spec.volumeLifecycleModes` → `["Persistent"]`. Set fields are kept. An absent `spec` is left
 * absent. Idempotent.
 *
 * In 1.23 four of these are gated (CSIStorageCapacity, CSIVolumeFSGroupPolicy, CSIInlineVolume,
 * CSIServiceAccountToken), but every one of those gates is on (beta or GA) in 1.23 and the spec
 * states these defaults unconditionally, so they are applied unconditionally here.
 *
 * @see pkg/apis/storage/v1/defaults.go `SetDefaults_CSIDriver` (kubernetes/kubernetes, 1.23)
 */
export function setCSIDriverDefaults(driver: CSIDriver): void {
  const spec = driver.spec;
  if (!spec) return;
  if (spec.attachRequired === undefined) spec.attachRequired = true;
  if (spec.podInfoOnMount === undefined) spec.podInfoOnMount = false;
  if (spec.storageCapacity === undefined) spec.storageCapacity = false;
  if (spec.fsGroupPolicy === undefined) spec.fsGroupPolicy = "ReadWriteOnceWithFSType";
  if (spec.volumeLifecycleModes === undefined || spec.volumeLifecycleModes.length === 0) {
    spec.volumeLifecycleModes = ["Persistent"];
  }
  if (spec.requiresRepublish === undefined) spec.requiresRepublish = false;
}
