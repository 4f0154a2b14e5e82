// Security contexts and sysctls on real containerd + runc (tools/containerd/setup.sh in a temporary
// directory, stopped afterwards): each pod runs busybox, prints what the kernel says of its process
// (/proc/self/status, /proc/sys) and the test checks it against the pod spec. With CI=true it must
// run; elsewhere it is skipped (with the reason) when setup fails, e.g. without root.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { afterAll, describe, expect, it } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { findPod, readAll, waitFor } from "./pods-helpers.js";

const nodeName = "node-s";
const image = "busybox:1.36";
const setup = setUpContainerd({ prefix: "skiff-sec-", suite: "containerd security suite" });

let pods: PodRuntime | undefined;
let pods2: PodRuntime | undefined;
const events: Array<{ pod: string; type: string; reason: string; message: string }> = [];
afterAll(async () => {
  await pods?.stop();
  await pods2?.stop();
  tearDownContainerd(setup);
});

const report = "grep -E '^(Uid|Gid|Groups|CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status";

function manifest(name: string, spec: Record<string, unknown>, container: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { restartPolicy: "Never", terminationGracePeriodSeconds: 1, ...spec, containers: [{ name: "main", image, imagePullPolicy: "IfNotPresent", ...container }] },
  });
}

/** `Key:\tvalue` lines of /proc/self/status (and our own `KEY=value` lines) → map, whitespace collapsed. */
function fields(log: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of log.split("\n")) {
    const m = /^([A-Za-z0-9]+)[:=]\s*(.*)$/.exec(line);
    if (m) out.set(m[1] ?? "", (m[2] ?? "").trim().replace(/\s+/g, " "));
  }
  return out;
}

async function finished(prefix: string): Promise<Pod> {
  return waitFor(`${prefix} finished`, () => {
    const p = findPod(pods?.listPods() ?? [], prefix);
    return p?.status?.phase === "Succeeded" || p?.status?.phase === "Failed" ? p : undefined;
  }, 90_000);
}

async function logOf(prefix: string): Promise<Map<string, string>> {
  const pod = await finished(prefix);
  expect(pod.status?.phase, JSON.stringify(pod.status)).toBe("Succeeded");
  return fields(await readAll(await pods!.containerLogs("default", `${prefix}-${nodeName}`, "main", {})));
}

describe.skipIf(setup.endpoint === undefined)("security contexts on containerd", () => {
  const endpoint = setup.endpoint ?? "";
  const manifests = join(setup.dir, "manifests");
  const rootDir = join(setup.dir, "agent");

  it("refuses an --allowed-unsafe-sysctls entry that is not namespaced, in 1.23's words", () => {
    expect(() => createPodRuntime({ nodeName, rootDir, containerRuntimeEndpoint: endpoint, allowedUnsafeSysctls: ["vm.swappiness"] })).toThrow(
      'failed to create nodeagent: the sysctl "vm.swappiness" are not known to be namespaced',
    );
  });

  it("starts the pods", async () => {
    mkdirSync(manifests, { recursive: true });
    mkdirSync(join(rootDir, "seccomp", "profiles"), { recursive: true });
    writeFileSync(join(rootDir, "seccomp", "profiles", "allow.json"), JSON.stringify({ defaultAction: "SCMP_ACT_ALLOW" }));
    writeFileSync(
      join(manifests, "ids.json"),
      manifest(
        "ids",
        { securityContext: { runAsUser: 1000, runAsGroup: 2000, supplementalGroups: [3000], fsGroup: 4000, seccompProfile: { type: "RuntimeDefault" } }, volumes: [{ name: "data", emptyDir: {} }] },
        {
          command: ["sh", "-c", `${report}; if touch /root-write 2>/dev/null; then echo ROOTWRITE=ok; else echo ROOTWRITE=refused; fi; stat -c 'DATA=%g %a' /data; touch /data/f; stat -c 'FILE=%g' /data/f`],
          volumeMounts: [{ name: "data", mountPath: "/data" }],
          securityContext: { capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] }, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
        },
      ),
    );
    writeFileSync(join(manifests, "caps.json"), manifest("caps", {}, { command: ["sh", "-c", report], securityContext: { capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] } } }));
    writeFileSync(join(manifests, "shared.json"), manifest("shared", { shareProcessNamespace: true }, { command: ["sh", "-c", "echo PID1=$(head -n 1 /proc/1/status); echo SELF=$(head -n 1 /proc/self/status)"] }));
    writeFileSync(join(manifests, "plain.json"), manifest("plain", {}, { command: ["sh", "-c", `${report}; touch /root-write && echo ROOTWRITE=ok`] }));
    writeFileSync(
      join(manifests, "localhost.json"),
      manifest("localhost", {}, { command: ["sh", "-c", report], securityContext: { seccompProfile: { type: "Localhost", localhostProfile: "profiles/allow.json" } } }),
    );
    writeFileSync(join(manifests, "nonroot.json"), manifest("nonroot", { securityContext: { runAsNonRoot: true } }, { command: ["true"] }));
    writeFileSync(
      join(manifests, "sysctl-safe.json"),
      manifest("sysctl-safe", { securityContext: { sysctls: [{ name: "net.ipv4.ip_local_port_range", value: "1100 60000" }] } }, { command: ["sh", "-c", "echo RANGE=$(cat /proc/sys/net/ipv4/ip_local_port_range)"] }),
    );
    writeFileSync(
      join(manifests, "sysctl-allowed.json"),
      manifest("sysctl-allowed", { securityContext: { sysctls: [{ name: "kernel.msgmax", value: "12345" }] } }, { command: ["sh", "-c", "echo MSGMAX=$(cat /proc/sys/kernel/msgmax)"] }),
    );
    writeFileSync(join(manifests, "sysctl-unsafe.json"), manifest("sysctl-unsafe", { securityContext: { sysctls: [{ name: "net.core.somaxconn", value: "1000" }] } }, { command: ["true"] }));
    // spec.os: a windows pod is refused before any runtime call; a linux pod runs, and a pod
    // without os runs with its Windows options ignored (as a Linux kubelet ignores them).
    writeFileSync(join(manifests, "os-windows.json"), manifest("os-windows", { os: { name: "windows" } }, { command: ["true"], securityContext: { windowsOptions: { runAsUserName: "ContainerUser" } } }));
    writeFileSync(join(manifests, "os-linux.json"), manifest("os-linux", { os: { name: "linux" } }, { command: ["sh", "-c", "echo OS=$(uname -s)"] }));
    writeFileSync(
      join(manifests, "windows-options.json"),
      manifest("windows-options", { securityContext: { windowsOptions: { runAsUserName: "ContainerUser" } } }, { command: ["sh", "-c", report] }),
    );
    writeFileSync(
      join(manifests, "apparmor.json"),
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "apparmor", annotations: { "container.apparmor.security.beta.kubernetes.io/main": "runtime/default" } },
        spec: { restartPolicy: "Never", containers: [{ name: "main", image, command: ["true"] }] },
      }),
    );
    pods = createPodRuntime({
      nodeName,
      rootDir,
      podLogsDir: join(setup.dir, "pod-logs"),
      containerRuntimeEndpoint: endpoint,
      runtimeRequestTimeoutMs: 60_000,
      staticPodPath: manifests,
      fileCheckFrequencyMs: 500,
      syncFrequencyMs: 5_000,
      relistPeriodMs: 300,
      runtimeCheckPeriodMs: 1_000,
      allowedUnsafeSysctls: ["kernel.msg*"],
      hostAppArmorEnabled: () => false,
      onEvent: (pod, type, reason, message) => events.push({ pod: pod.metadata?.name ?? "", type, reason, message }),
    });
    await pods.start();
    await waitFor("thirteen pods", () => (pods?.listPods().length === 13 ? true : undefined));
  });

  it("runs the process with the pod's user, groups, capabilities, no_new_privs, seccomp, a read-only root and an fsGroup-owned emptyDir", async () => {
    const f = await logOf("ids");
    expect(f.get("Uid")).toBe("1000 1000 1000 1000");
    expect(f.get("Gid")).toBe("2000 2000 2000 2000");
    // containerd lists the primary group among the supplementary ones too (as under the kubelet).
    expect(f.get("Groups")).toBe("2000 3000 4000");
    // A non-root process keeps only the bounding set (no ambient capabilities in 1.23).
    expect(f.get("CapBnd")).toBe("0000000000000400");
    expect(f.get("CapEff")).toBe("0000000000000000");
    expect(f.get("NoNewPrivs")).toBe("1");
    expect(f.get("Seccomp")).toBe("2");
    expect(f.get("ROOTWRITE")).toBe("refused");
    expect(f.get("DATA")).toBe("4000 2777");
    expect(f.get("FILE")).toBe("4000");
  });

  it("gives a root process exactly the capabilities asked for (drop ALL, add NET_BIND_SERVICE)", async () => {
    const f = await logOf("caps");
    expect(f.get("CapEff")).toBe("0000000000000400");
    expect(f.get("CapBnd")).toBe("0000000000000400");
  });

  it("shares the sandbox's process namespace with shareProcessNamespace (PID 1 is the sandbox's)", async () => {
    const f = await logOf("shared");
    expect(f.get("PID1")).toMatch(/^Name: \S+$/);
    // Without sharing, PID 1 would be this container's own shell.
    expect(f.get("PID1")).not.toBe("Name: sh");
  });

  it("leaves a container without a security context as the runtime's default (root, unconfined, writable)", async () => {
    const f = await logOf("plain");
    expect(f.get("Uid")).toBe("0 0 0 0");
    expect(f.get("NoNewPrivs")).toBe("0");
    expect(f.get("Seccomp")).toBe("0");
    expect(f.get("CapEff")).not.toBe("0000000000000000");
    expect(f.get("ROOTWRITE")).toBe("ok");
  });

  it("loads a Localhost seccomp profile from <root-dir>/seccomp", async () => {
    expect((await logOf("localhost")).get("Seccomp")).toBe("2");
  });

  it("refuses runAsNonRoot with the root busybox image: CreateContainerConfigError with 1.23's message", async () => {
    const pod = await waitFor("nonroot config error", () => {
      const p = findPod(pods?.listPods() ?? [], "nonroot");
      return p?.status?.containerStatuses?.[0]?.state?.waiting?.reason === "CreateContainerConfigError" ? p : undefined;
    }, 60_000);
    expect(pod.status?.phase).toBe("Pending");
    expect(pod.status?.containerStatuses?.[0]?.state?.waiting?.message).toBe(
      `container has runAsNonRoot and image will run as root (pod: "nonroot-${nodeName}_default(${pod.metadata?.uid ?? ""})", container: main)`,
    );
  });

  it("applies a safe sysctl and an allowed unsafe one inside the pod", async () => {
    expect((await logOf("sysctl-safe")).get("RANGE")).toBe("1100 60000");
    expect((await logOf("sysctl-allowed")).get("MSGMAX")).toBe("12345");
  });

  it("refuses a pod for another OS (spec.os windows): Failed, PodOSNotSupported, no container; a linux pod runs; Windows options are ignored", async () => {
    const pod = await finished("os-windows");
    expect(pod.status).toMatchObject({ phase: "Failed", reason: "PodOSNotSupported", message: "Pod Failed to admit pod as the OS field doesn't match node OS" });
    expect(events).toContainEqual({ pod: `os-windows-${nodeName}`, type: "Warning", reason: "PodOSNotSupported", message: "Failed to admit pod as the OS field doesn't match node OS" });
    expect(pod.status?.containerStatuses ?? []).toEqual([]);
    expect((await logOf("os-linux")).get("OS")).toBe("Linux");
    expect((await logOf("windows-options")).get("Uid")).toBe("0 0 0 0");
  });

  it("rejects a pod with a sysctl that is not allowed: Failed, SysctlForbidden", async () => {
    const pod = await finished("sysctl-unsafe");
    expect(pod.status).toMatchObject({ phase: "Failed", reason: "SysctlForbidden", message: 'Pod forbidden sysctl: "net.core.somaxconn" not whitelisted' });
    expect(events).toContainEqual({ pod: `sysctl-unsafe-${nodeName}`, type: "Warning", reason: "SysctlForbidden", message: 'forbidden sysctl: "net.core.somaxconn" not whitelisted' });
  });

  it("blocks a pod asking for AppArmor on a host without it", async () => {
    const pod = await waitFor("apparmor blocked", () => {
      const p = findPod(pods?.listPods() ?? [], "apparmor");
      return p?.status?.reason === "AppArmor" ? p : undefined;
    });
    expect(pod.status).toMatchObject({ phase: "Pending", message: "Cannot enforce AppArmor: AppArmor is not enabled on the host" });
    expect(pod.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe("Blocked");
  });
});

describe.skipIf(setup.endpoint === undefined)("--seccomp-default on containerd", () => {
  it("gives a container without a seccomp profile RuntimeDefault", async () => {
    await pods?.stop();
    pods = undefined;
    const dir = join(setup.dir, "manifests2");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "dflt.json"), manifest("dflt", {}, { command: ["sh", "-c", report] }));
    pods2 = createPodRuntime({
      nodeName,
      rootDir: join(setup.dir, "agent2"),
      podLogsDir: join(setup.dir, "pod-logs2"),
      containerRuntimeEndpoint: setup.endpoint ?? "",
      runtimeRequestTimeoutMs: 60_000,
      staticPodPath: dir,
      fileCheckFrequencyMs: 500,
      relistPeriodMs: 300,
      runtimeCheckPeriodMs: 1_000,
      seccompDefault: true,
    });
    await pods2.start();
    const pod = await waitFor("dflt finished", () => {
      const p = findPod(pods2?.listPods() ?? [], "dflt");
      return p?.status?.phase === "Succeeded" || p?.status?.phase === "Failed" ? p : undefined;
    }, 90_000);
    expect(pod.status?.phase).toBe("Succeeded");
    const f = fields(await readAll(await pods2.containerLogs("default", `dflt-${nodeName}`, "main", {})));
    expect(f.get("Seccomp")).toBe("2");
  });
});
