/**
 * The bootstrap RBAC policy of Kubernetes 1.23: the default ClusterRoles (cluster-admin, the
 * discovery and info roles, admin/edit/view aggregated from the `system:aggregate-to-*` roles, the
 * component roles) and ClusterRoleBindings, and the controller roles of the controllers Skiff runs
 * (`system:controller:<name>` bound to ServiceAccount `kube-system/<name>`). Every object carries
 * the label `kubernetes.io/bootstrapping=rbac-defaults` and the annotation
 * `rbac.authorization.kubernetes.io/autoupdate=true`.
 *
 * @see plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (kubernetes/kubernetes v1.23)
 * @see plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go
 * @see plugin/pkg/auth/authorizer/rbac/bootstrappolicy/namespace_policy.go
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from "@skiff/api-types";
import { RBACAutoUpdateAnnotation } from "@skiff/api-types";

const rbacGroup = "rbac.authorization.k8s.io";
const read = ["get", "list", "watch"];
const write = ["create", "update", "patch", "delete", "deletecollection"];
const readWrite = [...read, ...write];

/** The label of every bootstrap object. @see bootstrappolicy/policy.go (Label) */
export const bootstrapLabel = Object.freeze({ "kubernetes.io/bootstrapping": "rbac-defaults" });

function rule(verbs: readonly string[], groups: readonly string[], resources: readonly string[], names?: readonly string[]): PolicyRule {
  return { verbs: [...verbs], apiGroups: [...groups], resources: [...resources], ...(names ? { resourceNames: [...names] } : {}) };
}
const urls = (verbs: readonly string[], paths: readonly string[]): PolicyRule => ({ verbs: [...verbs], nonResourceURLs: [...paths] });
const eventsRule = () => rule(["create", "update", "patch"], ["", "events.k8s.io"], ["events"]);

function role(name: string, rules: PolicyRule[], extra: { labels?: Record<string, string>; aggregateFrom?: string } = {}): ClusterRole {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name, labels: { ...extra.labels, ...bootstrapLabel }, annotations: { [RBACAutoUpdateAnnotation]: "true" } },
    ...(extra.aggregateFrom ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [extra.aggregateFrom]: "true" } }] } } : { rules }),
  };
}

function binding(name: string, subjects: Subject[], roleName = name): ClusterRoleBinding {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name, labels: { ...bootstrapLabel }, annotations: { [RBACAutoUpdateAnnotation]: "true" } },
    roleRef: { apiGroup: rbacGroup, kind: "ClusterRole", name: roleName },
    ...(subjects.length > 0 ? { subjects } : {}),
  };
}
const group = (name: string): Subject => ({ kind: "Group", apiGroup: rbacGroup, name });
const user = (name: string): Subject => ({ kind: "User", apiGroup: rbacGroup, name });
const serviceAccount = (namespace: string, name: string): Subject => ({ kind: "ServiceAccount", name, namespace });

const aggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin";
const aggregateToEdit = "rbac.authorization.k8s.io/aggregate-to-edit";
const aggregateToView = "rbac.authorization.k8s.io/aggregate-to-view";

/** The rules of ClusterRole `system:node`. @see bootstrappolicy/policy.go NodeRules */
export function nodeRules(): PolicyRule[] {
  return [
    rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
    rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews", "localsubjectaccessreviews"]),
    rule(read, [""], ["services"]),
    rule(["create", "get", "list", "watch"], [""], ["nodes"]),
    rule(["update", "patch"], [""], ["nodes/status"]),
    rule(["update", "patch"], [""], ["nodes"]),
    rule(["create", "update", "patch"], [""], ["events"]),
    rule(read, [""], ["pods"]),
    rule(["create", "delete"], [""], ["pods"]),
    rule(["update", "patch"], [""], ["pods/status"]),
    rule(["create"], [""], ["pods/eviction"]),
    rule(["get", "list", "watch"], [""], ["secrets", "configmaps"]),
    rule(["get"], [""], ["persistentvolumeclaims", "persistentvolumes"]),
    rule(["get"], [""], ["endpoints"]),
    rule(["create", "get", "list", "watch"], ["certificates.k8s.io"], ["certificatesigningrequests"]),
    rule(["get", "create", "update", "patch", "delete"], ["coordination.k8s.io"], ["leases"]),
    rule(["get"], ["storage.k8s.io"], ["volumeattachments"]),
    rule(["get", "update", "patch"], [""], ["persistentvolumeclaims/status"]),
    rule(["create"], [""], ["serviceaccounts/token"]),
    // Skiff serves CSIDriver and CSINode in storage.example.io (1.23: storage.k8s.io).
    rule(["get", "watch", "list"], ["storage.k8s.io", "storage.example.io"], ["csidrivers"]),
    rule(["get", "create", "update", "patch", "delete"], ["storage.k8s.io", "storage.example.io"], ["csinodes"]),
    rule(["get", "list", "watch"], ["node.k8s.io"], ["runtimeclasses"]),
  ];
}

/** The default ClusterRoles of 1.23 (component and user-facing roles). @see bootstrappolicy/policy.go clusterRoles */
export function bootstrapClusterRoles(): ClusterRole[] {
  return [
    role("cluster-admin", [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])]),
    role("system:discovery", [urls(["get"], ["/livez", "/readyz", "/healthz", "/version", "/version/", "/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*"])]),
    role("system:monitoring", [urls(["get"], ["/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz", "/livez/*", "/readyz/*", "/healthz/*"])]),
    role("system:basic-user", [rule(["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"])]),
    role("system:public-info-viewer", [urls(["get"], ["/livez", "/readyz", "/healthz", "/version", "/version/"])]),
    role("admin", [], { aggregateFrom: aggregateToAdmin }),
    role("edit", [], { labels: { [aggregateToAdmin]: "true" }, aggregateFrom: aggregateToEdit }),
    role("view", [], { labels: { [aggregateToEdit]: "true" }, aggregateFrom: aggregateToView }),
    role(
      "system:aggregate-to-admin",
      [rule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]), rule(readWrite, [rbacGroup], ["roles", "rolebindings"])],
      { labels: { [aggregateToAdmin]: "true" } },
    ),
    role(
      "system:aggregate-to-edit",
      [
        rule(read, [""], ["pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"]),
        rule(["impersonate"], [""], ["serviceaccounts"]),
        rule(write, [""], ["pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"]),
        rule(write, [""], ["replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services", "services/proxy", "endpoints", "persistentvolumeclaims", "configmaps", "secrets"]),
        rule(write, ["apps"], ["statefulsets", "statefulsets/scale", "daemonsets", "deployments", "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale"]),
        rule(write, ["autoscaling"], ["horizontalpodautoscalers"]),
        rule(write, ["batch"], ["jobs", "cronjobs"]),
        rule(write, ["extensions"], ["daemonsets", "deployments", "deployments/scale", "deployments/rollback", "ingresses", "replicasets", "replicasets/scale", "replicationcontrollers/scale", "networkpolicies"]),
        rule(write, ["policy"], ["poddisruptionbudgets"]),
        rule(write, ["networking.k8s.io"], ["networkpolicies", "ingresses"]),
      ],
      { labels: { [aggregateToEdit]: "true" } },
    ),
    role(
      "system:aggregate-to-view",
      [
        rule(read, [""], ["pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services", "services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "configmaps"]),
        rule(read, [""], ["limitranges", "resourcequotas", "bindings", "events", "pods/status", "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"]),
        rule(read, [""], ["namespaces"]),
        rule(read, ["discovery.k8s.io"], ["endpointslices"]),
        rule(read, ["apps"], ["controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale", "daemonsets", "daemonsets/status", "deployments", "deployments/status", "deployments/scale", "replicasets", "replicasets/status", "replicasets/scale"]),
        rule(read, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
        rule(read, ["batch"], ["jobs", "cronjobs", "cronjobs/status", "jobs/status"]),
        rule(read, ["extensions"], ["daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status", "ingresses", "ingresses/status", "replicasets", "replicasets/scale", "replicasets/status", "replicationcontrollers/scale", "networkpolicies"]),
        rule(read, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
        rule(read, ["networking.k8s.io"], ["networkpolicies", "ingresses", "ingresses/status"]),
      ],
      { labels: { [aggregateToView]: "true" } },
    ),
    role("system:heapster", [rule(read, [""], ["events", "pods", "nodes", "namespaces"]), rule(read, ["extensions"], ["deployments"])]),
    role("system:node", nodeRules()),
    role("system:node-problem-detector", [rule(["get"], [""], ["nodes"]), rule(["patch"], [""], ["nodes/status"]), eventsRule()]),
    role("system:kubelet-api-admin", [
      rule(["get", "list", "watch"], [""], ["nodes"]),
      rule(["proxy"], [""], ["nodes"]),
      rule(["*"], [""], ["nodes/proxy", "nodes/metrics", "nodes/spec", "nodes/stats", "nodes/log"]),
    ]),
    role("system:node-bootstrapper", [rule(["create", "get", "list", "watch"], ["certificates.k8s.io"], ["certificatesigningrequests"])]),
    role("system:auth-delegator", [rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]), rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"])]),
    role("system:kube-aggregator", [rule(read, [""], ["services", "endpoints"])]),
    role("system:kube-controller-manager", [
      eventsRule(),
      rule(["create"], ["coordination.k8s.io"], ["leases"]),
      rule(["get", "update"], ["coordination.k8s.io"], ["leases"], ["kube-controller-manager"]),
      rule(["create"], [""], ["endpoints"]),
      rule(["get", "update"], [""], ["endpoints"], ["kube-controller-manager"]),
      rule(["create"], [""], ["secrets", "serviceaccounts"]),
      rule(["delete"], [""], ["secrets"]),
      rule(["get"], [""], ["namespaces", "secrets", "serviceaccounts", "configmaps"]),
      rule(["update"], [""], ["secrets", "serviceaccounts"]),
      rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
      rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
      rule(["list", "watch"], ["*"], ["*"]),
      rule(["create"], [""], ["serviceaccounts/token"]),
    ]),
    role("system:kube-dns", [rule(["list", "watch"], [""], ["endpoints", "services"])]),
    role("system:persistent-volume-provisioner", [
      rule(["get", "list", "watch", "create", "delete"], [""], ["persistentvolumes"]),
      rule(["get", "list", "watch", "update"], [""], ["persistentvolumeclaims"]),
      rule(read, ["storage.k8s.io"], ["storageclasses"]),
      rule(["watch"], [""], ["events"]),
      eventsRule(),
    ]),
    role("system:volume-scheduler", [
      rule(["get", "list", "watch", "update", "patch"], [""], ["persistentvolumes"]),
      rule(read, ["storage.k8s.io"], ["storageclasses"]),
      rule(["get", "list", "watch", "update", "patch"], [""], ["persistentvolumeclaims"]),
    ]),
    role("system:service-account-issuer-discovery", [urls(["get"], ["/.well-known/openid-configuration", "/openid/v1/jwks"])]),
    role("system:node-proxier", [
      rule(["list", "watch"], [""], ["services", "endpoints"]),
      rule(["get", "list", "watch"], [""], ["nodes"]),
      eventsRule(),
      rule(["list", "watch"], ["discovery.k8s.io"], ["endpointslices"]),
    ]),
    role("system:kube-scheduler", [
      eventsRule(),
      rule(["create"], ["coordination.k8s.io"], ["leases"]),
      rule(["get", "update"], ["coordination.k8s.io"], ["leases"], ["kube-scheduler"]),
      rule(["create"], [""], ["endpoints"]),
      rule(["get", "update"], [""], ["endpoints"], ["kube-scheduler"]),
      rule(read, [""], ["nodes"]),
      rule(["get", "list", "watch", "delete"], [""], ["pods"]),
      rule(["create"], [""], ["pods/binding", "bindings"]),
      rule(["patch", "update"], [""], ["pods/status"]),
      rule(read, [""], ["services", "replicationcontrollers"]),
      rule(read, ["apps", "extensions"], ["replicasets"]),
      rule(read, ["apps"], ["statefulsets"]),
      rule(read, ["policy"], ["poddisruptionbudgets"]),
      rule(read, [""], ["persistentvolumeclaims", "persistentvolumes"]),
      rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
      rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
      rule(read, ["storage.k8s.io", "storage.example.io"], ["csinodes"]),
      rule(read, [""], ["namespaces"]),
      rule(read, ["storage.k8s.io", "storage.example.io"], ["csidrivers"]),
      rule(read, ["storage.k8s.io"], ["csistoragecapacities"]),
    ]),
  ];
}

/**
 * The controller roles of the controllers Skiff runs, named `system:controller:<name>`.
 * @see plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go
 */
export function controllerRoles(): ClusterRole[] {
  const c = (name: string, rules: PolicyRule[]) => role(`system:controller:${name}`, rules);
  return [
    c("clusterrole-aggregation-controller", [rule(["escalate", "get", "list", "watch", "update", "patch"], [rbacGroup], ["clusterroles"])]),
    c("generic-garbage-collector", [rule(["get", "list", "watch", "patch", "update", "delete"], ["*"], ["*"])]),
    c("job-controller", [
      rule(["get", "list", "watch", "update", "patch"], ["batch"], ["jobs"]),
      rule(["update"], ["batch"], ["jobs/status"]),
      rule(["update"], ["batch"], ["jobs/finalizers"]),
      rule(["list", "watch", "create", "delete", "patch"], [""], ["pods"]),
      eventsRule(),
    ]),
    c("namespace-controller", [
      rule(["get", "list", "watch", "delete"], [""], ["namespaces"]),
      rule(["update"], [""], ["namespaces/finalize", "namespaces/status"]),
      rule(["get", "list", "delete", "deletecollection"], ["*"], ["*"]),
    ]),
    c("node-controller", [
      rule(["get", "list", "update", "delete", "patch"], [""], ["nodes"]),
      rule(["patch", "update"], [""], ["nodes/status"]),
      rule(["patch", "update"], [""], ["pods/status"]),
      rule(["list", "delete"], [""], ["pods"]),
      eventsRule(),
    ]),
    c("root-ca-cert-publisher", [rule(["create", "update"], [""], ["configmaps"]), eventsRule()]),
    c("service-account-controller", [rule(["create"], [""], ["serviceaccounts"]), eventsRule()]),
    c("ttl-after-finished-controller", [rule(["get", "list", "watch", "delete"], ["batch"], ["jobs"]), eventsRule()]),
  ];
}

/** The default ClusterRoleBindings of 1.23 and those of the controller roles. @see bootstrappolicy/policy.go clusterRoleBindings */
export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  const controllers = controllerRoles().map((r) => {
    const name = r.metadata!.name!;
    return binding(name, [serviceAccount("kube-system", name.slice("system:controller:".length))]);
  });
  return [
    binding("cluster-admin", [group("system:masters")]),
    binding("system:monitoring", [group("system:monitoring")]),
    binding("system:discovery", [group("system:authenticated")]),
    binding("system:basic-user", [group("system:authenticated")]),
    binding("system:public-info-viewer", [group("system:authenticated"), group("system:unauthenticated")]),
    binding("system:node-proxier", [user("system:kube-proxy")]),
    binding("system:kube-controller-manager", [user("system:kube-controller-manager")]),
    binding("system:kube-dns", [serviceAccount("kube-system", "kube-dns")]),
    binding("system:kube-scheduler", [user("system:kube-scheduler")]),
    binding("system:volume-scheduler", [user("system:kube-scheduler")]),
    // 1.23 keeps this binding without subjects (the Node authorizer replaced it).
    binding("system:node", []),
    binding("system:service-account-issuer-discovery", [group("system:serviceaccounts")]),
    ...controllers,
  ];
}

function namespacedRole(namespace: string, name: string, rules: PolicyRule[]): Role {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name, namespace, labels: { ...bootstrapLabel }, annotations: { [RBACAutoUpdateAnnotation]: "true" } },
    rules,
  };
}

function namespacedBinding(namespace: string, name: string, roleName: string, subjects: Subject[]): RoleBinding {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name, namespace, labels: { ...bootstrapLabel }, annotations: { [RBACAutoUpdateAnnotation]: "true" } },
    roleRef: { apiGroup: rbacGroup, kind: "Role", name: roleName },
    subjects,
  };
}

/**
 * The namespaced bootstrap Roles of 1.23, by namespace: in `kube-system` the
 * `extension-apiserver-authentication-reader`, the leader-locking roles of the controller manager
 * and the scheduler (ConfigMap locks), and the roles of the bootstrap signer, the cloud provider
 * and the token cleaner; in `kube-public` the bootstrap signer's.
 * @see plugin/pkg/auth/authorizer/rbac/bootstrappolicy/namespace_policy.go (NamespaceRoles)
 */
export function bootstrapNamespaceRoles(): Record<string, Role[]> {
  const sys = "kube-system";
  const pub = "kube-public";
  return {
    [sys]: [
      namespacedRole(sys, "extension-apiserver-authentication-reader", [rule(read, [""], ["configmaps"], ["extension-apiserver-authentication"])]),
      namespacedRole(sys, "system:controller:bootstrap-signer", [rule(read, [""], ["secrets"])]),
      namespacedRole(sys, "system:controller:cloud-provider", [rule(["create", "get", "list", "watch"], [""], ["configmaps"])]),
      namespacedRole(sys, "system:controller:token-cleaner", [rule(["delete", "get", "list", "watch"], [""], ["secrets"]), eventsRule()]),
      namespacedRole(sys, "system::leader-locking-kube-controller-manager", [rule(["watch"], [""], ["configmaps"]), rule(["get", "update"], [""], ["configmaps"], ["kube-controller-manager"])]),
      namespacedRole(sys, "system::leader-locking-kube-scheduler", [rule(["watch"], [""], ["configmaps"]), rule(["get", "update"], [""], ["configmaps"], ["kube-scheduler"])]),
    ],
    [pub]: [namespacedRole(pub, "system:controller:bootstrap-signer", [rule(read, [""], ["configmaps"]), rule(["update"], [""], ["configmaps"], ["cluster-info"]), eventsRule()])],
  };
}

/**
 * The namespaced bootstrap RoleBindings of 1.23, by namespace.
 * @see plugin/pkg/auth/authorizer/rbac/bootstrappolicy/namespace_policy.go (NamespaceRoleBindings)
 */
export function bootstrapNamespaceRoleBindings(): Record<string, RoleBinding[]> {
  const sys = "kube-system";
  const pub = "kube-public";
  return {
    [sys]: [
      namespacedBinding(sys, "system::extension-apiserver-authentication-reader", "extension-apiserver-authentication-reader", [user("system:kube-controller-manager"), user("system:kube-scheduler")]),
      namespacedBinding(sys, "system::leader-locking-kube-controller-manager", "system::leader-locking-kube-controller-manager", [user("system:kube-controller-manager"), serviceAccount(sys, "kube-controller-manager")]),
      namespacedBinding(sys, "system::leader-locking-kube-scheduler", "system::leader-locking-kube-scheduler", [user("system:kube-scheduler"), serviceAccount(sys, "kube-scheduler")]),
      namespacedBinding(sys, "system:controller:bootstrap-signer", "system:controller:bootstrap-signer", [serviceAccount(sys, "bootstrap-signer")]),
      namespacedBinding(sys, "system:controller:cloud-provider", "system:controller:cloud-provider", [serviceAccount(sys, "cloud-provider")]),
      namespacedBinding(sys, "system:controller:token-cleaner", "system:controller:token-cleaner", [serviceAccount(sys, "token-cleaner")]),
    ],
    [pub]: [namespacedBinding(pub, "system:controller:bootstrap-signer", "system:controller:bootstrap-signer", [serviceAccount(sys, "bootstrap-signer")])],
  };
}
