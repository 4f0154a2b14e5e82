/**
 * Container environment: `env`, `envFrom`, downward-API selectors.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateEnv`, `ValidateEnvFrom`
 * @see pkg/apis/core/pods/helpers.go `ConvertDownwardAPIFieldLabel`
 */
import { isEnvVarName, isQualifiedName, type FieldError, type FieldPath } from "@skiff/apimachinery";
import { nameIsDNSSubdomain } from "../meta/names.js";
import { field, regexError } from "../meta/internal/field.js";
import { isRecord, str } from "../meta/internal/values.js";
import { items, type EnvFromView, type EnvVarView, type ObjectFieldSelectorView, type ResourceFieldSelectorView } from "./internal-types.js";
import type { PodValidationOptions } from "./options.js";
import { parseQuantity, quantityEquals, quantityFormatError, quantitySign } from "./quantity.js";

const envDownwardAPIFieldPaths = [
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.serviceAccountName",
  "status.hostIP",
  "status.podIP",
  "status.podIPs",
];
const containerResourceFieldPaths = [
  "limits.cpu",
  "limits.ephemeral-storage",
  "limits.memory",
  "requests.cpu",
  "requests.ephemeral-storage",
  "requests.memory",
];
const hugePagesFieldPrefixes = ["limits.hugepages-", "requests.hugepages-"];
// Labels a v1 downward-API fieldPath may name (before the subscript rules).
const convertibleFieldLabels = new Set([
  "metadata.annotations",
  "metadata.labels",
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.restartPolicy",
  "spec.serviceAccountName",
  "spec.schedulerName",
  "status.phase",
  "status.hostIP",
  "status.podIP",
  "status.podIPs",
]);

const configMapKeyFmt = "[-._a-zA-Z0-9]+";
const configMapKeyRe = new RegExp(`^${configMapKeyFmt}$`);

/**
 * Kubernetes' `IsConfigMapKey`: at most 253 characters of alphanumerics, `-`, `_`, `.`, and not
 * `.`, `..` or starting with `..`.
 */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push("must be no more than 253 characters");
  if (!configMapKeyRe.test(value)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        configMapKeyFmt,
        "key.name",
        "KEY_NAME",
        "key-name",
      ),
    );
  }
  if (value === ".") errs.push("must not be '.'");
  else if (value === "..") errs.push("must not be '..'");
  else if (value.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

// fieldpath.SplitMaybeSubscriptedPath: "metadata.labels['key']" -> ["metadata.labels", "key"].
function splitSubscript(fieldPath: string): { path: string; subscript: string } | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const s = fieldPath.slice(0, -2);
  const at = s.indexOf("['");
  if (at <= 0) return undefined;
  return { path: s.slice(0, at), subscript: s.slice(at + 2) };
}

/**
 * Checks a `fieldRef`: `apiVersion` required (defaulting sets `v1`), `fieldPath` required and one
 * of `expressions` or `metadata.labels['<key>']` / `metadata.annotations['<key>']` with a valid key.
 */
export function validateObjectFieldSelector(
  fs: ObjectFieldSelectorView,
  expressions: readonly string[],
  path: FieldPath,
): FieldError[] {
  const apiVersion = str(fs.apiVersion);
  const fieldPath = str(fs.fieldPath);
  if (apiVersion === "") return [field.required(path.child("apiVersion"))];
  if (fieldPath === "") return [field.required(path.child("fieldPath"))];
  let internal = fieldPath;
  let convertError: string | undefined;
  if (apiVersion !== "v1") {
    convertError = `unsupported pod version: ${apiVersion}`;
  } else {
    const sub = splitSubscript(fieldPath);
    if (sub !== undefined) {
      if (sub.path !== "metadata.annotations" && sub.path !== "metadata.labels") {
        convertError = `field label does not support subscript: ${fieldPath}`;
      }
    } else if (fieldPath === "spec.host") {
      internal = "spec.nodeName";
    } else if (!convertibleFieldLabels.has(fieldPath)) {
      convertError = `field label not supported: ${fieldPath}`;
    }
  }
  if (convertError !== undefined) {
    return [field.invalid(path.child("fieldPath"), fieldPath, `error converting fieldPath: ${convertError}`)];
  }
  const errs: FieldError[] = [];
  const sub = splitSubscript(internal);
  if (sub !== undefined) {
    const key = sub.path === "metadata.annotations" ? sub.subscript.toLowerCase() : sub.subscript;
    for (const msg of isQualifiedName(key)) errs.push(field.invalid(path, sub.subscript, msg));
  } else if (!expressions.includes(internal)) {
    errs.push(field.notSupported(path.child("fieldPath"), internal, [...expressions].sort()));
  }
  return errs;
}

const memoryDivisors: bigint[] = [
  1n,
  ...[3n, 6n, 9n, 12n, 15n, 18n].map((e) => 10n ** e),
  ...[1n, 2n, 3n, 4n, 5n, 6n].map((e) => 1024n ** e),
];

function validateDivisor(resource: string, divisor: unknown, path: FieldPath): FieldError[] {
  if (divisor === undefined || divisor === null) return [];
  const q = parseQuantity(divisor);
  if (q === undefined) return [field.invalid(path.child("divisor"), divisor, quantityFormatError)];
  if (quantitySign(q) === 0) return [];
  const isMemoryLike = memoryDivisors.some((d) => quantityEquals(q, d));
  const sizes = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei";
  const errs: FieldError[] = [];
  switch (resource) {
    case "limits.cpu":
    case "requests.cpu":
      if (!quantityEquals(q, 1n) && !quantityEquals(q, 1n, 1000n)) {
        errs.push(field.invalid(path.child("divisor"), resource, "only divisor's values 1m and 1 are supported with the cpu resource"));
      }
      break;
    case "limits.memory":
    case "requests.memory":
      if (!isMemoryLike) {
        errs.push(field.invalid(path.child("divisor"), resource, `only divisor's values ${sizes} are supported with the memory resource`));
      }
      break;
    case "limits.ephemeral-storage":
    case "requests.ephemeral-storage":
      if (!isMemoryLike) {
        errs.push(
          field.invalid(
            path.child("divisor"),
            resource,
            `only divisor's values ${sizes} are supported with the local ephemeral storage resource`,
          ),
        );
      }
      break;
  }
  if (hugePagesFieldPrefixes.some((p) => resource.startsWith(p)) && !isMemoryLike) {
    errs.push(field.invalid(path.child("divisor"), resource, `only divisor's values ${sizes} are supported with the hugepages resource`));
  }
  return errs;
}

/**
 * Checks a `resourceFieldRef`: `containerName` required in volumes, `resource` one of the
 * container resource paths (hugepages only with `opts.allowDownwardAPIHugePages`), and a supported
 * `divisor`.
 */
export function validateContainerResourceFieldSelector(
  fs: ResourceFieldSelectorView,
  path: FieldPath,
  volume: boolean,
  opts: PodValidationOptions,
): FieldError[] {
  const errs: FieldError[] = [];
  const resource = str(fs.resource);
  if (volume && str(fs.containerName) === "") {
    errs.push(field.required(path.child("containerName")));
  } else if (resource === "") {
    errs.push(field.required(path.child("resource")));
  } else if (!containerResourceFieldPaths.includes(resource)) {
    const prefixes = opts.allowDownwardAPIHugePages ? hugePagesFieldPrefixes : [];
    if (!prefixes.some((p) => resource.startsWith(p))) {
      errs.push(field.notSupported(path.child("resource"), resource, containerResourceFieldPaths));
    }
  }
  errs.push(...validateDivisor(resource, fs.divisor, path));
  return errs;
}

function validateKeySelector(s: { name?: string; key?: string }, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(s.name);
  for (const msg of nameIsDNSSubdomain(name, false)) errs.push(field.invalid(path.child("name"), name, msg));
  const key = str(s.key);
  if (key === "") errs.push(field.required(path.child("key")));
  else for (const msg of isConfigMapKey(key)) errs.push(field.invalid(path.child("key"), key, msg));
  return errs;
}

/**
 * Checks `env`: names required and valid environment variable names; a `valueFrom` names exactly one
 * source (`must specify one of: \`fieldRef\`, \`resourceFieldRef\`, \`configMapKeyRef\` or
 * \`secretKeyRef\``, `may not have more than one field specified at a time`) and excludes `value`
 * (`may not be specified when \`value\` is not empty`); field paths from the supported set.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateEnv`
 */
export function validateEnv(env: unknown, path: FieldPath, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  items<EnvVarView>(env).forEach((ev, i) => {
    const p = path.index(i);
    const name = str(ev.name);
    if (name === "") errs.push(field.required(p.child("name")));
    else for (const msg of isEnvVarName(name)) errs.push(field.invalid(p.child("name"), name, msg));
    if (!isRecord(ev.valueFrom)) return;
    const vf = ev.valueFrom;
    const vp = p.child("valueFrom");
    let numSources = 0;
    if (isRecord(vf.fieldRef)) {
      numSources++;
      errs.push(...validateObjectFieldSelector(vf.fieldRef, envDownwardAPIFieldPaths, vp.child("fieldRef")));
    }
    if (isRecord(vf.resourceFieldRef)) {
      numSources++;
      errs.push(...validateContainerResourceFieldSelector(vf.resourceFieldRef, vp.child("resourceFieldRef"), false, opts));
    }
    if (isRecord(vf.configMapKeyRef)) {
      numSources++;
      errs.push(...validateKeySelector(vf.configMapKeyRef, vp.child("configMapKeyRef")));
    }
    if (isRecord(vf.secretKeyRef)) {
      numSources++;
      errs.push(...validateKeySelector(vf.secretKeyRef, vp.child("secretKeyRef")));
    }
    if (numSources === 0) {
      errs.push(
        field.invalid(vp, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"),
      );
    } else if (str(ev.value) !== "") {
      errs.push(field.invalid(vp, "", "may not be specified when `value` is not empty"));
    } else if (numSources > 1) {
      errs.push(field.invalid(vp, "", "may not have more than one field specified at a time"));
    }
  });
  return errs;
}

/**
 * Checks `envFrom`: prefix a valid variable name, exactly one of `configMapRef` / `secretRef` with a
 * name. As in Kubernetes, the count errors are reported at `envFrom` itself.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateEnvFrom`
 */
export function validateEnvFrom(envFrom: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  items<EnvFromView>(envFrom).forEach((ev, i) => {
    const p = path.index(i);
    const prefix = str(ev.prefix);
    if (prefix !== "") for (const msg of isEnvVarName(prefix)) errs.push(field.invalid(p.child("prefix"), prefix, msg));
    let numSources = 0;
    for (const kind of ["configMapRef", "secretRef"] as const) {
      const ref = ev[kind];
      if (!isRecord(ref)) continue;
      numSources++;
      const name = str(ref.name);
      if (name === "") errs.push(field.required(p.child(kind, "name")));
      else for (const msg of nameIsDNSSubdomain(name, true)) errs.push(field.invalid(p.child(kind, "name"), name, msg));
    }
    if (numSources === 0) errs.push(field.invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"));
    else if (numSources > 1) errs.push(field.invalid(path, "", "may not have more than one field specified at a time"));
  });
  return errs;
}
