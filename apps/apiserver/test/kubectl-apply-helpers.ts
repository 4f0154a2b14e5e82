// Helpers for apply.integration.test.ts: run the real kubectl against a started apiserver.
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { writeKubeconfig } from "./harness.js";
import type { RunningServer } from "./harness.js";

export const kubectlPath = "/usr/bin/kubectl";

export interface KubectlResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Kubectl {
  run(args: readonly string[], stdin?: string): KubectlResult;
  /** Writes `text` to `<server dir>/<name>` and returns the path. */
  manifest(name: string, text: string): Promise<string>;
}

export async function kubectlFor(s: RunningServer): Promise<Kubectl> {
  const kubeconfig = await writeKubeconfig(s);
  const cacheDir = join(s.dir, "kube-cache");
  return {
    run(args, stdin) {
      const r = spawnSync(kubectlPath, [`--kubeconfig=${kubeconfig}`, `--cache-dir=${cacheDir}`, ...args], {
        encoding: "utf8",
        timeout: 60_000,
        ...(stdin !== undefined ? { input: stdin } : {}),
        env: { ...process.env, HOME: s.dir, KUBECONFIG: kubeconfig },
      });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    },
    async manifest(name, text) {
      const p = join(s.dir, name);
      await writeFile(p, text);
      return p;
    },
  };
}

export const jobManifest = (parallelism: number, name = "pi") => `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  labels:
    app: pi
spec:
  parallelism: ${String(parallelism)}
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: pi
        image: busybox
        env:
        - name: A
          value: "1"
`;

export const csiDriverManifest = (audience: string, name = "hostpath.csi.example.io") => `apiVersion: storage.example.io/v1
kind: CSIDriver
metadata:
  name: ${name}
spec:
  attachRequired: false
  podInfoOnMount: true
  volumeLifecycleModes:
  - Persistent
  tokenRequests:
  - audience: ${audience}
`;

export const csiNodeManifest = (extraDriver: boolean, name = "node-1") => `apiVersion: storage.example.io/v1
kind: CSINode
metadata:
  name: ${name}
spec:
  drivers:
  - name: hostpath.csi.example.io
    nodeID: ${name}
    topologyKeys: ["topology.example.io/zone"]
${extraDriver ? `  - name: other.csi.example.io\n    nodeID: ${name}-other\n` : ""}`;

export const podTemplateManifest = (image: string, name = "tpl") => `apiVersion: v1
kind: PodTemplate
metadata:
  name: ${name}
template:
  metadata:
    labels:
      app: web
  spec:
    containers:
    - name: web
      image: ${image}
      ports:
      - containerPort: 80
`;
