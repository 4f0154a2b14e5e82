// Small builders for the OpenAPI document, so the repeated Kubernetes structures (apiVersion/kind/
// metadata, list kinds, merge extensions, links to other schemas) are written once.

/** Schema-name prefixes: Kubernetes' scheme with `example` in place of `k8s`. */
export const META = "io.example.apimachinery.pkg.apis.meta.v1.";
export const CORE = "io.example.api.core.v1.";
export const BATCH = "io.example.api.batch.v1.";
export const STORAGE = "io.example.api.storage.v1.";
export const COORDINATION = "io.example.api.coordination.v1.";
export const AUTHN = "io.example.api.authentication.v1.";
export const AUTHZ = "io.example.api.authorization.v1.";
export const RBAC = "io.example.api.rbac.v1.";
export const SCHEDULING = "io.example.api.scheduling.v1.";
export const QUANTITY = "io.example.apimachinery.pkg.api.resource.Quantity";
export const INT_OR_STRING = "io.example.apimachinery.pkg.util.intstr.IntOrString";
export const RAW_EXTENSION = "io.example.apimachinery.pkg.runtime.RawExtension";
export const TIME = `${META}Time`;
export const MICRO_TIME = `${META}MicroTime`;

export const GVK_EXTENSION = "x-kubernetes-group-version-kind";

/** A JSON reference to a component schema. */
export function ref(name) {
  return { $ref: `#/components/schemas/${name}` };
}

/** A property that links to another schema and carries its own description (as `kubectl explain` expects). */
export function link(name, description, extra = {}) {
  return { allOf: [ref(name)], description, ...extra };
}

export function str(description, extra = {}) {
  return { type: "string", description, ...extra };
}

export function enumStr(values, description, extra = {}) {
  return { type: "string", enum: values, description, ...extra };
}

export function bool(description, extra = {}) {
  return { type: "boolean", description, ...extra };
}

export function int32(description, extra = {}) {
  return { type: "integer", format: "int32", description, ...extra };
}

export function int64(description, extra = {}) {
  return { type: "integer", format: "int64", description, ...extra };
}

export function time(description, extra = {}) {
  return link(TIME, description, extra);
}

export function strList(description, extra = {}) {
  return { type: "array", items: { type: "string" }, description, ...extra };
}

export function int64List(description, extra = {}) {
  return { type: "array", items: { type: "integer", format: "int64" }, description, ...extra };
}

/** An array whose items are another schema. */
export function arrayOf(name, description, extra = {}) {
  return { type: "array", items: ref(name), description, ...extra };
}

/** `map[string]string`. */
export function strMap(description, extra = {}) {
  return { type: "object", additionalProperties: { type: "string" }, description, ...extra };
}

/** `map[string]<schema>`. */
export function mapOf(name, description, extra = {}) {
  return { type: "object", additionalProperties: ref(name), description, ...extra };
}

/** `map[string][]string`. */
export function strListMap(description, extra = {}) {
  return { type: "object", additionalProperties: { type: "array", items: { type: "string" } }, description, ...extra };
}

/** A JSON object whose members are not described (kept as they come). */
export function freeForm(description, extra = {}) {
  return { type: "object", description, ...extra };
}

/** Strategic-merge rule: merge list elements by `key`. */
export function mergeBy(key) {
  return { "x-kubernetes-patch-merge-key": key, "x-kubernetes-patch-strategy": "merge" };
}

/** Strategic-merge rule for a list of scalars: union of the values. */
export const mergeScalars = { "x-kubernetes-patch-strategy": "merge" };

export function listType(type, mapKeys) {
  return mapKeys ? { "x-kubernetes-list-map-keys": mapKeys, "x-kubernetes-list-type": type } : { "x-kubernetes-list-type": type };
}

export const atomicStruct = { "x-kubernetes-map-type": "atomic" };

/** A plain object schema. `required` is omitted when empty. */
export function object(description, properties, options = {}) {
  const schema = { type: "object", description };
  if (options.required && options.required.length > 0) schema.required = options.required;
  schema.properties = properties;
  if (options.extensions) Object.assign(schema, options.extensions);
  return schema;
}

const apiVersionDescription =
  "The versioned schema of this representation of the object, as `group/version` (`version` alone for the core group). Servers may reject values they do not recognize.";
const kindDescription = "The REST kind this object represents, in CamelCase. Servers may infer it from the endpoint the client calls. Cannot be updated.";

/** `apiVersion` and `kind`, optional as in Kubernetes. */
export function typeMeta() {
  return { apiVersion: str(apiVersionDescription), kind: str(kindDescription) };
}

/**
 * A kind: an object with `apiVersion`, `kind` and `metadata` (ObjectMeta, or ListMeta for lists)
 * followed by its own properties, tagged with its GroupVersionKind(s).
 */
export function kindSchema({ gvks, description, properties, required, metadata = "ObjectMeta", metadataDescription, extensions }) {
  const meta =
    metadata === null
      ? {}
      : {
          metadata: link(
            META + metadata,
            metadataDescription ??
              (metadata === "ListMeta"
                ? "Standard list metadata: resourceVersion and the continue token of a paged list."
                : "Standard object metadata: name, namespace, labels, annotations and the fields the system maintains."),
          ),
        };
  return object(description, { ...typeMeta(), ...meta, ...properties }, { required, extensions: { [GVK_EXTENSION]: gvks, ...extensions } });
}

/** The list kind of `itemSchema`: `metadata` (ListMeta) and `items` (required). */
export function listKindSchema({ group, version, kind, itemSchema, itemKind }) {
  return kindSchema({
    gvks: [{ group, version, kind }],
    description: `A list of ${itemKind} objects.`,
    metadata: "ListMeta",
    properties: { items: arrayOf(itemSchema, `The ${itemKind} objects of the list.`) },
    required: ["items"],
  });
}

/** The `[{group, version, kind}]` value of one kind. */
export function gvk(group, version, kind) {
  return [{ group, version, kind }];
}
