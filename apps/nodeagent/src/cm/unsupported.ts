/** The configuration fields {@link unsupportedSettings} reads (flag names in the messages). */
export type UnsupportedSettingsInput = Readonly<Record<string, unknown>>;

/**
 * The accepted settings of the container manager the node agent cannot honour, one clear
 * message each; start-up refuses them instead of ignoring them. Empty: `--runtime-cgroups`,
 * `--agent-cgroups`, `--system-cgroups` and the memory manager are all enforced now. Does not
 * mutate its input.
 */
export function unsupportedSettings(_c: UnsupportedSettingsInput): string[] {
  return [];
}
