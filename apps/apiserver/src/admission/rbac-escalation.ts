/**
 * The escalation and bind checks of 1.23's RBAC storage, run as the last mutating admission step
 * (where 1.23's policy-based storage sits: after mutating admission, before validation):
 *
 * - Role/ClusterRole create and update: allowed for `system:masters`, or with verb `escalate` on
 *   the role; otherwise every rule must be held by the user already (RBAC rules in the role's
 *   namespace), else 403 `user "bob" (groups=[...]) is attempting to grant RBAC permissions not
 *   currently held:` and the missing rules. A ClusterRole with an aggregationRule needs `*` on
 *   everything ("must have cluster-admin privileges to use the aggregationRule").
 * - RoleBinding/ClusterRoleBinding create and update: allowed for `system:masters`, or with verb
 *   `bind` on the referenced role, or when the user holds every rule of the referenced role.
 * - An update that changes only ownerReferences/finalizers is not checked.
 *
 * @see pkg/registry/rbac/role/policybased/storage.go, pkg/registry/rbac/clusterrole/policybased/storage.go
 * @see pkg/registry/rbac/rolebinding/policybased/storage.go, pkg/registry/rbac/clusterrolebinding/policybased/storage.go
 * @see pkg/registry/rbac/escalation_check.go (EscalationAllowed, RoleEscalationAuthorized, BindingAuthorized)
 * @see pkg/registry/rbac/validation/rule.go (ConfirmNoEscalation)
 */
import type { ClusterRole, PolicyRule, RoleBinding } from "@skiff/api-types";
import { roleReferenceRules, rulesFor, semanticEqual, wellKnownUsers } from "@skiff/apiserver-core";
import type { APIObject, AdmissionAttributes, AdmissionPlugin, Authorizer, RBACPolicySource, UserInfo } from "@skiff/apiserver-core";
import { newForbidden, newInternalError } from "@skiff/apimachinery";
import { compactRules, compactString, covers, goQuoteList } from "../rbac/covers.js";

const rbacGroup = "rbac.authorization.k8s.io";
const fullAuthority: PolicyRule[] = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
  { verbs: ["*"], nonResourceURLs: ["*"] },
];

/**
 * Whether `rules` are all held by `user` in `namespace`; the 1.23 error text when not.
 * @see pkg/registry/rbac/validation/rule.go ConfirmNoEscalation
 */
export function confirmNoEscalation(policy: RBACPolicySource, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owner = rulesFor(policy, user, namespace);
  const { covered, missing } = covers(owner.rules, rules);
  if (covered) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.username)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join("\n")}`;
  if (owner.errors.length > 0) msg += `; resolution errors: [${owner.errors.map((e) => e.message).join(" ")}]`;
  return msg;
}

// rbacregistry.IsOnlyMutatingGCFields: equal once ownerReferences and finalizers are set aside.
function onlyGCFieldsChange(obj: APIObject, old: APIObject | undefined): boolean {
  if (old === undefined) return false;
  const strip = (o: APIObject) => {
    const c = structuredClone(o);
    if (c.metadata) {
      delete c.metadata.ownerReferences;
      delete c.metadata.finalizers;
      delete c.metadata.managedFields;
      delete c.metadata.resourceVersion;
    }
    return c;
  };
  return semanticEqual(strip(obj), strip(old));
}

/** Options of {@link rbacEscalationAdmission}. */
export interface RBACEscalationOptions {
  /** The server's authorizer (asked for `escalate` and `bind`). */
  readonly authorizer: Authorizer;
  /** The RBAC roles and bindings (the user's current rules). */
  readonly policy: RBACPolicySource;
}

/** The escalation and bind checks; see the module comment. Never mutates. */
export function rbacEscalationAdmission(o: RBACEscalationOptions): AdmissionPlugin {
  const allowedTo = async (user: UserInfo, verb: string, resource: string, name: string, namespace: string) =>
    (await o.authorizer({ user, verb, resourceRequest: true, path: "", apiGroup: rbacGroup, apiVersion: "*", namespace, resource, subresource: "", name })).allowed;
  return {
    name: "RBACEscalation",
    async mutate(attrs: AdmissionAttributes) {
      const { info, ctx, object } = attrs;
      if (attrs.operation === "DELETE" || object === undefined || info.apiGroup !== rbacGroup || info.subresource !== "") return;
      const user = ctx.user;
      // EscalationAllowed: system:masters can always do anything.
      if (user.groups.includes(wellKnownUsers.privilegedGroup)) return;
      if (onlyGCFieldsChange(object, attrs.oldObject)) return;
      const namespace = info.namespace;
      const name = object.metadata?.name ?? info.name;
      const gr = { group: rbacGroup, resource: info.resource };
      if (info.resource === "roles" || info.resource === "clusterroles") {
        if (await allowedTo(user, "escalate", info.resource, info.name, namespace)) return;
        const role = object as ClusterRole & APIObject;
        const denied = confirmNoEscalation(o.policy, user, namespace, role.rules ?? []);
        if (denied !== undefined) throw newForbidden(gr, name, new Error(denied));
        if (info.resource === "clusterroles" && role.aggregationRule != null && confirmNoEscalation(o.policy, user, namespace, fullAuthority) !== undefined) {
          throw newForbidden(gr, name, new Error("must have cluster-admin privileges to use the aggregationRule"));
        }
        return;
      }
      if (info.resource === "rolebindings" || info.resource === "clusterrolebindings") {
        const binding = object as RoleBinding & APIObject;
        const ref = binding.roleRef;
        const refResource = ref?.kind === "ClusterRole" ? "clusterroles" : ref?.kind === "Role" ? "roles" : undefined;
        if (refResource !== undefined && (await allowedTo(user, "bind", refResource, ref.name, namespace))) return;
        let rules: readonly PolicyRule[];
        try {
          rules = roleReferenceRules(o.policy, ref, namespace);
        } catch (e) {
          throw newInternalError(e);
        }
        const denied = confirmNoEscalation(o.policy, user, namespace, rules);
        if (denied !== undefined) throw newForbidden(gr, name, new Error(denied));
      }
    },
  };
}
