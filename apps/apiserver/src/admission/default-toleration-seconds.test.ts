import type { Pod, Toleration } from "@skiff/api-types";
import type { AdmissionAttributes } from "@skiff/apiserver-core";
import { describe, expect, it } from "vitest";
import { addDefaultTolerations, defaultTolerationSecondsAdmission } from "./default-toleration-seconds.js";

const notReady = { key: "node.example.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 };
const unreachable = { key: "node.example.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 };
const pod = (tolerations?: Toleration[]): Pod => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "busybox" }], ...(tolerations ? { tolerations } : {}) } });

describe("addDefaultTolerations (1.23 DefaultTolerationSeconds)", () => {
  it("adds both tolerations to a pod that has none, after its own", () => {
    expect(addDefaultTolerations(pod(), 300, 300).spec?.tolerations).toEqual([notReady, unreachable]);
    const own: Toleration = { key: "dedicated", operator: "Equal", value: "x", effect: "NoSchedule" };
    expect(addDefaultTolerations(pod([own]), 300, 300).spec?.tolerations).toEqual([own, notReady, unreachable]);
  });
  it("uses the configured seconds", () => {
    expect(addDefaultTolerations(pod(), 7, 9).spec?.tolerations?.map((t) => t.tolerationSeconds)).toEqual([7, 9]);
  });
  it.each<[string, Toleration, string[]]>([
    ["its key with NoExecute", { key: "node.example.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 5 }, ["node.example.io/unreachable"]],
    ["its key with no effect", { key: "node.example.io/unreachable", operator: "Exists" }, ["node.example.io/not-ready"]],
    ["an empty key (tolerates everything)", { operator: "Exists" }, []],
    ["an empty key with NoExecute", { operator: "Exists", effect: "NoExecute" }, []],
    ["an empty key with NoSchedule does not count", { operator: "Exists", effect: "NoSchedule" }, ["node.example.io/not-ready", "node.example.io/unreachable"]],
    ["its key with NoSchedule does not count", { key: "node.example.io/not-ready", operator: "Exists", effect: "NoSchedule" }, ["node.example.io/not-ready", "node.example.io/unreachable"]],
  ])("a toleration with %s is kept as it is", (_n, t, added) => {
    const got = addDefaultTolerations(pod([t]), 300, 300).spec?.tolerations ?? [];
    expect(got[0]).toEqual(t);
    expect(got.slice(1).map((x) => x.key)).toEqual(added);
  });
});

describe("defaultTolerationSecondsAdmission", () => {
  const attrs = (over: Partial<{ operation: AdmissionAttributes["operation"]; resource: string; subresource: string; apiGroup: string }>, object: Pod) =>
    ({
      operation: over.operation ?? "CREATE",
      info: { apiGroup: over.apiGroup ?? "", resource: over.resource ?? "pods", subresource: over.subresource ?? "" },
      object,
      oldObject: undefined,
    }) as unknown as AdmissionAttributes;
  const plugin = defaultTolerationSecondsAdmission({ defaultNotReadyTolerationSeconds: 60, defaultUnreachableTolerationSeconds: 120 });
  it("mutates pods on CREATE and UPDATE", async () => {
    for (const operation of ["CREATE", "UPDATE"] as const) {
      const p = pod();
      await plugin.mutate?.(attrs({ operation }, p));
      expect(p.spec?.tolerations?.map((t) => `${t.key ?? ""}=${String(t.tolerationSeconds)}`)).toEqual(["node.example.io/not-ready=60", "node.example.io/unreachable=120"]);
    }
  });
  it("leaves subresources, other resources and groups alone", async () => {
    for (const over of [{ subresource: "status" }, { resource: "podtemplates" }, { apiGroup: "batch", resource: "pods" }]) {
      const p = pod();
      await plugin.mutate?.(attrs(over, p));
      expect(p.spec?.tolerations).toBeUndefined();
    }
  });
});
