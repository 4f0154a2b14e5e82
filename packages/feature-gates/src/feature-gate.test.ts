import { describe, expect, it } from "vitest";
import type { FeatureGateErrorReason } from "./index.js";
import { FeatureGate, FeatureGateError, isFeatureGateError } from "./index.js";

function gates(): FeatureGate {
  const g = new FeatureGate("test");
  g.add({
    AlphaOff: { default: false, preRelease: "alpha" },
    AlphaOn: { default: true, preRelease: "alpha" },
    BetaOn: { default: true, preRelease: "beta" },
    BetaOff: { default: false, preRelease: "beta" },
    GaOn: { default: true, preRelease: "ga" },
    GaLocked: { default: true, preRelease: "ga", lockToDefault: true },
    BetaLocked: { default: false, preRelease: "beta", lockToDefault: true },
    Old: { default: false, preRelease: "deprecated" },
  });
  return g;
}

function failure(fn: () => unknown): FeatureGateError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FeatureGateError);
    return e as FeatureGateError;
  }
  throw new Error("expected a FeatureGateError");
}

function expectFailure(fn: () => unknown, reason: FeatureGateErrorReason, message: string, feature?: string): void {
  const err = failure(fn);
  expect(err.reason).toBe(reason);
  expect(err.message).toBe(message);
  if (feature !== undefined) expect(err.feature).toBe(feature);
}

describe("FeatureGate defaults and enabled()", () => {
  it("reports defaults when nothing is set", () => {
    const g = gates();
    expect(g.enabled("AlphaOff")).toBe(false);
    expect(g.enabled("AlphaOn")).toBe(true);
    expect(g.enabled("BetaOn")).toBe(true);
    expect(g.enabled("BetaOff")).toBe(false);
    expect(g.enabled("GaOn")).toBe(true);
    expect(g.enabled("AllAlpha")).toBe(false);
    expect(g.enabled("AllBeta")).toBe(false);
  });

  it("knows AllAlpha and AllBeta from construction", () => {
    const g = new FeatureGate();
    expect(g.enabled("AllAlpha")).toBe(false);
    expect(g.knownFeatures()).toEqual(["AllAlpha=true|false (ALPHA - default=false)", "AllBeta=true|false (BETA - default=false)"]);
  });

  it("throws NotRegistered for an unknown gate, naming the gate set", () => {
    expectFailure(() => gates().enabled("Nope"), "NotRegistered", 'feature "Nope" is not registered in FeatureGate "test"', "Nope");
    expectFailure(() => new FeatureGate().enabled("X"), "NotRegistered", 'feature "X" is not registered in FeatureGate "default"');
  });
});

describe("FeatureGate.set parsing", () => {
  it("sets values and tolerates whitespace around items, names and values", () => {
    const g = gates();
    expect(g.set(" AlphaOff = true ,\tBetaOn=false ")).toEqual([]);
    expect(g.enabled("AlphaOff")).toBe(true);
    expect(g.enabled("BetaOn")).toBe(false);
  });

  it("skips empty items, so an empty string and stray commas change nothing", () => {
    const g = gates();
    g.set("");
    g.set(",,");
    g.set("AlphaOff=true,,");
    expect(g.toMap()).toEqual({ AlphaOff: true });
  });

  it.each([["1"], ["t"], ["T"], ["TRUE"], ["true"], ["True"]])("accepts %j as true", (v) => {
    const g = gates();
    g.set(`BetaOff=${v}`);
    expect(g.enabled("BetaOff")).toBe(true);
  });

  it.each([["0"], ["f"], ["F"], ["FALSE"], ["false"], ["False"]])("accepts %j as false", (v) => {
    const g = gates();
    g.set(`BetaOn=${v}`);
    expect(g.enabled("BetaOn")).toBe(false);
  });

  it("keeps the last of repeated names", () => {
    const g = gates();
    g.set("AlphaOff=true,AlphaOff=false");
    expect(g.enabled("AlphaOff")).toBe(false);
  });

  it.each<[string, string]>([
    ["yes", 'invalid value of AlphaOff=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
    ["", 'invalid value of AlphaOff=, err: strconv.ParseBool: parsing "": invalid syntax'],
    ["tRUE", 'invalid value of AlphaOff=tRUE, err: strconv.ParseBool: parsing "tRUE": invalid syntax'],
    ["a=b", 'invalid value of AlphaOff=a=b, err: strconv.ParseBool: parsing "a=b": invalid syntax'],
    ['x"y\n', 'invalid value of AlphaOff=x"y, err: strconv.ParseBool: parsing "x\\"y": invalid syntax'],
    ["\u0001é", 'invalid value of AlphaOff=\u0001é, err: strconv.ParseBool: parsing "\\x01é": invalid syntax'],
  ])("rejects value %j with the Kubernetes message", (value, message) => {
    expectFailure(() => gates().set(`AlphaOff=${value}`), "InvalidValue", message, "AlphaOff");
  });

  it("rejects an item without '=' as a missing value (name trimmed)", () => {
    expectFailure(() => gates().set("AlphaOff=true, BetaOn "), "MissingValue", "missing bool value for BetaOn", "BetaOn");
    expectFailure(() => gates().set(" "), "MissingValue", "missing bool value for ");
  });

  it("rejects unknown gates", () => {
    expectFailure(() => gates().set("Unknown=true"), "UnrecognizedFeatureGate", "unrecognized feature gate: Unknown", "Unknown");
    expectFailure(() => gates().set("=true"), "UnrecognizedFeatureGate", "unrecognized feature gate: ");
    expectFailure(() => gates().set("alphaoff=true"), "UnrecognizedFeatureGate", "unrecognized feature gate: alphaoff");
  });

  it("reports a bad value before an unknown name, as Kubernetes parses first", () => {
    expect(failure(() => gates().set("Unknown=true,AlphaOff=maybe")).reason).toBe("InvalidValue");
  });

  it("rejects setting a locked gate to the other value, and accepts its default", () => {
    expectFailure(() => gates().set("GaLocked=false"), "LockedFeatureGate", "cannot set feature gate GaLocked to false, feature is locked to true", "GaLocked");
    expectFailure(() => gates().set("BetaLocked=true"), "LockedFeatureGate", "cannot set feature gate BetaLocked to true, feature is locked to false");
    const g = gates();
    expect(g.set("GaLocked=true")).toEqual(["Setting GA feature gate GaLocked=true. It will be removed in a future release."]);
    expect(g.enabled("GaLocked")).toBe(true);
  });

  it("is atomic: a failing call changes nothing, not even items before the bad one", () => {
    const g = gates();
    g.set("BetaOn=false");
    for (const bad of ["AlphaOff=true,Unknown=true", "AlphaOff=true,GaLocked=false", "AlphaOff=true,BetaOff=nah", "AlphaOff=true,Old=true,Nope"]) {
      expect(() => g.set(bad)).toThrowError(FeatureGateError);
    }
    expect(g.toMap()).toEqual({ BetaOn: false });
    expect(g.warnings).toEqual([]);
  });

  it("throws a typed error, not a TypeError, for a non-string", () => {
    expect(failure(() => gates().set(42 as unknown as string)).reason).toBe("InvalidValue");
  });
});

describe("FeatureGate.setFromMap", () => {
  it("sets values from a record", () => {
    const g = gates();
    g.setFromMap({ AlphaOff: true, BetaOn: false });
    expect([g.enabled("AlphaOff"), g.enabled("BetaOn")]).toEqual([true, false]);
  });

  it("rejects unknown and locked gates and non-boolean values atomically", () => {
    const g = gates();
    expectFailure(() => g.setFromMap({ AlphaOff: true, Unknown: false }), "UnrecognizedFeatureGate", "unrecognized feature gate: Unknown");
    expectFailure(() => g.setFromMap({ AlphaOff: true, GaLocked: false }), "LockedFeatureGate", "cannot set feature gate GaLocked to false, feature is locked to true");
    expectFailure(() => g.setFromMap({ AlphaOff: "true" as unknown as boolean }), "InvalidValue", "invalid value of AlphaOff=true, err: not a boolean");
    expect(g.toMap()).toEqual({});
  });

  it("does not mutate its argument", () => {
    const input = Object.freeze({ AlphaOff: true });
    gates().setFromMap(input);
    expect(input).toEqual({ AlphaOff: true });
  });
});

describe("AllAlpha / AllBeta", () => {
  it("AllAlpha=true turns on every alpha gate that is not explicitly set, and nothing else", () => {
    const g = gates();
    g.set("AllAlpha=true");
    expect(g.enabled("AlphaOff")).toBe(true);
    expect(g.enabled("AlphaOn")).toBe(true);
    expect(g.enabled("BetaOff")).toBe(false);
    expect(g.enabled("AllBeta")).toBe(false);
    expect(g.enabled("Old")).toBe(false);
  });

  it("AllAlpha=false turns off alpha gates whose default is on", () => {
    const g = gates();
    g.set("AllAlpha=false");
    expect(g.enabled("AlphaOn")).toBe(false);
  });

  it("AllBeta=false turns off default-on beta gates; AllBeta=true turns on default-off ones", () => {
    const g = gates();
    g.set("AllBeta=false");
    expect(g.enabled("BetaOn")).toBe(false);
    expect(g.enabled("AlphaOn")).toBe(true);
    g.set("AllBeta=true");
    expect(g.enabled("BetaOff")).toBe(true);
    expect(g.enabled("BetaOn")).toBe(true);
  });

  it.each([["AllAlpha=true,AlphaOff=false"], ["AlphaOff=false,AllAlpha=true"]])("explicit values win regardless of order within one call: %s", (text) => {
    const g = gates();
    g.set(text);
    expect(g.enabled("AlphaOff")).toBe(false);
    expect(g.enabled("AlphaOn")).toBe(true);
  });

  it("explicit values win regardless of order across calls", () => {
    const a = gates();
    a.set("AllBeta=false");
    a.set("BetaOn=true");
    expect(a.enabled("BetaOn")).toBe(true);
    expect(a.enabled("GaOn")).toBe(true);
    const b = gates();
    b.set("BetaOn=true");
    b.set("AllBeta=false");
    expect(b.enabled("BetaOn")).toBe(true);
  });

  it("a later AllAlpha value replaces an earlier one for gates not explicitly set", () => {
    const g = gates();
    g.set("AllAlpha=true");
    g.set("AllAlpha=false");
    expect(g.enabled("AlphaOff")).toBe(false);
    expect(g.enabled("AlphaOn")).toBe(false);
  });

  it("does not move locked gates, GA or deprecated gates", () => {
    const g = gates();
    g.set("AllBeta=true,AllAlpha=true");
    expect(g.enabled("BetaLocked")).toBe(false);
    expect(g.enabled("GaOn")).toBe(true);
    expect(g.enabled("Old")).toBe(false);
  });

  it("also applies to gates added after AllAlpha was set", () => {
    const g = gates();
    g.set("AllAlpha=true");
    g.add({ Later: { default: false, preRelease: "alpha" } });
    expect(g.enabled("Later")).toBe(true);
  });

  it("is recorded as an explicit value itself", () => {
    const g = gates();
    g.set("AllAlpha=true");
    expect(g.toMap()).toEqual({ AllAlpha: true });
  });
});

describe("warnings", () => {
  it("warns when setting deprecated or GA gates, returns this call's warnings and accumulates them", () => {
    const g = gates();
    expect(g.set("Old=true,AlphaOff=true")).toEqual(["Setting deprecated feature gate Old=true. It will be removed in a future release."]);
    expect(g.setFromMap({ GaOn: false })).toEqual(["Setting GA feature gate GaOn=false. It will be removed in a future release."]);
    expect(g.enabled("GaOn")).toBe(false);
    expect(g.warnings).toEqual([
      "Setting deprecated feature gate Old=true. It will be removed in a future release.",
      "Setting GA feature gate GaOn=false. It will be removed in a future release.",
    ]);
  });

  it("returns a copy, so callers cannot alter the record", () => {
    const g = gates();
    g.set("Old=true");
    (g.warnings as string[]).length = 0;
    expect(g.warnings).toHaveLength(1);
  });
});

describe("FeatureGate.add", () => {
  it("accepts an identical re-add (e.g. AllAlpha in a table) and rejects a different spec", () => {
    const g = gates();
    g.add({ AllAlpha: { default: false, preRelease: "alpha" }, AlphaOff: { default: false, preRelease: "alpha", lockToDefault: false } });
    expectFailure(
      () => g.add({ BetaOn: { default: false, preRelease: "beta" } }),
      "ConflictingSpec",
      'feature gate "BetaOn" with different spec already exists: {true false BETA}',
      "BetaOn",
    );
    expectFailure(
      () => g.add({ GaLocked: { default: true, preRelease: "ga" } }),
      "ConflictingSpec",
      'feature gate "GaLocked" with different spec already exists: {true true }',
    );
  });

  it("is atomic", () => {
    const g = gates();
    expect(() => g.add({ Fresh: { default: true, preRelease: "beta" }, BetaOn: { default: false, preRelease: "beta" } })).toThrowError(FeatureGateError);
    expectFailure(() => g.enabled("Fresh"), "NotRegistered", 'feature "Fresh" is not registered in FeatureGate "test"');
  });

  it.each<[string, unknown]>([
    ["", { default: true, preRelease: "beta" }],
    [" Padded", { default: true, preRelease: "beta" }],
    ["A,B", { default: true, preRelease: "beta" }],
    ["A=B", { default: true, preRelease: "beta" }],
    ["Stage", { default: true, preRelease: "stable" }],
    ["Default", { default: "yes", preRelease: "beta" }],
    ["Lock", { default: true, preRelease: "ga", lockToDefault: 1 }],
    ["Null", null],
  ])("rejects the malformed spec %j", (name, spec) => {
    expect(failure(() => new FeatureGate().add({ [name]: spec as never })).reason).toBe("InvalidSpec");
  });

  it("copies specs, so later changes to the argument have no effect", () => {
    const spec = { default: false, preRelease: "alpha" as const };
    const g = new FeatureGate();
    g.add({ Copied: spec });
    (spec as { default: boolean }).default = true;
    expect(g.enabled("Copied")).toBe(false);
  });
});

describe("knownFeatures", () => {
  it("lists alpha and beta gates in Kubernetes' help format, sorted, hiding GA and deprecated", () => {
    expect(gates().knownFeatures()).toEqual([
      "AllAlpha=true|false (ALPHA - default=false)",
      "AllBeta=true|false (BETA - default=false)",
      "AlphaOff=true|false (ALPHA - default=false)",
      "AlphaOn=true|false (ALPHA - default=true)",
      "BetaLocked=true|false (BETA - default=false)",
      "BetaOff=true|false (BETA - default=false)",
      "BetaOn=true|false (BETA - default=true)",
    ]);
  });
});

describe("deepCopy, toMap, toString", () => {
  it("copies known gates, explicit values and warnings; the copies are independent", () => {
    const g = gates();
    g.set("AlphaOff=true,Old=true");
    const c = g.deepCopy();
    expect(c.name).toBe("test");
    expect(c.toMap()).toEqual({ AlphaOff: true, Old: true });
    expect(c.warnings).toEqual(g.warnings);
    c.set("AlphaOff=false");
    c.add({ OnlyInCopy: { default: true, preRelease: "beta" } });
    expect(g.enabled("AlphaOff")).toBe(true);
    expect(() => g.enabled("OnlyInCopy")).toThrowError(FeatureGateError);
    g.set("BetaOn=false");
    expect(c.enabled("BetaOn")).toBe(true);
  });

  it("toMap lists only explicit values, sorted, as a fresh object", () => {
    const g = gates();
    g.set("BetaOn=false,AllAlpha=true,AlphaOn=true");
    const m = g.toMap();
    expect(Object.keys(m)).toEqual(["AllAlpha", "AlphaOn", "BetaOn"]);
    m["BetaOn"] = true;
    expect(g.enabled("BetaOn")).toBe(false);
  });

  it("toString writes the explicit values as a --feature-gates value that set() reads back", () => {
    const g = gates();
    expect(g.toString()).toBe("");
    g.set("BetaOn=false, AllAlpha=true");
    expect(g.toString()).toBe("AllAlpha=true,BetaOn=false");
    const h = gates();
    h.set(g.toString());
    expect(h.toMap()).toEqual(g.toMap());
  });
});

describe("isFeatureGateError", () => {
  it("recognises the class and look-alikes by name and reason", () => {
    expect(isFeatureGateError(new FeatureGateError("MissingValue", "m", "X"))).toBe(true);
    expect(isFeatureGateError({ name: "FeatureGateError", reason: "LockedFeatureGate" })).toBe(true);
    expect(isFeatureGateError({ name: "FeatureGateError", reason: "Panic" })).toBe(false);
    expect(isFeatureGateError(new Error("unrecognized feature gate: X"))).toBe(false);
    expect(isFeatureGateError(undefined)).toBe(false);
  });
});

describe("featureNames", () => {
  it("lists every known gate by name, GA ones included, which knownFeatures (help lines) does not", () => {
    const g = new FeatureGate();
    g.add({ Zeta: { default: false, preRelease: "alpha" }, Alpha: { default: true, preRelease: "ga", lockToDefault: true } });
    expect(g.featureNames()).toEqual(expect.arrayContaining(["Alpha", "Zeta"]));
    expect(g.featureNames()).toEqual([...g.featureNames()].sort());
    expect(g.knownFeatures().some((l) => l.startsWith("Alpha="))).toBe(false);
    expect(g.knownFeatures()).not.toContain("Zeta");
  });
});
