// Container lifecycle hooks (postStart, preStop) on real containerd + runc: the REAL apiserver, the
// node agent in API-server mode; exec hooks run through containerd's ExecSync in the container.
// With CI=true it must run; elsewhere it is skipped (with the reason) when containerd cannot be set up.
import { afterAll, beforeAll, describe } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { defineLifecycleHookTests, lifecycleNodeArgs } from "./lifecycle-helpers.js";
import { startProcessNode, type ProcessNode } from "./process-node.js";

const nodeName = "hooks-ctr-node";
const setup = setUpContainerd({ prefix: "skiff-hooksc-", suite: "containerd lifecycle hook suite" });

describe.skipIf(setup.endpoint === undefined)("container lifecycle hooks on containerd", () => {
  let node: ProcessNode | undefined;

  beforeAll(async () => {
    node = await startProcessNode({
      prefix: "skiff-hooksc-node-",
      nodeName,
      endpoint: setup.endpoint ?? "",
      args: lifecycleNodeArgs,
    });
  }, 180_000);

  afterAll(async () => {
    await node?.stop();
    tearDownContainerd(setup);
  }, 120_000);

  defineLifecycleHookTests({
    nodeName,
    node: () => node,
    image: { image: "busybox:1.36", imagePullPolicy: "Never" },
  });
});
