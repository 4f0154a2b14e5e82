import { findResource } from "@skiff/api-types";
import { semanticEqual } from "@skiff/apiserver-core";
import type { APIObject, ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { defaultValidationOptions } from "@skiff/validation";
import type { KindValidator, ValidationOptions } from "@skiff/validation";

export interface SimpleStrategyOptions<T extends APIObject> {
  readonly group: string;
  readonly plural: string;
  readonly applyDefaults?: (obj: T) => void;
  /**
   * Runs first in prepareForCreate (`old` undefined) and prepareForUpdate, before the generation
   * check: where a kind drops the fields of disabled gates.
   */
  readonly prepare?: (obj: T, old: T | undefined) => void;
  /** The kind's entry of @skiff/validation's `kindValidators`. */
  readonly validators: KindValidator<T>;
  /** @defaultValue `defaultValidationOptions` */
  readonly validationOptions?: ValidationOptions;
  /** Bump metadata.generation when this part changes (1.23's `apiequality.Semantic.DeepEqual`). */
  readonly generationField?: string;
  /** Whether create sets generation 1 (1.23: PodTemplate does, CSIDriver does not). @defaultValue true */
  readonly generationOnCreate?: boolean;
  /** 1.23's `AllowUnconditionalUpdate`: whether a PUT without resourceVersion is allowed (else 422). @defaultValue true */
  readonly allowUnconditionalUpdate?: boolean;
  readonly table: TableConvertor<T>;
  readonly fieldSelectorKeys?: readonly string[];
  readonly fields?: (obj: T) => Record<string, string>;
}

// A strategy for kinds without status: no server-owned fields besides generation.
export function createSimpleStrategy<T extends APIObject>(o: SimpleStrategyOptions<T>): ResourceStrategy<T> {
  const resource = findResource({ group: o.group, resource: o.plural });
  if (resource === undefined) throw new Error(`resource ${o.plural}.${o.group} is not in @skiff/api-types' resources table`);
  const genField = o.generationField;
  const validationOptions = o.validationOptions ?? defaultValidationOptions;
  return {
    resource,
    applyDefaults(obj) {
      o.applyDefaults?.(obj);
    },
    prepareForCreate(_ctx, obj) {
      o.prepare?.(obj, undefined);
      if (genField !== undefined && o.generationOnCreate !== false) (obj.metadata ??= {}).generation = 1;
    },
    validate(_ctx, obj) {
      return o.validators.validate(obj, validationOptions);
    },
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: o.allowUnconditionalUpdate ?? true,
    prepareForUpdate(_ctx, obj, old) {
      o.prepare?.(obj, old);
      // The store already set generation to the old one (rest.BeforeUpdate); only a change bumps it.
      if (genField === undefined || semanticEqual(obj[genField], old[genField])) return;
      (obj.metadata ??= {}).generation = (old.metadata?.generation ?? 0) + 1;
    },
    validateUpdate(_ctx, obj, old) {
      return o.validators.validateUpdate(obj, old, validationOptions);
    },
    getAttrs(obj) {
      const fields: Record<string, string> = { "metadata.name": obj.metadata?.name ?? "" };
      if (resource.namespaced) fields["metadata.namespace"] = obj.metadata?.namespace ?? "";
      return { labels: { ...obj.metadata?.labels }, fields: { ...fields, ...o.fields?.(obj) } };
    },
    fieldSelectorKeys: o.fieldSelectorKeys ?? [],
    defaultGarbageCollectionPolicy() {
      return "Background";
    },
    returnDeletedObject: true,
    table: o.table,
  };
}

/**
 * The `metadata.name` watch index of nodes and secrets (a kubelet watches its own Node and each
 * Secret by name): a stored object's name, `""` without one.
 * @see pkg/registry/core/node/strategy.go, pkg/registry/core/secret/strategy.go (NameTriggerFunc) in kubernetes/kubernetes v1.23
 */
export const nameIndexedField = Object.freeze({
  field: "metadata.name",
  valueOf: (o: unknown): string => {
    const name = (o as { metadata?: { name?: unknown } } | null)?.metadata?.name;
    return typeof name === "string" ? name : "";
  },
});

export function formatLabels(labels: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? "<none>" : entries.map(([k, v]) => `${k}=${v}`).join(",");
}

export const nameColumn = { name: "Name", type: "string", format: "name", description: "Name must be unique within a namespace.", priority: 0 } as const;
export const ageColumn = {
  name: "Age",
  type: "string",
  format: "",
  description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
  priority: 0,
} as const;
