// Volumes on real containerd + runc (bind mounts applied for real): two containers sharing an
// emptyDir, a hostPath file, a downwardAPI labels file and a memory-backed emptyDir, verified
// through the reader's log; a pod whose hostPath check fails stays Pending with FailedMount and
// does not disturb the other; a terminated pod's volumes are torn down before the pod is deleted.
// With CI=true it must run; elsewhere it is skipped (with the reason)
// when containerd cannot be set up.
import { existsSync, mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { findPod, readAll, waitFor } from "./pods-helpers.js";

const nodeName = "node-v";

const setup = setUpContainerd({ prefix: "skiff-pv-", suite: "containerd volumes suite" });

let pods: PodRuntime | undefined;
afterAll(async () => {
  await pods?.stop();
  tearDownContainerd(setup);
});

describe.skipIf(setup.endpoint === undefined)("volumes on containerd", () => {
  const endpoint = setup.endpoint ?? "";
  const manifests = join(setup.dir, "manifests");
  const rootDir = join(setup.dir, "agent");
  const hostFile = join(setup.dir, "host-data", "file.txt");
  const events: string[] = [];

  const shared: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "shared", labels: { app: "vol", tier: "test" } },
    spec: {
      terminationGracePeriodSeconds: 1,
      volumes: [
        { name: "scratch", emptyDir: {} },
        { name: "mem", emptyDir: { medium: "Memory", sizeLimit: "16Mi" } },
        { name: "host", hostPath: { path: hostFile, type: "File" } },
        { name: "info", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }, { path: "name", fieldRef: { fieldPath: "metadata.name" } }] } },
      ],
      containers: [
        { name: "writer", image: "busybox:1.36", command: ["sh", "-c", "echo hello-shared > /shared/msg; sleep 3600"], volumeMounts: [{ name: "scratch", mountPath: "/shared" }] },
        {
          name: "reader",
          image: "busybox:1.36",
          command: ["sh", "-c", 'while [ ! -e /shared/msg ]; do sleep 0.2; done; cat /shared/msg; cat /host/file.txt; cat /info/labels; echo; cat /info/name; echo; grep " /mem " /proc/mounts | cut -d" " -f3; echo end; sleep 3600'],
          volumeMounts: [
            { name: "scratch", mountPath: "/shared", readOnly: true },
            { name: "host", mountPath: "/host/file.txt" },
            { name: "info", mountPath: "/info" },
            { name: "mem", mountPath: "/mem" },
          ],
        },
      ],
    },
  };

  const broken: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "broken" },
    spec: {
      terminationGracePeriodSeconds: 1,
      volumes: [{ name: "missing", hostPath: { path: join(setup.dir, "no-such-dir"), type: "Directory" } }],
      containers: [{ name: "main", image: "busybox:1.36", command: ["sleep", "3600"], volumeMounts: [{ name: "missing", mountPath: "/m" }] }],
    },
  };

  it("shares an emptyDir between two containers and mounts hostPath, downwardAPI and tmpfs volumes", async () => {
    mkdirSync(manifests, { recursive: true });
    mkdirSync(join(setup.dir, "host-data"), { recursive: true });
    writeFileSync(hostFile, "from-the-host\n");
    writeFileSync(join(manifests, "shared.json"), JSON.stringify(shared));
    writeFileSync(join(manifests, "broken.json"), JSON.stringify(broken));
    pods = createPodRuntime({
      nodeName,
      rootDir,
      podLogsDir: join(setup.dir, "pod-logs"),
      containerRuntimeEndpoint: endpoint,
      runtimeRequestTimeoutMs: 60_000,
      staticPodPath: manifests,
      fileCheckFrequencyMs: 500,
      syncFrequencyMs: 10_000,
      relistPeriodMs: 300,
      runtimeCheckPeriodMs: 1_000,
      onEvent: (pod, type, reason, message) => events.push(`${pod.metadata?.name ?? ""} ${type} ${reason} ${message}`),
    });
    await pods.start();
    await waitFor("shared pod running", () => (findPod(pods?.listPods() ?? [], "shared")?.status?.phase === "Running" ? true : undefined), 90_000);
    const log = await waitFor(
      "reader output",
      async () => {
        const text = await readAll(await (pods as PodRuntime).containerLogs("default", `shared-${nodeName}`, "reader", {})).catch(() => "");
        return text.includes("end") ? text : undefined;
      },
      60_000,
    );
    expect(log).toBe(`hello-shared\nfrom-the-host\napp="vol"\ntier="test"\nshared-${nodeName}\ntmpfs\nend\n`);
  });

  it("keeps a pod with a failing hostPath Pending with FailedMount, the other unaffected", async () => {
    const p = await waitFor("broken pod has a FailedMount status", () => {
      const x = findPod(pods?.listPods() ?? [], "broken");
      return x?.status?.containerStatuses?.[0]?.state?.waiting?.message ? x : undefined;
    });
    const message = `MountVolume.SetUp failed for volume "missing" : hostPath type check failed: ${join(setup.dir, "no-such-dir")} is not a directory`;
    expect(p.status?.phase).toBe("Pending");
    expect(p.status?.containerStatuses?.[0]?.state?.waiting).toEqual({ reason: "ContainerCreating", message });
    expect(events).toContain(`broken-${nodeName} Warning FailedMount ${message}`);
    expect(findPod(pods?.listPods() ?? [], "shared")?.status?.phase).toBe("Running");
  });

  it("removes the pod's volume directories (tmpfs unmounted) with the pod", async () => {
    const uid = findPod(pods?.listPods() ?? [], "shared")?.metadata?.uid ?? "";
    expect(existsSync(join(rootDir, "pods", uid, "volumes", "kubernetes.io~empty-dir", "scratch", "msg"))).toBe(true);
    unlinkSync(join(manifests, "shared.json"));
    await waitFor("shared pod gone", () => (findPod(pods?.listPods() ?? [], "shared") ? undefined : true), 60_000);
    await waitFor("volume dirs removed", () => (existsSync(join(rootDir, "pods", uid, "volumes")) ? undefined : true), 30_000);
    expect(existsSync(hostFile)).toBe(true); // a hostPath is never removed
  });

  it("tears a terminated pod's volumes down while the pod is still listed (--keep-terminated-pod-volumes=false)", async () => {
    const done: Pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "done" },
      spec: {
        restartPolicy: "Never",
        terminationGracePeriodSeconds: 1,
        volumes: [{ name: "s", emptyDir: {} }],
        containers: [{ name: "main", image: "busybox:1.36", command: ["sh", "-c", "echo x > /s/f"], volumeMounts: [{ name: "s", mountPath: "/s" }] }],
      },
    };
    writeFileSync(join(manifests, "done.json"), JSON.stringify(done));
    const p = await waitFor("done pod Succeeded", () => {
      const x = findPod(pods?.listPods() ?? [], "done");
      return x?.status?.phase === "Succeeded" ? x : undefined;
    }, 90_000);
    const dir = join(rootDir, "pods", p.metadata?.uid ?? "", "volumes", "kubernetes.io~empty-dir", "s");
    await waitFor("terminated pod's emptyDir removed", () => (existsSync(dir) ? undefined : true), 30_000);
    expect(findPod(pods?.listPods() ?? [], "done")?.status?.phase).toBe("Succeeded");
    unlinkSync(join(manifests, "done.json"));
  });
});
