import { describe, expect, it, onTestFinished } from "vitest";
import { FeatureGate, FeatureGateError, nodeAgentFeatureGates, setFeatureGateDuringTest } from "./index.js";

describe("setFeatureGateDuringTest", () => {
  it("sets the gate and restores 'not set', so AllAlpha applies again", () => {
    const gates = nodeAgentFeatureGates();
    gates.set("AllAlpha=true");
    const restore = setFeatureGateDuringTest(gates, "NodeSwap", false);
    expect(gates.enabled("NodeSwap")).toBe(false);
    expect(gates.toMap()).toEqual({ AllAlpha: true, NodeSwap: false });
    restore();
    expect(gates.toMap()).toEqual({ AllAlpha: true });
    expect(gates.enabled("NodeSwap")).toBe(true);
  });

  it("restores a previous explicit value", () => {
    const gates = nodeAgentFeatureGates();
    gates.set("JobReadyPods=false");
    const restore = setFeatureGateDuringTest(gates, "JobReadyPods", true);
    expect(gates.enabled("JobReadyPods")).toBe(true);
    restore();
    expect(gates.toMap()).toEqual({ JobReadyPods: false });
  });

  it("restores once only, leaving later changes alone", () => {
    const gates = nodeAgentFeatureGates();
    const restore = setFeatureGateDuringTest(gates, "NodeSwap", true);
    restore();
    gates.set("NodeSwap=true");
    restore();
    expect(gates.enabled("NodeSwap")).toBe(true);
  });

  it("throws like setFromMap for unknown or locked gates and leaves the gate unchanged", () => {
    const gates = new FeatureGate("t");
    gates.add({ Locked: { default: true, preRelease: "ga", lockToDefault: true } });
    expect(() => setFeatureGateDuringTest(gates, "Nope", true)).toThrowError(FeatureGateError);
    expect(() => setFeatureGateDuringTest(gates, "Locked", false)).toThrowError("cannot set feature gate Locked to false, feature is locked to true");
    expect(gates.toMap()).toEqual({});
  });

  describe("with onTestFinished", () => {
    const shared = nodeAgentFeatureGates();
    it("changes the gate for this test", () => {
      onTestFinished(setFeatureGateDuringTest(shared, "JobTrackingWithFinalizers", true));
      expect(shared.enabled("JobTrackingWithFinalizers")).toBe(true);
    });
    it("sees it restored in the next test", () => {
      expect(shared.enabled("JobTrackingWithFinalizers")).toBe(false);
      expect(shared.toMap()).toEqual({});
    });
  });
});
