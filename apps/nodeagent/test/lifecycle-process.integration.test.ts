// Container lifecycle hooks (postStart, preStop) on the process runtime as `pnpm start` runs it
// (`isolation: "namespaces"`): the REAL apiserver, the node agent in API-server mode; exec hooks
// run through the runtime's ExecSync, inside the container's namespaces.
import { afterAll, beforeAll, describe } from "vitest";
import { defineLifecycleHookTests, lifecycleNodeArgs } from "./lifecycle-helpers.js";
import { startProcessNode, type ProcessNode } from "./process-node.js";

const nodeName = "hooks-node";

describe("container lifecycle hooks on the process runtime", () => {
  let node: ProcessNode | undefined;

  beforeAll(async () => {
    node = await startProcessNode({ prefix: "skiff-hooks-", nodeName, isolation: "namespaces", args: lifecycleNodeArgs });
  }, 120_000);

  afterAll(() => node?.stop(), 120_000);

  defineLifecycleHookTests({
    nodeName,
    node: () => node,
    image: { image: "busybox", imagePullPolicy: "IfNotPresent" },
  });
});
