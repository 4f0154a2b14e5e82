// Job manifests and readers shared by the end-to-end tests.
import type { Job, JobCondition, Pod } from "@skiff/api-types";
import type { ApiClient } from "../src/index.js";
import { waitFor } from "../src/index.js";

export const jobsPath = "/apis/batch/v1/namespaces/default/jobs";
export const podsPath = "/api/v1/namespaces/default/pods";

export function job(name: string, spec: Partial<NonNullable<Job["spec"]>>, command: string, podSpec: Record<string, unknown> = {}): Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name },
    spec: {
      ...spec,
      template: {
        spec: {
          restartPolicy: "Never",
          terminationGracePeriodSeconds: 1,
          containers: [{ name: "main", image: "busybox", imagePullPolicy: "IfNotPresent", command: ["sh", "-c", command] }],
          ...podSpec,
        },
      },
    } as NonNullable<Job["spec"]>,
  };
}

export function condition(j: Job, type: string): JobCondition | undefined {
  return j.status?.conditions?.find((c) => c.type === type && c.status === "True");
}

export async function waitForCondition(api: ApiClient, name: string, type: "Complete" | "Failed" | "Suspended", timeoutMs = 180_000): Promise<Job> {
  return waitFor(
    `job ${name} ${type}`,
    async () => {
      const j = await api.get<Job>(`${jobsPath}/${name}`);
      return condition(j, type) ? j : undefined;
    },
    timeoutMs,
    200,
  );
}

export function podsOf(api: ApiClient, name: string): Promise<Pod[]> {
  return api.list<Pod>(podsPath, `job-name=${name}`);
}
