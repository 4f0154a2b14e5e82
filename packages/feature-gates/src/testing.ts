import type { FeatureGate } from "./feature-gate.js";
import { restoreExplicitValue } from "./feature-gate.js";

/**
 * Sets one gate for the duration of a test and returns a function that restores the gate's
 * previous explicit state exactly (including "not set", so `AllAlpha`/`AllBeta` and the default
 * apply again). Pass the result to vitest's `onTestFinished` (or call it in `afterEach`).
 * Mutates `gate`; calling the restore function more than once is harmless.
 *
 * @throws {@link FeatureGateError} as `setFromMap` does (unknown or locked gate); the gate is then
 *   unchanged.
 * @see staging/src/k8s.io/component-base/featuregate/testing/feature_gate.go `SetFeatureGateDuringTest` in kubernetes/kubernetes
 * @example
 * ```ts
 * it("works without ready counts", () => {
 *   onTestFinished(setFeatureGateDuringTest(gates, "JobReadyPods", false));
 *   // ...
 * });
 * ```
 */
export function setFeatureGateDuringTest<N extends string>(gate: FeatureGate<N>, name: N, value: boolean): () => void {
  const previous: boolean | undefined = gate.toMap()[name];
  gate.setFromMap({ [name]: value });
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    restoreExplicitValue(gate, name, previous);
  };
}
