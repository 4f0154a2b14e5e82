// What a pod sees of itself, on the whole system: the Kubernetes documentation's Indexed Job with an
// init container and an emptyDir (examples/indexed-job-emptydir.yaml) on the process CRI server
// with namespaces (the default runtime of `pnpm start`), and /etc/resolv.conf, /etc/hosts and the
// host name as the 1.23 kubelet forms them for each dnsPolicy, on the process runtime and (when it
// can be set up here; with CI=true it must be) on containerd.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job, Pod } from "@skiff/api-types";
import { repoRoot, runKubectl, setUpContainerd, startCluster, waitFor } from "../src/index.js";
import type { Cluster, ContainerdSetup, NodeSpec } from "../src/index.js";
import { podsOf, podsPath, waitForCondition } from "./helpers.js";

const containerd: ContainerdSetup = setUpContainerd();
if (containerd.endpoint === undefined && process.env.CI !== "true") console.warn(`e2e: no containerd node: ${containerd.reason}`);
let cluster: Cluster;
const resolvDir = mkdtempSync(join(tmpdir(), "skiff-resolv-"));
const nodeResolvConf = join(resolvDir, "resolv.conf");
writeFileSync(nodeResolvConf, "# the node's resolver\nnameserver 192.0.2.53\nsearch example.test.\noptions edns0\n");
const dnsArgs = ["--cluster-dns=10.96.0.10", "--cluster-domain=cluster.local", `--resolv-conf=${nodeResolvConf}`];

beforeAll(async () => {
  const nodes: NodeSpec[] = [{ name: "node-a", runtime: "process", isolation: "namespaces", args: dnsArgs }];
  if (containerd.endpoint !== undefined) nodes.push({ name: "node-ctd", runtime: "containerd", endpoint: containerd.endpoint, args: [...dnsArgs, "--register-with-taints=runtime=containerd:NoSchedule"] });
  cluster = await startCluster({ nodes });
}, 600_000);

afterAll(async () => {
  await cluster?.stop();
  containerd.stop();
  rmSync(resolvDir, { recursive: true, force: true });
}, 300_000);

const clusterFirst = "search default.svc.cluster.local svc.cluster.local cluster.local example.test\nnameserver 10.96.0.10\noptions ndots:5\n";
const hostDefault = "search example.test\nnameserver 192.0.2.53\noptions edns0\n";
const managedHosts = "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n";

async function runPod(name: string, spec: Record<string, unknown>, node = "node-a"): Promise<{ logs: string; pod: Pod }> {
  const onContainerd = node === "node-ctd";
  await cluster.api.create(podsPath, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: {
      nodeName: node,
      restartPolicy: "Never",
      terminationGracePeriodSeconds: 1,
      ...(onContainerd ? { tolerations: [{ key: "runtime", operator: "Equal", value: "containerd", effect: "NoSchedule" }] } : {}),
      containers: [{ name: "main", image: onContainerd ? "busybox:1.36" : "busybox", imagePullPolicy: "IfNotPresent", command: ["sh", "-c", "cat /etc/resolv.conf; echo ---; cat /etc/hosts; echo ---; hostname"] }],
      ...spec,
    },
  });
  const pod = await waitFor(
    `pod ${name} to finish`,
    async () => {
      const p = await cluster.api.get<Pod>(`${podsPath}/${name}`);
      return p.status?.phase === "Succeeded" || p.status?.phase === "Failed" ? p : undefined;
    },
    120_000,
    200,
  );
  const logs = await runKubectl(cluster.kubeconfig, ["logs", name]);
  expect(logs.stderr).toBe("");
  expect(pod.status?.phase).toBe("Succeeded");
  return { logs: logs.stdout, pod };
}

describe("e2e: pod files on the process runtime with namespaces", () => {
  it("runs the documentation's Indexed Job with an init container and an emptyDir to completedIndexes 0-4, each pod printing its word reversed", async () => {
    const apply = await runKubectl(cluster.kubeconfig, ["apply", "-f", join(repoRoot, "examples/indexed-job-emptydir.yaml")]);
    expect(apply.stderr).toBe("");
    expect(apply.stdout).toBe("job.batch/indexed-job created\n");
    const done: Job = await waitForCondition(cluster.api, "indexed-job", "Complete");
    expect(done.status?.completedIndexes).toBe("0-4");
    expect(done.status?.succeeded).toBe(5);
    const pods = (await podsOf(cluster.api, "indexed-job")).filter((p) => p.status?.phase === "Succeeded");
    expect(pods).toHaveLength(5);
    const words = ["foo", "bar", "baz", "qux", "xyz"];
    for (const p of pods) {
      const index = Number(p.metadata?.annotations?.["batch.example.io/job-completion-index"]);
      const logs = await runKubectl(cluster.kubeconfig, ["logs", p.metadata?.name ?? "", "-c", "worker"]);
      expect(logs.stdout).toBe(`${[...(words[index] ?? "")].reverse().join("")}\n`);
    }
  });

  it("ClusterFirst: the cluster DNS with the namespace's search paths and ndots:5; the managed /etc/hosts with the subdomain FQDN", async () => {
    const { logs, pod } = await runPod("cluster-first", { dnsPolicy: "ClusterFirst", hostname: "web", subdomain: "sub" });
    // The pod's IP: its own network namespace's as root (CNI), 127.0.0.1 on the host's network.
    expect(pod.status?.podIP).toMatch(/^(10\.\d+\.\d+\.\d+|127\.0\.0\.1)$/);
    expect(logs).toBe(`${clusterFirst}---\n${managedHosts}${pod.status?.podIP ?? ""}\tweb.sub.default.svc.cluster.local\tweb\n---\nweb\n`);
  });

  it("Default: the node's resolver file; the pod name as host name", async () => {
    const { logs, pod } = await runPod("default-dns", { dnsPolicy: "Default" });
    expect(logs).toBe(`${hostDefault}---\n${managedHosts}${pod.status?.podIP ?? ""}\tdefault-dns\n---\ndefault-dns\n`);
  });

  it("host network: ClusterFirst falls back to Default, ClusterFirstWithHostNet keeps the cluster DNS; the node's /etc/hosts and host name", async () => {
    const nodeHosts = readFileSync("/etc/hosts", "utf8");
    const first = await runPod("hostnet-first", { dnsPolicy: "ClusterFirst", hostNetwork: true });
    expect(first.logs).toBe(`${hostDefault}---\n${nodeHosts}---\n${hostname()}\n`);
    const withHostNet = await runPod("hostnet-cluster", { dnsPolicy: "ClusterFirstWithHostNet", hostNetwork: true });
    expect(withHostNet.logs).toBe(`${clusterFirst}---\n${nodeHosts}---\n${hostname()}\n`);
  });

  it("None: only the pod's dnsConfig; hostAliases appended to /etc/hosts", async () => {
    const { logs, pod } = await runPod("none-dns", {
      dnsPolicy: "None",
      dnsConfig: { nameservers: ["203.0.113.1"], searches: ["my.domain"], options: [{ name: "ndots", value: "2" }, { name: "edns0" }] },
      hostAliases: [{ ip: "198.51.100.7", hostnames: ["db", "db.local"] }],
    });
    expect(logs).toBe(`search my.domain\nnameserver 203.0.113.1\noptions ndots:2 edns0\n---\n${managedHosts}${pod.status?.podIP ?? ""}\tnone-dns\n\n# Entries added by HostAliases.\n198.51.100.7\tdb\tdb.local\n---\nnone-dns\n`);
  });
});

describe("e2e: termination messages on the process runtime with namespaces", () => {
  async function terminated(name: string, container: Record<string, unknown>) {
    await cluster.api.create(podsPath, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name },
      spec: { nodeName: "node-a", restartPolicy: "Never", terminationGracePeriodSeconds: 1, containers: [{ name: "main", image: "busybox", imagePullPolicy: "IfNotPresent", ...container }] },
    });
    const pod = await waitFor(
      `pod ${name} to finish`,
      async () => {
        const p = await cluster.api.get<Pod>(`${podsPath}/${name}`);
        return p.status?.containerStatuses?.[0]?.state?.terminated ? p : undefined;
      },
      120_000,
      200,
    );
    return pod.status?.containerStatuses?.[0]?.state?.terminated;
  }

  it("reports what the container wrote to terminationMessagePath, or the end of its log with FallbackToLogsOnError", async () => {
    const written = await terminated("term-file", { command: ["sh", "-c", "printf 'disk full' > /dev/termination-log; exit 3"] });
    expect(written?.exitCode).toBe(3);
    expect(written?.message).toBe("disk full");
    const custom = await terminated("term-custom", { command: ["sh", "-c", "echo done > /tmp/end; true"], terminationMessagePath: "/tmp/end" });
    expect(custom?.message).toBe("done\n");
    const fallback = await terminated("term-logs", { command: ["sh", "-c", "echo starting; echo 'cannot open config' >&2; exit 2"], terminationMessagePolicy: "FallbackToLogsOnError" });
    expect(fallback?.message).toBe("starting\ncannot open config\n");
  });
});

describe.skipIf(containerd.endpoint === undefined)("e2e: pod files on containerd", () => {
  it("ClusterFirst with a subdomain: containerd writes resolv.conf from the sandbox DNS config; the kubelet-managed /etc/hosts", async () => {
    const { logs, pod } = await runPod("ctd-cluster-first", { dnsPolicy: "ClusterFirst", hostname: "web", subdomain: "sub" }, "node-ctd");
    const ip = pod.status?.podIP ?? "";
    expect(ip).not.toBe("");
    expect(logs).toBe(`${clusterFirst}---\n${managedHosts}${ip}\tweb.sub.default.svc.cluster.local\tweb\n---\nweb\n`);
  });
});
