// A user's program, type-checked and run by the release test in an empty directory where
// @skiff/api-types and @skiff/validation were installed from the registry (npm, then pnpm):
// a Job typed with @skiff/api-types, parsed with the zod schemas of @skiff/validation, decoded,
// defaulted and validated.
import type { Job } from "@skiff/api-types";
import { JobGVK, apiVersionOf } from "@skiff/api-types";
import { applyDefaults, decodeObject, jobSchema, leaseSchema, validateObject } from "@skiff/validation";

const job: Job = {
  apiVersion: apiVersionOf(JobGVK),
  kind: "Job",
  metadata: { name: "pi", namespace: "default" },
  spec: {
    completionMode: "Indexed",
    completions: 3,
    manualSelector: true,
    selector: { matchLabels: { app: "pi" } },
    template: {
      metadata: { labels: { app: "pi" } },
      spec: { restartPolicy: "Never", containers: [{ name: "pi", image: "busybox" }] },
    },
  },
};

// The zod schema gives back the package's own type.
const parsed = jobSchema.safeParse(JSON.parse(JSON.stringify(job)));
if (!parsed.success) throw new Error(`jobSchema refused a valid Job: ${parsed.error.message}`);
const typed: Job = parsed.data;
if (typed.spec?.completions !== 3) throw new Error("jobSchema lost spec.completions");
const badLease = leaseSchema.safeParse({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "l" }, spec: { leaseDurationSeconds: "ten" } });
if (badLease.success) throw new Error("leaseSchema accepted a string leaseDurationSeconds");

const decoded = decodeObject("Job", JSON.parse(JSON.stringify(job)), { fieldValidation: "Strict" });
if (!decoded.ok) throw new Error("decode failed");
applyDefaults("Job", decoded.value);
if (decoded.value.spec?.backoffLimit !== 6) throw new Error("backoffLimit was not defaulted to 6");
const errors = validateObject("Job", decoded.value);
if (errors.length !== 0) throw new Error(`unexpected errors: ${JSON.stringify(errors)}`);
const bad = structuredClone(decoded.value);
delete bad.spec!.completions;
if (!validateObject("Job", bad).some((e) => e.field === "spec.completions")) throw new Error("an Indexed Job without completions validated");

console.log("consumer ok");
