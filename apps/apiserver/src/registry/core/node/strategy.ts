/**
 * core/v1 Node (cluster-scoped, /status) and its printer.
 * @see pkg/registry/core/node/strategy.go
 * @see pkg/printers/internalversion/printers.go (printNode)
 */
import type { Node } from "@skiff/api-types";
import { findResource } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { defaultValidationOptions, kindValidators, setNodeDefaults } from "@skiff/validation";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { ageColumn, nameColumn, nameIndexedField } from "../../../internal/simple-strategy.js";
import { keepAllButStatus, keepOldStatus } from "../../../internal/status-split.js";

type T = Node & Record<string, unknown>;
const col = (name: string, description: string, priority = 0) => ({ name, type: "string", format: "", description, priority });

/** Node table: NAME, STATUS, ROLES, AGE, VERSION; wide INTERNAL-IP, EXTERNAL-IP, OS-IMAGE, KERNEL-VERSION, CONTAINER-RUNTIME. */
export const nodeTable: TableConvertor<T> = {
  columns: [
    nameColumn,
    col("Status", "The status of the node"),
    col("Roles", "The roles of the node"),
    ageColumn,
    col("Version", "Kubelet Version reported by the node."),
    col("Internal-IP", "List of internal IPs for the node.", 1),
    col("External-IP", "List of external IPs for this node.", 1),
    col("OS-Image", "OS image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1),
    col("Kernel-Version", "Kernel version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
    col("Container-Runtime", "Container runtime version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1),
  ],
  cells(n, now) {
    const info = n.status?.nodeInfo;
    const addr = (type: string) => (n.status?.addresses ?? []).find((a) => a.type === type)?.address ?? "<none>";
    return [
      n.metadata?.name ?? "",
      nodeStatusText(n),
      nodeRoles(n.metadata?.labels),
      translateTimestampSince(n.metadata?.creationTimestamp, now),
      info?.kubeletVersion ?? "",
      addr("InternalIP"),
      addr("ExternalIP"),
      info?.osImage || "<unknown>",
      info?.kernelVersion || "<unknown>",
      info?.containerRuntimeVersion || "<unknown>",
    ];
  },
};

/**
 * STATUS cell: `Ready` when the Ready condition is True, `NotReady` for any other status (False or
 * Unknown), `Unknown` only without a Ready condition; `,SchedulingDisabled` when cordoned.
 * @see pkg/printers/internalversion/printers.go (printNode)
 */
export function nodeStatusText(n: Node): string {
  const ready = (n.status?.conditions ?? []).find((c) => c.type === "Ready");
  const parts = [ready === undefined ? "Unknown" : ready.status === "True" ? "Ready" : "NotReady"];
  if (n.spec?.unschedulable === true) parts.push("SchedulingDisabled");
  return parts.join(",");
}

/** ROLES cell from `node-role.kubernetes.io/<role>` and `kubernetes.io/role` labels, sorted; `<none>`. */
export function nodeRoles(labels: Readonly<Record<string, string>> | undefined): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith("node-role.kubernetes.io/")) {
      const role = k.slice("node-role.kubernetes.io/".length);
      if (role !== "") roles.add(role);
    } else if (k === "kubernetes.io/role" && v !== "") roles.add(v);
  }
  return roles.size === 0 ? "<none>" : [...roles].sort().join(",");
}

/** The Node strategy: cluster-scoped, status kept on spec updates and vice versa. */
export function createNodeStrategy(): ResourceStrategy<T> {
  const resource = findResource({ group: "", resource: "nodes" });
  if (resource === undefined) throw new Error("nodes missing from the resources table");
  const validators = kindValidators.Node;
  const opts = defaultValidationOptions;
  return {
    resource,
    applyDefaults: (n) => setNodeDefaults(n),
    prepareForCreate() {
      // 1.23 keeps the status a node agent sends on registration.
    },
    validate: (_c, n) => validators.validate(n, opts),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForUpdate: (_c, n, old) => keepOldStatus(n, old),
    validateUpdate: (_c, n, old) => validators.validateUpdate(n, old, opts),
    status: {
      prepareForUpdate: (_c, n, old) => keepAllButStatus(n, old),
      validateUpdate: (_c, n, old) => validators.validateStatusUpdate(n, old, opts),
    },
    getAttrs: (n) => ({
      labels: { ...n.metadata?.labels },
      fields: { "metadata.name": n.metadata?.name ?? "", "spec.unschedulable": String(n.spec?.unschedulable ?? false) },
    }),
    fieldSelectorKeys: ["spec.unschedulable"],
    indexedField: nameIndexedField,
    defaultGarbageCollectionPolicy: () => "Background",
    returnDeletedObject: true,
    table: nodeTable,
  };
}
