/**
 * Options of pod validation, derived from feature gates and the old object by callers (validation
 * never reads a gate itself: STYLE.md §2).
 *
 * @see pkg/apis/core/validation/validation.go `PodValidationOptions`
 * @see pkg/api/pod/util.go `GetValidationOptionsFromPodSpecAndMeta`
 */

/**
 * Switches of pod validation. All fields are plain booleans; build one from
 * {@link defaultPodValidationOptions} and override what the gates or the old object require.
 */
export interface PodValidationOptions {
  /**
   * Allow `requests.hugepages-<size>` / `limits.hugepages-<size>` in downward-API
   * `resourceFieldRef`s (gate `DownwardAPIHugePages`, beta and on in 1.23; also true when the old
   * object already used them).
   * @defaultValue true
   */
  readonly allowDownwardAPIHugePages: boolean;
  /**
   * Accept a `controller.example.io/pod-deletion-cost` annotation that is not a 32-bit integer
   * (true when gate `PodDeletionCost` is off, or the old object already had an invalid value).
   * @defaultValue false
   */
  readonly allowInvalidPodDeletionCost?: boolean;
  /**
   * Accept hugepages quantities that are not a multiple of the page size (true only when the old
   * object already had such a value).
   * @defaultValue false
   */
  readonly allowIndivisibleHugePagesValues?: boolean;
  /**
   * Allow up to 32 DNS search paths of 2048 characters in total instead of 6 and 256 (gate
   * `ExpandedDNSConfig`, alpha in 1.23, or the old object already used more).
   * @defaultValue false
   */
  readonly allowExpandedDNSConfig?: boolean;
  /**
   * Allow containers with `securityContext.privileged: true` (kube-apiserver's
   * `--allow-privileged`). Skiff's node agent runs privileged containers, so the default is true.
   * @defaultValue true
   */
  readonly allowPrivileged?: boolean;
  /**
   * Allow `securityContext.windowsOptions.hostProcess` of the pod and its containers (gate
   * `WindowsHostProcessContainers`, beta and on in 1.23, or the old object already set it).
   * @defaultValue true
   */
  readonly allowWindowsHostProcessField?: boolean;
}

/**
 * The options for a cluster with 1.23's default gates and no old object: downward-API hugepages on,
 * pod-deletion-cost checked, hugepages values divisible, classic DNS limits, privileged and HostProcess
 * allowed.
 * Frozen; spread it to override: `{ ...defaultPodValidationOptions, allowExpandedDNSConfig: true }`.
 */
export const defaultPodValidationOptions: Readonly<Required<PodValidationOptions>> = Object.freeze({
  allowDownwardAPIHugePages: true,
  allowInvalidPodDeletionCost: false,
  allowIndivisibleHugePagesValues: false,
  allowExpandedDNSConfig: false,
  allowPrivileged: true,
  allowWindowsHostProcessField: true,
});
