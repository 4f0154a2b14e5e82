import { invalid, isDNS1123Subdomain, required, tooLong } from "@skiff/apimachinery";
import type { FieldError, FieldPath } from "@skiff/apimachinery";

/** Maximum length of a CSI driver name, in characters (the spec's limit; equal to 1.23's). */
export const CSIDriverNameMaxLength = 63;

const csiDriverNameFmt = "[a-zA-Z0-9]([-.a-zA-Z0-9]*[a-zA-Z0-9])?";
const csiDriverNameRe = new RegExp(`^${csiDriverNameFmt}$`);
const csiDriverNameErrMsg =
  "a CSI driver name must consist of alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

function regexMessage(): string {
  return `${csiDriverNameErrMsg} (e.g. 'csi.example.com' or 'MyDriver', regex used for validation is '${csiDriverNameFmt}')`;
}

/**
 * The spec's CSI driver name rule as a {@link NameValidator}-compatible function: at most 63
 * characters, beginning and ending with `[a-z0-9A-Z]`, with dashes, dots and alphanumerics between.
 * Upper case is allowed (the spec wins over 1.23, whose `ValidateCSIDriverName` for the object name
 * is `NameIsDNSSubdomain` and lower-case only); consecutive dots are allowed as the spec words it.
 * With `prefix` (a `generateName`), one trailing `-` is accepted, as Kubernetes' name validators do.
 *
 * Returns the problems in Kubernetes' wording; empty when valid. Never throws.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateCSIDriverName` (kubernetes/kubernetes, 1.23)
 * @example
 * nameIsCSIDriverName("csi.Example.com", false) // []
 * nameIsCSIDriverName("-bad", false) // ["a CSI driver name must consist of ..."]
 */
export function nameIsCSIDriverName(name: string, prefix: boolean): string[] {
  const value = prefix && name.length > 1 && name.endsWith("-") ? `${name.slice(0, -1)}a` : name;
  const errs: string[] = [];
  if (value.length > CSIDriverNameMaxLength) errs.push(`must be no more than ${CSIDriverNameMaxLength} characters`);
  if (!csiDriverNameRe.test(value)) errs.push(regexMessage());
  return errs;
}

/**
 * Validates a CSI driver name used as a field value (CSINode `spec.drivers[i].name`) as 1.23's
 * `ValidateCSIDriverName`: empty → `Required value`; longer than 63 → `Too long: must have at
 * most 63 bytes`; and `Invalid value` for each problem of the lower-cased name as a DNS-1123
 * subdomain — so an empty name gets both `Required value` and an `Invalid value`, as in 1.23.
 * Upper case is accepted (it is lower-cased first). Pure.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateCSIDriverName` (kubernetes/kubernetes, 1.23)
 */
export function validateCSINodeDriverName(name: string | undefined, path: FieldPath): FieldError[] {
  const p = path.toString();
  const value = name ?? "";
  const errs: FieldError[] = [];
  if (value.length === 0) errs.push(required(p));
  if (value.length > CSIDriverNameMaxLength) errs.push(tooLong(p, value, CSIDriverNameMaxLength));
  for (const msg of isDNS1123Subdomain(value.toLowerCase())) errs.push(invalid(p, value, msg));
  return errs;
}
