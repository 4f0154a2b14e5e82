// Shared by the `kubectl debug` suites (containerd and the process runtime): ephemeral containers
// added through the REAL apiserver's pods/ephemeralcontainers, run by the node agent, seen through
// kubectl debug -i (attach, or logs once the container has ended), kubectl logs -c and kubectl exec.
import { expect, it } from "vitest";
import type { ContainerStatus, Pod } from "@skiff/api-types";
import { apiCall } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";
import { spawnKubectl, type StreamingCluster } from "./streaming-helpers.js";

/** The target pod: one container whose process is recognisable in `ps` (`sleep 3601`). */
export const debugTargetPod: Pod = {
  metadata: { name: "debuggee" },
  spec: {
    terminationGracePeriodSeconds: 1,
    containers: [{ name: "app", image: "busybox:1.36", imagePullPolicy: "IfNotPresent", command: ["sleep", "3601"] }],
  },
};

async function getPod(cluster: StreamingCluster): Promise<Pod> {
  return (await apiCall(cluster.api, "GET", "/api/v1/namespaces/default/pods/debuggee")).json() as Pod;
}

async function ephemeralStatus(cluster: StreamingCluster, name: string, done: (s: ContainerStatus) => boolean): Promise<ContainerStatus> {
  return waitFor(
    `ephemeral container ${name}`,
    async () => {
      const s = (await getPod(cluster)).status?.ephemeralContainerStatuses?.find((c) => c.name === name);
      return s && done(s) ? s : undefined;
    },
    90_000,
  );
}

export interface DebugAcceptanceContext {
  cluster(): StreamingCluster;
  /** Whether `--target` really shares the target's PID namespace on this runtime. */
  readonly targetSharesPIDNamespace: boolean;
}

/** The `kubectl debug` acceptance, on a cluster running {@link debugTargetPod}. */
export function defineDebugAcceptance(ctx: DebugAcceptanceContext): void {
  const debugArgs = ["--image=busybox:1.36", "--image-pull-policy=IfNotPresent"];

  it("kubectl debug runs an ephemeral container once: its output in kubectl logs -c, its status reported, never restarted, the pod still Running and Ready", async () => {
    const cluster = ctx.cluster();
    const r = await cluster.kubectl(["debug", "debuggee", ...debugArgs, "-c", "once", "--", "sh", "-c", "echo hi-from-once"]);
    expect(r.code, r.stderr).toBe(0);
    const s = await ephemeralStatus(cluster, "once", (c) => c.state?.terminated !== undefined);
    expect(s).toMatchObject({ name: "once", ready: false, restartCount: 0, image: "busybox:1.36", state: { terminated: { exitCode: 0, reason: "Completed" } } });
    const logs = await cluster.kubectl(["logs", "debuggee", "-c", "once"]);
    expect(logs.stdout).toBe("hi-from-once\n");
    // Not restarted: two more sync periods later it is the same terminated instance.
    await new Promise((res) => setTimeout(res, 5_000));
    const pod = await getPod(cluster);
    const again = pod.status?.ephemeralContainerStatuses?.find((c) => c.name === "once");
    expect(again?.containerID).toBe(s.containerID);
    expect(again?.restartCount).toBe(0);
    expect(pod.status?.phase).toBe("Running");
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    const describe = await cluster.kubectl(["describe", "pod", "debuggee"]);
    expect(describe.stdout).toMatch(/Ephemeral Containers:\n\s+once:\n\s+Container ID:/);
  }, 120_000);

  it("kubectl debug -i --target shows the command's output, and the debug container sees the target's processes", async () => {
    const cluster = ctx.cluster();
    const r = await cluster.kubectl(["debug", "-i", "debuggee", ...debugArgs, "--target=app", "-c", "targeted", "--", "sh", "-c", "echo hi-from-targeted; ps -o pid,args"], { timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("hi-from-targeted");
    const s = await ephemeralStatus(cluster, "targeted", (c) => c.state?.terminated !== undefined);
    const logs = await cluster.kubectl(["logs", "debuggee", "-c", "targeted"]);
    expect(s.state?.terminated?.exitCode, `${JSON.stringify(s)}\n${logs.stdout}`).toBe(0);
    expect(logs.stdout).toContain("hi-from-targeted");
    if (ctx.targetSharesPIDNamespace) {
      // The target's PID namespace, not the host's: its PID 1 is the target's command, and the
      // host's processes (this test's kubectl debug) are not there.
      expect(logs.stdout).toMatch(/^\s*1\s+sleep 3601\s*$/m);
      expect(logs.stdout).not.toMatch(/kubectl/);
    }
  }, 120_000);

  it("kubectl debug -i attaches to the running debug container: stdin reaches it, its output comes back (default name debugger-xxxxx)", async () => {
    const cluster = ctx.cluster();
    const k = spawnKubectl(cluster.kubeconfig, ["debug", "-i", "debuggee", ...debugArgs, "--", "sh", "-c", "read line; echo got:$line"]);
    let name = "";
    try {
      const out = await k.waitForOutput(/If you don't see a command prompt/, 60_000);
      name = /Defaulting debug container name to (debugger-[a-z0-9]+)\./.exec(out)?.[1] ?? "";
      k.proc.stdin?.write("hello\n");
      await k.waitForOutput(/got:hello/, 30_000);
      expect(k.output()).not.toContain("falling back to streaming logs");
    } finally {
      k.proc.kill("SIGKILL");
    }
    expect(name).toMatch(/^debugger-[a-z0-9]{5}$/);
    await ephemeralStatus(cluster, name, (c) => c.state?.terminated !== undefined);
    const logs = await cluster.kubectl(["logs", "debuggee", "-c", name]);
    expect(logs.stdout).toBe("got:hello\n");
  }, 120_000);

  it("kubectl exec reaches a running ephemeral container by name", async () => {
    const cluster = ctx.cluster();
    const r = await cluster.kubectl(["debug", "debuggee", ...debugArgs, "-c", "shell", "--", "sleep", "3600"]);
    expect(r.code, r.stderr).toBe(0);
    await ephemeralStatus(cluster, "shell", (c) => c.state?.running !== undefined);
    const e = await cluster.kubectl(["exec", "debuggee", "-c", "shell", "--", "echo", "exec-ok"]);
    expect(e.stdout).toBe("exec-ok\n");
  }, 120_000);
}
