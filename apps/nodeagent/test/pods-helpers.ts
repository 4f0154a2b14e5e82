import type { Readable } from "node:stream";
import type { Pod } from "@skiff/api-types";
import { waitFor as poll } from "@skiff/test-support";

export function waitFor<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  return poll(fn, { what, timeoutMs });
}

export async function readAll(stream: Readable): Promise<string> {
  let out = "";
  for await (const chunk of stream) out += typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
  return out;
}

export function findPod(pods: readonly Pod[], prefix: string): Pod | undefined {
  return pods.find((p) => p.metadata?.name?.startsWith(prefix));
}

export const alwaysManifest = (image: string) => `apiVersion: v1
kind: Pod
metadata:
  name: always
  labels: {app: always}
spec:
  restartPolicy: Always
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: ${image}
    imagePullPolicy: IfNotPresent
    command: ["sh", "-c", "echo hello $(GREETING); exit 3"]
    env:
    - name: GREETING
      value: always
`;

export const neverManifest = (image: string) => JSON.stringify({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "never" },
  spec: {
    restartPolicy: "Never",
    terminationGracePeriodSeconds: 1,
    containers: [{ name: "main", image, imagePullPolicy: "IfNotPresent", command: ["sh", "-c", "echo done; echo oops >&2; exit 7"] }],
  },
});
