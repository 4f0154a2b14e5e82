import { describe, expect, it } from "vitest";
import { computeStaticPodUID, decodeManifest } from "./static-pod.js";

const yamlPod = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: c
    image: busybox
`;

describe("decodeManifest", () => {
  it("applies the static pod defaults to a YAML file pod", () => {
    const r = decodeManifest(yamlPod, "node-1", { kind: "file", path: "/m/web.yaml" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const pod = r.pods[0];
    expect(pod?.metadata?.name).toBe("web-node-1");
    expect(pod?.metadata?.namespace).toBe("default");
    expect(pod?.metadata?.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(pod?.metadata?.annotations?.["example.io/config.hash"]).toBe(pod?.metadata?.uid);
    expect(pod?.metadata?.selfLink).toBe("/api/v1/namespaces/default/pods/web-node-1");
    expect(pod?.spec?.nodeName).toBe("node-1");
    expect(pod?.spec?.tolerations).toEqual([{ operator: "Exists", effect: "NoExecute" }]);
    expect(pod?.spec?.restartPolicy).toBe("Always");
    expect(pod?.spec?.containers[0]?.imagePullPolicy).toBe("Always");
    expect(pod?.status?.phase).toBe("Pending");
  });

  it("gives a stable UID that changes with content, path and node", () => {
    const uid = (text: string, node: string, path: string) => {
      const r = decodeManifest(text, node, { kind: "file", path });
      return r.ok ? r.pods[0]?.metadata?.uid : undefined;
    };
    const a = uid(yamlPod, "n", "/a");
    expect(uid(yamlPod, "n", "/a")).toBe(a);
    expect(uid(yamlPod, "n", "/b")).not.toBe(a);
    expect(uid(yamlPod, "m", "/a")).not.toBe(a);
    expect(uid(yamlPod.replace("busybox", "busybox:1.36"), "n", "/a")).not.toBe(a);
  });

  it("keeps an explicit UID and namespace", () => {
    const r = decodeManifest(JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "x", namespace: "kube", uid: "u-1" }, spec: { containers: [{ name: "c", image: "i" }] } }), "n", { kind: "file", path: "/x" });
    expect(r.ok && r.pods[0]?.metadata).toMatchObject({ uid: "u-1", namespace: "kube", name: "x-n" });
  });

  it("adds no toleration to URL pods and accepts a PodList there", () => {
    const list = { apiVersion: "v1", kind: "PodList", items: [{ metadata: { name: "a" }, spec: { containers: [{ name: "c", image: "i" }] } }, { metadata: { name: "b" }, spec: { containers: [{ name: "c", image: "i" }] } }] };
    const r = decodeManifest(JSON.stringify(list), "n", { kind: "url", url: "http://x/pods" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.pods.map((p) => p.metadata?.name)).toEqual(["a-n", "b-n"]);
    expect(r.pods[0]?.spec?.tolerations).toBeUndefined();
    expect(decodeManifest(JSON.stringify(list), "n", { kind: "file", path: "/x" }).ok).toBe(false);
  });

  it.each([
    ["not YAML", "a: [b"],
    ["wrong kind", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\n"],
    ["wrong apiVersion", "apiVersion: v2\nkind: Pod\nmetadata: {name: x}\n"],
    ["no containers", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: []}\n"],
    ["upper-case name", "apiVersion: v1\nkind: Pod\nmetadata: {name: Web}\nspec: {containers: [{name: c, image: i}]}\n"],
    ["wrong type", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c, image: i}], activeDeadlineSeconds: soon}\n"],
    ["a scalar", "42"],
    ["empty", ""],
  ])("rejects %s with a message", (_name, text) => {
    const r = decodeManifest(text, "n", { kind: "file", path: "/x" });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.length).toBeGreaterThan(0);
  });

  it("reads only the first YAML document", () => {
    const r = decodeManifest(`${yamlPod}---\nkind: Nonsense\n`, "n", { kind: "file", path: "/x" });
    expect(r.ok && r.pods.length).toBe(1);
  });

  it("computeStaticPodUID is 32 hex chars", () => {
    expect(computeStaticPodUID({ spec: { containers: [] } }, "n", { kind: "url", url: "u" })).toMatch(/^[0-9a-f]{32}$/);
  });
});
