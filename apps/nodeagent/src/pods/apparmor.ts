import { readFileSync, statSync } from "node:fs";
import type { Pod } from "@skiff/api-types";
import { appArmorAnnotationPrefix, appArmorProfileOf } from "./security-context.js";
import type { PodAdmitRejection } from "./sysctl-allowlist.js";

/**
 * Whether the host enforces AppArmor, as runc's `apparmor.IsEnabled`: `/sys/kernel/security/apparmor`
 * exists and `/sys/module/apparmor/parameters/enabled` starts with `Y`. Reads the files each call.
 */
export function isAppArmorEnabledOnHost(sysRoot = "/sys"): boolean {
  try {
    statSync(`${sysRoot}/kernel/security/apparmor`);
    const buf = readFileSync(`${sysRoot}/module/apparmor/parameters/enabled`, "utf8");
    return buf.length > 1 && buf.startsWith("Y");
  } catch {
    return false;
  }
}

function isRequired(pod: Pod): boolean {
  for (const [key, value] of Object.entries(pod.metadata?.annotations ?? {})) {
    if (key.startsWith(appArmorAnnotationPrefix)) return value !== "unconfined";
  }
  return false;
}

function validateProfileFormat(profile: string): string | undefined {
  if (profile === "" || profile === "runtime/default" || profile === "unconfined") return undefined;
  if (!profile.startsWith("localhost/")) return `invalid AppArmor profile name: ${JSON.stringify(profile)}`;
  return undefined;
}

/**
 * The kubelet's AppArmor (soft) admission: a pod with an AppArmor annotation other than
 * `unconfined` needs gate AppArmor and a host with AppArmor, and each container's profile must be
 * `runtime/default`, `unconfined` or `localhost/<name>`. A refused pod stays Pending with reason
 * `AppArmor` and `Cannot enforce AppArmor: <why>` (`AppArmor is not enabled on the host`,
 * `AppArmor disabled by feature-gate`, `invalid AppArmor profile name: "x"`). Pure apart from
 * `hostEnabled`.
 * @see pkg/security/apparmor/validate.go, pkg/kubelet/lifecycle/handlers.go (appArmorAdmitHandler)
 *   in kubernetes/kubernetes v1.23
 */
export function admitAppArmor(pod: Pod, opts: { gateEnabled: boolean; hostEnabled: () => boolean }): PodAdmitRejection | undefined {
  if (!isRequired(pod)) return undefined;
  const reject = (why: string): PodAdmitRejection => ({ reason: "AppArmor", message: `Cannot enforce AppArmor: ${why}` });
  if (!opts.gateEnabled) return reject("AppArmor disabled by feature-gate");
  if (!opts.hostEnabled()) return reject("AppArmor is not enabled on the host");
  const spec = pod.spec;
  for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])]) {
    const why = validateProfileFormat(appArmorProfileOf(pod, c.name));
    if (why !== undefined) return reject(why);
  }
  return undefined;
}
