import type { Job } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { jobTable } from "./printer.js";

const now = new Date("2024-01-01T01:00:00Z");
const job = (j: Partial<Job>): Job & Record<string, unknown> => ({ apiVersion: "batch/v1", kind: "Job", metadata: { name: "job1", creationTimestamp: "2024-01-01T01:00:00Z" }, ...j });

describe("jobTable", () => {
  it("has Kubernetes' columns", () => {
    expect(jobTable.columns.map((c) => [c.name, c.priority])).toEqual([
      ["Name", 0], ["Completions", 0], ["Duration", 0], ["Age", 0], ["Containers", 1], ["Images", 1], ["Selector", 1],
    ]);
  });
  it("completions=2, succeeded=1, no startTime", () => {
    expect(jobTable.cells(job({ spec: { completions: 2, template: {} }, status: { succeeded: 1 } }), now).slice(0, 4)).toEqual(["job1", "1/2", "", "0s"]);
  });
  it("completions unset", () => {
    expect(jobTable.cells(job({ spec: { template: {} }, status: { succeeded: 0 } }), now)[1]).toBe("0/1");
    expect(jobTable.cells(job({ spec: { parallelism: 3, template: {} }, status: { succeeded: 1 } }), now)[1]).toBe("1/1 of 3");
    expect(jobTable.cells(job({ spec: { completions: 0, template: {} } }), now)[1]).toBe("0/0");
  });
  it("completions unset and parallelism 0 or 1: <succeeded>/1", () => {
    expect(jobTable.cells(job({ spec: { parallelism: 1, template: {} }, status: { succeeded: 1 } }), now)[1]).toBe("1/1");
    expect(jobTable.cells(job({ spec: { parallelism: 0, template: {} } }), now)[1]).toBe("0/1");
    expect(jobTable.cells(job({ spec: { parallelism: 2, template: {} } }), now)[1]).toBe("0/1 of 2");
  });
  it("every stage of a Job's life: created, suspended, running, complete, failed", () => {
    const cells = (status: Job["status"], completions = 3) => jobTable.cells(job({ metadata: { name: "job1", creationTimestamp: "2024-01-01T00:00:00Z" }, spec: { completions, template: {} }, ...(status ? { status } : {}) }), now).slice(1, 4);
    expect(cells(undefined)).toEqual(["0/3", "", "60m"]);
    expect(cells({ conditions: [{ type: "Suspended", status: "True" }] })).toEqual(["0/3", "", "60m"]);
    expect(cells({ startTime: "2024-01-01T00:58:30Z", active: 2, succeeded: 1 })).toEqual(["1/3", "90s", "60m"]);
    expect(cells({ startTime: "2024-01-01T00:00:00Z", completionTime: "2024-01-01T00:02:30Z", succeeded: 3 })).toEqual(["3/3", "2m30s", "60m"]);
    // A failed Job has no completionTime: its DURATION keeps growing.
    expect(cells({ startTime: "2024-01-01T00:00:00Z", failed: 7, conditions: [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded" }] })).toEqual(["0/3", "60m", "60m"]);
    expect(cells({ succeeded: 0 }, 0)[0]).toBe("0/0");
  });
  it("duration: completed and running", () => {
    expect(jobTable.cells(job({ spec: { template: {} }, status: { startTime: "2024-01-01T00:00:00Z", completionTime: "2024-01-01T00:30:00Z" } }), now)[2]).toBe("30m");
    expect(jobTable.cells(job({ spec: { template: {} }, status: { startTime: "2024-01-01T00:40:00Z" } }), now)[2]).toBe("20m");
  });
  it("wide columns and unknown age", () => {
    const cells = jobTable.cells(
      {
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { name: "j" },
        spec: {
          selector: { matchLabels: { "controller-uid": "u1" } },
          template: { spec: { containers: [{ name: "a", image: "busybox" }, { name: "b", image: "nginx" }] } },
        },
      } as Job & Record<string, unknown>,
      now,
    );
    expect(cells.slice(3)).toEqual(["<unknown>", "a,b", "busybox,nginx", "controller-uid=u1"]);
  });
});
