// ConfigMaps and Secrets on real containerd + runc (bind mounts applied for real): the REAL
// apiserver, the node agent in-process in API-server mode (--sync-frequency=2s). A pod prints env
// from a ConfigMap key, envFrom a Secret, and the files of a configMap and a secret volume; a
// running pod sees an update of its mounted ConfigMap through a new `..data` target. With CI=true it
// must run; elsewhere it is skipped (with the reason) when containerd cannot be set up.
import { startAPIModeAgent, textSink } from "./api-mode-agent.js";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { apiCall, startAPIServer, writeAdminKubeconfig, type APIServerProcess } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";

const run = promisify(execFile);
const nodeName = "node-cmc";
const setup = setUpContainerd({ prefix: "skiff-cmc-", suite: "containerd ConfigMap/Secret suite" });


describe.skipIf(setup.endpoint === undefined)("ConfigMaps and Secrets on containerd", () => {
  let api: APIServerProcess;
  let kubeconfig: string;
  const stop = new AbortController();
  let agentDone: Promise<number> | undefined;
  const agentOut = textSink();
  const agentErr = textSink();

  const kubectl = async (...args: string[]) => run("kubectl", ["--kubeconfig", kubeconfig, ...args], { timeout: 60_000 });
  const getPod = async (name: string): Promise<Pod | undefined> => {
    const r = await apiCall(api, "GET", `/api/v1/namespaces/default/pods/${name}`);
    return r.status === 200 ? (r.json() as Pod) : undefined;
  };
  const phase = (name: string, want: string) => waitFor(`${name} ${want}`, async () => ((await getPod(name))?.status?.phase === want ? true : undefined), 120_000);
  const logs = async (name: string) => (await kubectl("logs", name)).stdout;

  beforeAll(async () => {
    api = await startAPIServer(setup.dir);
    kubeconfig = await writeAdminKubeconfig(api);
    agentDone = (
      await startAPIModeAgent({
        kubeconfig,
        nodeName,
        rootDir: join(setup.dir, "agent"),
        certDir: join(setup.dir, "agent-pki"),
        endpoint: setup.endpoint ?? "",
        args: [
          "--runtime-request-timeout=1m",
          "--sync-frequency=2s",
        ],
        stdout: agentOut, stderr: agentErr,
        stopSignal: stop.signal,
      })
    ).done;
    await kubectl("create", "configmap", "app-config", "--from-literal=LEVEL=debug", "--from-literal=app.properties=color=blue");
    await kubectl("create", "secret", "generic", "db", "--from-literal=DB_USER=bob", "--from-literal=DB_PASSWORD=s3cr3t-value");
  }, 180_000);

  afterAll(async () => {
    stop.abort();
    await agentDone?.catch(() => 1);
    await api?.stop();
    tearDownContainerd(setup);
  }, 120_000);

  it("prints env from a ConfigMap key, envFrom a Secret, and the files of configMap and secret volumes", async () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "consumer", namespace: "default" },
      spec: {
        nodeName,
        restartPolicy: "Never",
        terminationGracePeriodSeconds: 1,
        volumes: [
          { name: "cfg", configMap: { name: "app-config" } },
          { name: "creds", secret: { secretName: "db", items: [{ key: "DB_PASSWORD", path: "db/password", mode: 0o400 }] } },
        ],
        containers: [
          {
            name: "main",
            image: "busybox:1.36",
            imagePullPolicy: "IfNotPresent",
            command: ["sh", "-c", 'echo "level=$LEVEL user=$DB_USER"; cat /etc/config/app.properties; echo; cat /etc/creds/db/password; echo; stat -c %a /etc/creds/..data/db/password; ls /etc/config; touch /etc/config/x 2>/dev/null || echo read-only'],
            env: [{ name: "LEVEL", valueFrom: { configMapKeyRef: { name: "app-config", key: "LEVEL" } } }],
            envFrom: [{ secretRef: { name: "db" } }],
            volumeMounts: [
              { name: "cfg", mountPath: "/etc/config" },
              { name: "creds", mountPath: "/etc/creds" },
            ],
          },
        ],
      },
    };
    expect((await apiCall(api, "POST", "/api/v1/namespaces/default/pods", pod)).status).toBe(201);
    await phase("consumer", "Succeeded");
    expect(await logs("consumer")).toBe("level=debug user=bob\ncolor=blue\ns3cr3t-value\n400\nLEVEL\napp.properties\nread-only\n");
    expect(agentOut.text() + agentErr.text()).not.toContain("s3cr3t-value");
  }, 180_000);

  it("a running container sees an update of its mounted ConfigMap (..data points to a new directory)", async () => {
    await kubectl("create", "configmap", "live", "--from-literal=greeting=hello");
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "live-reader", namespace: "default" },
      spec: {
        nodeName,
        terminationGracePeriodSeconds: 1,
        volumes: [{ name: "cfg", configMap: { name: "live" } }],
        containers: [
          {
            name: "main",
            image: "busybox:1.36",
            imagePullPolicy: "IfNotPresent",
            command: ["sh", "-c", 'last=""; while true; do cur="$(readlink /cfg/..data) $(cat /cfg/greeting)"; if [ "$cur" != "$last" ]; then echo "$cur"; last="$cur"; fi; sleep 0.3; done'],
            volumeMounts: [{ name: "cfg", mountPath: "/cfg" }],
          },
        ],
      },
    };
    expect((await apiCall(api, "POST", "/api/v1/namespaces/default/pods", pod)).status).toBe(201);
    await phase("live-reader", "Running");
    const first = await waitFor("first line", async () => ((await logs("live-reader")).includes("hello") ? await logs("live-reader") : undefined), 60_000);
    const yaml = (await kubectl("create", "configmap", "live", "--from-literal=greeting=bonjour", "--dry-run=client", "-o", "yaml")).stdout;
    writeFileSync(join(setup.dir, "live.yaml"), yaml);
    await kubectl("replace", "-f", join(setup.dir, "live.yaml"));
    const after = await waitFor("updated line", async () => {
      const text = await logs("live-reader");
      return text.includes("bonjour") ? text : undefined;
    }, 90_000);
    const lines = after.trim().split("\n");
    expect(lines).toHaveLength(2);
    const [oldTs, oldValue] = (lines[0] ?? "").split(" ");
    const [newTs, newValue] = (lines[1] ?? "").split(" ");
    expect(first.trim()).toBe(lines[0]);
    expect([oldValue, newValue]).toEqual(["hello", "bonjour"]);
    expect(oldTs).toMatch(/^\.\.\d{4}_/);
    expect(newTs).toMatch(/^\.\.\d{4}_/);
    expect(newTs).not.toBe(oldTs);
    await kubectl("delete", "pod", "live-reader", "--wait=false");
  }, 180_000);
});
