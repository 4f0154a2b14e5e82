import { describe, expect, it } from "vitest";
import { decodeObject } from "../decode.js";
import { applyDefaults } from "../defaults/apply.js";
import {
  setBindingDefaults,
  validateClusterRole,
  validateClusterRoleBinding,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
} from "./rbac.js";

const fields = (errs: { type: string; field: string; detail?: string }[]) => errs.map((e) => `${e.type} ${e.field}: ${e.detail ?? ""}`);

describe("rbac validation (1.23 causes)", () => {
  it("checks the rules of a Role", () => {
    const errs = validateRole({ metadata: { name: "r", namespace: "default" }, rules: [{ verbs: [] }, { verbs: ["get"], nonResourceURLs: ["/healthz"] }] });
    expect(fields(errs)).toEqual([
      "FieldValueRequired rules[0].verbs: verbs must contain at least one value",
      "FieldValueRequired rules[0].apiGroups: resource rules must supply at least one api group",
      "FieldValueRequired rules[0].resources: resource rules must supply at least one resource",
      "FieldValueInvalid rules[1].nonResourceURLs: namespaced rules cannot apply to non-resource URLs",
    ]);
    expect(validateRole({ metadata: { name: "r", namespace: "default" }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] })).toEqual([]);
  });

  it("allows non-resource URLs in a ClusterRole but not mixed with resources; checks aggregation", () => {
    expect(validateClusterRole({ metadata: { name: "c" }, rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }] })).toEqual([]);
    expect(fields(validateClusterRole({ metadata: { name: "c" }, rules: [{ verbs: ["get"], nonResourceURLs: ["/x"], resources: ["pods"] }] }))).toEqual([
      "FieldValueInvalid rules[0].nonResourceURLs: rules cannot apply to both regular resources and non-resource URLs",
    ]);
    expect(fields(validateClusterRole({ metadata: { name: "c" }, aggregationRule: { clusterRoleSelectors: [] } }))).toEqual([
      "FieldValueRequired aggregationRule.clusterRoleSelectors: at least one clusterRoleSelector required if aggregationRule is non-nil",
    ]);
    expect(fields(validateClusterRole({ metadata: { name: "a/b" } }))).toEqual(["FieldValueInvalid metadata.name: may not contain '/'"]);
  });

  it("checks roleRef and subjects of bindings", () => {
    const errs = validateRoleBinding({
      metadata: { name: "b", namespace: "default" },
      roleRef: { apiGroup: "x", kind: "Pod", name: "" },
      subjects: [{ kind: "ServiceAccount", name: "Bad_Name", apiGroup: "rbac.authorization.k8s.io" }, { kind: "Robot", name: "r" }, { kind: "User", name: "u", apiGroup: "" }],
    });
    expect(fields(errs)).toEqual([
      'FieldValueNotSupported roleRef.apiGroup: supported values: "rbac.authorization.k8s.io"',
      'FieldValueNotSupported roleRef.kind: supported values: "Role", "ClusterRole"',
      "FieldValueRequired roleRef.name: ",
      expect.stringMatching(/^FieldValueInvalid subjects\[0\]\.name: a lowercase RFC 1123 subdomain/),
      'FieldValueNotSupported subjects[0].apiGroup: supported values: ""',
      'FieldValueNotSupported subjects[1].kind: supported values: "ServiceAccount", "User", "Group"',
      'FieldValueNotSupported subjects[2].apiGroup: supported values: "rbac.authorization.k8s.io"',
    ]);
    expect(fields(validateClusterRoleBinding({ metadata: { name: "b" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" }, subjects: [{ kind: "ServiceAccount", name: "default" }] }))).toEqual([
      'FieldValueNotSupported roleRef.kind: supported values: "ClusterRole"',
      "FieldValueRequired subjects[0].namespace: ",
    ]);
  });

  it("refuses a roleRef change", () => {
    const old = { metadata: { name: "b", namespace: "default", resourceVersion: "1" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "a" } };
    const errs = validateRoleBindingUpdate({ ...old, roleRef: { ...old.roleRef, name: "b" } }, old);
    expect(fields(errs)).toEqual(["FieldValueInvalid roleRef: cannot change roleRef"]);
  });

  it("defaults the apiGroup of roleRef and User/Group subjects", () => {
    const rb = { metadata: { name: "b" }, roleRef: { apiGroup: "", kind: "ClusterRole", name: "view" }, subjects: [{ kind: "User", name: "u" }, { kind: "ServiceAccount", name: "sa", namespace: "ns" }] };
    setBindingDefaults(rb);
    expect(rb.roleRef.apiGroup).toBe("rbac.authorization.k8s.io");
    expect(rb.subjects).toEqual([{ kind: "User", name: "u", apiGroup: "rbac.authorization.k8s.io" }, { kind: "ServiceAccount", name: "sa", namespace: "ns" }]);
  });

  it("decodes and defaults a RoleBinding from the wire", () => {
    const r = decodeObject("RoleBinding", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: { name: "b" }, roleRef: { kind: "Role", name: "r" }, subjects: [{ kind: "Group", name: "g" }] }, { fieldValidation: "Strict" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    applyDefaults("RoleBinding", r.value);
    expect(r.value.roleRef).toEqual({ kind: "Role", name: "r", apiGroup: "rbac.authorization.k8s.io" });
    expect(r.value.subjects?.[0]?.apiGroup).toBe("rbac.authorization.k8s.io");
  });
});
