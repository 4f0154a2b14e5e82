import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { afterAll, describe, expect, it } from "vitest";
import { admitAppArmor, isAppArmorEnabledOnHost } from "./apparmor.js";

function pod(annotations: Record<string, string>): Pod {
  return { metadata: { name: "p", annotations }, spec: { containers: [{ name: "c" }], initContainers: [{ name: "i" }] } };
}

const on = { gateEnabled: true, hostEnabled: () => true };
const key = "container.apparmor.security.beta.kubernetes.io/c";

describe("admitAppArmor (1.23 soft admission)", () => {
  it("admits pods without a profile or with unconfined", () => {
    expect(admitAppArmor(pod({}), { gateEnabled: true, hostEnabled: () => false })).toBeUndefined();
    expect(admitAppArmor(pod({ [key]: "unconfined" }), { gateEnabled: true, hostEnabled: () => false })).toBeUndefined();
  });

  it("refuses a profile on a host without AppArmor or with the gate off", () => {
    expect(admitAppArmor(pod({ [key]: "runtime/default" }), { gateEnabled: true, hostEnabled: () => false })).toEqual({ reason: "AppArmor", message: "Cannot enforce AppArmor: AppArmor is not enabled on the host" });
    expect(admitAppArmor(pod({ [key]: "runtime/default" }), { gateEnabled: false, hostEnabled: () => true })).toEqual({ reason: "AppArmor", message: "Cannot enforce AppArmor: AppArmor disabled by feature-gate" });
  });

  it("checks the profile format where AppArmor is enabled", () => {
    expect(admitAppArmor(pod({ [key]: "localhost/k8s-nginx" }), on)).toBeUndefined();
    expect(admitAppArmor(pod({ [key]: "nginx" }), on)).toEqual({ reason: "AppArmor", message: 'Cannot enforce AppArmor: invalid AppArmor profile name: "nginx"' });
  });
});

describe("isAppArmorEnabledOnHost", () => {
  const root = mkdtempSync(join(tmpdir(), "apparmor-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("needs the securityfs directory and a Y in the module parameter", () => {
    expect(isAppArmorEnabledOnHost(root)).toBe(false);
    mkdirSync(join(root, "kernel/security/apparmor"), { recursive: true });
    mkdirSync(join(root, "module/apparmor/parameters"), { recursive: true });
    writeFileSync(join(root, "module/apparmor/parameters/enabled"), "N\n");
    expect(isAppArmorEnabledOnHost(root)).toBe(false);
    writeFileSync(join(root, "module/apparmor/parameters/enabled"), "Y\n");
    expect(isAppArmorEnabledOnHost(root)).toBe(true);
  });
});
