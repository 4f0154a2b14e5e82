import type { Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { safeSysctls, SysctlAllowlist, sysctlNamespaceOf } from "./sysctl-allowlist.js";

function pod(sysctls: Array<{ name: string; value: string }>, host: { hostNetwork?: boolean; hostIPC?: boolean } = {}): Pod {
  return { metadata: { name: "p", namespace: "default", uid: "u" }, spec: { containers: [{ name: "c" }], ...host, securityContext: { sysctls } } };
}

describe("sysctlNamespaceOf", () => {
  it.each([
    ["kernel.sem", "ipc"],
    ["kernel.shmmax", "ipc"],
    ["kernel.msgmax", "ipc"],
    ["fs.mqueue.msg_max", "ipc"],
    ["net.core.somaxconn", "net"],
    ["vm.swappiness", ""],
    ["kernel.hostname", ""],
  ])("%s → %j", (name, ns) => {
    expect(sysctlNamespaceOf(name)).toBe(ns);
  });
});

describe("SysctlAllowlist.create (start-up validation, 1.23 words)", () => {
  it.each([
    ["vm.swappiness", 'the sysctl "vm.swappiness" are not known to be namespaced'],
    ["vm.*", 'the sysctls "vm.*" are not known to be namespaced'],
    ["Kernel.Msg*", 'sysctl "Kernel.Msg*" must have at most 253 characters and match regex ([a-z0-9]([-_a-z0-9]*[a-z0-9])?\\.)*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]'],
    ["a/b", 'sysctl "a/b" must have at most 253 characters and match regex ([a-z0-9]([-_a-z0-9]*[a-z0-9])?\\.)*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]'],
  ])("%s", (pattern, message) => {
    expect(() => SysctlAllowlist.create([pattern])).toThrow(message);
  });

  it("accepts exact names and prefixes of namespaced sysctls", () => {
    expect(() => SysctlAllowlist.create(["kernel.msg*", "net.core.somaxconn", "kernel.sem"])).not.toThrow();
  });
});

describe("SysctlAllowlist.admit", () => {
  const allow = SysctlAllowlist.create(["kernel.msg*", "net.core.somaxconn"]);

  it("admits the safe sysctls and the allowed unsafe ones", () => {
    expect(allow.admit(pod(safeSysctls.map((name) => ({ name, value: "1" }))))).toBeUndefined();
    expect(allow.admit(pod([{ name: "kernel.msgmax", value: "65536" }, { name: "net.core.somaxconn", value: "1024" }]))).toBeUndefined();
    expect(allow.admit({ metadata: { name: "p" }, spec: { containers: [] } })).toBeUndefined();
  });

  it("rejects any other sysctl with SysctlForbidden", () => {
    expect(allow.admit(pod([{ name: "kernel.shmmax", value: "1" }]))).toEqual({ reason: "SysctlForbidden", message: 'forbidden sysctl: "kernel.shmmax" not whitelisted' });
    expect(SysctlAllowlist.create([]).admit(pod([{ name: "kernel.msgmax", value: "1" }]))).toEqual({ reason: "SysctlForbidden", message: 'forbidden sysctl: "kernel.msgmax" not whitelisted' });
  });

  it("rejects network sysctls with hostNetwork and IPC sysctls with hostIPC", () => {
    expect(allow.admit(pod([{ name: "net.ipv4.ip_local_port_range", value: "1024 65000" }], { hostNetwork: true }))).toEqual({
      reason: "SysctlForbidden",
      message: 'forbidden sysctl: "net.ipv4.ip_local_port_range" not allowed with host net enabled',
    });
    expect(allow.admit(pod([{ name: "kernel.msgmax", value: "1" }], { hostIPC: true }))?.message).toBe('forbidden sysctl: "kernel.msgmax" not allowed with host ipc enabled');
    expect(allow.admit(pod([{ name: "kernel.msgmax", value: "1" }], { hostNetwork: true }))).toBeUndefined();
  });
});
