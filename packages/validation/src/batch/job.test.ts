import type { Job } from "@skiff/api-types";
import { formatFieldError } from "@skiff/apimachinery";
import type { FieldError } from "@skiff/apimachinery";
import { describe, expect, it } from "vitest";
import { defaultPodValidationOptions } from "../core/index.js";
import { setJobDefaults } from "../defaults/job.js";
import {
  JobTrackingAnnotation,
  jobValidationOptionsFor,
  validateJob,
  validateJobStatusUpdate,
  validateJobUpdate,
} from "./job.js";
import type { JobValidationOptions } from "./job.js";

const uid = "1a2b3c";
const opts: JobValidationOptions = {
  pod: defaultPodValidationOptions,
  allowTrackingAnnotation: false,
  allowMutableSchedulingDirectives: false,
};

/** A Job as the registry would validate it: defaulted, selector generated. */
function job(mut: (j: Job) => void = () => {}): Job {
  const j: Job = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "pi", namespace: "default", uid },
    spec: {
      selector: { matchLabels: { "controller-uid": uid } },
      template: {
        metadata: { labels: { "controller-uid": uid, "job-name": "pi" } },
        spec: { restartPolicy: "Never", containers: [{ name: "pi", image: "perl" }] },
      },
    },
  };
  mut(j);
  setJobDefaults(j);
  return j;
}

const msgs = (errs: FieldError[]) => errs.map(formatFieldError);
const fields = (errs: FieldError[]) => errs.map((e) => e.field);

describe("validateJob", () => {
  it("accepts a defaulted job with a generated selector", () => {
    expect(validateJob(job(), opts)).toEqual([]);
  });

  it("accepts a manual selector", () => {
    const j = job((x) => {
      x.spec!.manualSelector = true;
      x.spec!.selector = { matchLabels: { app: "pi" } };
      x.spec!.template.metadata = { labels: { app: "pi" } };
    });
    expect(validateJob(j, opts)).toEqual([]);
  });

  describe("metadata", () => {
    it("validates the name as a DNS subdomain and requires a namespace", () => {
      const j = job((x) => {
        x.metadata = { name: "Pi_Job", uid };
        x.spec!.template.metadata!.labels!["job-name"] = "Pi_Job";
      });
      expect(fields(validateJob(j, opts))).toEqual(expect.arrayContaining(["metadata.name", "metadata.namespace"]));
    });

    it("forbids the job-tracking annotation unless allowed", () => {
      const j = job((x) => (x.metadata!.annotations = { [JobTrackingAnnotation]: "" }));
      expect(msgs(validateJob(j, opts))).toEqual([
        "metadata.annotations[batch.example.io/job-tracking]: Forbidden: cannot add this annotation",
      ]);
      expect(validateJob(j, { ...opts, allowTrackingAnnotation: true })).toEqual([]);
    });

    it("rejects Indexed jobs whose last pod hostname would not be a DNS label", () => {
      const name = "a".repeat(61);
      const j = job((x) => {
        x.metadata!.name = name;
        x.spec!.template.metadata!.labels!["job-name"] = name;
        x.spec!.completionMode = "Indexed";
        x.spec!.completions = 11;
      });
      expect(msgs(validateJob(j, opts))).toEqual([
        `metadata.name: Invalid value: "${name}": will not able to create pod with invalid DNS label: ${name}-10`,
      ]);
      const ok = structuredClone(j);
      ok.spec!.completions = 10;
      expect(validateJob(ok, opts)).toEqual([]);
      const nonIndexed = structuredClone(j);
      nonIndexed.spec!.completionMode = "NonIndexed";
      expect(validateJob(nonIndexed, opts)).toEqual([]);
    });
  });

  describe("generated selector", () => {
    it("requires metadata.uid and the generated template labels", () => {
      const j = job((x) => {
        x.metadata!.uid = "";
        x.spec!.template.metadata = { labels: { "controller-uid": "" } };
        x.spec!.selector = { matchLabels: { "controller-uid": "" } };
      });
      expect(msgs(validateJob(j, opts))).toEqual([
        "metadata.uid: Required value",
        'spec.template.metadata.labels[job-name]: Required value: pi',
      ]);
    });

    it("requires the template labels to carry the job's uid and name", () => {
      const j = job((x) => (x.spec!.template.metadata!.labels!["job-name"] = "other"));
      expect(msgs(validateJob(j, opts))).toEqual([
        `spec.template.metadata.labels[job-name]: Invalid value: {"controller-uid":"${uid}","job-name":"other"}: must be 'pi'`,
      ]);
    });

    it("rejects a user selector without manualSelector", () => {
      const j = job((x) => {
        x.spec!.selector = { matchLabels: { app: "pi" } };
        x.spec!.template.metadata!.labels!["app"] = "pi";
      });
      expect(msgs(validateJob(j, opts))).toEqual([
        'spec.selector: Invalid value: {"matchLabels":{"app":"pi"}}: `selector` not auto-generated',
      ]);
    });
  });

  describe("spec ranges", () => {
    it.each(["parallelism", "completions", "backoffLimit", "ttlSecondsAfterFinished"] as const)("%s must be ≥ 0", (f) => {
      expect(validateJob(job((x) => (x.spec![f] = 0)), opts)).toEqual([]);
      expect(msgs(validateJob(job((x) => (x.spec![f] = -1)), opts))).toEqual([
        `spec.${f}: Invalid value: -1: must be greater than or equal to 0`,
      ]);
    });

    it("activeDeadlineSeconds must be positive (the spec wins over 1.23)", () => {
      expect(validateJob(job((x) => (x.spec!.activeDeadlineSeconds = 1)), opts)).toEqual([]);
      expect(msgs(validateJob(job((x) => (x.spec!.activeDeadlineSeconds = 0)), opts))).toEqual([
        "spec.activeDeadlineSeconds: Invalid value: 0: must be greater than 0",
      ]);
      expect(fields(validateJob(job((x) => (x.spec!.activeDeadlineSeconds = -5)), opts))).toEqual(["spec.activeDeadlineSeconds"]);
    });
  });

  describe("completion mode", () => {
    it("accepts NonIndexed and Indexed, rejects others", () => {
      expect(validateJob(job((x) => (x.spec!.completionMode = "NonIndexed")), opts)).toEqual([]);
      expect(validateJob(job((x) => ((x.spec!.completionMode = "Indexed"), (x.spec!.completions = 3))), opts)).toEqual([]);
      expect(msgs(validateJob(job((x) => (x.spec!.completionMode = "Ordered")), opts))).toEqual([
        'spec.completionMode: Unsupported value: "Ordered": supported values: "NonIndexed", "Indexed"',
      ]);
    });

    it("Indexed requires completions", () => {
      const j = job((x) => ((x.spec!.completionMode = "Indexed"), (x.spec!.parallelism = 2)));
      expect(j.spec!.completions).toBeUndefined();
      expect(msgs(validateJob(j, opts))).toEqual(["spec.completions: Required value: when completion mode is Indexed"]);
    });

    it("Indexed limits parallelism to 100000", () => {
      const j = job((x) => ((x.spec!.completionMode = "Indexed"), (x.spec!.completions = 5), (x.spec!.parallelism = 100000)));
      expect(validateJob(j, opts)).toEqual([]);
      j.spec!.parallelism = 100001;
      expect(msgs(validateJob(j, opts))).toEqual([
        "spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when completion mode is Indexed",
      ]);
      const nonIndexed = job((x) => (x.spec!.parallelism = 100001));
      expect(validateJob(nonIndexed, opts)).toEqual([]);
    });
  });

  describe("selector and template", () => {
    it("requires a selector (and then it matches nothing)", () => {
      const j = job((x) => delete x.spec!.selector);
      expect(msgs(validateJob(j, opts))).toEqual([
        "spec.selector: Required value",
        `spec.template.metadata.labels: Invalid value: {"controller-uid":"${uid}","job-name":"pi"}: \`selector\` does not match template \`labels\``,
      ]);
    });

    it("requires the selector to match the template labels", () => {
      const j = job((x) => {
        x.spec!.manualSelector = true;
        x.spec!.selector = { matchLabels: { app: "pi" }, matchExpressions: [{ key: "tier", operator: "In", values: ["batch"] }] };
        x.spec!.template.metadata = { labels: { app: "pi", tier: "web" } };
      });
      expect(msgs(validateJob(j, opts))).toEqual([
        'spec.template.metadata.labels: Invalid value: {"app":"pi","tier":"web"}: `selector` does not match template `labels`',
      ]);
      j.spec!.template.metadata!.labels!["tier"] = "batch";
      expect(validateJob(j, opts)).toEqual([]);
    });

    it("reports an invalid selector once (no match error when it cannot be converted)", () => {
      const j = job((x) => {
        x.spec!.manualSelector = true;
        x.spec!.selector = { matchExpressions: [{ key: "app", operator: "In", values: [] }] };
      });
      const errs = validateJob(j, opts);
      expect(errs.length).toBeGreaterThan(0);
      expect(errs.every((e) => e.field.startsWith("spec.selector"))).toBe(true);
    });

    it("only allows restartPolicy OnFailure or Never: Always (the default) is Required, others NotSupported (1.23)", () => {
      expect(validateJob(job((x) => (x.spec!.template.spec!.restartPolicy = "OnFailure")), opts)).toEqual([]);
      const j = job((x) => delete x.spec!.template.spec!.restartPolicy);
      expect(j.spec!.template.spec!.restartPolicy).toBe("Always");
      expect(validateJob(j, opts)).toEqual([
        { type: "FieldValueRequired", field: "spec.template.spec.restartPolicy", detail: 'valid values: "OnFailure", "Never"' },
      ]);
      expect(msgs(validateJob(j, opts))).toEqual(['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']);
      // A value the pod template refuses too: the template's NotSupported, then the Job's.
      const bogus = job((x) => (x.spec!.template.spec!.restartPolicy = "Sometimes" as "Never"));
      expect(msgs(validateJob(bogus, opts))).toEqual([
        'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
        'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "OnFailure", "Never"',
      ]);
    });

    it("validates the pod template", () => {
      const j = job((x) => (x.spec!.template.spec!.containers = []));
      expect(fields(validateJob(j, opts))).toContain("spec.template.spec.containers");
      const noImage = job((x) => (x.spec!.template.spec!.containers = [{ name: "Bad_Name", image: "x" }]));
      expect(fields(validateJob(noImage, opts))).toContain("spec.template.spec.containers[0].name");
    });

    it("reports a missing spec without throwing", () => {
      const j: Job = { metadata: { name: "pi", namespace: "default", uid } };
      const f = fields(validateJob(j, opts));
      expect(f).toContain("spec.selector");
      expect(f).toContain("spec.template.spec.restartPolicy");
    });
  });
});

describe("validateJobUpdate", () => {
  const old = job((x) => {
    x.metadata = { ...x.metadata, resourceVersion: "1", creationTimestamp: "2024-01-01T00:00:00Z" };
    x.spec!.completions = 4;
    x.spec!.parallelism = 2;
  });
  const upd = (mut: (j: Job) => void) => {
    const j = structuredClone(old);
    mut(j);
    return j;
  };

  it("accepts unchanged jobs and changes to mutable fields", () => {
    expect(validateJobUpdate(structuredClone(old), old, opts)).toEqual([]);
    const j = upd((x) => {
      x.spec!.parallelism = 5;
      x.spec!.activeDeadlineSeconds = 100;
      x.spec!.backoffLimit = 1;
      x.spec!.suspend = true;
      x.spec!.ttlSecondsAfterFinished = 10;
      x.metadata!.labels = { a: "b" };
    });
    expect(validateJobUpdate(j, old, opts)).toEqual([]);
  });

  it("rejects changes to completions, selector, completionMode and template", () => {
    const j = upd((x) => {
      x.spec!.completions = 5;
      x.spec!.completionMode = "Indexed";
      x.spec!.template.spec!.containers[0]!.image = "perl:2";
    });
    expect(msgs(validateJobUpdate(j, old, opts))).toEqual([
      "spec.completions: Invalid value: 5: field is immutable",
      expect.stringMatching(/^spec\.template: Invalid value: \{.*\}: field is immutable$/),
      'spec.completionMode: Invalid value: "Indexed": field is immutable',
    ]);
    const sel = upd((x) => {
      x.spec!.manualSelector = true;
      x.spec!.selector = { matchLabels: { "controller-uid": uid, "job-name": "pi" } };
    });
    expect(fields(validateJobUpdate(sel, old, opts))).toEqual(["spec.selector"]);
  });

  it("validates the new object and the metadata update", () => {
    const j = upd((x) => {
      x.metadata!.name = "other";
      x.spec!.backoffLimit = -1;
    });
    const f = fields(validateJobUpdate(j, old, opts));
    expect(f).toContain("metadata.name");
    expect(f).toContain("spec.backoffLimit");
  });

  describe("mutable scheduling directives (suspended, never started)", () => {
    const suspended = upd((x) => (x.spec!.suspend = true));
    const mutable = jobValidationOptionsFor(suspended, suspended, { jobTrackingWithFinalizers: false, jobMutableNodeSchedulingDirectives: true }, defaultPodValidationOptions);

    it("derives the option from the old job and the gate", () => {
      expect(mutable.allowMutableSchedulingDirectives).toBe(true);
      const started = structuredClone(suspended);
      started.status = { startTime: "2024-01-01T00:00:00Z" };
      const gates = { jobTrackingWithFinalizers: false, jobMutableNodeSchedulingDirectives: true };
      expect(jobValidationOptionsFor(suspended, started, gates, defaultPodValidationOptions).allowMutableSchedulingDirectives).toBe(false);
      expect(jobValidationOptionsFor(suspended, old, gates, defaultPodValidationOptions).allowMutableSchedulingDirectives).toBe(false);
      expect(
        jobValidationOptionsFor(suspended, suspended, { ...gates, jobMutableNodeSchedulingDirectives: false }, defaultPodValidationOptions)
          .allowMutableSchedulingDirectives,
      ).toBe(false);
      expect(jobValidationOptionsFor(suspended, undefined, gates, defaultPodValidationOptions).allowMutableSchedulingDirectives).toBe(false);
    });

    const changed = (mut: (j: Job) => void) => {
      const j = structuredClone(suspended);
      mut(j);
      return j;
    };

    it("allows nodeSelector, tolerations, nodeAffinity, template labels and annotations to change", () => {
      const j = changed((x) => {
        const t = x.spec!.template;
        t.spec!.nodeSelector = { disk: "ssd" };
        t.spec!.tolerations = [{ key: "k", operator: "Exists", effect: "NoSchedule" }];
        t.spec!.affinity = {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }],
            },
          },
        };
        t.metadata!.annotations = { note: "x" };
        t.metadata!.labels = { ...t.metadata!.labels, extra: "y" };
      });
      expect(validateJobUpdate(j, suspended, mutable)).toEqual([]);
      expect(fields(validateJobUpdate(j, suspended, opts))).toEqual(["spec.template"]);
      const back = structuredClone(suspended);
      expect(validateJobUpdate(back, j, mutable)).toEqual([]);
    });

    it("still forbids other template changes", () => {
      const j = changed((x) => (x.spec!.template.spec!.containers[0]!.image = "perl:2"));
      expect(fields(validateJobUpdate(j, suspended, mutable))).toEqual(["spec.template"]);
      const pa = changed((x) => (x.spec!.template.spec!.affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "zone" }] } }));
      expect(fields(validateJobUpdate(pa, suspended, mutable))).toEqual(["spec.template"]);
    });
  });
});

describe("validateJobStatusUpdate", () => {
  const old = job((x) => (x.metadata = { ...x.metadata, resourceVersion: "1" }));
  const withStatus = (status: Job["status"], mut: (j: Job) => void = () => {}) => {
    const j = structuredClone(old);
    if (status !== undefined) j.status = status;
    mut(j);
    return j;
  };

  it("accepts a valid status", () => {
    const j = withStatus({
      active: 1,
      ready: 1,
      succeeded: 2,
      failed: 0,
      startTime: "2024-01-01T00:00:00Z",
      uncountedTerminatedPods: { succeeded: ["a", "b"], failed: ["c"] },
      conditions: [
        { type: "Suspended", status: "False" },
        { type: "Complete", status: "True" },
      ],
    });
    expect(validateJobStatusUpdate(j, old, opts)).toEqual([]);
  });

  it("rejects negative counters", () => {
    const j = withStatus({ active: -1, succeeded: -2, failed: -3, ready: -4 });
    expect(msgs(validateJobStatusUpdate(j, old, opts))).toEqual([
      "status.active: Invalid value: -1: must be greater than or equal to 0",
      "status.succeeded: Invalid value: -2: must be greater than or equal to 0",
      "status.failed: Invalid value: -3: must be greater than or equal to 0",
      "status.ready: Invalid value: -4: must be greater than or equal to 0",
    ]);
  });

  it("checks uncounted pod UIDs: non-empty, unique, never in both lists", () => {
    const j = withStatus({ uncountedTerminatedPods: { succeeded: ["a", "", "a"], failed: ["b", "a"] } });
    expect(msgs(validateJobStatusUpdate(j, old, opts))).toEqual([
      'status.uncountedTerminatedPods.succeeded[1]: Invalid value: "": must not be empty',
      'status.uncountedTerminatedPods.succeeded[2]: Duplicate value: "a"',
      'status.uncountedTerminatedPods.failed[1]: Duplicate value: "a"',
    ]);
  });

  it("checks nothing more than 1.23's validateJobStatus: no completedIndexes, conditions or time rules", () => {
    const indexed = withStatus(
      {
        completedIndexes: "3,1,a,-1,99",
        startTime: "not checked here",
        conditions: [
          { type: "Complete", status: "True" },
          { type: "Complete", status: "False" },
          { type: "Running", status: "Yes" },
          { type: "", status: "" },
        ],
      },
      (x) => {
        x.spec!.completionMode = "Indexed";
        x.spec!.completions = 8;
      },
    );
    expect(validateJobStatusUpdate(indexed, old, opts)).toEqual([]);
    expect(validateJobStatusUpdate(withStatus({ completedIndexes: "1" }), old, opts)).toEqual([]);
  });

  it("validates the metadata update", () => {
    const j = withStatus(undefined, (x) => (x.metadata!.namespace = "other"));
    expect(fields(validateJobStatusUpdate(j, old, opts))).toEqual(["metadata.namespace"]);
  });
});
