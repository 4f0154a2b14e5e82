// Standalone mode (no API server): a static pod referencing a ConfigMap or Secret cannot run, with
// 1.23's messages, while env from fieldRef/resourceFieldRef still works (process CRI server).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { findPod, readAll, waitFor } from "./pods-helpers.js";

const nodeName = "node-s";

describe("ConfigMaps and Secrets in standalone mode", () => {
  let dir: string;
  let runtime: ProcessRuntime;
  let pods: PodRuntime;
  const events: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-cm-sa-"));
    runtime = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "state") });
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    const pod = (name: string, container: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { restartPolicy: "Never", terminationGracePeriodSeconds: 1, containers: [{ name: "main", image: "busybox", ...container }], ...extra } });
    writeFileSync(join(manifests, "cm-env.json"), pod("cm-env", { command: ["true"], env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "cfg", key: "x", optional: true } } }] }));
    writeFileSync(join(manifests, "secret-env.json"), pod("secret-env", { command: ["true"], envFrom: [{ secretRef: { name: "creds" } }] }));
    writeFileSync(join(manifests, "cm-vol.json"), pod("cm-vol", { command: ["true"] }, { volumes: [{ name: "cfg", configMap: { name: "cfg", optional: true } }] }));
    writeFileSync(
      join(manifests, "downward.json"),
      pod("downward", { command: ["sh", "-c", 'echo "$POD $MEM"'], resources: { limits: { memory: "64Mi" } }, env: [{ name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }, { name: "MEM", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } } }] }),
    );
    pods = createPodRuntime({
      nodeName,
      rootDir: join(dir, "root"),
      podLogsDir: join(dir, "logs"),
      containerRuntimeEndpoint: runtime.endpoint,
      runtimeRequestTimeoutMs: 10_000,
      staticPodPath: manifests,
      fileCheckFrequencyMs: 300,
      syncFrequencyMs: 2_000,
      relistPeriodMs: 200,
      runtimeCheckPeriodMs: 300,
      onEvent: (p, type, reason, message) => events.push(`${p.metadata?.name ?? ""} ${type} ${reason} ${message}`),
    });
    await pods.start();
  });

  afterAll(async () => {
    await pods?.stop();
    await runtime?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const waitingOf = (prefix: string) =>
    waitFor(`${prefix} waiting`, () => {
      const w = findPod(pods.listPods(), prefix)?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.message ? w : undefined;
    });

  it("fails env from a ConfigMap or a Secret (even optional) with CreateContainerConfigError", async () => {
    expect(await waitingOf("cm-env")).toEqual({ reason: "CreateContainerConfigError", message: "couldn't get configMap default/cfg, no kubeClient defined" });
    expect(await waitingOf("secret-env")).toEqual({ reason: "CreateContainerConfigError", message: "couldn't get secret default/creds, no kubeClient defined" });
    expect(events).toContain(`cm-env-${nodeName} Warning Failed Error: couldn't get configMap default/cfg, no kubeClient defined`);
  });

  it("fails a configMap volume with FailedMount, the pod ContainerCreating", async () => {
    const w = await waitingOf("cm-vol");
    expect(w).toEqual({ reason: "ContainerCreating", message: 'MountVolume.SetUp failed for volume "cfg" : cannot setup configMap volume cfg because kube client is not configured' });
    expect(findPod(pods.listPods(), "cm-vol")?.status?.phase).toBe("Pending");
  });

  it("still resolves fieldRef and resourceFieldRef env", async () => {
    await waitFor("downward Succeeded", () => (findPod(pods.listPods(), "downward")?.status?.phase === "Succeeded" ? true : undefined));
    expect(await readAll(await pods.containerLogs("default", `downward-${nodeName}`, "main", {}))).toBe(`downward-${nodeName} 64\n`);
  });
});
