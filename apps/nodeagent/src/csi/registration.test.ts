import { describe, expect, it } from "vitest";
import { parseCsiVersion, registrationErrors, validateCsiPluginVersions } from "./registration.js";

describe("parseCsiVersion", () => {
  it("parses loosely: optional v, missing patch, trailing text", () => {
    expect(parseCsiVersion("1.5.0")).toEqual({ major: 1, minor: 5, patch: 0 });
    expect(parseCsiVersion("v1.2")).toEqual({ major: 1, minor: 2, patch: 0 });
    expect(parseCsiVersion(" 0.3.0-rc1")).toEqual({ major: 0, minor: 3, patch: 0 });
  });
  it("refuses text without major.minor", () => {
    expect(parseCsiVersion("1")).toBeUndefined();
    expect(parseCsiVersion("abc")).toBeUndefined();
    expect(parseCsiVersion("")).toBeUndefined();
  });
});

describe("validateCsiPluginVersions", () => {
  it("accepts the highest 1.x version, ignoring majors above 1", () => {
    const r = validateCsiPluginVersions("d", ["0.3.0", "1.2.0", "2.0.0", "1.5.0"]);
    expect(r).toEqual({ ok: true, highest: { major: 1, minor: 5, patch: 0 } });
  });
  it("refuses an empty list", () => {
    const r = validateCsiPluginVersions("d", []);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain("Plugin returned an empty list for supported versions");
  });
  it("refuses a driver whose highest version is 0.x", () => {
    const r = validateCsiPluginVersions("d", ["0.3.0", "0.2.0"]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain("highest supported version reported by driver is 0.3.0, must be v1.x");
  });
  it("refuses unparsable versions", () => {
    const r = validateCsiPluginVersions("d", ["banana"]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain("could not find suitable version");
  });
  it("refuses a second driver of the same name unless its version is higher", () => {
    const registered = { major: 1, minor: 5, patch: 0 };
    expect(validateCsiPluginVersions("d", ["1.5.0"], registered).ok).toBe(false);
    expect(validateCsiPluginVersions("d", ["1.4.0"], registered).ok).toBe(false);
    expect(validateCsiPluginVersions("d", ["1.6.0"], registered).ok).toBe(true);
  });
  it("formats the errors NotifyRegistrationStatus carries", () => {
    expect(registrationErrors.noHandler("DevicePlugin", "/r/x.sock")).toBe("RegisterPlugin error -- no handler registered for plugin type: DevicePlugin at socket /r/x.sock");
    expect(registrationErrors.validation("boom")).toBe("RegisterPlugin error -- plugin validation failed with err: boom");
  });
});
