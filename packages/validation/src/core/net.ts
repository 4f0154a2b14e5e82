/**
 * IP address and CIDR checks with Kubernetes' messages. Not part of the public API.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go `IsValidIP`
 */
import { isIP } from "node:net";

/** `IsValidIP`'s message. */
export const invalidIPMessage = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

/** 4, 6, or 0 when `value` is not an IP address (Go's `net.ParseIP`). */
export function ipFamily(value: string): 0 | 4 | 6 {
  if (value.includes("%")) return 0; // zones are not part of an address for net.ParseIP
  const f = isIP(value);
  return f === 4 ? 4 : f === 6 ? 6 : 0;
}

/** The family of a CIDR (`10.0.0.0/8`, `fd00::/64`), or 0 when it is not one (Go's `net.ParseCIDR`). */
export function cidrFamily(value: string): 0 | 4 | 6 {
  const slash = value.indexOf("/");
  if (slash === -1) return 0;
  const family = ipFamily(value.slice(0, slash));
  const prefix = value.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(prefix)) return 0;
  return Number(prefix) <= (family === 4 ? 32 : 128) ? family : 0;
}

/** Whether a list of two values holds one IPv4 and one IPv6 entry (`IsDualStack...`). */
export function isDualStack(families: readonly number[]): boolean {
  return families.includes(4) && families.includes(6);
}
