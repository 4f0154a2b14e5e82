// Issue 17's acceptance, as a new user would try it: a pod calls the API with curl, its own
// service-account token and ca.crt (the kube-api-access volume), by the apiserver's in-cluster
// name `kubernetes.default.svc` (in the serving certificate, as kube-apiserver 1.23's): 403 in
// 1.23's words without a RoleBinding, 200 with one. The cluster runs under RBAC with each
// component's own identity. On the process runtime (the host's curl; as root the pod has its own
// network namespace and reaches the apiserver, bound to 0.0.0.0, through its gateway; otherwise it
// shares the host's network and uses 127.0.0.1) and on real containerd when it can be set up (with
// CI=true it must be): an image of busybox plus the host's curl and its libraries
// (tools/containerd/build-image.sh --add), imported with `ctr images import`; the pod reaches the
// apiserver through its gateway.
// Skiff has no Services, so the node agent injects no KUBERNETES_SERVICE_HOST: the pod is given the
// port, and resolves the name to its node with curl --resolve.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
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

/** The shell line a pod runs: the API call with its own token, printing the body, then the HTTP code. */
function curlScript(host: string): string {
  const sa = "/var/run/secrets/kubernetes.io/serviceaccount";
  return [
    `NS=$(cat ${sa}/namespace)`,
    `curl -sS --resolve kubernetes.default.svc:${port}:${host} --cacert ${sa}/ca.crt -H "Authorization: Bearer $(cat ${sa}/token)" -w '\\nHTTP %{http_code}\\n' https://kubernetes.default.svc:${port}/api/v1/namespaces/$NS/pods`,
  ].join("; ");
}

async function runCurlPod(ns: string, name: string, runtime: "process" | "containerd"): Promise<string> {
  const onContainerd = {
    nodeSelector: { "example.io/hostname": "node-ctd" },
    tolerations: [{ key: "runtime", operator: "Equal" as const, value: "containerd", effect: "NoSchedule" as const }],
  };
  // A pod with its own network (containerd; the process runtime as root) has eth0 and a default
  // route through the bridge's gateway, the node's address on the pod network.
  const gateway = "$(ip route | awk '/^default/ {print $3}')";
  const host = runtime === "process" && process.getuid?.() !== 0 ? "127.0.0.1" : gateway;
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: ns },
    spec: {
      restartPolicy: "Never",
      terminationGracePeriodSeconds: 1,
      containers: [{ name: "curl", image: runtime === "process" ? "busybox" : curlImage, imagePullPolicy: "IfNotPresent", command: ["sh", "-c", curlScript(host)] }],
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
  return logs;
}

async function checkRuntime(runtime: "process" | "containerd"): Promise<void> {
  const ns = `curl-${runtime}`;
  await kubectl("create", "namespace", ns);
  // The service-account controller creates the namespace's default ServiceAccount.
  await waitFor(`serviceaccount ${ns}/default`, () => cluster.api.get(`/api/v1/namespaces/${ns}/serviceaccounts/default`).then(() => true, () => undefined), 30_000, 200);

  const denied = await runCurlPod(ns, "without-binding", runtime);
  expect(denied).toMatch(/\nHTTP 403\n$/);
  const status = JSON.parse(denied.slice(0, denied.lastIndexOf("\nHTTP"))) as { reason: string; message: string };
  expect(status).toMatchObject({
    reason: "Forbidden",
    message: `pods is forbidden: User "system:serviceaccount:${ns}:default" cannot list resource "pods" in API group "" in the namespace "${ns}"`,
  });

  await kubectl("create", "role", "pod-reader", "-n", ns, "--verb=get,list,watch", "--resource=pods");
  await kubectl("create", "rolebinding", "default-reads-pods", "-n", ns, "--role=pod-reader", `--serviceaccount=${ns}:default`);
  const allowed = await runCurlPod(ns, "with-binding", runtime);
  expect(allowed).toMatch(/\nHTTP 200\n$/);
  const list = JSON.parse(allowed.slice(0, allowed.lastIndexOf("\nHTTP"))) as { kind: string; items: Array<{ metadata: { name: string } }> };
  expect(list.kind).toBe("PodList");
  expect(list.items.map((p) => p.metadata.name)).toContain("with-binding");
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
