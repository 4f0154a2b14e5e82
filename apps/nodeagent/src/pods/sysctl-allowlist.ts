import type { Pod } from "@skiff/api-types";

/** The Linux namespace a sysctl belongs to (`""` = not known to be namespaced). */
export type SysctlNamespace = "ipc" | "net" | "";

const namespacedSysctls: Readonly<Record<string, SysctlNamespace>> = { "kernel.sem": "ipc" };
const namespacedPrefixes: ReadonlyArray<readonly [string, SysctlNamespace]> = [
  ["kernel.shm", "ipc"],
  ["kernel.msg", "ipc"],
  ["fs.mqueue.", "ipc"],
  ["net.", "net"],
];

/**
 * The namespace of a sysctl name (or prefix): `kernel.sem`, `kernel.shm*`, `kernel.msg*`,
 * `fs.mqueue.*` are IPC, `net.*` network, anything else `""`. Pure.
 * @see pkg/kubelet/sysctl/namespace.go in kubernetes/kubernetes v1.23
 */
export function sysctlNamespaceOf(name: string): SysctlNamespace {
  const exact = namespacedSysctls[name];
  if (exact !== undefined) return exact;
  for (const [prefix, ns] of namespacedPrefixes) if (name.startsWith(prefix)) return ns;
  return "";
}

/**
 * The sysctls every pod may set ("safe": namespaced and isolated from the node).
 * @see pkg/kubelet/sysctl/safe_sysctls.go (SafeSysctlWhitelist) in kubernetes/kubernetes v1.23
 */
export const safeSysctls: readonly string[] = Object.freeze([
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_unprivileged_port_start",
]);

const sysctlMaxLength = 253;
const sysctlSegmentFmt = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?";
const sysctlPatternSegmentFmt = "([a-z0-9][-_a-z0-9]*)?[a-z0-9*]";
/** 1.23's `SysctlPatternFmt` (policy validation). */
export const sysctlPatternFmt = `(${sysctlSegmentFmt}\\.)*${sysctlPatternSegmentFmt}`;
const sysctlPatternRe = new RegExp(`^${sysctlPatternFmt}$`);

/** Why a pod was not admitted: the kubelet's admission reason and message. */
export interface PodAdmitRejection {
  readonly reason: string;
  readonly message: string;
}

/**
 * The kubelet's sysctl admission: the safe sysctls plus `--allowed-unsafe-sysctls` (exact names
 * or prefixes ending in `*`), each known to be namespaced. A pod whose `securityContext.sysctls`
 * has a name outside the list, or a network sysctl with hostNetwork / an IPC one with hostIPC, is
 * rejected with reason `SysctlForbidden` (`forbidden sysctl: "x" not whitelisted`).
 * @see pkg/kubelet/sysctl/whitelist.go in kubernetes/kubernetes v1.23
 * @example
 * ```ts
 * const allow = SysctlAllowlist.create(["kernel.msg*"]);   // throws on a bad pattern
 * allow.admit(pod);   // undefined, or { reason: "SysctlForbidden", message }
 * ```
 */
export class SysctlAllowlist {
  private constructor(
    private readonly sysctls: ReadonlyMap<string, SysctlNamespace>,
    private readonly prefixes: ReadonlyMap<string, SysctlNamespace>,
  ) {}

  /**
   * Builds the list from the safe sysctls and `allowedUnsafe`.
   * @throws Error with 1.23's start-up message: `sysctl "x" must have at most 253 characters and
   *   match regex <fmt>`, `the sysctls "x*" are not known to be namespaced`, `the sysctl "x" are
   *   not known to be namespaced`.
   */
  static create(allowedUnsafe: readonly string[]): SysctlAllowlist {
    const sysctls = new Map<string, SysctlNamespace>();
    const prefixes = new Map<string, SysctlNamespace>();
    for (const s of [...safeSysctls, ...allowedUnsafe]) {
      if (s.length > sysctlMaxLength || !sysctlPatternRe.test(s)) {
        throw new Error(`sysctl ${JSON.stringify(s)} must have at most ${sysctlMaxLength} characters and match regex ${sysctlPatternFmt}`);
      }
      if (s.endsWith("*")) {
        const prefix = s.slice(0, -1);
        const ns = sysctlNamespaceOf(prefix);
        if (ns === "") throw new Error(`the sysctls ${JSON.stringify(s)} are not known to be namespaced`);
        prefixes.set(prefix, ns);
      } else {
        const ns = sysctlNamespaceOf(s);
        if (ns === "") throw new Error(`the sysctl ${JSON.stringify(s)} are not known to be namespaced`);
        sysctls.set(s, ns);
      }
    }
    return new SysctlAllowlist(sysctls, prefixes);
  }

  /** Why `name` may not be set (`"x" not whitelisted`, `"x" not allowed with host net enabled`), or undefined. */
  validate(name: string, hostNet: boolean, hostIPC: boolean): string | undefined {
    const check = (ns: SysctlNamespace): string | undefined => {
      if (ns === "ipc" && hostIPC) return `${JSON.stringify(name)} not allowed with host ${ns} enabled`;
      if (ns === "net" && hostNet) return `${JSON.stringify(name)} not allowed with host ${ns} enabled`;
      return undefined;
    };
    const exact = this.sysctls.get(name);
    if (exact !== undefined) return check(exact);
    for (const [prefix, ns] of this.prefixes) if (name.startsWith(prefix)) return check(ns);
    return `${JSON.stringify(name)} not whitelisted`;
  }

  /** Admission of `pod`: `undefined` when admitted, else reason `SysctlForbidden` and `forbidden sysctl: <why>`. Pure. */
  admit(pod: Pod): PodAdmitRejection | undefined {
    const spec = pod.spec;
    for (const s of spec?.securityContext?.sysctls ?? []) {
      const why = this.validate(s.name, spec?.hostNetwork === true, spec?.hostIPC === true);
      if (why !== undefined) return { reason: "SysctlForbidden", message: `forbidden sysctl: ${why}` };
    }
    return undefined;
  }
}
