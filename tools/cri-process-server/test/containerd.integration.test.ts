// Runs the CRI conformance suite against real containerd + runc, set up by
// tools/containerd/setup.sh in a temporary directory and stopped again afterwards.
// With CI=true the suite must run; elsewhere it is skipped (with the reason) when setup fails,
// e.g. without root or apt.
import { afterAll, describe } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { defineIsolationConformanceSuite } from "./isolation-suite.js";
import { defineRuntimeConformanceSuite } from "./runtime-suite.js";

const setup = setUpContainerd({ prefix: "skiff-ctd-", suite: "containerd suite" });

afterAll(() => {
  tearDownContainerd(setup);
});

describe.skipIf(setup.endpoint === undefined)("containerd: CRI conformance", () => {
  defineRuntimeConformanceSuite(() => ({ endpoint: setup.endpoint ?? "" }), { timeoutMs: 60_000 });
});

describe.skipIf(setup.endpoint === undefined)("containerd: isolation conformance", () => {
  defineIsolationConformanceSuite(() => ({ endpoint: setup.endpoint ?? "" }), { image: "busybox:1.36", timeoutMs: 60_000 });
});
