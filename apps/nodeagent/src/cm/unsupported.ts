/** The configuration fields {@link unsupportedSettings} reads (flag names in the messages). */
export interface UnsupportedSettingsInput {
  readonly runtimeCgroups: string;
  readonly systemCgroups: string;
}

/**
 * The accepted settings the node agent cannot honour yet, one clear message each; start-up
 * refuses them instead of ignoring them. Empty when everything asked for is enforced.
 * Does not mutate its input.
 */
export function unsupportedSettings(c: UnsupportedSettingsInput): string[] {
  const out: string[] = [];
  const cgroupFlags: Array<[string, string]> = [
    // 1.23 uses --runtime-cgroups for a remote runtime's stats only (the node agent serves no
    // summary stats), and --system-cgroups moves every non-kernel process of the host.
    ["--runtime-cgroups", c.runtimeCgroups],
    ["--system-cgroups", c.systemCgroups],
  ];
  for (const [flag, value] of cgroupFlags) if (value !== "") out.push(`${flag}=${value} is not supported by skiff nodeagent; leave it unset`);
  return out;
}
