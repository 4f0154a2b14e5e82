import type { Container, Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import {
  containerSecurityContext,
  defaultMaskedPaths,
  defaultReadonlyPaths,
  determineEffectiveSecurityContext,
  imageUserOf,
  namespacesForPod,
  sandboxSecurity,
  seccompProfileOf,
  seccompProfilePathOf,
  verifyRunAsNonRoot,
} from "./security-context.js";

const opts = { seccompProfileRoot: "/var/lib/nodeagent/seccomp" };

function podWith(spec: Partial<NonNullable<Pod["spec"]>>, annotations?: Record<string, string>): Pod {
  return { metadata: { name: "p", namespace: "default", uid: "u1", ...(annotations ? { annotations } : {}) }, spec: { containers: [{ name: "c", image: "busybox" }], ...spec } };
}

describe("determineEffectiveSecurityContext", () => {
  it("takes the pod's user, group, runAsNonRoot and SELinux options; the container's win field by field", () => {
    const pod = podWith({ securityContext: { runAsUser: 1, runAsGroup: 2, runAsNonRoot: true, seLinuxOptions: { level: "s0" }, fsGroup: 9 } });
    const c: Container = { name: "c", securityContext: { runAsUser: 5, privileged: false, capabilities: { drop: ["ALL"] } } };
    expect(determineEffectiveSecurityContext(pod, c)).toEqual({ runAsUser: 5, runAsGroup: 2, runAsNonRoot: true, seLinuxOptions: { level: "s0" }, privileged: false, capabilities: { drop: ["ALL"] } });
  });

  it("is empty when neither level sets anything", () => {
    expect(determineEffectiveSecurityContext(podWith({}), { name: "c" })).toEqual({});
  });
});

describe("verifyRunAsNonRoot (1.23 messages)", () => {
  const nonRoot = podWith({ securityContext: { runAsNonRoot: true } });
  const c: Container = { name: "c" };
  it.each([
    ["image root by uid", { uid: 0, username: "" }, 'container has runAsNonRoot and image will run as root (pod: "p_default(u1)", container: c)'],
    ["image without a user", { username: "" }, 'container has runAsNonRoot and image will run as root (pod: "p_default(u1)", container: c)'],
    ["non-numeric image user", { username: "app" }, 'container has runAsNonRoot and image has non-numeric user (app), cannot verify user is non-root (pod: "p_default(u1)", container: c)'],
    ["numeric non-root image user", { uid: 1000, username: "" }, undefined],
  ])("%s", (_name, image, want) => {
    expect(verifyRunAsNonRoot(nonRoot, c, image)).toBe(want);
  });

  it("runAsUser 0 breaks the policy; another runAsUser passes whatever the image", () => {
    expect(verifyRunAsNonRoot(nonRoot, { name: "c", securityContext: { runAsUser: 0 } }, { uid: 1000, username: "" })).toBe(`container's runAsUser breaks non-root policy (pod: "p_default(u1)", container: c)`);
    expect(verifyRunAsNonRoot(nonRoot, { name: "c", securityContext: { runAsUser: 7 } }, { uid: 0, username: "" })).toBeUndefined();
  });

  it("does nothing without runAsNonRoot or with runAsNonRoot false (container overrides pod)", () => {
    expect(verifyRunAsNonRoot(podWith({}), c, { uid: 0, username: "" })).toBeUndefined();
    expect(verifyRunAsNonRoot(nonRoot, { name: "c", securityContext: { runAsNonRoot: false } }, { uid: 0, username: "" })).toBeUndefined();
  });
});

describe("imageUserOf", () => {
  it("uid, else username, else root", () => {
    expect(imageUserOf({ image: { id: "x", repoTags: [], repoDigests: [], size: "1", uid: { value: "1000" }, username: "", spec: null, pinned: false }, info: {} } as never)).toEqual({ uid: 1000, username: "" });
    expect(imageUserOf({ image: { id: "x", uid: null, username: "app" }, info: {} } as never)).toEqual({ username: "app" });
    expect(imageUserOf({ image: { id: "x", uid: null, username: "" }, info: {} } as never)).toEqual({ uid: 0, username: "" });
    expect(imageUserOf({ image: null, info: {} } as never)).toEqual({ uid: 0, username: "" });
  });
});

describe("namespacesForPod", () => {
  it.each([
    [{}, { network: "POD", pid: "CONTAINER", ipc: "POD" }],
    [{ hostNetwork: true, hostPID: true, hostIPC: true }, { network: "NODE", pid: "NODE", ipc: "NODE" }],
    [{ shareProcessNamespace: true }, { network: "POD", pid: "POD", ipc: "POD" }],
  ])("%j", (spec, want) => {
    expect(namespacesForPod(podWith(spec))).toEqual(want);
  });
});

describe("seccomp", () => {
  it("container field, container annotation, pod field, pod annotation, --seccomp-default, in that order", () => {
    const annotated = (a: Record<string, string>, spec: Partial<NonNullable<Pod["spec"]>> = {}) => podWith(spec, a);
    const podField = { securityContext: { seccompProfile: { type: "Localhost" as const, localhostProfile: "prof.json" } } };
    expect(seccompProfilePathOf(podWith(podField), "c", { seccompProfile: { type: "RuntimeDefault" } }, opts)).toBe("runtime/default");
    expect(seccompProfilePathOf(annotated({ "container.seccomp.security.alpha.kubernetes.io/c": "unconfined" }, podField), "c", undefined, opts)).toBe("unconfined");
    expect(seccompProfilePathOf(podWith(podField), "c", undefined, opts)).toBe("localhost//var/lib/nodeagent/seccomp/prof.json");
    expect(seccompProfilePathOf(annotated({ "seccomp.security.alpha.kubernetes.io/pod": "localhost/a/b.json" }), "c", undefined, opts)).toBe("localhost//var/lib/nodeagent/seccomp/a/b.json");
    expect(seccompProfilePathOf(podWith({}), "c", undefined, opts)).toBe("");
    expect(seccompProfilePathOf(podWith({}), "c", undefined, { ...opts, seccompDefault: true })).toBe("runtime/default");
    expect(seccompProfilePathOf(podWith({}), "c", { seccompProfile: { type: "Unconfined" } }, { ...opts, seccompDefault: true })).toBe("unconfined");
  });

  it("maps the profile name onto the CRI SecurityProfile", () => {
    expect(seccompProfileOf("runtime/default")).toEqual({ profileType: "RuntimeDefault" });
    expect(seccompProfileOf("localhost//r/p.json")).toEqual({ profileType: "Localhost", localhostRef: "/r/p.json" });
    expect(seccompProfileOf("unconfined")).toEqual({ profileType: "Unconfined" });
    expect(seccompProfileOf("")).toEqual({ profileType: "Unconfined" });
  });
});

describe("containerSecurityContext", () => {
  const pod = podWith({ securityContext: { runAsUser: 1000, runAsGroup: 2000, supplementalGroups: [3000], fsGroup: 4000, seccompProfile: { type: "RuntimeDefault" } } });

  it("translates the pod and container fields as 1.23's kuberuntime", () => {
    const c: Container = { name: "c", securityContext: { capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] }, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true } };
    expect(containerSecurityContext(pod, c, { uid: 0, username: "" }, opts)).toEqual({
      privileged: false,
      readonlyRootfs: true,
      namespaceOptions: { network: "POD", pid: "CONTAINER", ipc: "POD" },
      capabilities: { addCapabilities: ["NET_BIND_SERVICE"], dropCapabilities: ["ALL"] },
      runAsUser: { value: 1000 },
      runAsGroup: { value: 2000 },
      seccompProfilePath: "runtime/default",
      seccomp: { profileType: "RuntimeDefault" },
      apparmorProfile: "",
      supplementalGroups: [4000, 3000],
      noNewPrivs: true,
      maskedPaths: [...defaultMaskedPaths],
      readonlyPaths: [...defaultReadonlyPaths],
    });
  });

  it("takes the image's uid or username when runAsUser is unset", () => {
    expect(containerSecurityContext(podWith({}), { name: "c" }, { uid: 33, username: "" }, opts)).toMatchObject({ runAsUser: { value: 33 }, runAsUsername: "" });
    const named = containerSecurityContext(podWith({}), { name: "c" }, { username: "www" }, opts);
    expect(named.runAsUser).toBeUndefined();
    expect(named.runAsUsername).toBe("www");
  });

  it("noNewPrivs only for an explicit allowPrivilegeEscalation false", () => {
    expect(containerSecurityContext(podWith({}), { name: "c" }, undefined, opts).noNewPrivs).toBe(false);
    expect(containerSecurityContext(podWith({}), { name: "c", securityContext: { allowPrivilegeEscalation: true } }, undefined, opts).noNewPrivs).toBe(false);
  });

  it("procMount Unmasked empties the masked and read-only paths only with gate ProcMountType", () => {
    const c: Container = { name: "c", securityContext: { procMount: "Unmasked" } };
    expect(containerSecurityContext(podWith({}), c, undefined, opts).maskedPaths).toEqual([...defaultMaskedPaths]);
    const on = containerSecurityContext(podWith({}), c, undefined, { ...opts, procMountType: true });
    expect(on.maskedPaths).toEqual([]);
    expect(on.readonlyPaths).toEqual([]);
  });

  it("passes SELinux options and the AppArmor annotation through", () => {
    const p = podWith({ securityContext: { seLinuxOptions: { type: "spc_t" } } }, { "container.apparmor.security.beta.kubernetes.io/c": "localhost/k8s-nginx" });
    const sc = containerSecurityContext(p, { name: "c" }, undefined, opts);
    expect(sc.selinuxOptions).toEqual({ user: "", role: "", type: "spc_t", level: "" });
    expect(sc.apparmorProfile).toBe("localhost/k8s-nginx");
  });
});

describe("sandboxSecurity", () => {
  it("carries the pod's user, groups, seccomp, sysctls, namespaces and privileged when any container is", () => {
    const pod = podWith({
      hostIPC: true,
      securityContext: { runAsUser: 1000, runAsGroup: 2000, supplementalGroups: [3000], fsGroup: 4000, sysctls: [{ name: "net.ipv4.ip_local_port_range", value: "1024 65000" }] },
      initContainers: [{ name: "i", securityContext: { privileged: true } }],
    });
    expect(sandboxSecurity(pod, { ...opts, seccompDefault: true })).toEqual({
      securityContext: {
        privileged: true,
        seccompProfilePath: "runtime/default",
        seccomp: { profileType: "RuntimeDefault" },
        namespaceOptions: { network: "POD", pid: "CONTAINER", ipc: "NODE" },
        runAsUser: { value: 1000 },
        runAsGroup: { value: 2000 },
        supplementalGroups: [4000, 3000],
      },
      sysctls: { "net.ipv4.ip_local_port_range": "1024 65000" },
    });
  });
});
