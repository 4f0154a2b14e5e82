// The pod machinery on the process CRI server with namespaces (bubblewrap): volumes where the pod
// spec says (an emptyDir shared by an init container and the worker, a read-only hostPath), the
// host's root read-only, the pod's host name, and /etc/resolv.conf and /etc/hosts as the 1.23
// kubelet forms them from --cluster-dns, --cluster-domain and --resolv-conf.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { findPod, readAll, waitFor } from "./pods-helpers.js";

const nodeName = "node-iso";

const volumesManifest = (hostDir: string) => `apiVersion: v1
kind: Pod
metadata: {name: volumes}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  hostname: worker
  subdomain: jobs
  initContainers:
  - name: input
    image: busybox
    imagePullPolicy: IfNotPresent
    command: ["sh", "-c", "echo bar > /input/data.txt"]
    volumeMounts: [{name: input, mountPath: /input}]
  containers:
  - name: worker
    image: busybox
    imagePullPolicy: IfNotPresent
    command:
    - sh
    - -c
    - |
      rev /input/data.txt
      cat /host/file.txt
      if touch /host/new 2>/dev/null; then echo host-writable; else echo host-read-only; fi
      if touch /root-file 2>/dev/null; then echo root-writable; else echo root-read-only; fi
      hostname
      cat /etc/resolv.conf
      grep worker /etc/hosts
    volumeMounts:
    - {name: input, mountPath: /input}
    - {name: host, mountPath: /host, readOnly: true}
  volumes:
  - name: input
    emptyDir: {}
  - name: host
    hostPath: {path: ${hostDir}, type: Directory}
`;

describe("pods on the process CRI server with namespaces", () => {
  let dir: string;
  let runtime: ProcessRuntime;
  let pods: PodRuntime;
  const events: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-iso-"));
    runtime = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "state"), isolation: "namespaces" });
    const manifests = join(dir, "manifests");
    const hostDir = join(dir, "host");
    mkdirSync(manifests);
    mkdirSync(hostDir);
    writeFileSync(join(hostDir, "file.txt"), "from the host\n");
    writeFileSync(join(dir, "resolv.conf"), "nameserver 192.0.2.53\nsearch corp.example\n");
    writeFileSync(join(manifests, "volumes.yaml"), volumesManifest(hostDir));
    pods = createPodRuntime({
      nodeName,
      rootDir: join(dir, "root"),
      podLogsDir: join(dir, "logs"),
      containerRuntimeEndpoint: runtime.endpoint,
      runtimeRequestTimeoutMs: 10_000,
      staticPodPath: manifests,
      fileCheckFrequencyMs: 300,
      syncFrequencyMs: 5_000,
      relistPeriodMs: 200,
      runtimeCheckPeriodMs: 300,
      clusterDNS: ["10.96.0.10", "not-an-ip"],
      clusterDomain: "cluster.local",
      resolvConf: join(dir, "resolv.conf"),
      onEvent: (_pod, type, reason, message) => events.push(`${type} ${reason} ${message}`),
    });
    await pods.start();
  });

  afterAll(async () => {
    await pods?.stop();
    await runtime?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs an init container and a worker sharing an emptyDir, with a read-only hostPath, a read-only root, the pod's host name and DNS", async () => {
    const pod = await waitFor("volumes Succeeded", () => {
      const p = findPod(pods.listPods(), "volumes");
      return p?.status?.phase === "Succeeded" || p?.status?.phase === "Failed" ? p : undefined;
    });
    expect(pod.status?.phase).toBe("Succeeded");
    const text = await readAll(await pods.containerLogs("default", `volumes-${nodeName}`, "worker", {}));
    expect(text).toBe(
      [
        "rab",
        "from the host",
        "host-read-only",
        "root-read-only",
        "worker",
        "search default.svc.cluster.local svc.cluster.local cluster.local corp.example",
        "nameserver 10.96.0.10",
        "options ndots:5",
        // The pod's IP: its own network namespace's as root (CNI), 127.0.0.1 on the host's network.
        `${pod.status?.podIP ?? ""}\tworker.jobs.default.svc.cluster.local\tworker`,
        "",
      ].join("\n"),
    );
    const uid = pod.metadata?.uid ?? "";
    expect(readFileSync(join(dir, "root", "pods", uid, "etc-hosts"), "utf8")).toMatch(/^# Kubernetes-managed hosts file\.\n/);
    expect(events.filter((e) => e.includes("DNSConfigForming") || e.includes("MissingClusterDNS"))).toEqual([]);
  });
});
