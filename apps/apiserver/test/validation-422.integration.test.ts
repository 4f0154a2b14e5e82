// Every validation rule of the spec (and of the 1.23 validators Skiff implements for the four
// kinds) as an HTTP-level test against the real skiff-apiserver: 422, `reason: Invalid`,
// `details.causes` with the right field and cause type, and the message in 1.23's words.
// One table row per rule; update-only rules (immutable fields) go through PUT on a stored object.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startServer } from "./harness.js";
import type { RunningServer } from "./harness.js";

type Obj = Record<string, unknown> & { metadata?: Record<string, unknown> };
type Kind = "Job" | "CSIDriver" | "CSINode" | "PodTemplate";

const collection: Record<Kind, string> = {
  Job: "/apis/batch/v1/namespaces/default/jobs",
  CSIDriver: "/apis/storage.example.io/v1/csidrivers",
  CSINode: "/apis/storage.example.io/v1/csinodes",
  PodTemplate: "/api/v1/namespaces/default/podtemplates",
};
const groupOf: Record<Kind, string | undefined> = { Job: "batch", CSIDriver: "storage.example.io", CSINode: "storage.example.io", PodTemplate: undefined };
const displayKind: Record<Kind, string> = { Job: "Job.batch", CSIDriver: "CSIDriver.storage.example.io", CSINode: "CSINode.storage.example.io", PodTemplate: "PodTemplate" };

const podSpec = () => ({ restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] });
const base: Record<Kind, (name: string) => Obj> = {
  Job: (name) => ({ apiVersion: "batch/v1", kind: "Job", metadata: { name }, spec: { template: { spec: podSpec() } } }),
  CSIDriver: (name) => ({ apiVersion: "storage.example.io/v1", kind: "CSIDriver", metadata: { name }, spec: {} }),
  CSINode: (name) => ({
    apiVersion: "storage.example.io/v1",
    kind: "CSINode",
    metadata: { name },
    spec: { drivers: [{ name: "hostpath.csi.example.io", nodeID: "n-1", topologyKeys: ["topology.example.io/zone"], allocatable: { count: 3 } }] },
  }),
  PodTemplate: (name) => ({ apiVersion: "v1", kind: "PodTemplate", metadata: { name }, template: { metadata: { labels: { app: "web" } }, spec: podSpec() } }),
};

// Deep-ish setter: `set(o, "spec.template.spec.restartPolicy", "Always")`.
function set(o: Obj, path: string, value: unknown): Obj {
  const keys = path.split(".");
  let cur = o as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) {
    const next = cur[k];
    if (typeof next !== "object" || next === null) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1] as string] = value;
  return o;
}

interface Cause { readonly field: string; readonly reason: string; readonly message: string }
interface Row {
  readonly rule: string;
  readonly kind: Kind;
  /** create: POST the mutated base; update: POST the base, then PUT the stored object mutated. */
  readonly op: "create" | "update" | "status";
  readonly name?: string;
  readonly mutate: (o: Obj) => Obj;
  /** The cause that must be present (field, cause reason, message). */
  readonly cause: Cause;
}

const long = (n: number, c = "a") => c.repeat(n);
const subdomainMsg = (v: string) =>
  `Invalid value: "${v}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
const csiNameMsg =
  "a CSI driver name must consist of alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'csi.example.com' or 'MyDriver', regex used for validation is '[a-zA-Z0-9]([-.a-zA-Z0-9]*[a-zA-Z0-9])?')";
const immutable = (field: string, value: string): Cause => ({ field, reason: "FieldValueInvalid", message: `Invalid value: ${value}: field is immutable` });
const nonNeg = (field: string): Cause => ({ field, reason: "FieldValueInvalid", message: "Invalid value: -1: must be greater than or equal to 0" });

const rows: readonly Row[] = [
  // ---- ObjectMeta (generic rules, on every kind) ----
  { rule: "name must be a DNS-1123 subdomain", kind: "Job", op: "create", name: "Bad_Name", mutate: (o) => o, cause: { field: "metadata.name", reason: "FieldValueInvalid", message: subdomainMsg("Bad_Name") } },
  { rule: "name or generateName is required", kind: "PodTemplate", op: "create", mutate: (o) => set(o, "metadata", {}), cause: { field: "metadata.name", reason: "FieldValueRequired", message: "Required value: name or generateName is required" } },
  { rule: "generateName must be a valid prefix", kind: "Job", op: "create", mutate: (o) => set(o, "metadata", { generateName: "Bad_" }), cause: { field: "metadata.generateName", reason: "FieldValueInvalid", message: "Invalid value: \"Bad_\"" } },
  { rule: "label keys are qualified names", kind: "PodTemplate", op: "create", mutate: (o) => set(o, "metadata.labels", { "bad key": "v" }), cause: { field: "metadata.labels", reason: "FieldValueInvalid", message: "Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.'" } },
  { rule: "label values are at most 63 characters", kind: "CSIDriver", op: "create", mutate: (o) => set(o, "metadata.labels", { k: long(64) }), cause: { field: "metadata.labels", reason: "FieldValueInvalid", message: "must be no more than 63 characters" } },
  { rule: "label values follow the label-value format", kind: "CSINode", op: "create", mutate: (o) => set(o, "metadata.labels", { k: "-x" }), cause: { field: "metadata.labels", reason: "FieldValueInvalid", message: "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character" } },
  { rule: "annotation keys are qualified names", kind: "Job", op: "create", mutate: (o) => set(o, "metadata.annotations", { "a/b/c": "v" }), cause: { field: "metadata.annotations", reason: "FieldValueInvalid", message: "Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters" } },
  { rule: "annotations total at most 256 KiB", kind: "PodTemplate", op: "create", mutate: (o) => set(o, "metadata.annotations", { big: long(262_145) }), cause: { field: "metadata.annotations", reason: "FieldValueTooLong", message: "Too long: must have at most 262144 bytes" } },
  { rule: "ownerReferences uid must not be empty", kind: "Job", op: "create", mutate: (o) => set(o, "metadata.ownerReferences", [{ apiVersion: "v1", kind: "Node", name: "n", uid: "" }]), cause: { field: "metadata.ownerReferences.uid", reason: "FieldValueInvalid", message: "Invalid value: \"\": uid must not be empty" } },
  { rule: "ownerReferences apiVersion must not be empty", kind: "CSINode", op: "create", mutate: (o) => set(o, "metadata.ownerReferences", [{ apiVersion: "", kind: "Node", name: "n", uid: "u" }]), cause: { field: "metadata.ownerReferences.apiVersion", reason: "FieldValueInvalid", message: "version must not be empty" } },
  { rule: "at most one controller owner reference", kind: "Job", op: "create", mutate: (o) => set(o, "metadata.ownerReferences", [{ apiVersion: "v1", kind: "Node", name: "a", uid: "1", controller: true }, { apiVersion: "v1", kind: "Node", name: "b", uid: "2", controller: true }]), cause: { field: "metadata.ownerReferences", reason: "FieldValueInvalid", message: "Only one reference can have Controller set to true" } },
  { rule: "finalizers are qualified names", kind: "CSIDriver", op: "create", mutate: (o) => set(o, "metadata.finalizers", ["bad finalizer"]), cause: { field: "metadata.finalizers", reason: "FieldValueInvalid", message: "Invalid value: \"bad finalizer\"" } },
  { rule: "finalizers orphan and foregroundDeletion exclude each other", kind: "Job", op: "create", mutate: (o) => set(o, "metadata.finalizers", ["orphan", "foregroundDeletion"]), cause: { field: "metadata.finalizers", reason: "FieldValueInvalid", message: "finalizer orphan and foregroundDeletion cannot be both set" } },

  // ---- Job (batch/v1) ----
  { rule: "parallelism ≥ 0", kind: "Job", op: "create", mutate: (o) => set(o, "spec.parallelism", -1), cause: nonNeg("spec.parallelism") },
  { rule: "completions ≥ 0", kind: "Job", op: "create", mutate: (o) => set(o, "spec.completions", -1), cause: nonNeg("spec.completions") },
  { rule: "backoffLimit ≥ 0", kind: "Job", op: "create", mutate: (o) => set(o, "spec.backoffLimit", -1), cause: nonNeg("spec.backoffLimit") },
  { rule: "ttlSecondsAfterFinished ≥ 0", kind: "Job", op: "create", mutate: (o) => set(o, "spec.ttlSecondsAfterFinished", -1), cause: nonNeg("spec.ttlSecondsAfterFinished") },
  { rule: "activeDeadlineSeconds > 0 (spec: positive integer)", kind: "Job", op: "create", mutate: (o) => set(o, "spec.activeDeadlineSeconds", 0), cause: { field: "spec.activeDeadlineSeconds", reason: "FieldValueInvalid", message: "Invalid value: 0: must be greater than 0" } },
  { rule: "completionMode NonIndexed or Indexed", kind: "Job", op: "create", mutate: (o) => set(o, "spec.completionMode", "Bogus"), cause: { field: "spec.completionMode", reason: "FieldValueNotSupported", message: "Unsupported value: \"Bogus\": supported values: \"NonIndexed\", \"Indexed\"" } },
  { rule: "Indexed requires completions", kind: "Job", op: "create", mutate: (o) => set(set(o, "spec.completionMode", "Indexed"), "spec.parallelism", 2), cause: { field: "spec.completions", reason: "FieldValueRequired", message: "Required value: when completion mode is Indexed" } },
  { rule: "Indexed parallelism ≤ 10^5", kind: "Job", op: "create", mutate: (o) => set(set(set(o, "spec.completionMode", "Indexed"), "spec.completions", 3), "spec.parallelism", 100_001), cause: { field: "spec.parallelism", reason: "FieldValueInvalid", message: "Invalid value: 100001: must be less than or equal to 100000 when completion mode is Indexed" } },
  { rule: "Indexed pod hostnames must be DNS labels", kind: "Job", op: "create", name: "a.b", mutate: (o) => set(set(o, "spec.completionMode", "Indexed"), "spec.completions", 2), cause: { field: "metadata.name", reason: "FieldValueInvalid", message: "Invalid value: \"a.b\": will not able to create pod with invalid DNS label: a.b-1" } },
  { rule: "restartPolicy Always is Required (1.23's quirk)", kind: "Job", op: "create", mutate: (o) => set(o, "spec.template.spec.restartPolicy", "Always"), cause: { field: "spec.template.spec.restartPolicy", reason: "FieldValueRequired", message: "Required value: valid values: \"OnFailure\", \"Never\"" } },
  { rule: "restartPolicy other than OnFailure or Never is NotSupported", kind: "Job", op: "create", mutate: (o) => set(o, "spec.template.spec.restartPolicy", "Sometimes"), cause: { field: "spec.template.spec.restartPolicy", reason: "FieldValueNotSupported", message: "Unsupported value: \"Sometimes\": supported values: \"OnFailure\", \"Never\"" } },
  { rule: "manualSelector needs a selector", kind: "Job", op: "create", mutate: (o) => set(o, "spec.manualSelector", true), cause: { field: "spec.selector", reason: "FieldValueRequired", message: "Required value" } },
  { rule: "selector must match the template labels", kind: "Job", op: "create", mutate: (o) => set(set(set(o, "spec.manualSelector", true), "spec.selector", { matchLabels: { a: "b" } }), "spec.template.metadata.labels", { a: "c" }), cause: { field: "spec.template.metadata.labels", reason: "FieldValueInvalid", message: "`selector` does not match template `labels`" } },
  { rule: "selector matchExpressions operator must be valid", kind: "Job", op: "create", mutate: (o) => set(set(set(o, "spec.manualSelector", true), "spec.selector", { matchExpressions: [{ key: "a", operator: "Bogus", values: ["b"] }] }), "spec.template.metadata.labels", { a: "b" }), cause: { field: "spec.selector.matchExpressions[0].operator", reason: "FieldValueInvalid", message: "Invalid value: \"Bogus\": not a valid selector operator" } },
  { rule: "generated selector: controller-uid in the selector must be the Job's uid", kind: "Job", op: "create", mutate: (o) => set(o, "spec.selector", { matchLabels: { "controller-uid": "wrong" } }), cause: { field: "spec.selector", reason: "FieldValueInvalid", message: "`selector` not auto-generated" } },
  { rule: "generated selector: template job-name label must be the Job's name", kind: "Job", op: "create", name: "jn", mutate: (o) => set(o, "spec.template.metadata.labels", { "job-name": "other" }), cause: { field: "spec.template.metadata.labels[job-name]", reason: "FieldValueInvalid", message: "must be 'jn'" } },
  // Go decodes a null list item into a zero struct, which validation then judges (422, not 400).
  { rule: "a null container is an empty one", kind: "PodTemplate", op: "create", mutate: (o) => set(o, "template.spec.containers", [null]), cause: { field: "template.spec.containers[0].name", reason: "FieldValueRequired", message: "Required value" } },
  { rule: "a block device comes from a claim volume only", kind: "Job", op: "create", mutate: (o) => set(set(o, "spec.template.spec.volumes", [{ name: "scratch", emptyDir: {} }]), "spec.template.spec.containers", [{ name: "c", image: "busybox", volumeDevices: [{ name: "scratch", devicePath: "/dev/xvda" }] }]), cause: { field: "spec.template.spec.containers[0].volumeDevices[0].name", reason: "FieldValueInvalid", message: "Invalid value: \"scratch\": can only use volume source type of PersistentVolumeClaim for block mode" } },
  { rule: "the pod's OS is linux or windows", kind: "Job", op: "create", mutate: (o) => set(o, "spec.template.spec.os", { name: "darwin" }), cause: { field: "spec.template.spec.os", reason: "FieldValueNotSupported", message: "Unsupported value: \"darwin\": supported values: \"linux\", \"windows\"" } },
  { rule: "a windows pod sets no Linux-only field", kind: "PodTemplate", op: "create", mutate: (o) => set(set(o, "template.spec.os", { name: "windows" }), "template.spec.hostPID", true), cause: { field: "template.spec.hostPID", reason: "FieldValueForbidden", message: "Forbidden: cannot be set for a windows pod" } },
  { rule: "template needs containers", kind: "Job", op: "create", mutate: (o) => set(o, "spec.template.spec.containers", []), cause: { field: "spec.template.spec.containers", reason: "FieldValueRequired", message: "Required value" } },
  { rule: "container image is required", kind: "Job", op: "create", mutate: (o) => set(o, "spec.template.spec.containers", [{ name: "c" }]), cause: { field: "spec.template.spec.containers[0].image", reason: "FieldValueRequired", message: "Required value" } },
  { rule: "container names are DNS labels", kind: "Job", op: "create", mutate: (o) => set(o, "spec.template.spec.containers", [{ name: "C_1", image: "busybox" }]), cause: { field: "spec.template.spec.containers[0].name", reason: "FieldValueInvalid", message: "Invalid value: \"C_1\": a lowercase RFC 1123 label must consist of" } },
  { rule: "container names are unique", kind: "Job", op: "create", mutate: (o) => set(o, "spec.template.spec.containers", [{ name: "c", image: "a" }, { name: "c", image: "b" }]), cause: { field: "spec.template.spec.containers[1].name", reason: "FieldValueDuplicate", message: "Duplicate value: \"c\"" } },
  { rule: "completions is immutable (1.23)", kind: "Job", op: "update", mutate: (o) => set(o, "spec.completions", 5), cause: immutable("spec.completions", "5") },
  { rule: "completionMode is immutable", kind: "Job", op: "update", mutate: (o) => set(o, "spec.completionMode", "Indexed"), cause: { field: "spec.completionMode", reason: "FieldValueInvalid", message: "Invalid value: \"Indexed\": field is immutable" } },
  { rule: "selector is immutable", kind: "Job", op: "update", mutate: (o) => set(o, "spec.selector", { matchLabels: { "controller-uid": "x" } }), cause: { field: "spec.selector", reason: "FieldValueInvalid", message: "field is immutable" } },
  { rule: "template is immutable", kind: "Job", op: "update", mutate: (o) => set(o, "spec.template.spec.containers", [{ name: "c", image: "nginx" }]), cause: { field: "spec.template", reason: "FieldValueInvalid", message: "field is immutable" } },
  { rule: "/status: active ≥ 0", kind: "Job", op: "status", mutate: (o) => set(o, "status.active", -1), cause: nonNeg("status.active") },
  { rule: "/status: succeeded ≥ 0", kind: "Job", op: "status", mutate: (o) => set(o, "status.succeeded", -1), cause: nonNeg("status.succeeded") },
  { rule: "/status: failed ≥ 0", kind: "Job", op: "status", mutate: (o) => set(o, "status.failed", -1), cause: nonNeg("status.failed") },

  // ---- CSIDriver (storage.example.io/v1) ----
  { rule: "name: alphanumeric at both ends", kind: "CSIDriver", op: "create", name: "-bad", mutate: (o) => o, cause: { field: "metadata.name", reason: "FieldValueInvalid", message: `Invalid value: "-bad": ${csiNameMsg}` } },
  { rule: "name: at most 63 characters", kind: "CSIDriver", op: "create", name: long(64), mutate: (o) => o, cause: { field: "metadata.name", reason: "FieldValueInvalid", message: "must be no more than 63 characters" } },
  { rule: "fsGroupPolicy is one of File, None, ReadWriteOnceWithFSType", kind: "CSIDriver", op: "create", mutate: (o) => set(o, "spec.fsGroupPolicy", "Bogus"), cause: { field: "spec.fsGroupPolicy", reason: "FieldValueNotSupported", message: "Unsupported value: \"Bogus\": supported values: \"File\", \"None\", \"ReadWriteOnceWithFSType\"" } },
  { rule: "volumeLifecycleModes are Persistent or Ephemeral", kind: "CSIDriver", op: "create", mutate: (o) => set(o, "spec.volumeLifecycleModes", ["Persistent", "Bogus"]), cause: { field: "spec.volumeLifecycleModes", reason: "FieldValueNotSupported", message: "Unsupported value: \"Bogus\": supported values: \"Persistent\", \"Ephemeral\"" } },
  { rule: "tokenRequests audiences differ", kind: "CSIDriver", op: "create", mutate: (o) => set(o, "spec.tokenRequests", [{ audience: "a" }, { audience: "a" }]), cause: { field: "spec.tokenRequests[1].audience", reason: "FieldValueDuplicate", message: "Duplicate value: \"a\"" } },
  { rule: "tokenRequests: at most one empty audience", kind: "CSIDriver", op: "create", mutate: (o) => set(o, "spec.tokenRequests", [{ audience: "" }, { audience: "" }]), cause: { field: "spec.tokenRequests[1].audience", reason: "FieldValueDuplicate", message: "Duplicate value: \"\"" } },
  { rule: "tokenRequests expirationSeconds ≥ 10 minutes", kind: "CSIDriver", op: "create", mutate: (o) => set(o, "spec.tokenRequests", [{ audience: "a", expirationSeconds: 599 }]), cause: { field: "spec.tokenRequests[0].expirationSeconds", reason: "FieldValueInvalid", message: "Invalid value: 599: may not specify a duration less than 10 minutes" } },
  { rule: "tokenRequests expirationSeconds ≤ 2^32", kind: "CSIDriver", op: "create", mutate: (o) => set(o, "spec.tokenRequests", [{ audience: "a", expirationSeconds: 2 ** 32 + 1 }]), cause: { field: "spec.tokenRequests[0].expirationSeconds", reason: "FieldValueInvalid", message: "Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds" } },
  { rule: "attachRequired is immutable (reported at 1.23's spec.attachedRequired)", kind: "CSIDriver", op: "update", mutate: (o) => set(o, "spec.attachRequired", false), cause: immutable("spec.attachedRequired", "false") },
  { rule: "podInfoOnMount is immutable", kind: "CSIDriver", op: "update", mutate: (o) => set(o, "spec.podInfoOnMount", true), cause: immutable("spec.podInfoOnMount", "true") },
  { rule: "fsGroupPolicy is immutable", kind: "CSIDriver", op: "update", mutate: (o) => set(o, "spec.fsGroupPolicy", "File"), cause: immutable("spec.fsGroupPolicy", "\"File\"") },
  { rule: "volumeLifecycleModes is immutable", kind: "CSIDriver", op: "update", mutate: (o) => set(o, "spec.volumeLifecycleModes", ["Ephemeral"]), cause: immutable("spec.volumeLifecycleModes", "[]storage.VolumeLifecycleMode{\"Ephemeral\"}") },

  // ---- CSINode (storage.example.io/v1) ----
  { rule: "name is a node name (DNS-1123 subdomain)", kind: "CSINode", op: "create", name: "Node_1", mutate: (o) => o, cause: { field: "metadata.name", reason: "FieldValueInvalid", message: subdomainMsg("Node_1") } },
  { rule: "driver name is required", kind: "CSINode", op: "create", mutate: (o) => set(o, "spec.drivers", [{ name: "", nodeID: "n" }]), cause: { field: "spec.drivers[0].name", reason: "FieldValueRequired", message: "Required value" } },
  { rule: "driver name at most 63 characters", kind: "CSINode", op: "create", mutate: (o) => set(o, "spec.drivers", [{ name: long(64), nodeID: "n" }]), cause: { field: "spec.drivers[0].name", reason: "FieldValueTooLong", message: "Too long: must have at most 63 bytes" } },
  { rule: "driver name: empty also gets an Invalid cause (1.23)", kind: "CSINode", op: "create", mutate: (o) => set(o, "spec.drivers", [{ name: "", nodeID: "n" }]), cause: { field: "spec.drivers[0].name", reason: "FieldValueInvalid", message: subdomainMsg("") } },
  { rule: "driver name is a DNS-1123 subdomain once lower-cased (1.23 ValidateCSIDriverName)", kind: "CSINode", op: "create", mutate: (o) => set(o, "spec.drivers", [{ name: "bad_driver", nodeID: "n" }]), cause: { field: "spec.drivers[0].name", reason: "FieldValueInvalid", message: subdomainMsg("bad_driver") } },
  { rule: "driver names are unique", kind: "CSINode", op: "create", mutate: (o) => set(o, "spec.drivers", [{ name: "d.example.io", nodeID: "a" }, { name: "d.example.io", nodeID: "b" }]), cause: { field: "spec.drivers[1].name", reason: "FieldValueDuplicate", message: "Duplicate value: \"d.example.io\"" } },
  { rule: "nodeID is required", kind: "CSINode", op: "create", mutate: (o) => set(o, "spec.drivers", [{ name: "d.example.io", nodeID: "" }]), cause: { field: "spec.drivers[0].nodeID", reason: "FieldValueRequired", message: "Required value" } },
  { rule: "nodeID at most 256 characters", kind: "CSINode", op: "create", mutate: (o) => set(o, "spec.drivers", [{ name: "d.example.io", nodeID: long(257) }]), cause: { field: "spec.drivers[0].nodeID", reason: "FieldValueInvalid", message: "must be 256 characters or less" } },
  { rule: "allocatable.count ≥ 0", kind: "CSINode", op: "create", mutate: (o) => set(o, "spec.drivers", [{ name: "d.example.io", nodeID: "n", allocatable: { count: -1 } }]), cause: nonNeg("spec.drivers[0].allocatable.count") },
  { rule: "topologyKeys are non-empty", kind: "CSINode", op: "create", mutate: (o) => set(o, "spec.drivers", [{ name: "d.example.io", nodeID: "n", topologyKeys: [""] }]), cause: { field: "spec.drivers[0]", reason: "FieldValueRequired", message: "Required value" } },
  { rule: "topologyKeys are unique", kind: "CSINode", op: "create", mutate: (o) => set(o, "spec.drivers", [{ name: "d.example.io", nodeID: "n", topologyKeys: ["k", "k"] }]), cause: { field: "spec.drivers[0]", reason: "FieldValueDuplicate", message: "Duplicate value: \"k\"" } },
  { rule: "topologyKeys are qualified names", kind: "CSINode", op: "create", mutate: (o) => set(o, "spec.drivers", [{ name: "d.example.io", nodeID: "n", topologyKeys: ["bad key"] }]), cause: { field: "spec.drivers[0]", reason: "FieldValueInvalid", message: "Invalid value: []string{\"bad key\"}: name part must consist of alphanumeric characters" } },
  { rule: "a driver's nodeID is immutable", kind: "CSINode", op: "update", mutate: (o) => set(o, "spec.drivers", [{ name: "hostpath.csi.example.io", nodeID: "n-2", topologyKeys: ["topology.example.io/zone"], allocatable: { count: 3 } }]), cause: { field: "CSINodeDriver", reason: "FieldValueInvalid", message: "Invalid value: storage.CSINodeDriver{Name:\"hostpath.csi.example.io\", NodeID:\"n-2\"" } },
  { rule: "a driver's allocatable is immutable", kind: "CSINode", op: "update", mutate: (o) => set(o, "spec.drivers", [{ name: "hostpath.csi.example.io", nodeID: "n-1", topologyKeys: ["topology.example.io/zone"], allocatable: { count: 4 } }]), cause: { field: "CSINodeDriver", reason: "FieldValueInvalid", message: "field is immutable" } },
  { rule: "a driver's topologyKeys are immutable", kind: "CSINode", op: "update", mutate: (o) => set(o, "spec.drivers", [{ name: "hostpath.csi.example.io", nodeID: "n-1", topologyKeys: ["other"], allocatable: { count: 3 } }]), cause: { field: "CSINodeDriver", reason: "FieldValueInvalid", message: "TopologyKeys:[]string{\"other\"}" } },

  // ---- PodTemplate (v1) ----
  { rule: "template needs containers", kind: "PodTemplate", op: "create", mutate: (o) => set(o, "template.spec.containers", []), cause: { field: "template.spec.containers", reason: "FieldValueRequired", message: "Required value" } },
  { rule: "restartPolicy is Always, OnFailure or Never", kind: "PodTemplate", op: "create", mutate: (o) => set(o, "template.spec.restartPolicy", "Sometimes"), cause: { field: "template.spec.restartPolicy", reason: "FieldValueNotSupported", message: "Unsupported value: \"Sometimes\"" } },
  { rule: "template labels are validated", kind: "PodTemplate", op: "create", mutate: (o) => set(o, "template.metadata.labels", { "bad key": "v" }), cause: { field: "template.labels", reason: "FieldValueInvalid", message: "Invalid value: \"bad key\"" } },
  { rule: "container ports are in range", kind: "PodTemplate", op: "create", mutate: (o) => set(o, "template.spec.containers", [{ name: "c", image: "i", ports: [{ containerPort: 70000 }] }]), cause: { field: "template.spec.containers[0].ports[0].containerPort", reason: "FieldValueInvalid", message: "Invalid value: 70000: must be between 1 and 65535, inclusive" } },
  { rule: "update re-validates the template", kind: "PodTemplate", op: "update", mutate: (o) => set(o, "template.spec.containers", [{ name: "c" }]), cause: { field: "template.spec.containers[0].image", reason: "FieldValueRequired", message: "Required value" } },
];

interface Status {
  kind: string;
  code: number;
  reason: string;
  message: string;
  details?: { name?: string; group?: string; kind?: string; causes?: Cause[] };
}

describe("validation: 422 Invalid with details.causes, one row per rule", () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer();
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  let seq = 0;
  const uniqueName = (kind: Kind) => `v${kind.toLowerCase()}-${String(++seq)}`;

  async function createBase(kind: Kind, name: string): Promise<Obj> {
    const r = await call(s, "POST", collection[kind], base[kind](name));
    expect(r.status, r.body).toBe(201);
    return r.json() as Obj;
  }

  it.each(rows.map((r) => [`${r.kind} ${r.op}: ${r.rule}`, r] as const))("%s", async (_title, row) => {
    const name = row.name ?? uniqueName(row.kind);
    let res;
    let expectedName = name;
    if (row.op === "create") {
      const body = row.mutate(base[row.kind](name));
      const meta = body.metadata ?? {};
      expectedName = typeof meta["name"] === "string" ? meta["name"] : "";
      res = await call(s, "POST", collection[row.kind], body);
    } else {
      const stored = await createBase(row.kind, name);
      const path = `${collection[row.kind]}/${name}${row.op === "status" ? "/status" : ""}`;
      res = await call(s, "PUT", path, row.mutate(structuredClone(stored)));
    }
    expect(res.status, res.body).toBe(422);
    const st = res.json() as Status;
    expect(st).toMatchObject({ kind: "Status", code: 422, reason: "Invalid" });
    expect(st.details?.kind).toBe(row.kind);
    expect(st.details?.group).toBe(groupOf[row.kind]);
    if (expectedName !== "") {
      expect(st.details?.name).toBe(expectedName);
      expect(st.message.startsWith(`${displayKind[row.kind]} "${expectedName}" is invalid: `), st.message).toBe(true);
    }
    const causes = st.details?.causes ?? [];
    const hit = causes.find((c) => c.field === row.cause.field && c.reason === row.cause.reason && c.message.includes(row.cause.message));
    expect(hit, JSON.stringify(causes)).toBeDefined();
    // The top-level message lists every cause as `field: message`, as Kubernetes' NewInvalid does.
    expect(st.message).toContain(`${row.cause.field}: ${hit?.message ?? ""}`);
    // Nothing was stored by a rejected create.
    if (row.op === "create" && expectedName !== "") {
      expect((await call(s, "GET", `${collection[row.kind]}/${expectedName}`)).status).toBe(404);
    }
  });

  it.each([
    ["CSIDriver requiresRepublish", "CSIDriver", (o: Obj) => set(o, "spec.requiresRepublish", true)],
    ["CSIDriver storageCapacity (mutable after 1.22)", "CSIDriver", (o: Obj) => set(o, "spec.storageCapacity", true)],
    ["CSIDriver tokenRequests", "CSIDriver", (o: Obj) => set(o, "spec.tokenRequests", [{ audience: "vault" }])],
    ["CSINode: a driver may be added", "CSINode", (o: Obj) => set(o, "spec.drivers", [...((o["spec"] as { drivers: unknown[] }).drivers), { name: "other.csi.example.io", nodeID: "x" }])],
    ["CSINode: a driver may be removed", "CSINode", (o: Obj) => set(o, "spec.drivers", [])],
    ["Job parallelism", "Job", (o: Obj) => set(o, "spec.parallelism", 4)],
    ["Job suspend", "Job", (o: Obj) => set(o, "spec.suspend", true)],
    ["PodTemplate template", "PodTemplate", (o: Obj) => set(o, "template.spec.containers", [{ name: "c", image: "nginx" }])],
  ] as const)("mutable on update: %s → 200", async (_t, kind, mutate) => {
    const name = uniqueName(kind);
    const stored = await createBase(kind, name);
    const r = await call(s, "PUT", `${collection[kind]}/${name}`, mutate(structuredClone(stored)));
    expect(r.status, r.body).toBe(200);
  });

  it("no new finalizers once the object is being deleted (Forbidden, update-only)", async () => {
    const name = uniqueName("PodTemplate");
    const body = set(base.PodTemplate(name), "metadata.finalizers", ["example.io/keep"]);
    expect((await call(s, "POST", collection.PodTemplate, body)).status).toBe(201);
    const d = await call(s, "DELETE", `${collection.PodTemplate}/${name}`);
    expect([200, 202]).toContain(d.status);
    const stored = (await call(s, "GET", `${collection.PodTemplate}/${name}`)).json() as Obj;
    expect(stored.metadata?.["deletionTimestamp"]).toBeDefined();
    const r = await call(s, "PUT", `${collection.PodTemplate}/${name}`, set(stored, "metadata.finalizers", ["example.io/keep", "example.io/new"]));
    expect(r.status, r.body).toBe(422);
    const causes = (r.json() as Status).details?.causes ?? [];
    expect(causes).toContainEqual(
      expect.objectContaining({ field: "metadata.finalizers", reason: "FieldValueForbidden", message: expect.stringContaining("no new finalizers can be added if the object is being deleted") as unknown }),
    );
    // Let it go.
    const clean = (await call(s, "GET", `${collection.PodTemplate}/${name}`)).json() as Obj;
    expect((await call(s, "PUT", `${collection.PodTemplate}/${name}`, set(clean, "metadata.finalizers", []))).status).toBe(200);
    expect((await call(s, "GET", `${collection.PodTemplate}/${name}`)).status).toBe(404);
  });

  it("a cluster-scoped create drops metadata.namespace (1.23 BeforeCreate), not 422", async () => {
    const r = await call(s, "POST", collection.CSINode, set(base.CSINode("ns-dropped"), "metadata.namespace", "default"));
    expect(r.status, r.body).toBe(201);
    expect((r.json() as Obj).metadata?.["namespace"]).toBeUndefined();
  });

  it("update ignores creationTimestamp changes (1.23 BeforeUpdate)", async () => {
    const stored = await createBase("CSIDriver", "ts-kept");
    const r = await call(s, "PUT", `${collection.CSIDriver}/ts-kept`, set(structuredClone(stored), "metadata.creationTimestamp", "2000-01-01T00:00:00Z"));
    expect(r.status, r.body).toBe(200);
    expect((r.json() as Obj).metadata?.["creationTimestamp"]).toBe(stored.metadata?.["creationTimestamp"]);
  });

  it("a PUT whose body carries another uid is a failed precondition: 409 Conflict, nothing written", async () => {
    const stored = await createBase("PodTemplate", "uid-pre");
    const other = "00000000-0000-0000-0000-000000000000";
    const r = await call(s, "PUT", `${collection.PodTemplate}/uid-pre`, set(set(structuredClone(stored), "metadata.uid", other), "template.spec.containers", [{ name: "c", image: "nginx" }]));
    expect(r.status, r.body).toBe(409);
    expect(r.json()).toMatchObject({
      reason: "Conflict",
      message: `Operation cannot be fulfilled on podtemplates "uid-pre": Precondition failed: UID in precondition: ${other}, UID in object meta: ${String(stored.metadata?.["uid"])}`,
    });
    const after = (await call(s, "GET", `${collection.PodTemplate}/uid-pre`)).json() as Obj;
    expect(after.metadata?.["resourceVersion"]).toBe(stored.metadata?.["resourceVersion"]);
  });

  it("several violations in one body are all reported, in one 422", async () => {
    const body = set(set(set(base.Job("many"), "spec.parallelism", -1), "spec.completionMode", "Indexed"), "spec.template.spec.restartPolicy", "Always");
    const r = await call(s, "POST", collection.Job, body);
    expect(r.status).toBe(422);
    const fields = ((r.json() as Status).details?.causes ?? []).map((c) => c.field).sort();
    expect(fields).toEqual(["spec.completions", "spec.parallelism", "spec.template.spec.restartPolicy"]);
  });
});
