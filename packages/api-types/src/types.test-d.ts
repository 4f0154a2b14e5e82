// Type tests (checked by `tsc -p tsconfig.tests.json`): optional stays optional without
// `| undefined`, required stays required, and wrong field types are rejected.
import { expectTypeOf } from "vitest";
import type {
  CSIDriver,
  CSIDriverSpec,
  Container,
  Job,
  JobSpec,
  ObjectMeta,
  OpenAPIComponents,
  OpenAPIOperations,
  OpenAPIPaths,
  PodSpec,
  Quantity,
  ResourceInfo,
  Status,
  Table,
  TableColumnDefinition,
  Time,
} from "./index.js";
import { JobGVK, resources } from "./index.js";

// A Job with every optional field omitted type-checks.
const minimalJob: Job = {
  spec: { template: { spec: { containers: [{ name: "pi", image: "perl", command: ["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"] }], restartPolicy: "Never" } } },
};
void minimalJob;
const emptyJob: Job = {};
void emptyJob;

const fullJob: Job = {
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "pi", namespace: "default", labels: { app: "pi" }, creationTimestamp: "2024-01-02T03:04:05Z" },
  spec: {
    parallelism: 2,
    completions: 3,
    completionMode: "Indexed",
    backoffLimit: 6,
    activeDeadlineSeconds: 600,
    ttlSecondsAfterFinished: 0,
    suspend: false,
    selector: { matchLabels: { "controller-uid": "u" }, matchExpressions: [{ key: "job-name", operator: "In", values: ["pi"] }] },
    template: {
      metadata: { labels: { "job-name": "pi" } },
      spec: {
        containers: [
          {
            name: "c",
            resources: { limits: { cpu: "500m", memory: 1024 }, requests: { cpu: 0.5 } },
            ports: [{ containerPort: 8080, protocol: "TCP" }],
            env: [{ name: "A", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
            livenessProbe: { httpGet: { port: "http", path: "/healthz" }, periodSeconds: 5 },
          },
        ],
      },
    },
  },
  status: { active: 1, ready: 1, completedIndexes: "0,2-4", uncountedTerminatedPods: { succeeded: ["uid-1"] }, conditions: [{ type: "Complete", status: "True" }] },
};
void fullJob;

// @ts-expect-error parallelism is an int32 (number), not a string
const badParallelism: JobSpec = { template: {}, parallelism: "2" };
void badParallelism;

// @ts-expect-error spec.template is required
const noTemplate: JobSpec = { parallelism: 1 };
void noTemplate;

// @ts-expect-error a container needs a name
const namelessContainer: Container = { image: "busybox" };
void namelessContainer;

// @ts-expect-error restartPolicy is one of Always, OnFailure, Never
const badRestart: PodSpec = { containers: [{ name: "c" }], restartPolicy: "Sometimes" };
void badRestart;

// @ts-expect-error exactOptionalPropertyTypes: an optional member is omitted, never undefined
const undefinedMember: ObjectMeta = { name: undefined };
void undefinedMember;

// @ts-expect-error fsGroupPolicy is one of File, None, ReadWriteOnceWithFSType
const badPolicy: CSIDriverSpec = { fsGroupPolicy: "Sometimes" };
void badPolicy;

// @ts-expect-error a CSIDriver needs its spec
const noSpec: CSIDriver = { metadata: { name: "x" } };
void noSpec;

expectTypeOf<JobSpec["parallelism"]>().toEqualTypeOf<number | undefined>();
expectTypeOf<JobSpec>().toHaveProperty("template");
expectTypeOf<Job["apiVersion"]>().toEqualTypeOf<string | undefined>();
expectTypeOf<Quantity>().toEqualTypeOf<string | number>();
expectTypeOf<Time>().toEqualTypeOf<string>();
expectTypeOf<Status["code"]>().toEqualTypeOf<number | undefined>();
expectTypeOf<Table["rows"][number]["cells"]>().toEqualTypeOf<unknown[]>();
expectTypeOf<TableColumnDefinition>().toEqualTypeOf<OpenAPIComponents["schemas"]["io.example.apimachinery.pkg.apis.meta.v1.TableColumnDefinition"]>();
expectTypeOf<OpenAPIPaths["/apis/batch/v1/namespaces/{namespace}/jobs/{name}"]["get"]>().toEqualTypeOf<OpenAPIOperations["readBatchV1NamespacedJob"]>();
expectTypeOf(JobGVK).toEqualTypeOf<Readonly<{ group: "batch"; version: "v1"; kind: "Job" }>>();
expectTypeOf(resources).toEqualTypeOf<readonly ResourceInfo[]>();
