import type { Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { runtimeClassAdmission } from "./runtime-class.js";

const pod = (spec: Partial<NonNullable<Pod["spec"]>> = {}): Pod => ({ metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "i" }], ...spec } });
const attrs = (operation: "CREATE" | "UPDATE", object: Pod, subresource = "") => ({ operation, info: { apiGroup: "", resource: "pods", subresource, name: "" }, object, oldObject: operation === "UPDATE" ? object : undefined, ctx: {} }) as never;

async function refusal(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe("RuntimeClass admission (1.23 plugin/pkg/admission/runtimeclass, no RuntimeClasses served)", () => {
  const plugin = runtimeClassAdmission();

  it("refuses a pod naming a RuntimeClass, and one setting overhead, with 1.23's messages", async () => {
    expect(await refusal(() => plugin.mutate?.(attrs("CREATE", pod({ runtimeClassName: "gvisor" }))))).toMatchObject({
      status: { code: 403, reason: "Forbidden", message: 'pods "p" is forbidden: pod rejected: RuntimeClass "gvisor" not found' },
    });
    expect(await refusal(() => plugin.validate?.(attrs("CREATE", pod({ overhead: { cpu: "100m" } }))))).toMatchObject({
      status: { code: 403, message: 'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead' },
    });
    // An empty runtime class name is still a name (1.23 checks for nil, not ""); validation refuses it anyway.
    expect(await refusal(() => plugin.mutate?.(attrs("CREATE", pod({ runtimeClassName: "" }))))).toMatchObject({ status: { code: 403 } });
  });

  it("admits pods without either, updates, and subresources", async () => {
    expect(await refusal(() => plugin.mutate?.(attrs("CREATE", pod())))).toBeUndefined();
    expect(await refusal(() => plugin.validate?.(attrs("CREATE", pod())))).toBeUndefined();
    expect(await refusal(() => plugin.mutate?.(attrs("UPDATE", pod({ runtimeClassName: "x" }))))).toBeUndefined();
    expect(await refusal(() => plugin.validate?.(attrs("CREATE", pod({ overhead: { cpu: "1" } }), "status")))).toBeUndefined();
  });
});
