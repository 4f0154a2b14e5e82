/**
 * Name validators for `metadata.name` / `metadata.generateName`, as Kubernetes'
 * `ValidateNameFunc`s.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/validation/generic.go
 */
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain } from "@skiff/apimachinery";

/**
 * Checks a resource name. `prefix` is true when the value is a `generateName` (a random suffix will
 * be appended), in which case a trailing `-` is allowed. Returns Kubernetes' messages, empty when
 * valid; never throws.
 */
export type NameValidator = (name: string, prefix: boolean) => string[];

// Kubernetes replaces the last two characters with "a" when the name ends in "-", so that the
// prefix validates as if a suffix had been appended.
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name;
}

/**
 * Names that must be DNS-1123 subdomains (at most 253 characters): Pods, Nodes, PodTemplates, Jobs...
 *
 * @example
 * nameIsDNSSubdomain("my-pod", false) // []
 * nameIsDNSSubdomain("web-", true)    // [] (generateName)
 * @see staging/src/k8s.io/apimachinery/pkg/api/validation/generic.go `NameIsDNSSubdomain`
 */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/**
 * Names that must be DNS-1123 labels (at most 63 characters): Namespaces.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/validation/generic.go `NameIsDNSLabel`
 */
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/**
 * Names that must be DNS-1035 labels (start with a letter): Services.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/validation/generic.go `NameIsDNS1035Label`
 */
export const nameIsDNS1035Label: NameValidator = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/**
 * The weakest rule, which the generic registry applies to every kind: the name is usable as one URL
 * path segment (`may not be '.'`, `may not be '..'`, `may not contain '/'`, `may not contain '%'`).
 * For a prefix only the "contain" rules apply. Used for core/v1 Events.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/validation/path/name.go `ValidatePathSegmentName`
 */
export const nameIsPathSegment: NameValidator = (name, prefix) => {
  if (!prefix) {
    for (const bad of [".", ".."]) if (name === bad) return [`may not be '${bad}'`];
  }
  const errs: string[] = [];
  for (const bad of ["/", "%"]) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
};
