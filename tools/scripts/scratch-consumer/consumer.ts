// A user's program, compiled and run in a scratch project against the packed tarballs: a Job
// typed with @skiff/api-types, decoded, defaulted and validated with @skiff/validation.
import type { Job } from "@skiff/api-types";
import { JobGVK, apiVersionOf } from "@skiff/api-types";
import { formatIndexes } from "@skiff/completed-indexes";
import { findMatchingUntoleratedTaint, requiredNodeAffinityMatches } from "@skiff/component-helpers";
import { applyDefaults, decodeObject, validateObject } from "@skiff/validation";

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

const decoded = decodeObject("Job", JSON.parse(JSON.stringify(job)), { fieldValidation: "Strict" });
if (!decoded.ok) throw new Error("decode failed");
applyDefaults("Job", decoded.value);
const errors = validateObject("Job", decoded.value);
if (errors.length !== 0) throw new Error(`unexpected errors: ${JSON.stringify(errors)}`);
if (decoded.value.spec?.backoffLimit !== 6) throw new Error("backoffLimit was not defaulted to 6");

const bad = structuredClone(decoded.value);
delete bad.spec!.completions;
const badErrors = validateObject("Job", bad);
if (!badErrors.some((e) => e.field === "spec.completions")) throw new Error("Indexed job without completions validated");

if (formatIndexes([1, 3, 4, 5, 7]) !== "1,3-5,7") throw new Error("formatIndexes");
const node = { metadata: { name: "n1", labels: { zone: "a" } }, spec: { taints: [{ key: "gpu", effect: "NoExecute" as const }] } };
const podSpec = { ...decoded.value.spec!.template.spec!, nodeSelector: { zone: "a" } };
if (!requiredNodeAffinityMatches({ spec: podSpec }, node)) throw new Error("requiredNodeAffinityMatches");
if (findMatchingUntoleratedTaint(node.spec.taints, podSpec.tolerations, (t) => t.effect === "NoExecute")?.key !== "gpu") throw new Error("findMatchingUntoleratedTaint");
console.log("consumer ok");
