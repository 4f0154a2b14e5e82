// Runs the CRI conformance suite against real containerd + runc, set up by
// tools/containerd/setup.sh in a temporary directory and stopped again afterwards.
// With CI=true the suite must run; elsewhere it is skipped (with the reason) when setup fails,
// e.g. without root or apt.
import { afterAll, describe } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { defineRuntimeConformanceSuite } from "./runtime-suite.js";

const setup = setUpContainerd({ prefix: "skiff-ctd-", suite: "containerd suite" });

afterAll(() => {
  tearDownContainerd(setup);
});

describe.skipIf(setup.endpoint === undefined)("containerd: CRI conformance", () => {
  defineRuntimeConformanceSuite(() => ({ endpoint: setup.endpoint ?? "" }), { timeoutMs: 60_000 });
});
