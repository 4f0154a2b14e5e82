// coordination.k8s.io/v1 (kept verbatim: client-go and kubectl describe node read node leases
// there): Lease, in 1.23 shape.
import { COORDINATION, MICRO_TIME, gvk, int32, kindSchema, link, listKindSchema, object, str } from "./dsl.mjs";

const L = (name) => COORDINATION + name;

export const coordinationSchemas = {
  [L("Lease")]: kindSchema({
    gvks: gvk("coordination.k8s.io", "v1", "Lease"),
    description:
      "A lease: a holder's claim on a named thing for a while, renewed by the holder. Namespaced. Node agents hold one per node in the kube-node-lease namespace (named after the node, owned by it) and renew it as their heartbeat; leader election uses leases too.",
    properties: { spec: link(L("LeaseSpec"), "The holder, duration and times of the lease.") },
  }),
  [L("LeaseList")]: listKindSchema({ group: "coordination.k8s.io", version: "v1", kind: "LeaseList", itemSchema: L("Lease"), itemKind: "Lease" }),
  [L("LeaseSpec")]: object("The holder, duration and times of a lease.", {
    acquireTime: link(MICRO_TIME, "When the current holder acquired the lease."),
    holderIdentity: str("Identity of the current holder of the lease (a node lease: the node's name)."),
    leaseDurationSeconds: int32(
      "Seconds other candidates wait, counted from the last observed renewTime, before they may take the lease over. Greater than 0.",
    ),
    leaseTransitions: int32("How many times the lease has changed holders. At least 0."),
    renewTime: link(MICRO_TIME, "When the current holder last renewed the lease."),
  }),
};
