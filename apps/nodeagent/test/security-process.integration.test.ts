// Security contexts on the project's process CRI server: the node agent's CRI security context
// reaches it and the process gets the pod's uid, gid, groups and no_new_privs (setpriv); what a
// plain process cannot get is logged. Changing the uid needs root (CI runs as root).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { findPod, readAll, waitFor } from "./pods-helpers.js";

const nodeName = "node-p";
const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)("security contexts on the process CRI server (needs root to change uid)", () => {
  let dir: string;
  let runtime: ProcessRuntime;
  let pods: PodRuntime;
  const runtimeLog: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-sp-"));
    runtime = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "state"), log: (m) => runtimeLog.push(m) });
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    writeFileSync(
      join(manifests, "ids.json"),
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "ids" },
        spec: {
          restartPolicy: "Never",
          securityContext: { runAsUser: 1000, runAsGroup: 2000, supplementalGroups: [3000], fsGroup: 4000 },
          containers: [
            {
              name: "main",
              image: "busybox",
              command: ["sh", "-c", "grep -E '^(Uid|Gid|Groups|NoNewPrivs):' /proc/self/status"],
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
            },
          ],
        },
      }),
    );
    pods = createPodRuntime({
      nodeName,
      rootDir: join(dir, "root"),
      podLogsDir: join(dir, "logs"),
      containerRuntimeEndpoint: runtime.endpoint,
      runtimeRequestTimeoutMs: 10_000,
      staticPodPath: manifests,
      fileCheckFrequencyMs: 300,
      relistPeriodMs: 200,
      runtimeCheckPeriodMs: 300,
    });
    await pods.start();
  });

  afterAll(async () => {
    await pods?.stop();
    await runtime?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs the container's process with the pod's uid, gid, groups and no_new_privs", async () => {
    const pod = await waitFor("ids finished", () => {
      const p = findPod(pods.listPods(), "ids");
      return p?.status?.phase === "Succeeded" || p?.status?.phase === "Failed" ? p : undefined;
    });
    expect(pod.status?.phase, JSON.stringify(pod.status)).toBe("Succeeded");
    const text = (await readAll(await pods.containerLogs("default", `ids-${nodeName}`, "main", {}))).replace(/[ \t]+/g, " ");
    expect(text).toContain("Uid: 1000 1000 1000 1000");
    expect(text).toContain("Gid: 2000 2000 2000 2000");
    expect(text).toContain("Groups: 3000 4000");
    expect(text).toContain("NoNewPrivs: 1");
    expect(runtimeLog.some((m) => m.includes("not applied by the process runtime (no isolation): capabilities"))).toBe(true);
  });
});
