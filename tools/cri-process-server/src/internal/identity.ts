import type { LinuxContainerSecurityContext__Output, LinuxPodSandboxConfig__Output } from "@skiff/cri-api";

/** The user a container's process runs as, and no_new_privs: what a plain process can get. */
export interface ProcessIdentity {
  /** Unset: the server's own uid. */
  readonly uid?: number;
  /** Unset with `uid` set: 0 (as containerd for a user missing from the image's /etc/passwd). */
  readonly gid?: number;
  readonly groups: readonly number[];
  readonly noNewPrivs: boolean;
}

/** A container's identity, the security settings it asks for that a plain process cannot get, or why it cannot run. */
export interface IdentityResult {
  readonly identity: ProcessIdentity;
  /** Asked for but not applied (logged by the server): `capabilities`, `privileged`, `readonly_rootfs`, `seccomp`, `apparmor`, `selinux_options`. */
  readonly notApplied: readonly string[];
  /** Set when the container must be refused (InvalidArgument / FailedPrecondition text). */
  readonly error?: string;
}

function int(v: string | number | { toString(): string } | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v.toString());
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Reads what the process runtime applies from a container's CRI security context: run_as_user,
 * run_as_group, supplemental_groups and no_new_privs (through util-linux `setpriv`). A user and
 * group equal to the server's own (`server`) change nothing. A run_as_username is refused (images
 * are records here, with no /etc/passwd), and so is any change of user or groups when the server
 * is not root. Pure.
 */
export function identityOf(sc: LinuxContainerSecurityContext__Output | null | undefined, server: { uid: number; gid: number }): IdentityResult {
  const uid = sc?.runAsUser ? int(sc.runAsUser.value) : undefined;
  const gid = sc?.runAsGroup ? int(sc.runAsGroup.value) : undefined;
  const groups = (sc?.supplementalGroups ?? []).map((g) => int(g)).filter((g): g is number => g !== undefined);
  const changes = (uid !== undefined && uid !== server.uid) || (gid !== undefined && gid !== server.gid) || groups.length > 0;
  const noNewPrivs = sc?.noNewPrivs === true;
  const identity: ProcessIdentity = changes ? { ...(uid !== undefined ? { uid } : {}), ...(gid !== undefined ? { gid } : {}), groups, noNewPrivs } : { groups: [], noNewPrivs };
  const notApplied: string[] = [];
  if ((sc?.capabilities?.addCapabilities.length ?? 0) > 0 || (sc?.capabilities?.dropCapabilities.length ?? 0) > 0) notApplied.push("capabilities");
  if (sc?.privileged === true) notApplied.push("privileged");
  if (sc?.readonlyRootfs === true) notApplied.push("readonly_rootfs");
  const seccomp = sc?.seccomp?.profileType;
  if ((seccomp !== undefined && seccomp !== "Unconfined") || (sc?.seccompProfilePath !== undefined && sc.seccompProfilePath !== "" && sc.seccompProfilePath !== "unconfined")) notApplied.push("seccomp");
  if (sc?.apparmorProfile || (sc?.apparmor?.profileType !== undefined && sc.apparmor.profileType !== "Unconfined")) notApplied.push("apparmor");
  if (sc?.selinuxOptions && (sc.selinuxOptions.user || sc.selinuxOptions.role || sc.selinuxOptions.type || sc.selinuxOptions.level)) notApplied.push("selinux_options");
  if (sc?.runAsUsername) {
    return { identity, notApplied, error: `run_as_username ${JSON.stringify(sc.runAsUsername)} is not supported by the process runtime (images have no /etc/passwd here): set run_as_user` };
  }
  if (changes && server.uid !== 0) {
    const asked = `run_as_user ${uid ?? "-"}, run_as_group ${gid ?? "-"}, supplemental_groups [${groups.join(" ")}]`;
    return { identity, notApplied, error: `changing the user or groups (${asked}) needs the process runtime to run as root (it runs as uid ${server.uid})` };
  }
  return { identity, notApplied };
}

/** The sandbox settings a plain process cannot get (`sysctls`), for the server's log. Pure. */
export function sandboxNotApplied(linux: LinuxPodSandboxConfig__Output | null | undefined): string[] {
  return Object.keys(linux?.sysctls ?? {}).length > 0 ? ["sysctls"] : [];
}

/**
 * `argv` wrapped in `setpriv` so it runs with `identity`: `--reuid`, `--regid` (0 when only a uid
 * is given), `--groups` (or `--clear-groups`) and `--no-new-privs`; `argv` itself when there is
 * nothing to change. Pure.
 */
export function wrapWithIdentity(argv: readonly string[], identity: ProcessIdentity): string[] {
  const changes = identity.uid !== undefined || identity.gid !== undefined || identity.groups.length > 0;
  if (!changes && !identity.noNewPrivs) return [...argv];
  const opts: string[] = [];
  if (changes) {
    if (identity.uid !== undefined) opts.push(`--reuid=${identity.uid}`);
    if (identity.gid !== undefined || identity.uid !== undefined) opts.push(`--regid=${identity.gid ?? 0}`);
    // Only groups asked for: the user and its group stay the server's.
    opts.push(identity.groups.length > 0 ? `--groups=${identity.groups.join(",")}` : "--clear-groups");
  }
  if (identity.noNewPrivs) opts.push("--no-new-privs");
  return ["setpriv", ...opts, "--", ...argv];
}
