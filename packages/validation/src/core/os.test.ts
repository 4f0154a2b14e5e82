/* eslint-disable @typescript-eslint/no-explicit-any -- fixtures are JSON objects mutated freely per case */
import { fieldPath, formatFieldError, type FieldError } from "@skiff/apimachinery";
import type { PodSpec } from "@skiff/api-types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { setPodSpecDefaults } from "./defaults.js";
import { defaultPodValidationOptions, type PodValidationOptions } from "./options.js";
import { validatePodSpec } from "./pod-spec.js";
import { validateWindowsSecurityContextOptions } from "./security.js";

const specPath = fieldPath("spec");

function spec(patch: (s: Record<string, any>) => void): PodSpec {
  const s: Record<string, any> = { containers: [{ name: "c", image: "busybox:1.36" }], initContainers: [{ name: "i", image: "busybox:1.36" }] };
  setPodSpecDefaults(s as PodSpec);
  patch(s);
  return s as PodSpec;
}
const messages = (s: PodSpec, opts: PodValidationOptions = defaultPodValidationOptions) =>
  validatePodSpec(s, specPath, opts).map((e) => formatFieldError(e));
const windowsMessages = (value: unknown) =>
  validateWindowsSecurityContextOptions(value, fieldPath("spec", "securityContext", "windowsOptions")).map((e: FieldError) => formatFieldError(e));

describe("spec.os", () => {
  it("accepts linux and windows, and a spec without os", () => {
    expect(messages(spec((s) => (s["os"] = { name: "linux" })))).toEqual([]);
    expect(messages(spec((s) => (s["os"] = { name: "windows" })))).toEqual([]);
    expect(messages(spec(() => {}))).toEqual([]);
  });

  it("requires a name and reports another OS at spec.os, as 1.23", () => {
    expect(messages(spec((s) => (s["os"] = { name: "" })))).toEqual(["spec.os.name: Required value: cannot be empty"]);
    expect(messages(spec((s) => (s["os"] = {})))).toEqual(["spec.os.name: Required value: cannot be empty"]);
    expect(messages(spec((s) => (s["os"] = { name: "Linux" })))).toEqual(['spec.os: Unsupported value: "Linux": supported values: "linux", "windows"']);
  });

  it("forbids windowsOptions in a linux pod, at the pod and in every kind of container", () => {
    const s = spec((x) => {
      x["os"] = { name: "linux" };
      x["securityContext"] = { windowsOptions: { runAsUserName: "u" } };
      x["initContainers"][0].securityContext = { windowsOptions: {} };
      x["containers"][0].securityContext = { windowsOptions: { gmsaCredentialSpecName: "g" } };
    });
    expect(messages(s)).toEqual([
      "spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod",
      "spec.initContainers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod",
      "spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod",
    ]);
    // Without os the same options are accepted (1.23 checks them only for a named OS).
    delete (s as any).os;
    expect(messages(s)).toEqual([]);
  });

  it("forbids the Linux-only fields of a windows pod, even when false", () => {
    const s = spec((x) => {
      x["os"] = { name: "windows" };
      x["hostPID"] = true;
      x["hostIPC"] = true;
      x["shareProcessNamespace"] = false;
      x["securityContext"] = {
        seLinuxOptions: { level: "s0" },
        seccompProfile: { type: "RuntimeDefault" },
        fsGroup: 1,
        fsGroupChangePolicy: "Always",
        sysctls: [{ name: "kernel.shm_rmid_forced", value: "1" }],
        runAsUser: 1,
        runAsGroup: 1,
        supplementalGroups: [],
        runAsNonRoot: true,
        windowsOptions: { runAsUserName: "ContainerUser" },
      };
      x["containers"][0].securityContext = {
        seLinuxOptions: {},
        seccompProfile: { type: "RuntimeDefault" },
        capabilities: {},
        readOnlyRootFilesystem: false,
        privileged: false,
        allowPrivilegeEscalation: true,
        procMount: "Default",
        runAsUser: 2,
        runAsGroup: 2,
        runAsNonRoot: true,
      };
    });
    const forbidden = (p: string) => `${p}: Forbidden: cannot be set for a windows pod`;
    expect(messages(s)).toEqual([
      forbidden("spec.securityContext.seLinuxOptions"),
      forbidden("spec.hostPID"),
      forbidden("spec.hostIPC"),
      forbidden("spec.securityContext.seccompProfile"),
      forbidden("spec.securityContext.fsGroup"),
      forbidden("spec.securityContext.fsGroupChangePolicy"),
      forbidden("spec.securityContext.sysctls"),
      forbidden("spec.shareProcessNamespace"),
      forbidden("spec.securityContext.runAsUser"),
      forbidden("spec.securityContext.runAsGroup"),
      forbidden("spec.securityContext.supplementalGroups"),
      ...["seLinuxOptions", "seccompProfile", "capabilities", "readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation", "procMount", "runAsUser", "runAsGroup"].map((k) =>
        forbidden(`spec.containers[0].securityContext.${k}`),
      ),
    ]);
  });

  it("does not check the OS's fields when the OS name is wrong", () => {
    const s = spec((x) => {
      x["os"] = { name: "plan9" };
      x["securityContext"] = { windowsOptions: {} };
      x["hostPID"] = true;
    });
    expect(messages(s)).toEqual(['spec.os: Unsupported value: "plan9": supported values: "linux", "windows"']);
  });
});

describe("windowsOptions", () => {
  it("accepts well-formed options", () => {
    for (const runAsUserName of ["ContainerUser", "NT AUTHORITY\\NETWORK SERVICE", "my.domain.example\\svc", "a".repeat(104)]) {
      expect(windowsMessages({ runAsUserName, gmsaCredentialSpecName: "gmsa-spec", gmsaCredentialSpec: "{}", hostProcess: false })).toEqual([]);
    }
  });

  it("checks the GMSA credential spec's name and size", () => {
    expect(windowsMessages({ gmsaCredentialSpecName: "Not_DNS" })).toEqual([
      'spec.securityContext.windowsOptions.gmsaCredentialSpecName: Invalid value: "Not_DNS": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    ]);
    expect(windowsMessages({ gmsaCredentialSpec: "" })).toEqual([
      'spec.securityContext.windowsOptions.gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec cannot be an empty string',
    ]);
    expect(windowsMessages({ gmsaCredentialSpec: "x".repeat(64 * 1024) })).toEqual([]);
    const big = windowsMessages({ gmsaCredentialSpec: "x".repeat(64 * 1024 + 1) });
    expect(big).toHaveLength(1);
    expect(big[0]).toMatch(/gmsaCredentialSpec size must be under 64 KiB$/);
  });

  it("checks runAsUserName as 1.23: empty, control characters, backslashes, domain and user", () => {
    const one = (runAsUserName: string) => windowsMessages({ runAsUserName }).map((m) => m.replace(/^.*Invalid value: ".*?": /s, ""));
    expect(one("")).toEqual(["runAsUserName cannot be an empty string"]);
    expect(one("a\tb")).toEqual(["runAsUserName cannot contain control characters"]);
    expect(one("a\\b\\c")).toEqual(["runAsUserName cannot contain more than one backslash"]);
    expect(one(`${"d".repeat(256)}\\u`)).toEqual([
      "runAsUserName's Domain length must be under 256 characters",
      "runAsUserName's Domain doesn't match the NetBios nor the DNS format",
    ]);
    expect(one(".dom\\u")).toEqual(["runAsUserName's Domain doesn't match the NetBios nor the DNS format"]);
    expect(one("dom\\")).toEqual(["runAsUserName's User cannot be empty"]);
    expect(one("u".repeat(105))).toEqual(["runAsUserName's User length must not be longer than 104 characters"]);
    expect(one(". .")).toEqual(["runAsUserName's User cannot contain only periods or spaces"]);
    expect(one("a@b")).toEqual([`runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`]);
    // Lengths are bytes, as Go's len: 35 three-byte characters are 105 bytes.
    expect(one("é".repeat(52))).toEqual([]);
    expect(one("€".repeat(35))).toEqual(["runAsUserName's User length must not be longer than 104 characters"]);
  });

  it("validates the pod's and the containers' options inside the pod spec", () => {
    const s = spec((x) => {
      x["securityContext"] = { windowsOptions: { runAsUserName: "" } };
      x["containers"][0].securityContext = { windowsOptions: { gmsaCredentialSpec: "" } };
    });
    expect(messages(s)).toEqual([
      'spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec cannot be an empty string',
      'spec.securityContext.windowsOptions.runAsUserName: Invalid value: "": runAsUserName cannot be an empty string',
    ]);
  });

  it("never throws on any options object (fuzz)", () => {
    fc.assert(
      fc.property(
        fc.record({ runAsUserName: fc.string({ unit: "binary" }), gmsaCredentialSpecName: fc.string(), gmsaCredentialSpec: fc.string() }, { requiredKeys: [] }),
        (o) => {
          const errs = validateWindowsSecurityContextOptions(o, fieldPath("w"));
          expect(errs.every((e) => e.field.startsWith("w."))).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("HostProcess pods", () => {
  const hostProcessPod = (patch: (s: Record<string, any>) => void = () => {}) =>
    spec((x) => {
      x["os"] = { name: "windows" };
      x["hostNetwork"] = true;
      x["securityContext"] = { windowsOptions: { hostProcess: true } };
      patch(x);
    });

  it("accepts a pod whose containers all inherit hostProcess, with hostNetwork", () => {
    expect(messages(hostProcessPod())).toEqual([]);
  });

  it("requires identical values, all containers, hostNetwork", () => {
    const s = hostProcessPod((x) => {
      x["hostNetwork"] = false;
      x["containers"][0].securityContext = { windowsOptions: { hostProcess: false } };
    });
    expect(messages(s)).toEqual([
      "spec.containers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true",
      'spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers',
      "spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers",
    ]);
  });

  it("is refused when privileged containers are not allowed", () => {
    expect(messages(hostProcessPod(), { ...defaultPodValidationOptions, allowPrivileged: false })).toEqual([
      "spec: Forbidden: hostProcess containers are disallowed by cluster policy",
    ]);
  });

  it("forbids any hostProcess value with the gate off", () => {
    const off = { ...defaultPodValidationOptions, allowWindowsHostProcessField: false };
    expect(messages(hostProcessPod(), off)).toEqual([
      "spec.securityContext.windowsOptions.hostProcess: Forbidden: not allowed when feature gate 'WindowsHostProcessContainers' is not enabled",
    ]);
    const containerOnly = spec((x) => (x["containers"][0].securityContext = { windowsOptions: { hostProcess: false } }));
    expect(messages(containerOnly, off)).toEqual([
      "spec.containers[0].securityContext.windowsOptions.hostProcess: Forbidden: not allowed when feature gate 'WindowsHostProcessContainers' is not enabled",
    ]);
  });
});
