// ConfigMaps and Secrets consumed by pods, end to end: the REAL apiserver process, the node agent
// in-process (API-server mode, Watch strategy, --sync-frequency=2s) on the project's process CRI
// server, real kubectl to create the objects and read logs. The process runtime does not apply
// mounts, so volume contents are checked in the agent's volume directories (containerd suite:
// configmap-secret-containerd.integration.test.ts reads them from inside the container).
import { startAPIModeAgent, textSink } from "./api-mode-agent.js";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Event, Node, Pod } from "@skiff/api-types";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { runNodeAgent } from "../src/app.js";
import { freePort } from "./cli-helpers.js";
import { apiCall, startAPIServer, writeAdminKubeconfig, type APIServerProcess } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";

const run = promisify(execFile);
const nodeName = "node-cm";

// A config file setting the strategy, with the flag defaults for serving (so kubectl logs works).
const configText = (strategy: string) =>
  `apiVersion: nodeagent.config.example.io/v1beta1\nkind: NodeAgentConfiguration\nconfigMapAndSecretChangeDetectionStrategy: ${strategy}\nauthentication:\n  anonymous: {enabled: true}\n  webhook: {enabled: false}\nauthorization: {mode: AlwaysAllow}\n`;


// Each change-detection strategy (configMapAndSecretChangeDetectionStrategy, set in the config file).
describe.each(["Watch", "Get", "Cache"])("ConfigMaps and Secrets in pods (API-server mode, process runtime, %s strategy)", (strategy) => {
  let dir: string;
  let rootDir: string;
  let api: APIServerProcess;
  let kubeconfig: string;
  let cri: ProcessRuntime;
  const stop = new AbortController();
  let agentDone: Promise<number>;
  const agentOut = textSink();
  const agentErr = textSink();

  const kubectl = async (...args: string[]) => run("kubectl", ["--kubeconfig", kubeconfig, ...args], { timeout: 60_000 });
  const getPod = async (name: string): Promise<Pod | undefined> => {
    const r = await apiCall(api, "GET", `/api/v1/namespaces/default/pods/${name}`);
    return r.status === 200 ? (r.json() as Pod) : undefined;
  };
  const createPod = async (name: string, spec: Omit<NonNullable<Pod["spec"]>, "nodeName">) => {
    const r = await apiCall(api, "POST", "/api/v1/namespaces/default/pods", { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default" }, spec: { nodeName, terminationGracePeriodSeconds: 1, ...spec } });
    expect(r.status, r.body).toBe(201);
  };
  const phase = (name: string, want: string) => waitFor(`${name} ${want}`, async () => ((await getPod(name))?.status?.phase === want ? ((await getPod(name)) as Pod) : undefined), 90_000);
  const events = async (name: string): Promise<Event[]> => ((await apiCall(api, "GET", `/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=${name}`)).json() as { items: Event[] }).items;
  // The watch cache answers `configmap "x" not found`; a GET (Get, Cache) the apiserver's `configmaps "x" not found`.
  const notFound = (name: string) => (strategy === "Watch" ? `configmap "${name}" not found` : `configmaps "${name}" not found`);
  const volumeDir = (pod: Pod, plugin: string, volume: string) => join(rootDir, "pods", pod.metadata?.uid ?? "", "volumes", plugin, volume);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-cms-"));
    rootDir = join(dir, "root");
    api = await startAPIServer(dir);
    kubeconfig = await writeAdminKubeconfig(api);
    cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state") });
    const configFile = join(dir, "config.yaml");
    writeFileSync(configFile, configText(strategy));
    agentDone = (
      await startAPIModeAgent({
        kubeconfig,
        nodeName,
        rootDir: rootDir,
        certDir: join(dir, "agent-pki"),
        endpoint: cri.endpoint,
        args: [
          "--node-status-update-frequency=1s",
          "--sync-frequency=2s",
          `--config=${configFile}`,
          // The finished pods' volume files are read below: keep them until the pods are deleted.
          "--keep-terminated-pod-volumes",
          "-v=4",
        ],
        stdout: agentOut, stderr: agentErr,
        stopSignal: stop.signal,
      })
    ).done;
    await kubectl("create", "configmap", "app-config", "--from-literal=LEVEL=debug", "--from-literal=app.properties=color=blue", "--from-literal=1st=x");
    await kubectl("create", "secret", "generic", "db", "--from-literal=DB_USER=bob", "--from-literal=DB_PASSWORD=s3cr3t-value");
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await agentDone?.catch(() => 1);
    await cri?.stop();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("runs a pod with env from a ConfigMap key, envFrom a Secret, and configMap and secret volumes", async () => {
    await createPod("consumer", {
      restartPolicy: "Never",
      volumes: [
        { name: "cfg", configMap: { name: "app-config", items: [{ key: "app.properties", path: "conf/app.properties" }] } },
        { name: "creds", secret: { secretName: "db", defaultMode: 0o400 } },
      ],
      containers: [
        {
          name: "main",
          image: "busybox",
          command: ["sh", "-c", 'echo "level=$LEVEL user=$DB_USER password=$DB_PASSWORD"; echo "cpu=$CPU_LIMIT mem=$MEM_LIMIT"'],
          env: [
            { name: "LEVEL", valueFrom: { configMapKeyRef: { name: "app-config", key: "LEVEL" } } },
            // No limits: the node's allocatable, as 1.23 defaults them for the downward API.
            { name: "CPU_LIMIT", valueFrom: { resourceFieldRef: { resource: "limits.cpu", divisor: "1m" } } },
            { name: "MEM_LIMIT", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Ki" } } },
          ],
          envFrom: [{ secretRef: { name: "db" } }],
          volumeMounts: [
            { name: "cfg", mountPath: "/etc/config" },
            { name: "creds", mountPath: "/etc/creds" },
          ],
        },
      ],
    });
    const done = await phase("consumer", "Succeeded");
    const { stdout } = await kubectl("logs", "consumer");
    const node = (await apiCall(api, "GET", `/api/v1/nodes/${nodeName}`)).json() as Node;
    const cpu = String(node.status?.allocatable?.["cpu"] ?? "");
    const cpuMilli = /^(\d+)m$/.exec(cpu)?.[1] ?? String(Number(cpu) * 1000);
    const memKi = /^(\d+)Ki$/.exec(String(node.status?.allocatable?.["memory"] ?? ""))?.[1];
    expect(stdout).toBe(`level=debug user=bob password=s3cr3t-value\ncpu=${cpuMilli} mem=${memKi}\n`);
    const cfg = volumeDir(done, "kubernetes.io~configmap", "cfg");
    const creds = volumeDir(done, "kubernetes.io~secret", "creds");
    // Volumes are torn down once the pod is removed; with --keep-terminated-pod-volumes a finished pod keeps them.
    expect(readFileSync(join(cfg, "conf", "app.properties"), "utf8")).toBe("color=blue");
    expect(readlinkSync(join(cfg, "conf"))).toBe("..data/conf");
    expect(readFileSync(join(creds, "DB_PASSWORD"), "utf8")).toBe("s3cr3t-value");
    expect(statSync(join(creds, "DB_PASSWORD")).mode & 0o777).toBe(0o400);
    // Secret data never reaches the agent's log.
    expect(agentOut.text() + agentErr.text()).not.toContain("s3cr3t-value");
  }, 120_000);

  it("skips ConfigMap keys that are not env names with an InvalidEnvironmentVariableNames event", async () => {
    await createPod("envfrom-cm", { restartPolicy: "Never", containers: [{ name: "main", image: "busybox", command: ["sh", "-c", 'echo "LEVEL=$LEVEL"'], envFrom: [{ configMapRef: { name: "app-config" } }] }] });
    await phase("envfrom-cm", "Succeeded");
    expect((await kubectl("logs", "envfrom-cm")).stdout).toBe("LEVEL=debug\n");
    const ev = await waitFor("InvalidEnvironmentVariableNames", async () => (await events("envfrom-cm")).find((e) => e.reason === "InvalidEnvironmentVariableNames"));
    expect(ev.type).toBe("Warning");
    expect(ev.message).toBe("Keys [1st] from the EnvFrom configMap default/app-config were skipped since they are considered invalid environment variable names.");
  }, 120_000);

  it("a pod referencing a missing ConfigMap waits in CreateContainerConfigError and starts once it is created", async () => {
    await createPod("waits", { restartPolicy: "Never", containers: [{ name: "main", image: "busybox", command: ["sh", "-c", 'echo "mode=$MODE"'], env: [{ name: "MODE", valueFrom: { configMapKeyRef: { name: "later", key: "mode" } } }] }] });
    const waiting = await waitFor("CreateContainerConfigError", async () => {
      const w = (await getPod("waits"))?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === "CreateContainerConfigError" ? w : undefined;
    }, 60_000);
    expect(waiting.message).toBe(notFound("later"));
    expect((await getPod("waits"))?.status?.phase).toBe("Pending");
    const failed = await waitFor("Failed event", async () => (await events("waits")).find((e) => e.reason === "Failed"));
    expect(failed.message).toBe(`Error: ${notFound("later")}`);
    // A ConfigMap without the key: the message changes to the missing key.
    await kubectl("create", "configmap", "later", "--from-literal=other=x");
    const noKey = await waitFor("missing key", async () => {
      const w = (await getPod("waits"))?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.message?.startsWith("couldn't find key") ? w : undefined;
    }, 60_000);
    expect(noKey).toEqual({ reason: "CreateContainerConfigError", message: "couldn't find key mode in ConfigMap default/later" });
    await kubectl("patch", "configmap", "later", "--type=merge", "-p", '{"data":{"mode":"fast"}}');
    await phase("waits", "Succeeded");
    expect((await kubectl("logs", "waits")).stdout).toBe("mode=fast\n");
  }, 150_000);

  it("a missing ConfigMap volume leaves the pod ContainerCreating with FailedMount until it exists", async () => {
    await createPod("vol-waits", { restartPolicy: "Never", volumes: [{ name: "cfg", configMap: { name: "vol-later" } }], containers: [{ name: "main", image: "busybox", command: ["true"], volumeMounts: [{ name: "cfg", mountPath: "/cfg" }] }] });
    const ev = await waitFor("FailedMount", async () => (await events("vol-waits")).find((e) => e.reason === "FailedMount"), 60_000);
    expect(ev.message).toBe(`MountVolume.SetUp failed for volume "cfg" : ${notFound("vol-later")}`);
    const w = await waitFor("waiting status", async () => (await getPod("vol-waits"))?.status?.containerStatuses?.[0]?.state?.waiting);
    expect(w.reason).toBe("ContainerCreating");
    expect((await getPod("vol-waits"))?.status?.phase).toBe("Pending");
    await kubectl("create", "configmap", "vol-later", "--from-literal=k=v");
    const done = await phase("vol-waits", "Succeeded");
    expect(readFileSync(join(volumeDir(done, "kubernetes.io~configmap", "cfg"), "k"), "utf8")).toBe("v");
  }, 150_000);

  it("an update of a mounted ConfigMap reaches the volume: ..data switches to a new directory", async () => {
    await kubectl("create", "configmap", "live", "--from-literal=greeting=hello", "--from-literal=gone=soon");
    await createPod("live-reader", { volumes: [{ name: "cfg", configMap: { name: "live" } }], containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"], volumeMounts: [{ name: "cfg", mountPath: "/cfg" }] }] });
    const running = await phase("live-reader", "Running");
    const cfg = volumeDir(running, "kubernetes.io~configmap", "cfg");
    const before = readlinkSync(join(cfg, "..data"));
    expect(readFileSync(join(cfg, "greeting"), "utf8")).toBe("hello");
    const { stdout: yaml } = await kubectl("create", "configmap", "live", "--from-literal=greeting=bonjour", "--dry-run=client", "-o", "yaml");
    writeFileSync(join(dir, "live.yaml"), yaml);
    await kubectl("replace", "-f", join(dir, "live.yaml"));
    // Watch and Get: at the next sync (2 s); Cache: once the cached copy is older than the TTL (1 min) or the pod is updated.
    await waitFor("new content", () => (readFileSync(join(cfg, "greeting"), "utf8") === "bonjour" ? true : undefined), 90_000);
    expect(readlinkSync(join(cfg, "..data"))).not.toBe(before);
    // The previous timestamped directory goes right after the swap.
    await waitFor("old directory removed", () => (existsSync(join(cfg, before)) ? undefined : true), 10_000);
    expect(existsSync(join(cfg, "gone"))).toBe(false);
  }, 150_000);
});

describe("configMapAndSecretChangeDetectionStrategy", () => {
  it("refuses an unknown strategy at start-up with 1.23's message", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skiff-cms-bad-"));
    try {
      const configFile = join(dir, "config.yaml");
      writeFileSync(configFile, configText("Sometimes"));
      const err = textSink();
      const code = await runNodeAgent([`--config=${configFile}`, `--root-dir=${join(dir, "root")}`, `--port=${await freePort()}`, "--healthz-port=0", `--container-runtime-endpoint=unix://${join(dir, "none.sock")}`], { stdout: textSink(), stderr: err });
      expect(code).toBe(1);
      expect(err.text()).toContain("failed to run Nodeagent: unknown configmap and secret manager mode: Sometimes");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
