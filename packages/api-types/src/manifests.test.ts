// Real-world manifests, written in YAML as users write them, checked structurally against the
// document: every field must be declared, of the declared type, enum and format, and every
// required field present. This keeps the document complete for what kubectl users send.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { parseAPIVersion } from "./api-version.js";

interface Schema {
  type?: string;
  format?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  $ref?: string;
  "x-kubernetes-group-version-kind"?: { group: string; version: string; kind: string }[];
}

const schemas = (JSON.parse(readFileSync(new URL("../openapi.json", import.meta.url), "utf8")) as { components: { schemas: Record<string, Schema> } }).components.schemas;

function resolve(schema: Schema): Schema {
  if (schema.$ref) return resolve(schemas[schema.$ref.replace("#/components/schemas/", "")]!);
  if (schema.allOf?.length === 1) return resolve(schema.allOf[0]!);
  return schema;
}

function check(raw: Schema, value: unknown, path: string): string[] {
  const schema = resolve(raw);
  if (schema.oneOf) return schema.oneOf.some((alt) => check(alt, value, path).length === 0) ? [] : [`${path}: matches no alternative`];
  switch (schema.type) {
    case undefined:
      return [];
    case "string":
      if (typeof value !== "string") return [`${path}: want string`];
      if (schema.enum && !schema.enum.includes(value)) return [`${path}: ${value} not in ${schema.enum.join("|")}`];
      if (schema.format === "date-time" && Number.isNaN(Date.parse(value))) return [`${path}: not a date-time`];
      return [];
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) return [`${path}: want integer`];
      if (schema.format === "int32" && (value < -(2 ** 31) || value >= 2 ** 31)) return [`${path}: out of int32 range`];
      return [];
    case "number":
      return typeof value === "number" ? [] : [`${path}: want number`];
    case "boolean":
      return typeof value === "boolean" ? [] : [`${path}: want boolean`];
    case "array":
      if (!Array.isArray(value)) return [`${path}: want array`];
      return value.flatMap((item, i) => check(schema.items!, item, `${path}[${i}]`));
    case "object": {
      if (value === null || typeof value !== "object" || Array.isArray(value)) return [`${path}: want object`];
      const members = Object.entries(value as Record<string, unknown>);
      if (schema.additionalProperties) return members.flatMap(([k, v]) => check(schema.additionalProperties!, v, `${path}[${k}]`));
      if (!schema.properties) return [];
      const errors = (schema.required ?? []).filter((k) => !(k in (value as object))).map((k) => `${path}.${k}: required`);
      for (const [k, v] of members) {
        const member = schema.properties[k];
        errors.push(...(member ? check(member, v, `${path}.${k}`) : [`${path}.${k}: unknown field`]));
      }
      return errors;
    }
    default:
      return [`${path}: unsupported schema type ${schema.type}`];
  }
}

function checkManifest(value: unknown): string[] {
  const { apiVersion, kind } = value as { apiVersion: string; kind: string };
  const { group, version } = parseAPIVersion(apiVersion);
  const found = Object.values(schemas).find((s) => s["x-kubernetes-group-version-kind"]?.some((g) => g.group === group && g.version === version && g.kind === kind));
  if (!found) return [`no schema for ${apiVersion} ${kind}`];
  return check(found, value, kind);
}

const manifests = `
apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  completions: 3
  parallelism: 2
  completionMode: Indexed
  backoffLimit: 4
  ttlSecondsAfterFinished: 100
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: pi
        image: perl:5.34.0
        command: ["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"]
        env:
        - name: INDEX
          valueFrom:
            fieldRef:
              fieldPath: metadata.annotations['batch.example.io/job-completion-index']
        resources:
          limits: {cpu: 500m, memory: 128Mi}
          requests: {cpu: 0.25}
        readinessProbe:
          exec: {command: [cat, /tmp/ready]}
          initialDelaySeconds: 1
        livenessProbe:
          httpGet: {path: /healthz, port: 8080, scheme: HTTP}
        volumeMounts:
        - {name: scratch, mountPath: /scratch}
        - {name: secrets, mountPath: /mnt/secrets, readOnly: true}
      volumes:
      - name: scratch
        emptyDir: {sizeLimit: 1Gi}
      - name: secrets
        csi:
          driver: secrets.csi.example.com
          readOnly: true
          volumeAttributes: {store: vault}
          nodePublishSecretRef: {name: creds}
      - name: data
        ephemeral:
          volumeClaimTemplate:
            metadata: {labels: {type: scratch}}
            spec:
              accessModes: [ReadWriteOnce]
              storageClassName: fast
              resources: {requests: {storage: 1Gi}}
      tolerations:
      - {key: node.example.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: example.io/os, operator: In, values: [linux]}
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 1
            podAffinityTerm: {topologyKey: example.io/hostname}
---
apiVersion: storage.example.io/v1
kind: CSIDriver
metadata:
  name: secrets.csi.example.com
spec:
  attachRequired: false
  podInfoOnMount: true
  volumeLifecycleModes: [Ephemeral]
  fsGroupPolicy: File
  tokenRequests:
  - audience: vault
    expirationSeconds: 3600
  requiresRepublish: true
---
apiVersion: storage.example.io/v1
kind: CSINode
metadata:
  name: node-1
  ownerReferences:
  - {apiVersion: v1, kind: Node, name: node-1, uid: 5f1c}
spec:
  drivers:
  - name: secrets.csi.example.com
    nodeID: node-1
    topologyKeys: [topology.example.com/zone]
    allocatable: {count: 10}
---
apiVersion: v1
kind: PodTemplate
metadata:
  name: worker
template:
  metadata:
    labels: {app: worker}
  spec:
    containers:
    - name: w
      image: busybox
      ports:
      - {containerPort: 80, name: http}
---
apiVersion: v1
kind: Node
metadata:
  name: node-1
  labels: {example.io/hostname: node-1, example.io/os: linux}
spec:
  podCIDR: 10.0.0.0/24
  taints:
  - {key: node.example.io/unschedulable, effect: NoSchedule}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions:
  - {type: Ready, status: "True", lastHeartbeatTime: "2024-01-02T03:04:05Z", reason: NodeAgentReady}
  addresses:
  - {type: InternalIP, address: 10.0.0.1}
  daemonEndpoints:
    kubeletEndpoint: {Port: 10250}
  nodeInfo: {machineID: m, systemUUID: s, bootID: b, kernelVersion: "6.1", osImage: Debian, containerRuntimeVersion: "containerd://1.6.20", kubeletVersion: v1.23.0, kubeProxyVersion: "", operatingSystem: linux, architecture: amd64}
---
apiVersion: authentication.k8s.io/v1
kind: SelfSubjectReview
status:
  userInfo: {username: admin, groups: [system:masters]}
---
apiVersion: meta.k8s.io/v1
kind: Table
columnDefinitions:
- {name: Name, type: string, format: name, description: Name of the job, priority: 0}
rows:
- cells: [pi, 1/3, 5s, null]
  object: {kind: PartialObjectMetadata, apiVersion: meta.k8s.io/v1, metadata: {name: pi}}
`;

describe("YAML manifests against the document", () => {
  const documents = parseAllDocuments(manifests).map((d) => d.toJS() as unknown);

  it.each(documents.map((d) => [(d as { kind: string }).kind, d] as const))("%s uses only declared fields, types and enums", (_, value) => {
    expect(checkManifest(value)).toEqual([]);
  });

  it("reports unknown fields, wrong types, bad enums and missing required fields", () => {
    const job = {
      apiVersion: "batch/v1",
      kind: "Job",
      spec: { paralelism: 2, completions: "3", template: { spec: { restartPolicy: "Sometimes", containers: [{ image: "x" }] } } },
    };
    expect(checkManifest(job).sort()).toEqual([
      "Job.spec.completions: want integer",
      "Job.spec.paralelism: unknown field",
      "Job.spec.template.spec.containers[0].name: required",
      "Job.spec.template.spec.restartPolicy: Sometimes not in Always|Never|OnFailure",
    ]);
    expect(checkManifest({ apiVersion: "storage.example.io/v1", kind: "CSINode", metadata: { name: "n" } })).toEqual(["CSINode.spec: required"]);
    expect(checkManifest({ apiVersion: "v1", kind: "Pod", spec: { containers: [{ name: "c", resources: { limits: { cpu: true } } }] } })).toEqual([
      "Pod.spec.containers[0].resources.limits[cpu]: matches no alternative",
    ]);
    expect(checkManifest({ apiVersion: "apps/v1", kind: "Deployment" })).toEqual(["no schema for apps/v1 Deployment"]);
  });
});
