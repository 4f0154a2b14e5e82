/**
 * Resource names and quantities: container resource requirements, node capacity, pod overhead.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateResourceRequirements`, `validateContainerResourceName`
 * @see pkg/apis/core/helper/helpers.go
 */
import { isQualifiedName, type FieldError, type FieldPath } from "@skiff/apimachinery";
import { field, isNegativeErrorMsg } from "../meta/internal/field.js";
import { isRecord } from "../meta/internal/values.js";
import type { PodValidationOptions } from "./options.js";
import {
  compareQuantities,
  parseQuantity,
  quantityCeil,
  quantityFormatError,
  quantityMilliCeil,
  quantitySign,
  type QuantityValue,
} from "./quantity.js";

const hugePagesPrefix = "hugepages-";
const standardContainerResources = new Set(["cpu", "memory", "ephemeral-storage"]);
const standardResources = new Set([
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "storage",
  "requests.storage",
  "services.nodeports",
  "services.loadbalancers",
]);
const integerResources = new Set([
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "services.nodeports",
  "services.loadbalancers",
]);
// Kubernetes' own resource domain, and Skiff's replacement for it.
const nativeResourceDomains = ["kubernetes.io/", "example.io/"];

export function isHugePageResourceName(name: string): boolean {
  return name.startsWith(hugePagesPrefix);
}

function isNativeResource(name: string): boolean {
  return !name.includes("/") || nativeResourceDomains.some((d) => name.includes(d));
}

function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith("requests.")) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

function isStandardResourceName(name: string): boolean {
  return standardResources.has(name) || name.startsWith(hugePagesPrefix) || name.startsWith(`requests.${hugePagesPrefix}`);
}

function isOvercommitAllowed(name: string): boolean {
  return isNativeResource(name) && !isHugePageResourceName(name);
}

function isIntegerResourceName(name: string): boolean {
  return integerResources.has(name) || isExtendedResourceName(name);
}

function validateResourceName(name: string, path: FieldPath): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => field.invalid(path, name, msg));
  if (errs.length > 0) return errs;
  if (!name.includes("/") && !isStandardResourceName(name)) {
    errs.push(field.invalid(path, name, "must be a standard resource type or fully qualified"));
  }
  return errs;
}

/**
 * Checks a container resource name: a standard one (`cpu`, `memory`, `ephemeral-storage`,
 * `hugepages-<size>`) or a domain-qualified extended resource.
 */
export function validateContainerResourceName(name: string, path: FieldPath): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes("/")) {
    if (!standardContainerResources.has(name) && !isHugePageResourceName(name)) {
      errs.push(field.invalid(path, name, "must be a standard resource for containers"));
    }
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    errs.push(field.invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/**
 * Reads a quantity for validation; a malformed one yields an `Invalid value` error instead.
 */
export function readQuantity(value: unknown, path: FieldPath): { q?: QuantityValue; errs: FieldError[] } {
  const q = parseQuantity(value);
  if (q === undefined) return { errs: [field.invalid(path, value ?? null, quantityFormatError)] };
  return { q, errs: [] };
}

/**
 * Checks a quantity for a resource: well-formed, not negative (`must be greater than or equal to
 * 0`), and whole for integer resources (`must be an integer`).
 *
 * @see pkg/apis/core/validation/validation.go `ValidateResourceQuantityValue`
 */
export function validateResourceQuantityValue(resource: string, value: unknown, path: FieldPath): FieldError[] {
  const { q, errs } = readQuantity(value, path);
  if (q === undefined) return errs;
  if (quantitySign(q) < 0) errs.push(field.invalid(path, q.text, isNegativeErrorMsg));
  if (isIntegerResourceName(resource) && quantityMilliCeil(q) % 1000n !== 0n) {
    errs.push(field.invalid(path, q.text, "must be an integer"));
  }
  return errs;
}

function hugePageValueError(name: string, q: QuantityValue, opts: PodValidationOptions): string | undefined {
  if (opts.allowIndivisibleHugePagesValues === true) return undefined;
  const page = parseQuantity(name.slice(hugePagesPrefix.length));
  const ok =
    page !== undefined &&
    quantitySign(page) > 0 &&
    quantityMilliCeil(page) % 1000n === 0n &&
    quantityCeil(q) % quantityCeil(page) === 0n;
  return ok ? undefined : `${q.text} is not positive integer multiple of ${name}`;
}

/**
 * Checks `resources.limits` and `resources.requests` of a container (or a pod's overhead):
 * names and quantities as above; a request above its limit is `Invalid value` at `…requests`
 * with `must be less than or equal to cpu limit`; resources that cannot be overcommitted
 * (extended resources, hugepages) need requests equal to limits (`must be equal to <name> limit`)
 * and a limit whenever requested (`Required value: Limit must be set for non overcommitable
 * resources`); hugepages must be multiples of the page size and come with cpu or memory.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateResourceRequirements`
 */
export function validateResourceRequirements(
  requirements: { limits?: unknown; requests?: unknown } | undefined,
  path: FieldPath,
  opts: PodValidationOptions,
): FieldError[] {
  const errs: FieldError[] = [];
  const limPath = path.child("limits");
  const reqPath = path.child("requests");
  const limits = isRecord(requirements?.limits) ? requirements.limits : {};
  const requests = isRecord(requirements?.requests) ? requirements.requests : {};
  const qos = new Set(["cpu", "memory"]);
  let cpuOrMemory = false;
  let hugePages = false;
  const parsedLimits = new Map<string, QuantityValue>();
  for (const [name, value] of Object.entries(limits)) {
    const p = limPath.key(name);
    errs.push(...validateContainerResourceName(name, p));
    errs.push(...validateResourceQuantityValue(name, value, p));
    const q = parseQuantity(value);
    if (q !== undefined) parsedLimits.set(name, q);
    if (isHugePageResourceName(name)) {
      hugePages = true;
      const msg = q === undefined ? undefined : hugePageValueError(name, q, opts);
      if (msg !== undefined && q !== undefined) errs.push(field.invalid(p, q.text, msg));
    }
    if (qos.has(name)) cpuOrMemory = true;
  }
  for (const [name, value] of Object.entries(requests)) {
    const p = reqPath.key(name);
    errs.push(...validateContainerResourceName(name, p));
    errs.push(...validateResourceQuantityValue(name, value, p));
    const q = parseQuantity(value);
    if (name in limits) {
      const limit = parsedLimits.get(name);
      if (q !== undefined && limit !== undefined) {
        const cmp = compareQuantities(q, limit);
        if (cmp !== 0 && !isOvercommitAllowed(name)) {
          errs.push(field.invalid(reqPath, q.text, `must be equal to ${name} limit`));
        } else if (cmp > 0) {
          errs.push(field.invalid(reqPath, q.text, `must be less than or equal to ${name} limit`));
        }
      }
    } else if (!isOvercommitAllowed(name)) {
      errs.push(field.required(limPath, "Limit must be set for non overcommitable resources"));
    }
    if (isHugePageResourceName(name)) {
      hugePages = true;
      const msg = q === undefined ? undefined : hugePageValueError(name, q, opts);
      if (msg !== undefined && q !== undefined) errs.push(field.invalid(p, q.text, msg));
    }
    if (qos.has(name)) cpuOrMemory = true;
  }
  if (!cpuOrMemory && hugePages) errs.push(field.forbidden(path, "HugePages require cpu or memory"));
  return errs;
}
