// Container lifecycle hooks (postStart, preStop) end to end, shared by the process-runtime and the
// containerd suites: the REAL apiserver, the node agent in API-server mode, real exec hooks through
// the runtime's ExecSync. Hooks and containers leave marks in a hostPath directory the test reads.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import type { Container, Pod } from "@skiff/api-types";
import { apiCall } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";
import type { ProcessNode } from "./process-node.js";

/** What {@link defineLifecycleHookTests} needs. */
export interface LifecycleSuiteOptions {
  readonly nodeName: string;
  /** The running node (started in the suite's `beforeAll` with {@link lifecycleNodeArgs}). */
  readonly node: () => ProcessNode | undefined;
  /** Image and pull policy of the containers (a busybox with `sh`). */
  readonly image: Pick<Container, "image" | "imagePullPolicy">;
}

/**
 * The agent flags of a lifecycle suite's node (fast status updates and syncs), after creating the
 * host directory its pods mount at `/host` (`<dir>/host`).
 */
export function lifecycleNodeArgs(dir: string): string[] {
  mkdirSync(join(dir, "host"));
  return ["--node-status-update-frequency=1s", "--sync-frequency=2s", "--runtime-request-timeout=1m"];
}

interface EventView {
  readonly reason?: string;
  readonly message?: string;
  readonly type?: string;
  readonly involvedObject?: { readonly name?: string };
}

/**
 * Defines the lifecycle hook tests: a postStart hook's effect seen by the container; a failing
 * postStart hook (1.23's FailedPostStartHook event and message, the container killed, the pod
 * Failed under restartPolicy Never, restarted under Always); a preStop hook running before the
 * container's SIGTERM on deletion; a failing preStop hook (FailedPreStopHook) and one that
 * outlives the grace period, neither of which keeps the pod from being deleted.
 */
export function defineLifecycleHookTests(suite: LifecycleSuiteOptions): void {
  const node = (): ProcessNode => {
    const n = suite.node();
    if (!n) throw new Error("node not started");
    return n;
  };
  const o = { ...suite, node, hostDir: () => join(node().dir, "host") };
  const api = () => o.node().api;
  const getPod = async (name: string): Promise<Pod | undefined> => {
    const r = await apiCall(api(), "GET", `/api/v1/namespaces/default/pods/${name}`);
    return r.status === 200 ? (r.json() as Pod) : undefined;
  };
  const create = async (name: string, spec: Partial<NonNullable<Pod["spec"]>> & { containers: Container[] }): Promise<Pod> => {
    const body = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name },
      spec: { nodeName: o.nodeName, terminationGracePeriodSeconds: 2, volumes: [{ name: "host", hostPath: { path: o.hostDir(), type: "Directory" } }], ...spec },
    };
    const r = await apiCall(api(), "POST", "/api/v1/namespaces/default/pods", body);
    if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.body}`);
    return r.json() as Pod;
  };
  const container = (c: Omit<Container, "name" | "image">): Container => ({ name: "main", ...o.image, volumeMounts: [{ name: "host", mountPath: "/host" }], ...c });
  const events = async (name: string): Promise<EventView[]> => {
    const r = await apiCall(api(), "GET", "/api/v1/namespaces/default/events");
    return ((r.json() as { items?: EventView[] }).items ?? []).filter((e) => e.involvedObject?.name === name);
  };
  const eventOf = (name: string, reason: string) => waitFor(`${name}: a ${reason} event`, async () => (await events(name)).find((e) => e.reason === reason), 60_000);
  const gone = (name: string, timeoutMs = 60_000) => waitFor(`${name} deleted`, async () => ((await getPod(name)) === undefined ? true : undefined), timeoutMs);
  const del = async (name: string, gracePeriodSeconds: number) => {
    const r = await apiCall(api(), "DELETE", `/api/v1/namespaces/default/pods/${name}`, { gracePeriodSeconds });
    expect(r.status).toBe(200);
  };
  const mark = (file: string) => join(o.hostDir(), file);
  const running = (name: string) => waitFor(`${name} Running`, async () => ((await getPod(name))?.status?.phase === "Running" ? true : undefined), 120_000);

  it("runs a postStart hook in the container, right after it starts; the container sees its effect", async () => {
    await create("post-ok", {
      containers: [
        container({
          command: ["sh", "-c", "while [ ! -f /host/post-ok ]; do sleep 0.1; done; echo \"saw $(cat /host/post-ok)\" > /host/post-ok-main; sleep 3600"],
          lifecycle: { postStart: { exec: { command: ["sh", "-c", "echo hook-ran > /host/post-ok"] } } },
        }),
      ],
    });
    await running("post-ok");
    await waitFor("the container's mark", async () => (existsSync(mark("post-ok-main")) ? true : undefined), 30_000);
    expect(readFileSync(mark("post-ok-main"), "utf8")).toBe("saw hook-ran\n");
    expect((await events("post-ok")).filter((e) => e.reason === "FailedPostStartHook")).toEqual([]);
    await del("post-ok", 1);
    await gone("post-ok");
  }, 180_000);

  it("real kubectl creates a pod with hooks under its default Strict field validation, and reads them back", async () => {
    const kubectl = (...args: string[]) => promisify(execFile)("kubectl", ["--kubeconfig", join(o.node().dir, "kubeconfig"), ...args], { timeout: 60_000 });
    const manifest = join(o.node().dir, "hooked.yaml");
    writeFileSync(
      manifest,
      `apiVersion: v1
kind: Pod
metadata: {name: hooked}
spec:
  nodeName: ${o.nodeName}
  terminationGracePeriodSeconds: 2
  containers:
  - name: main
    image: ${o.image.image ?? ""}
    imagePullPolicy: ${o.image.imagePullPolicy ?? "IfNotPresent"}
    command: ["sh", "-c", "while true; do sleep 0.2; done"]
    lifecycle:
      postStart: {exec: {command: ["true"]}}
      preStop: {httpGet: {port: 8080, path: /stop}}
`,
    );
    expect((await kubectl("create", "-f", manifest)).stdout).toBe("pod/hooked created\n");
    const { stdout } = await kubectl("get", "pod", "hooked", "-o", "jsonpath={.spec.containers[0].lifecycle}");
    expect(JSON.parse(stdout)).toEqual({ postStart: { exec: { command: ["true"] } }, preStop: { httpGet: { port: 8080, path: "/stop", scheme: "HTTP" } } });
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace("name: hooked", "name: bad-hook").replace("preStop: {httpGet", "preStop: {exec: {command: [x]}, httpGet"));
    const bad = await kubectl("create", "-f", manifest).then(
      () => "",
      (e: { stderr?: string }) => e.stderr ?? "",
    );
    expect(bad).toBe('The Pod "bad-hook" is invalid: spec.containers[0].lifecycle.preStop.httpGet: Forbidden: may not specify more than 1 handler type\n');
    await del("hooked", 0);
    await gone("hooked");
  }, 120_000);

  it("kills the container when its postStart hook fails: 1.23's events and message, the pod Failed under restartPolicy Never", async () => {
    const pod = await create("post-fail", {
      restartPolicy: "Never",
      containers: [container({ command: ["sh", "-c", "while true; do sleep 0.2; done"], lifecycle: { postStart: { exec: { command: ["sh", "-c", "echo oops; exit 3"] } } } })],
    });
    const failed = await eventOf("post-fail", "FailedPostStartHook");
    expect(failed.type).toBe("Warning");
    expect(failed.message).toBe(
      `Exec lifecycle hook ([sh -c echo oops; exit 3]) for Container "main" in Pod "post-fail_default(${pod.metadata?.uid ?? ""})" failed - error: command 'sh -c echo oops; exit 3' exited with 3: , message: "oops\\n"`,
    );
    const killing = await eventOf("post-fail", "Killing");
    expect(killing.message).toBe("FailedPostStartHook");
    const final = await waitFor("post-fail Failed", async () => {
      const p = await getPod("post-fail");
      return p?.status?.phase === "Failed" ? p : undefined;
    }, 60_000);
    expect(final.status?.containerStatuses?.[0]?.state?.terminated).toBeDefined();
    await del("post-fail", 0);
    await gone("post-fail");
  }, 180_000);

  it("restarts a container whose postStart hook fails under restartPolicy Always, waiting meanwhile", async () => {
    await create("post-retry", {
      containers: [container({ command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"], lifecycle: { postStart: { exec: { command: ["false"] } } } })],
    });
    const p = await waitFor("post-retry restarted", async () => {
      const s = (await getPod("post-retry"))?.status?.containerStatuses?.[0];
      return s && s.restartCount >= 1 && s.state?.waiting ? s : undefined;
    }, 90_000);
    expect(["PostStartHookError", "CrashLoopBackOff"]).toContain(p.state?.waiting?.reason);
    expect(p.lastState?.terminated).toBeDefined();
    await del("post-retry", 0);
    await gone("post-retry");
  }, 180_000);

  it("runs the preStop hook on deletion before the container gets SIGTERM, with a Killing event", async () => {
    await create("pre-order", {
      terminationGracePeriodSeconds: 20,
      containers: [
        container({
          command: ["sh", "-c", "trap 'echo term >> /host/pre-order; exit 0' TERM; while true; do sleep 0.2; done"],
          lifecycle: { preStop: { exec: { command: ["sh", "-c", "echo prestop >> /host/pre-order"] } } },
        }),
      ],
    });
    await running("pre-order");
    await del("pre-order", 20);
    await gone("pre-order");
    expect(readFileSync(mark("pre-order"), "utf8")).toBe("prestop\nterm\n");
    expect((await eventOf("pre-order", "Killing")).message).toBe("Stopping container main");
  }, 180_000);

  it("reports a failing preStop hook as FailedPreStopHook and still stops the container", async () => {
    await create("pre-fail", {
      containers: [container({ command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"], lifecycle: { preStop: { exec: { command: ["sh", "-c", "exit 7"] } } } })],
    });
    await running("pre-fail");
    await del("pre-fail", 5);
    const failed = await eventOf("pre-fail", "FailedPreStopHook");
    expect(failed.type).toBe("Warning");
    expect(failed.message).toMatch(/^Exec lifecycle hook \(\[sh -c exit 7\]\) for Container "main" in Pod "pre-fail_default\(.+\)" failed - error: command 'sh -c exit 7' exited with 7: , message: ""$/);
    await gone("pre-fail");
  }, 180_000);

  it("cuts a preStop hook short at the end of the grace period", async () => {
    await create("pre-slow", {
      containers: [container({ command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"], lifecycle: { preStop: { exec: { command: ["sleep", "120"] } } } })],
    });
    await running("pre-slow");
    const t0 = Date.now();
    await del("pre-slow", 3);
    // Bounded by the grace period (3 s) and the 2 s minimum after it, not by the hook's 120 s.
    await gone("pre-slow", 60_000);
    expect(Date.now() - t0).toBeLessThan(60_000);
  }, 180_000);
}
