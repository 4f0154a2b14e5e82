/** A parsed CSI spec version (major.minor.patch; missing parts are 0). */
export interface CsiVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

/**
 * Parses a version loosely, as apimachinery's `ParseGeneric`: optional leading `v`, at least
 * `major.minor`, anything after the numbers ignored. Returns `undefined` when unparsable.
 * @see staging/src/k8s.io/apimachinery/pkg/util/version/version.go (ParseGeneric)
 */
export function parseCsiVersion(text: string): CsiVersion | undefined {
  const m = /^\s*v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? "0") };
}

/** `major.minor.patch`. */
export function formatCsiVersion(v: CsiVersion): string {
  return `${v.major}.${v.minor}.${v.patch}`;
}

function less(a: CsiVersion, b: CsiVersion): boolean {
  return a.major !== b.major ? a.major < b.major : a.minor !== b.minor ? a.minor < b.minor : a.patch < b.patch;
}

/** The outcome of {@link validateCsiPluginVersions}. */
export type CsiVersionCheck = { readonly ok: true; readonly highest: CsiVersion } | { readonly ok: false; readonly error: string };

/**
 * Validates the `supported_versions` of a CSI plugin: at least one; versions with major > 1 are
 * ignored; the highest remaining one must be 1.x; a driver of the same name already registered
 * with an equal or higher version refuses the newcomer. Error texts follow 1.23's csi_plugin.go
 * (`kubernetes.io/csi:` renamed `csi:`).
 * @see pkg/volume/csi/csi_plugin.go (ValidatePlugin, validateVersions, highestSupportedVersion) in kubernetes/kubernetes v1.23
 */
export function validateCsiPluginVersions(pluginName: string, versions: readonly string[], registered?: CsiVersion): CsiVersionCheck {
  const prefix = `csi: RegistrationHandler.ValidatePlugin for CSI driver "${pluginName}" failed.`;
  if (versions.length === 0) return { ok: false, error: `${prefix} Plugin returned an empty list for supported versions` };
  let highest: CsiVersion | undefined;
  let parseError = "";
  for (const text of versions) {
    const v = parseCsiVersion(text);
    if (!v) {
      parseError = `could not parse "${text}" in version string`;
      continue;
    }
    if (v.major > 1) continue;
    if (!highest || less(highest, v)) highest = v;
  }
  const quoted = `[${versions.map((v) => `"${v}"`).join(" ")}]`;
  if (!highest) return { ok: false, error: `${prefix} None of the versions specified ${quoted} are supported. err=could not find suitable version: ${parseError || "none below 2.0"}` };
  if (highest.major < 1) {
    return { ok: false, error: `${prefix} None of the versions specified ${quoted} are supported. err=highest supported version reported by driver is ${formatCsiVersion(highest)}, must be v1.x` };
  }
  if (registered && !less(registered, highest)) {
    return { ok: false, error: `${prefix} Another driver with the same name is already registered with a higher supported version: "${formatCsiVersion(registered)}"` };
  }
  return { ok: true, highest };
}

/** Error texts reported back through NotifyRegistrationStatus, as 1.23's operation generator. */
export const registrationErrors = {
  /** A plugin type with no handler (anything but `CSIPlugin` here). */
  noHandler: (type: string, socketPath: string) => `RegisterPlugin error -- no handler registered for plugin type: ${type} at socket ${socketPath}`,
  /** Version validation failed. */
  validation: (err: string) => `RegisterPlugin error -- plugin validation failed with err: ${err}`,
  /** NodeGetInfo or the CSINode update failed. */
  registration: (err: string) => `RegisterPlugin error -- plugin registration failed with err: ${err}`,
} as const;
