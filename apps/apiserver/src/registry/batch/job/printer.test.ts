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
