/**
 * Scheduling fields: node and pod affinity, tolerations, taints, topology spread constraints.
 *
 * @see pkg/apis/core/validation/validation.go
 */
import { isValidLabelValue, type FieldError, type FieldPath } from "@skiff/apimachinery";
import { validateAnyLabelSelector, validateLabelName } from "../meta/labels.js";
import { nameIsDNSLabel, nameIsDNSSubdomain } from "../meta/names.js";
import { field } from "../meta/internal/field.js";
import { arr, isRecord, num, str } from "../meta/internal/values.js";
import {
  items,
  view,
  type AffinityView,
  type NodeSelectorRequirementView,
  type NodeSelectorTermView,
  type PodAffinityTermView,
  type PodAffinityView,
  type PodSpecView,
  type TaintView,
  type TolerationView,
} from "./internal-types.js";

const taintEffects = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/** Checks a taint or toleration effect (`NoSchedule`, `PreferNoSchedule`, `NoExecute`). */
export function validateTaintEffect(effect: string, allowEmpty: boolean, path: FieldPath): FieldError[] {
  if (!allowEmpty && effect === "") return [field.required(path)];
  return taintEffects.includes(effect) ? [] : [field.notSupported(path, effect, taintEffects)];
}

/**
 * Checks a node's taints: key a qualified name, value a label value, effect required and known, and
 * unique by key and effect (`Duplicate value: ...: taints must be unique by key and effect pair`).
 *
 * @see pkg/apis/core/validation/validation.go `validateNodeTaints`
 */
export function validateNodeTaints(taints: readonly unknown[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const unique = new Map<string, Set<string>>();
  items<TaintView>(taints).forEach((t, i) => {
    const p = path.index(i);
    const key = str(t.key);
    const value = str(t.value);
    const effect = str(t.effect);
    errs.push(...validateLabelName(key, p.child("key")));
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length > 0) errs.push(field.invalid(p.child("value"), value, valueErrs.join(";")));
    errs.push(...validateTaintEffect(effect, false, p.child("effect")));
    const keys = unique.get(effect) ?? new Set<string>();
    if (keys.has(key)) {
      errs.push({ ...field.duplicate(p, t), detail: "taints must be unique by key and effect pair" });
      return;
    }
    keys.add(key);
    unique.set(effect, keys);
  });
  return errs;
}

/**
 * Checks tolerations: key a qualified name; empty key only with `Exists`; `tolerationSeconds` only
 * with effect `NoExecute`; `Equal` (or empty) values are label values, `Exists` forbids a value;
 * operator `Equal` or `Exists`; effect empty or known.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateTolerations`
 */
export function validateTolerations(tolerations: readonly unknown[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  items<TolerationView>(tolerations).forEach((t, i) => {
    const p = path.index(i);
    const key = str(t.key);
    const operator = str(t.operator);
    const effect = str(t.effect);
    const value = str(t.value);
    if (key !== "") errs.push(...validateLabelName(key, p.child("key")));
    if (key === "" && operator !== "Exists") {
      errs.push(
        field.invalid(
          p.child("operator"),
          operator,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && effect !== "NoExecute") {
      errs.push(field.invalid(p.child("effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (operator) {
      case "Equal":
      case "": {
        const valueErrs = isValidLabelValue(value);
        if (valueErrs.length > 0) errs.push(field.invalid(p.child("operator"), value, valueErrs.join(";")));
        break;
      }
      case "Exists":
        if (value !== "") errs.push(field.invalid(p.child("operator"), t, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(field.notSupported(p.child("operator"), operator, ["Equal", "Exists"]));
    }
    if (effect !== "") errs.push(...validateTaintEffect(effect, true, p.child("effect")));
  });
  return errs;
}

function validateNodeSelectorRequirement(rq: NodeSelectorRequirementView, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const values = arr(rq.values);
  switch (rq.operator) {
    case "In":
    case "NotIn":
      if (values.length === 0) {
        errs.push(field.required(path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case "Exists":
    case "DoesNotExist":
      if (values.length > 0) {
        errs.push(
          field.forbidden(path.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
      }
      break;
    case "Gt":
    case "Lt":
      if (values.length !== 1) {
        errs.push(field.required(path.child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      }
      break;
    default:
      errs.push(field.invalid(path.child("operator"), rq.operator ?? "", "not a valid selector operator"));
  }
  errs.push(...validateLabelName(str(rq.key), path.child("key")));
  return errs;
}

function validateNodeFieldSelectorRequirement(rq: NodeSelectorRequirementView, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const values = arr(rq.values);
  if (rq.operator === "In" || rq.operator === "NotIn") {
    if (values.length !== 1) {
      errs.push(
        field.required(
          path.child("values"),
          "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        ),
      );
    }
  } else {
    errs.push(field.invalid(path.child("operator"), rq.operator ?? "", "not a valid selector operator"));
  }
  // metadata.name is the only supported node field.
  if (rq.key !== "metadata.name") {
    errs.push(field.invalid(path.child("key"), rq.key ?? "", "not a valid field selector key"));
  } else {
    values.forEach((v, i) => {
      for (const msg of nameIsDNSSubdomain(str(v), false)) errs.push(field.invalid(path.child("values").index(i), v, msg));
    });
  }
  return errs;
}

/**
 * Checks one node selector term: each `matchExpressions[j]` (operators In, NotIn, Exists,
 * DoesNotExist, Gt, Lt with their value rules; key a label name) and `matchFields[j]` (only
 * `metadata.name` with In/NotIn and one value).
 *
 * @see pkg/apis/core/validation/validation.go `ValidateNodeSelectorTerm`
 */
export function validateNodeSelectorTerm(term: unknown, path: FieldPath): FieldError[] {
  const t = view<NodeSelectorTermView>(term);
  const errs: FieldError[] = [];
  items<NodeSelectorRequirementView>(t.matchExpressions).forEach((rq, j) => {
    errs.push(...validateNodeSelectorRequirement(rq, path.child("matchExpressions").index(j)));
  });
  items<NodeSelectorRequirementView>(t.matchFields).forEach((rq, j) => {
    errs.push(...validateNodeFieldSelectorRequirement(rq, path.child("matchFields").index(j)));
  });
  return errs;
}

function validateWeight(weight: unknown, path: FieldPath): FieldError[] {
  const w = num(weight) ?? 0;
  return w <= 0 || w > 100 ? [field.invalid(path, w, "must be in the range 1-100")] : [];
}

function validatePodAffinityTerm(term: PodAffinityTermView, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateAnyLabelSelector(term.labelSelector, path.child("labelSelector")));
  errs.push(...validateAnyLabelSelector(term.namespaceSelector, path.child("namespaceSelector")));
  for (const ns of arr(term.namespaces)) {
    for (const msg of nameIsDNSLabel(str(ns), false)) errs.push(field.invalid(path.child("namespace"), ns, msg));
  }
  const topologyKey = str(term.topologyKey);
  if (topologyKey === "") errs.push(field.required(path.child("topologyKey"), "can not be empty"));
  errs.push(...validateLabelName(topologyKey, path.child("topologyKey")));
  return errs;
}

function validatePodAffinity(affinity: PodAffinityView, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  items<PodAffinityTermView>(affinity.requiredDuringSchedulingIgnoredDuringExecution).forEach((term, i) => {
    errs.push(...validatePodAffinityTerm(term, path.child("requiredDuringSchedulingIgnoredDuringExecution").index(i)));
  });
  items<{ weight?: number; podAffinityTerm?: PodAffinityTermView }>(
    affinity.preferredDuringSchedulingIgnoredDuringExecution,
  ).forEach((weighted, j) => {
    const p = path.child("preferredDuringSchedulingIgnoredDuringExecution").index(j);
    errs.push(...validateWeight(weighted.weight, p.child("weight")));
    errs.push(...validatePodAffinityTerm(view<PodAffinityTermView>(weighted.podAffinityTerm), p.child("podAffinityTerm")));
  });
  return errs;
}

/**
 * Checks `spec.affinity`: the required node selector needs at least one term (`Required value:
 * must have at least one node selector term`), terms as {@link validateNodeSelectorTerm},
 * preferred weights in 1-100, pod (anti-)affinity terms with valid selectors and a topology key.
 *
 * @see pkg/apis/core/validation/validation.go `validateAffinity`
 */
export function validateAffinity(affinity: unknown, path: FieldPath): FieldError[] {
  if (!isRecord(affinity)) return [];
  const a = affinity as AffinityView;
  const errs: FieldError[] = [];
  if (isRecord(a.nodeAffinity)) {
    const na = a.nodeAffinity;
    const np = path.child("nodeAffinity");
    if (isRecord(na.requiredDuringSchedulingIgnoredDuringExecution)) {
      const termsPath = np.child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms");
      const terms = arr(na.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms);
      if (terms.length === 0) errs.push(field.required(termsPath, "must have at least one node selector term"));
      terms.forEach((term, i) => errs.push(...validateNodeSelectorTerm(term, termsPath.index(i))));
    }
    items<{ weight?: number; preference?: unknown }>(na.preferredDuringSchedulingIgnoredDuringExecution).forEach(
      (term, i) => {
        const p = np.child("preferredDuringSchedulingIgnoredDuringExecution").index(i);
        errs.push(...validateWeight(term.weight, p.child("weight")));
        errs.push(...validateNodeSelectorTerm(term.preference, p.child("preference")));
      },
    );
  }
  if (isRecord(a.podAffinity)) errs.push(...validatePodAffinity(a.podAffinity, path.child("podAffinity")));
  if (isRecord(a.podAntiAffinity)) errs.push(...validatePodAffinity(a.podAntiAffinity, path.child("podAntiAffinity")));
  return errs;
}

/**
 * Checks `spec.topologySpreadConstraints`: `maxSkew` > 0, `topologyKey` set, `whenUnsatisfiable`
 * `DoNotSchedule` or `ScheduleAnyway`, and no two constraints with the same key and action.
 *
 * @see pkg/apis/core/validation/validation.go `validateTopologySpreadConstraints`
 */
export function validateTopologySpreadConstraints(
  constraints: PodSpecView["topologySpreadConstraints"],
  path: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  const list = items<NonNullable<PodSpecView["topologySpreadConstraints"]>[number]>(constraints);
  list.forEach((c, i) => {
    const p = path.index(i);
    const maxSkew = num(c.maxSkew) ?? 0;
    if (maxSkew <= 0) errs.push(field.invalid(p.child("maxSkew"), maxSkew, "must be greater than zero"));
    const key = str(c.topologyKey);
    if (key === "") errs.push(field.required(p.child("topologyKey"), "can not be empty"));
    const action = str(c.whenUnsatisfiable);
    if (action !== "DoNotSchedule" && action !== "ScheduleAnyway") {
      errs.push(field.notSupported(p.child("whenUnsatisfiable"), action, ["DoNotSchedule", "ScheduleAnyway"]));
    }
    if (list.slice(i + 1).some((o) => str(o.topologyKey) === key && str(o.whenUnsatisfiable) === action)) {
      errs.push(field.duplicate(p.child("{topologyKey, whenUnsatisfiable}"), `{${key}, ${action}}`));
    }
  });
  return errs;
}
