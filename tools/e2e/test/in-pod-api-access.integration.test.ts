// Issue 17's acceptance, as a new user would try it: a pod calls the API with curl, its own
// service-account token and ca.crt (the kube-api-access volume), at $KUBERNETES_SERVICE_HOST:
// $KUBERNETES_SERVICE_PORT as client-go's rest.InClusterConfig does (issue 18: the node agent gives
// every container 1.23's `kubernetes` service variables; Skiff has no Services, so they name the
// apiserver the agent talks to, its loopback address replaced by the machine's, which the serving
// certificate covers): 403 in 1.23's words without a RoleBinding, 200 with one; and once more by
// the in-cluster name `kubernetes.default.svc` (in the serving certificate, as kube-apiserver
// 1.23's), resolved to that address with curl --resolve. The cluster runs under RBAC with each
// component's own identity. On the process runtime (the host's curl; as root the pod has its own
// network namespace and reaches the apiserver, bound to 0.0.0.0, through its gateway; otherwise it
// shares the host's network) and on real containerd when it can be set up (with CI=true it must
// be): an image of busybox plus the host's curl and its libraries (tools/containerd/build-image.sh
// --add), imported with `ctr images import`.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, runKubectl, setUpContainerd, startCluster, waitFor } from "../src/index.js";
import type { Cluster, ContainerdSetup, NodeSpec } from "../src/index.js";

const ci = process.env.CI === "true";
const containerd: ContainerdSetup = setUpContainerd();
if (containerd.endpoint === undefined && !ci) console.warn(`e2e: no containerd node: ${containerd.reason}`);
const curlImage = "skiff.test/curl:1";
let cluster: Cluster;
let port = "";

/** Builds busybox + the host's curl as an image and imports it into the test containerd. */
function importCurlImage(endpoint: string, dir: string): void {
  const sock = endpoint.replace(/^unix:\/\//, "");
  const tarball = join(dir, "images", "curl.tar");
  const build = spawnSync("bash", [join(repoRoot, "tools/containerd/build-image.sh"), "--out", tarball, "--cmd", "sh", "--add", "/usr/bin/curl", curlImage], { encoding: "utf8", timeout: 120_000 });
  if (build.status !== 0) throw new Error(`build-image.sh: ${build.stderr}`);
  const snapshotter = readFileSync(join(dir, "snapshotter"), "utf8").trim();
  const imported = spawnSync("ctr", ["--address", sock, "--namespace", "k8s.io", "images", "import", "--snapshotter", snapshotter, tarball], { encoding: "utf8", timeout: 120_000 });
  if (imported.status !== 0) throw new Error(`ctr images import: ${imported.stderr}`);
}

beforeAll(async () => {
  const nodes: NodeSpec[] = [{ name: "node-a", runtime: "process" }];
  if (containerd.endpoint !== undefined) {
    importCurlImage(containerd.endpoint, containerd.dir);
    nodes.push({ name: "node-ctd", runtime: "containerd", endpoint: containerd.endpoint, args: ["--register-with-taints=runtime=containerd:NoSchedule"] });
  }
  cluster = await startCluster({ nodes, authorizationMode: "RBAC", apiserverBindAddress: "0.0.0.0" });
  port = /server: https:\/\/127\.0\.0\.1:(\d+)/.exec(readFileSync(cluster.kubeconfig, "utf8"))?.[1] ?? "";
}, 600_000);

afterAll(async () => {
  await cluster?.stop();
  containerd.stop();
}, 300_000);

const kubectl = async (...args: string[]) => {
  const r = await runKubectl(cluster.kubeconfig, args);
  expect(r.code, `kubectl ${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r.stdout;
};

/**
 * The shell line a pod runs: its KUBERNETES_* variables, then the API call with its own token at
 * `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT` (or by the in-cluster name resolved
 * to that address), printing the body, then the HTTP code.
 */
function curlScript(byName: boolean): string {
  const sa = "/var/run/secrets/kubernetes.io/serviceaccount";
  const url = byName ? "https://kubernetes.default.svc:$KUBERNETES_SERVICE_PORT" : "https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT";
  const resolve = byName ? "--resolve kubernetes.default.svc:$KUBERNETES_SERVICE_PORT:$KUBERNETES_SERVICE_HOST " : "";
  return [
    `env | grep '^KUBERNETES_'`,
    `echo ---`,
    `NS=$(cat ${sa}/namespace)`,
    `curl -sS ${resolve}--cacert ${sa}/ca.crt -H "Authorization: Bearer $(cat ${sa}/token)" -w '\\nHTTP %{http_code}\\n' ${url}/api/v1/namespaces/$NS/pods`,
  ].join("; ");
}

/** The machine's first non-internal IPv4 address: where the node agent points pods at an apiserver on 127.0.0.1. */
function machineAddress(): string {
  return Object.values(networkInterfaces()).flat().find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address ?? "127.0.0.1";
}

/** The KUBERNETES_* variables 1.23 gives a pod for the `kubernetes` service at `host:port` (envvars.FromServices). */
function expectedServiceEnv(host: string, p: string): string[] {
  return [
    `KUBERNETES_PORT=tcp://${host}:${p}`,
    `KUBERNETES_PORT_${p}_TCP=tcp://${host}:${p}`,
    `KUBERNETES_PORT_${p}_TCP_ADDR=${host}`,
    `KUBERNETES_PORT_${p}_TCP_PORT=${p}`,
    `KUBERNETES_PORT_${p}_TCP_PROTO=tcp`,
    `KUBERNETES_SERVICE_HOST=${host}`,
    `KUBERNETES_SERVICE_PORT=${p}`,
    `KUBERNETES_SERVICE_PORT_HTTPS=${p}`,
  ];
}

/** Runs the curl pod; resolves with its KUBERNETES_* variables and what curl printed. */
async function runCurlPod(ns: string, name: string, runtime: "process" | "containerd", byName = false): Promise<{ env: string[]; out: string }> {
  const onContainerd = {
    nodeSelector: { "example.io/hostname": "node-ctd" },
    tolerations: [{ key: "runtime", operator: "Equal" as const, value: "containerd", effect: "NoSchedule" as const }],
  };
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: ns },
    spec: {
      restartPolicy: "Never",
      terminationGracePeriodSeconds: 1,
      containers: [{ name: "curl", image: runtime === "process" ? "busybox" : curlImage, imagePullPolicy: "IfNotPresent", command: ["sh", "-c", curlScript(byName)] }],
      ...(runtime === "containerd" ? onContainerd : { nodeSelector: { "example.io/hostname": "node-a" } }),
    },
  };
  await cluster.api.create(`/api/v1/namespaces/${ns}/pods`, pod);
  const done = await waitFor(
    `pod ${ns}/${name} finished`,
    async () => {
      const p = await cluster.api.get<Pod>(`/api/v1/namespaces/${ns}/pods/${name}`);
      return p.status?.phase === "Succeeded" || p.status?.phase === "Failed" ? p : undefined;
    },
    180_000,
    250,
  );
  const logs = await kubectl("logs", "-n", ns, name);
  expect(done.status?.phase, logs).toBe("Succeeded");
  const cut = logs.indexOf("---\n");
  return { env: logs.slice(0, cut).split("\n").filter((l) => l !== ""), out: logs.slice(cut + 4) };
}

async function checkRuntime(runtime: "process" | "containerd"): Promise<void> {
  const ns = `curl-${runtime}`;
  await kubectl("create", "namespace", ns);
  // The service-account controller creates the namespace's default ServiceAccount.
  await waitFor(`serviceaccount ${ns}/default`, () => cluster.api.get(`/api/v1/namespaces/${ns}/serviceaccounts/default`).then(() => true, () => undefined), 30_000, 200);

  const { env, out: denied } = await runCurlPod(ns, "without-binding", runtime);
  // 1.23's names and values; the apiserver, on 127.0.0.1 for the agent, at the machine's address.
  expect([...env].sort()).toEqual(expectedServiceEnv(machineAddress(), port).sort());
  expect(denied).toMatch(/\nHTTP 403\n$/);
  const status = JSON.parse(denied.slice(0, denied.lastIndexOf("\nHTTP"))) as { reason: string; message: string };
  expect(status).toMatchObject({
    reason: "Forbidden",
    message: `pods is forbidden: User "system:serviceaccount:${ns}:default" cannot list resource "pods" in API group "" in the namespace "${ns}"`,
  });

  await kubectl("create", "role", "pod-reader", "-n", ns, "--verb=get,list,watch", "--resource=pods");
  await kubectl("create", "rolebinding", "default-reads-pods", "-n", ns, "--role=pod-reader", `--serviceaccount=${ns}:default`);
  const { out: allowed } = await runCurlPod(ns, "with-binding", runtime);
  expect(allowed).toMatch(/\nHTTP 200\n$/);
  const list = JSON.parse(allowed.slice(0, allowed.lastIndexOf("\nHTTP"))) as { kind: string; items: Array<{ metadata: { name: string } }> };
  expect(list.kind).toBe("PodList");
  expect(list.items.map((p) => p.metadata.name)).toContain("with-binding");
  // By the in-cluster name, which the serving certificate names too.
  const { out: byName } = await runCurlPod(ns, "by-name", runtime, true);
  expect(byName).toMatch(/\nHTTP 200\n$/);
}

describe("e2e: a pod calls the API with its own service-account token (RBAC)", () => {
  it("on the process runtime: 403 without a RoleBinding, 200 with one", async () => {
    await checkRuntime("process");
  }, 600_000);

  it.runIf(containerd.endpoint !== undefined || ci)("on containerd: 403 without a RoleBinding, 200 with one", async () => {
    await checkRuntime("containerd");
  }, 600_000);

  it("no component was refused anything under RBAC (each with its own identity)", () => {
    for (const p of cluster.processes.values()) {
      const lines = readFileSync(p.log, "utf8").split("\n").filter((l) => /forbidden|Unauthorized/i.test(l));
      expect(lines, p.name).toEqual([]);
    }
  });
});
