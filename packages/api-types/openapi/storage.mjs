// storage.example.io/v1 (Kubernetes' storage.k8s.io/v1): CSIDriver and CSINode, in 1.23 shape.
import { STORAGE, arrayOf, bool, enumStr, gvk, int32, int64, kindSchema, link, listKindSchema, listType, mergeBy, object, str, strList } from "./dsl.mjs";

const S = (name) => STORAGE + name;

export const storageSchemas = {
  [S("CSIDriver")]: kindSchema({
    gvks: gvk("storage.example.io", "v1", "CSIDriver"),
    description:
      "One container-storage-interface (CSI) volume driver installed in the cluster. Cluster-scoped; its name is the name the driver returns from its plugin-name call (at most 63 characters, alphanumeric at both ends, dashes, dots and alphanumerics between).",
    properties: { spec: link(S("CSIDriverSpec"), "Specification of the driver.") },
    required: ["spec"],
  }),
  [S("CSIDriverList")]: listKindSchema({ group: "storage.example.io", version: "v1", kind: "CSIDriverList", itemSchema: S("CSIDriver"), itemKind: "CSIDriver" }),
  [S("CSIDriverSpec")]: object("Specification of a CSI driver.", {
    attachRequired: bool(
      "Whether the driver needs an attach operation (it implements ControllerPublishVolume): the attach/detach controller waits for the attachment before mount. When false (and the CSIDriverRegistry gate is on), attach is skipped. Immutable.",
      { default: true },
    ),
    podInfoOnMount: bool(
      "When true, the node agent passes pod information (csi.storage.example.io/pod.name, pod.namespace, pod.uid, ephemeral) as volume context in NodePublishVolume calls. Immutable.",
      { default: false },
    ),
    volumeLifecycleModes: strList(
      "Volume modes the driver supports: Persistent and/or Ephemeral (inline in the pod spec, living as long as the pod, with only a NodePublishVolume call). Empty means Persistent. Beta. Immutable.",
      listType("set"),
    ),
    storageCapacity: bool(
      "When true, pod scheduling considers the capacity the driver publishes as CSIStorageCapacity objects, and late-binding provisioning waits for it. May be flipped later (mutable since 1.23).",
      { default: false },
    ),
    fsGroupPolicy: enumStr(
      ["File", "None", "ReadWriteOnceWithFSType"],
      "Whether volumes support changing ownership and permissions to the pod's fsGroup before mount: ReadWriteOnceWithFSType (only with an fstype and ReadWriteOnce access), File (always) or None (never). Immutable.",
      { default: "ReadWriteOnceWithFSType" },
    ),
    tokenRequests: arrayOf(
      S("TokenRequest"),
      "Service-account tokens the driver needs for the pods it mounts volumes for, passed in the volume context under csi.storage.example.io/serviceAccount.tokens as a map of audience to {token, expirationTimestamp}. Audiences must differ; at most one may be empty.",
      listType("atomic"),
    ),
    requiresRepublish: bool(
      "When true, NodePublishVolume is called periodically to refresh the mounted volume (for example fresh tokens); later calls only update contents, new mount points are not seen by running containers.",
      { default: false },
    ),
  }),
  [S("TokenRequest")]: object(
    "A service-account token a CSI driver needs.",
    {
      audience: str("Intended audience of the token; empty means the API server's audiences."),
      expirationSeconds: int64("Requested lifetime of the token in seconds; the token-request default when unset."),
    },
    { required: ["audience"] },
  ),
  [S("CSINode")]: kindSchema({
    gvks: gvk("storage.example.io", "v1", "CSINode"),
    description:
      "The CSI drivers installed on one node. Cluster-scoped, named after the node and owned by it; the node agent maintains it during driver registration. A missing object means no CSI drivers on the node (or an agent too old to create it).",
    properties: { spec: link(S("CSINodeSpec"), "The drivers of the node.") },
    required: ["spec"],
  }),
  [S("CSINodeList")]: listKindSchema({ group: "storage.example.io", version: "v1", kind: "CSINodeList", itemSchema: S("CSINode"), itemKind: "CSINode" }),
  [S("CSINodeSpec")]: object(
    "The CSI drivers of a node.",
    { drivers: arrayOf(S("CSINodeDriver"), "One entry per driver installed on the node; empty when all are uninstalled.", mergeBy("name")) },
    { required: ["drivers"] },
  ),
  [S("CSINodeDriver")]: object(
    "One CSI driver installed on a node.",
    {
      name: str("Name of the driver, as its plugin-name call returns it."),
      nodeID: str("The node's identifier as the storage system knows it, used in attach calls instead of the node name."),
      topologyKeys: strList(
        "Topology keys the driver understands; the node agent exposes them as node labels, and topology-aware provisioning passes them back to the driver. May be empty.",
      ),
      allocatable: link(S("VolumeNodeResources"), "Volume resources of the node available for scheduling. Beta."),
    },
    { required: ["name", "nodeID"] },
  ),
  [S("VolumeNodeResources")]: object("Volume limits of a driver on a node.", {
    count: int32(
      "Maximum number of unique volumes of the driver usable on the node; a volume attached and mounted, or shared by several pods, counts once. Unbounded when unset.",
    ),
  }),
};
