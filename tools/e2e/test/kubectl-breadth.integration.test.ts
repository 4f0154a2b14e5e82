// What a Kubernetes user types, against the whole system: real kubectl 1.32 (`/usr/bin/kubectl`,
// or `$KUBECTL`) against the apiserver, job controller, scheduler and two node agents on process
// CRI servers. One test per command family; each asserts kubectl's output and exit code as a
// Kubernetes 1.23 cluster answers them (minus what Skiff does not serve: metrics, PodDisruptionBudgets).
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Event, Job, Node, Pod } from "@skiff/api-types";
import { isApiStatus, repoRoot, startCluster, waitFor } from "../src/index.js";
import type { Cluster } from "../src/index.js";
import { job, jobsPath, podsOf, podsPath, waitForCondition } from "./helpers.js";

const kubectlBin = process.env.KUBECTL ?? "/usr/bin/kubectl";
const home = mkdtempSync(join(tmpdir(), "skiff-kb-"));
let cluster: Cluster;

interface Out {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `kubectl <args>` with a private HOME and discovery cache; `env` adds variables (EDITOR). */
function kubectl(args: readonly string[], opts: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Out {
  const r = spawnSync(kubectlBin, [`--kubeconfig=${cluster.kubeconfig}`, `--cache-dir=${join(home, "cache")}`, ...args], {
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 120_000,
    env: { ...process.env, HOME: home, KUBECONFIG: cluster.kubeconfig, ...opts.env },
    ...(opts.input !== undefined ? { input: opts.input } : {}),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `kubectl <args>` without blocking the event loop (for commands that wait on the cluster). */
function kubectlAsync(args: readonly string[]): { done: Promise<Out>; output(): string; stderr(): string; kill(): void } {
  const child = spawn(kubectlBin, [`--kubeconfig=${cluster.kubeconfig}`, `--cache-dir=${join(home, "cache")}`, ...args], {
    env: { ...process.env, HOME: home, KUBECONFIG: cluster.kubeconfig },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Out>((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
  return { done, output: () => stdout, stderr: () => stderr, kill: () => child.kill("SIGTERM") };
}

const lines = (s: string): string[] => s.trimEnd().split("\n");
const header = (s: string): string[] => (lines(s)[0] ?? "").trim().split(/\s{2,}/);
const row = (s: string, first: string): string[] | undefined => lines(s).map((l) => l.trim().split(/\s{2,}/)).find((c) => c[0] === first);

async function gone(path: string): Promise<boolean> {
  try {
    await cluster.api.get(path);
    return false;
  } catch (e) {
    return isApiStatus(e, 404);
  }
}

async function createJob(name: string, command: string, spec: Partial<NonNullable<Job["spec"]>> = {}, podSpec: Record<string, unknown> = {}): Promise<Job> {
  return cluster.api.create<Job>(jobsPath, job(name, spec, command, podSpec));
}

beforeAll(async () => {
  cluster = await startCluster({ nodes: [{ name: "node-a", runtime: "process" }, { name: "node-b", runtime: "process" }] });
}, 600_000);

afterAll(async () => {
  await cluster?.stop();
  rmSync(home, { recursive: true, force: true });
}, 300_000);

describe("kubectl breadth against the whole system", () => {
  it("describe: job, pod, node, csidriver, csinode, podtemplate, namespace — with Events found by field selectors", async () => {
    await createJob("desc", "echo described", { completions: 2 });
    const done = await waitForCondition(cluster.api, "desc", "Complete");
    const uid = done.metadata?.uid ?? "";

    const dj = kubectl(["describe", "job/desc"]);
    expect(dj.stderr).toBe("");
    expect(dj.code).toBe(0);
    expect(dj.stdout).toMatch(/^Name:\s+desc\nNamespace:\s+default\nSelector:\s+controller-uid=/);
    expect(dj.stdout).toMatch(/\nCompletions:\s+2\n/);
    expect(dj.stdout).toMatch(/\nCompletion Mode:\s+NonIndexed\n/);
    expect(dj.stdout).toMatch(/\nPods Statuses:\s+0 Active \(0 Ready\) \/ 2 Succeeded \/ 0 Failed\n/);
    expect(dj.stdout).toMatch(/\nPod Template:\n\s+Labels:\s+controller-uid=/);
    // The Events section: kubectl lists events with involvedObject.{name,namespace,kind,uid} field selectors.
    expect(dj.stdout).toMatch(/\nEvents:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n/);
    expect(dj.stdout).toMatch(/Normal\s+SuccessfulCreate\s+\S+\s+job-controller\s+Created pod: desc-/);
    expect(dj.stdout).toMatch(/Normal\s+Completed\s+\S+\s+job-controller\s+Job completed/);

    const pod = (await podsOf(cluster.api, "desc"))[0];
    const dp = kubectl(["describe", "pod", pod?.metadata?.name ?? "missing"]);
    expect(dp.code).toBe(0);
    expect(dp.stdout).toMatch(/\nNode:\s+node-[ab]\/127\.0\.0\.1\n/);
    expect(dp.stdout).toMatch(/\nStatus:\s+Succeeded\n/);
    expect(dp.stdout).toMatch(/\nControlled By:\s+Job\/desc\n/);
    expect(dp.stdout).toMatch(/\n\s+State:\s+Terminated\n\s+Reason:\s+Completed\n\s+Exit Code:\s+0\n/);
    expect(dp.stdout).toMatch(/Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/desc-\w+ to node-[ab]/);

    const dn = kubectl(["describe", "node", "node-a"]);
    expect(dn.code).toBe(0);
    expect(dn.stdout).toMatch(/^Name:\s+node-a\nRoles:\s+<none>\nLabels:\s+/);
    expect(dn.stdout).toMatch(/\n\s+example\.io\/hostname=node-a\n/);
    expect(dn.stdout).toMatch(/\nUnschedulable:\s+false\n/);
    expect(dn.stdout).toMatch(/\n\s+Ready\s+True\s+/);
    expect(dn.stdout).toMatch(/\nAllocatable:\n(\s+\S+:\s+\S+\n)*\s+pods:\s+110\n/);
    expect(dn.stdout).toMatch(/\nNon-terminated Pods:\s+\(\d+ in total\)\n/);
    expect(dn.stdout).toMatch(/Normal\s+NodeReady\s+\S+\s+nodeagent\s+Node node-a status is now: NodeReady/);
    // The node agent's lease (kube-node-lease/node-a) is the heartbeat kubectl shows.
    expect(dn.stdout).not.toContain("Failed to get lease");
    expect(dn.stdout).toMatch(/\nLease:\n\s+HolderIdentity:\s+node-a\n\s+AcquireTime:\s+<unset>\n\s+RenewTime:\s+\w{3}, \d{2} \w{3} \d{4} \d\d:\d\d:\d\d [+-]\d{4}\n/);
    const leases = kubectl(["get", "leases", "-n", "kube-node-lease"]);
    expect(leases.code, leases.stderr).toBe(0);
    expect(leases.stdout).toMatch(/^NAME\s+HOLDER\s+AGE\n/);
    expect(leases.stdout).toMatch(/\nnode-a\s+node-a\s+\S+\n/);

    const apply = kubectl(["apply", "-f", join(repoRoot, "examples/csidriver.yaml"), "-f", join(repoRoot, "examples/podtemplate.yaml")]);
    expect(apply.code, apply.stderr).toBe(0);
    // storage.example.io kinds have no kubectl describer of their own: the generic describer prints the object.
    const dd = kubectl(["describe", "csidriver", "hostpath.csi.example.io"]);
    expect(dd.code).toBe(0);
    expect(dd.stdout).toMatch(/^Name:\s+hostpath\.csi\.example\.io\n/);
    expect(dd.stdout).toMatch(/\nKind:\s+CSIDriver\n/);
    expect(dd.stdout).toMatch(/\n\s+Pod Info On Mount:\s+true\n/);
    expect(dd.stdout).toMatch(/\nEvents:\s+<none>\n/);
    // The node agent creates its CSINode in the background once its Node exists.
    await waitFor("the CSINode of node-a", () => kubectl(["get", "csinode", "node-a"]).code === 0, 60_000, 200);
    const dc = kubectl(["describe", "csinode", "node-a"]);
    expect(dc.code).toBe(0);
    expect(dc.stdout).toMatch(/^Name:\s+node-a\n/);
    expect(dc.stdout).toMatch(/\nKind:\s+CSINode\n/);
    expect(dc.stdout).toMatch(/\n\s+Owner References:\n\s+API Version:\s+v1\n\s+Kind:\s+Node\n\s+Name:\s+node-a\n/);
    const dt = kubectl(["describe", "podtemplate", "busybox-echo"]);
    expect(dt.code).toBe(0);
    expect(dt.stdout).toMatch(/^Name:\s+busybox-echo\nNamespace:\s+default\nLabels:\s+app=echo\n/);
    expect(dt.stdout).toMatch(/\n\s+Image:\s+busybox\n/);
    const dns = kubectl(["describe", "namespace", "default"]);
    expect(dns).toEqual({ code: 0, stdout: "Name:         default\nLabels:       example.io/metadata.name=default\nAnnotations:  <none>\nStatus:       Active\n", stderr: "" });
    const missing = kubectl(["describe", "job/nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('Error from server (NotFound): jobs.batch "nope" not found\n');

    // Every field of 1.23's Event field set selects (pkg/apis/core/v1/conversion.go).
    const ev = (await cluster.api.list<Event>("/api/v1/namespaces/default/events")).find((e) => e.involvedObject?.uid === uid && e.reason === "Completed");
    expect(ev).toBeDefined();
    const selectors = [
      `involvedObject.kind=Job`,
      `involvedObject.namespace=default`,
      `involvedObject.name=desc`,
      `involvedObject.uid=${uid}`,
      `involvedObject.apiVersion=batch/v1`,
      `involvedObject.resourceVersion=${ev?.involvedObject?.resourceVersion ?? ""}`,
      `involvedObject.fieldPath=`,
      `reason=Completed`,
      `source=job-controller`,
      `type=Normal`,
      `metadata.namespace=default`,
      `metadata.name=${ev?.metadata?.name ?? ""}`,
    ];
    for (const s of selectors) {
      const r = kubectl(["get", "events", "--field-selector", `${s},involvedObject.uid=${uid},reason=Completed`, "-o", "name"]);
      expect({ s, code: r.code, stderr: r.stderr, out: r.stdout }).toEqual({ s, code: 0, stderr: "", out: `event/${ev?.metadata?.name ?? ""}\n` });
    }
    const none = kubectl(["get", "events", "--field-selector", "type=Warning,involvedObject.name=desc"]);
    expect(none).toMatchObject({ code: 0, stdout: "" });
    expect(none.stderr).toBe("No resources found in default namespace.\n");
    const bad = kubectl(["get", "events", "--field-selector", "reportingComponent=x"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("field label not supported: reportingComponent");
  });

  it("get all, get events --sort-by, get jobs -w, api-versions, explain --recursive, version", async () => {
    const watch = kubectlAsync(["get", "jobs", "-w"]);
    await waitFor("the watch's header", () => watch.output().startsWith("NAME"), 30_000);
    await createJob("watched", "sleep 1; echo watched", { completions: 2 });
    await waitForCondition(cluster.api, "watched", "Complete");
    // The watch prints one row per change, in Table form, ending with 2/2.
    await waitFor("the 2/2 row", () => /^watched\s+2\/2\s+\d+s\s+\d+s$/m.test(watch.output()), 30_000);
    watch.kill();
    await watch.done;
    const watched = lines(watch.output()).filter((l) => l.startsWith("watched "));
    expect(header(watch.output())).toEqual(["NAME", "COMPLETIONS", "DURATION", "AGE"]);
    expect(watched[0]).toMatch(/^watched\s+0\/2\s+/);
    expect(watched.some((l) => /^watched\s+1\/2\s/.test(l))).toBe(true);

    const all = kubectl(["get", "all"]);
    expect(all.code).toBe(0);
    expect(all.stderr).toBe("");
    const [pods, jobs] = all.stdout.split("\n\n");
    expect(header(pods ?? "")).toEqual(["NAME", "READY", "STATUS", "RESTARTS", "AGE"]);
    expect(pods).toMatch(/\npod\/watched-\w+\s+0\/1\s+Completed\s+0\s+\d+s/);
    expect(header(jobs ?? "")).toEqual(["NAME", "COMPLETIONS", "DURATION", "AGE"]);
    expect(row(jobs ?? "", "job.batch/watched")?.[1]).toBe("2/2");

    const events = kubectl(["get", "events", "--sort-by=.lastTimestamp"]);
    expect(events.code).toBe(0);
    expect(header(events.stdout)).toEqual(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]);
    const evs = await cluster.api.list<Event>("/api/v1/namespaces/default/events");
    const sorted = [...evs].sort((a, b) => (a.lastTimestamp ?? "").localeCompare(b.lastTimestamp ?? ""));
    expect(lines(events.stdout)).toHaveLength(evs.length + 1);
    // The last line is an event with the latest lastTimestamp.
    const last = sorted.at(-1);
    expect(lines(events.stdout).at(-1)).toMatch(new RegExp(`\\s${last?.reason ?? ""}\\s+${(last?.involvedObject?.kind ?? "").toLowerCase()}/`));

    const versions = kubectl(["api-versions"]);
    expect(versions.code).toBe(0);
    expect(lines(versions.stdout)).toEqual(expect.arrayContaining(["batch/v1", "storage.example.io/v1", "v1", "authentication.k8s.io/v1", "authorization.k8s.io/v1"]));
    expect(lines(versions.stdout)).toEqual([...lines(versions.stdout)].sort());

    const explain = kubectl(["explain", "job.spec", "--recursive"]);
    expect(explain.code).toBe(0);
    expect(explain.stdout).toMatch(/^GROUP:\s+batch\nKIND:\s+Job\nVERSION:\s+v1\n\nFIELD: spec <JobSpec>\n/);
    expect(explain.stdout).toMatch(/\nFIELDS:\n {2}activeDeadlineSeconds\t<integer>\n {2}backoffLimit\t<integer>\n/);
    expect(explain.stdout).toMatch(/\n {2}template\t<PodTemplateSpec> -required-\n {4}metadata\t<ObjectMeta>\n/);
    expect(explain.stdout).toMatch(/\n {6}containers\t<\[\]Container> -required-\n {8}args\t<\[\]string>\n/);

    const version = kubectl(["version"]);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^Client Version: v1\.32\.\d+.*\nKustomize Version: v\S+\nServer Version: v1\.23\.0-skiff\.0\n$/);
    const vjson = kubectl(["version", "-o", "json"]);
    expect(JSON.parse(vjson.stdout).serverVersion).toMatchObject({ major: "1", minor: "23", gitVersion: "v1.23.0-skiff.0" });
  });

  it("label, annotate (--overwrite, key-), edit with EDITOR, patch --subresource=status", async () => {
    // A finished Job: the job controller no longer writes its status, so a status patch stays.
    await createJob("meta", "true");
    await waitForCondition(cluster.api, "meta", "Complete");
    expect(kubectl(["label", "job", "meta", "tier=batch"])).toEqual({ code: 0, stdout: "job.batch/meta labeled\n", stderr: "" });
    expect(kubectl(["label", "job", "meta", "tier=web"])).toEqual({ code: 1, stdout: "", stderr: "error: 'tier' already has a value (batch), and --overwrite is false\n" });
    expect(kubectl(["label", "job", "meta", "tier=web", "--overwrite"])).toMatchObject({ code: 0, stdout: "job.batch/meta labeled\n" });
    expect(kubectl(["get", "jobs", "-l", "tier=web", "-o", "name"]).stdout).toBe("job.batch/meta\n");
    expect(kubectl(["label", "job", "meta", "tier-"])).toMatchObject({ code: 0, stdout: "job.batch/meta unlabeled\n" });
    expect((await cluster.api.get<Job>(`${jobsPath}/meta`)).metadata?.labels?.["tier"]).toBeUndefined();

    expect(kubectl(["annotate", "job", "meta", "owner=alice"])).toEqual({ code: 0, stdout: "job.batch/meta annotated\n", stderr: "" });
    expect(kubectl(["annotate", "job", "meta", "owner=bob"])).toMatchObject({ code: 1, stderr: "error: --overwrite is false but found the following declared annotation(s): 'owner' already has a value (alice)\n" });
    expect(kubectl(["annotate", "job", "meta", "owner=bob", "--overwrite"])).toMatchObject({ code: 0, stdout: "job.batch/meta annotated\n" });
    expect(kubectl(["get", "job", "meta", "-o", "jsonpath={.metadata.annotations.owner}"]).stdout).toBe("bob");
    expect(kubectl(["annotate", "job", "meta", "owner-"])).toMatchObject({ code: 0, stdout: "job.batch/meta annotated\n" });
    expect((await cluster.api.get<Job>(`${jobsPath}/meta`)).metadata?.annotations?.["owner"]).toBeUndefined();
    expect(kubectl(["label", "job", "nope", "a=b"])).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): jobs.batch "nope" not found\n' });

    // kubectl edit: GET, the editor (a sed script) changes the YAML, then a patch of the difference.
    const editor = join(home, "edit.sh");
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/^  backoffLimit: 6$/  backoffLimit: 2/" "$1"\n');
    chmodSync(editor, 0o755);
    const edit = kubectl(["edit", "job/meta"], { env: { EDITOR: editor, KUBE_EDITOR: editor } });
    expect(edit).toEqual({ code: 0, stdout: "job.batch/meta edited\n", stderr: "" });
    expect((await cluster.api.get<Job>(`${jobsPath}/meta`)).spec?.backoffLimit).toBe(2);
    const unchanged = kubectl(["edit", "job/meta"], { env: { EDITOR: "true", KUBE_EDITOR: "true" } });
    expect(unchanged).toMatchObject({ code: 0, stderr: "Edit cancelled, no changes made.\n" });
    // An invalid edit: the server's 422, and kubectl keeps a copy of the edit.
    const badEditor = join(home, "bad-edit.sh");
    writeFileSync(badEditor, '#!/bin/sh\nsed -i "s/^  backoffLimit: 2$/  backoffLimit: -1/" "$1"\n');
    chmodSync(badEditor, 0o755);
    const badEdit = kubectl(["edit", "job/meta"], { env: { EDITOR: badEditor, KUBE_EDITOR: badEditor } });
    expect(badEdit.code).toBe(1);
    expect(badEdit.stderr).toContain('error: jobs.batch "meta" is invalid');

    // patch on /status (kubectl ≥ 1.24 --subresource): status changes, spec is ignored.
    const patched = kubectl(["patch", "job", "meta", "--subresource=status", "--type=merge", "-p", '{"status":{"failed":3},"spec":{"parallelism":5}}']);
    expect(patched).toEqual({ code: 0, stdout: "job.batch/meta patched\n", stderr: "" });
    const after = await cluster.api.get<Job>(`${jobsPath}/meta`);
    expect(after.status?.failed).toBe(3);
    expect(after.spec?.parallelism).toBe(1);
    expect(kubectl(["get", "job", "meta", "--subresource=status", "-o", "jsonpath={.status.failed}"]).stdout).toBe("3");
    const noop = kubectl(["patch", "job", "meta", "--subresource=status", "--type=merge", "-p", '{"status":{"failed":3}}']);
    expect(noop).toMatchObject({ code: 0, stdout: "job.batch/meta patched (no change)\n" });
    const badSub = kubectl(["patch", "job", "meta", "--subresource=scale", "--type=merge", "-p", "{}"]);
    expect(badSub.code).toBe(1);
    expect(badSub.stderr).toContain("the server could not find the requested resource");
  });

  it("delete --cascade=foreground|background|orphan, delete --all, delete -l, wait --for=delete|condition|jsonpath", async () => {
    for (const n of ["c-fg", "c-bg", "c-or"]) await createJob(n, "echo done", { completions: 2, parallelism: 2 });
    const wait = kubectl(["wait", "--for=condition=complete", "job/c-fg", "job/c-bg", "job/c-or", "--timeout=120s"]);
    expect(wait).toEqual({ code: 0, stdout: "job.batch/c-fg condition met\njob.batch/c-bg condition met\njob.batch/c-or condition met\n", stderr: "" });
    expect(kubectl(["wait", "--for=jsonpath={.status.succeeded}=2", "job/c-fg"])).toEqual({ code: 0, stdout: "job.batch/c-fg condition met\n", stderr: "" });
    expect(kubectl(["wait", "--for=jsonpath={.status.succeeded}=3", "job/c-fg", "--timeout=1s"])).toEqual({ code: 1, stdout: "", stderr: "error: timed out waiting for the condition on jobs/c-fg\n" });
    expect(kubectl(["wait", "--for=condition=failed", "job/c-fg", "--timeout=1s"])).toMatchObject({ code: 1, stderr: "error: timed out waiting for the condition on jobs/c-fg\n" });

    const fgPods = await podsOf(cluster.api, "c-fg");
    expect(fgPods).toHaveLength(2);
    // Foreground: kubectl waits until the Job is gone, and the GC deletes its pods before it.
    expect(kubectl(["delete", "job", "c-fg", "--cascade=foreground"])).toEqual({ code: 0, stdout: 'job.batch "c-fg" deleted\n', stderr: "" });
    expect(await gone(`${jobsPath}/c-fg`)).toBe(true);
    for (const p of fgPods) expect(await gone(`${podsPath}/${p.metadata?.name ?? ""}`)).toBe(true);
    expect(kubectl(["delete", "job", "c-bg", "--cascade=background"])).toEqual({ code: 0, stdout: 'job.batch "c-bg" deleted\n', stderr: "" });
    await waitFor("c-bg's pods deleted", async () => (await podsOf(cluster.api, "c-bg")).length === 0, 60_000, 200);
    const orphans = await podsOf(cluster.api, "c-or");
    expect(kubectl(["delete", "job", "c-or", "--cascade=orphan"])).toEqual({ code: 0, stdout: 'job.batch "c-or" deleted\n', stderr: "" });
    expect(await gone(`${jobsPath}/c-or`)).toBe(true);
    const kept = await podsOf(cluster.api, "c-or");
    expect(kept.map((p) => p.metadata?.uid).sort()).toEqual(orphans.map((p) => p.metadata?.uid).sort());
    expect(kept.every((p) => (p.metadata?.ownerReferences ?? []).length === 0)).toBe(true);

    // delete -l: the orphaned pods, by label.
    const byLabel = kubectl(["delete", "pods", "-l", "job-name=c-or"]);
    expect(byLabel.code).toBe(0);
    expect(lines(byLabel.stdout).sort()).toEqual(orphans.map((p) => `pod "${p.metadata?.name ?? ""}" deleted`).sort());
    expect(kubectl(["get", "pods", "-l", "job-name=c-or"])).toMatchObject({ code: 0, stdout: "", stderr: "No resources found in default namespace.\n" });

    // wait --for=delete returns once the object is gone: a pod held by a finalizer until kubectl
    // has read it (its -v=6 request log), then released.
    await cluster.api.create(podsPath, { apiVersion: "v1", kind: "Pod", metadata: { name: "held", finalizers: ["example.io/hold"] }, spec: { nodeName: "ghost", containers: [{ name: "c", image: "busybox" }] } });
    const waiting = kubectlAsync(["wait", "--for=delete", "pod/held", "--timeout=60s", "-v=6"]);
    await waitFor("kubectl wait reading pod/held", () => /GET https:\S+\/pods\/held\S* 200 OK/.test(waiting.stderr()), 30_000, 100);
    await cluster.api.delete(`${podsPath}/held`, { gracePeriodSeconds: 0 });
    expect((await cluster.api.get<Pod>(`${podsPath}/held`)).metadata?.deletionTimestamp).toBeDefined();
    await cluster.api.patch(`${podsPath}/held`, { metadata: { finalizers: null } });
    const waited = await waiting.done;
    expect({ code: waited.code, stdout: waited.stdout }).toEqual({ code: 0, stdout: "pod/held condition met\n" });
    expect(await gone(`${podsPath}/held`)).toBe(true);
    expect(kubectl(["wait", "--for=delete", "pod/held", "--timeout=5s"])).toMatchObject({ code: 0, stderr: "" });

    // delete --all (1.32 sends propagationPolicy Background): every Job and its pods.
    await createJob("all-1", "sleep 300");
    await createJob("all-2", "sleep 300");
    const delAll = kubectl(["delete", "jobs", "--all"]);
    expect(delAll.code).toBe(0);
    expect(lines(delAll.stdout)).toEqual(expect.arrayContaining(['job.batch "all-1" deleted', 'job.batch "all-2" deleted']));
    expect(kubectl(["get", "jobs"])).toMatchObject({ code: 0, stdout: "", stderr: "No resources found in default namespace.\n" });
    await waitFor("all-1 and all-2 pods deleted", async () => (await podsOf(cluster.api, "all-1")).length + (await podsOf(cluster.api, "all-2")).length === 0, 90_000, 200);
  });

  it("diff -f (server-side dry run), run + logs, logs -f job/x, logs --tail, logs -l", async () => {
    const dir = mkdtempSync(join(home, "diff-"));
    const manifest = (backoffLimit: number) => `apiVersion: batch/v1
kind: Job
metadata:
  name: lg
spec:
  backoffLimit: ${String(backoffLimit)}
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 1
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "for i in 1 2 3 4 5; do echo line $i; sleep 0.2; done"]
`;
    writeFileSync(join(dir, "v1.yaml"), manifest(6));
    writeFileSync(join(dir, "v2.yaml"), manifest(3));
    // A Job that does not exist yet: the whole object is new (exit 1: differences found).
    const created = kubectl(["diff", "-f", join(dir, "v1.yaml")]);
    expect(created.code).toBe(1);
    expect(created.stdout).toMatch(/^\+\s+backoffLimit: 6$/m);
    expect(created.stdout).toMatch(/^\+kind: Job$/m);
    expect(await gone(`${jobsPath}/lg`)).toBe(true);
    expect(kubectl(["apply", "-f", join(dir, "v1.yaml")])).toMatchObject({ code: 0, stdout: "job.batch/lg created\n" });

    // logs -f job/x: finds the Job's pod and follows it to the end. kubectl waits for the pod to
    // exist, not for its container to start (a container still being created is an error, as on
    // Kubernetes), so the test waits until the container has started.
    await waitFor("lg's pod started", async () => (await podsOf(cluster.api, "lg")).some((p) => p.status?.phase === "Running" || p.status?.phase === "Succeeded"), 60_000);
    const follow = kubectl(["logs", "-f", "job/lg"], { timeoutMs: 60_000 });
    expect(follow).toEqual({ code: 0, stdout: "line 1\nline 2\nline 3\nline 4\nline 5\n", stderr: "" });
    await waitForCondition(cluster.api, "lg", "Complete");
    expect(kubectl(["logs", "job/lg", "--tail=2"])).toEqual({ code: 0, stdout: "line 4\nline 5\n", stderr: "" });
    expect(kubectl(["logs", "-l", "job-name=lg"])).toEqual({ code: 0, stdout: "line 1\nline 2\nline 3\nline 4\nline 5\n", stderr: "" });
    expect(kubectl(["logs", "-l", "job-name=lg", "--tail=1"])).toEqual({ code: 0, stdout: "line 5\n", stderr: "" });
    expect(kubectl(["logs", "-l", "job-name=nope"])).toEqual({ code: 0, stdout: "", stderr: "No resources found in default namespace.\n" });

    // Unchanged: exit 0, nothing printed. Changed: a unified diff of the live and the merged object.
    expect(kubectl(["diff", "-f", join(dir, "v1.yaml")])).toEqual({ code: 0, stdout: "", stderr: "" });
    const changed = kubectl(["diff", "-f", join(dir, "v2.yaml")]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(/^--- \/tmp\/LIVE-\d+\/batch\.v1\.Job\.default\.lg\t/m);
    expect(changed.stdout).toMatch(/^-\s+backoffLimit: 6$/m);
    expect(changed.stdout).toMatch(/^\+\s+backoffLimit: 3$/m);
    expect(changed.stdout).toMatch(/^-\s+generation: 1$/m);
    expect(changed.stdout).toMatch(/^\+\s+generation: 2$/m);
    expect((await cluster.api.get<Job>(`${jobsPath}/lg`)).spec?.backoffLimit).toBe(6);

    const run = kubectl(["run", "p", "--image=busybox", "--restart=Never", "--", "echo", "hi"]);
    expect(run).toEqual({ code: 0, stdout: "pod/p created\n", stderr: "" });
    const ran = kubectl(["wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/p", "--timeout=60s"]);
    expect(ran).toMatchObject({ code: 0, stdout: "pod/p condition met\n" });
    expect(kubectl(["logs", "p"])).toEqual({ code: 0, stdout: "hi\n", stderr: "" });
    const p = await cluster.api.get<Pod>(`${podsPath}/p`);
    expect(p.metadata?.labels).toEqual({ run: "p" });
    expect(p.spec?.containers[0]).toMatchObject({ name: "p", image: "busybox", args: ["echo", "hi"] });
    expect(kubectl(["logs", "nope"])).toMatchObject({ code: 1, stderr: 'error: error from server (NotFound): pods "nope" not found in namespace "default"\n' });
  });

  it("cordon/uncordon (new pods avoid the node), taint, drain (evictions through pods/eviction)", async () => {
    expect(kubectl(["cordon", "node-a"])).toEqual({ code: 0, stdout: "node/node-a cordoned\n", stderr: "" });
    expect(kubectl(["cordon", "node-a"])).toEqual({ code: 0, stdout: "node/node-a already cordoned\n", stderr: "" });
    expect(row(kubectl(["get", "nodes"]).stdout, "node-a")?.[1]).toBe("Ready,SchedulingDisabled");
    await createJob("avoid", "echo avoided", { completions: 4, parallelism: 4 });
    await waitForCondition(cluster.api, "avoid", "Complete");
    expect(new Set((await podsOf(cluster.api, "avoid")).map((p) => p.spec?.nodeName))).toEqual(new Set(["node-b"]));
    expect(kubectl(["uncordon", "node-a"])).toEqual({ code: 0, stdout: "node/node-a uncordoned\n", stderr: "" });
    expect((await cluster.api.get<Node>("/api/v1/nodes/node-a")).spec?.unschedulable).toBeUndefined();

    // taint: node-b NoSchedule → new pods land on node-a; then removed with `key:effect-`.
    expect(kubectl(["taint", "nodes", "node-b", "dedicated=gpu:NoSchedule"])).toEqual({ code: 0, stdout: "node/node-b tainted\n", stderr: "" });
    expect(kubectl(["taint", "nodes", "node-b", "dedicated=cpu:NoSchedule"])).toMatchObject({ code: 1, stderr: "error: node node-b already has dedicated taint(s) with same effect(s) and --overwrite is false\n" });
    expect((await cluster.api.get<Node>("/api/v1/nodes/node-b")).spec?.taints).toEqual([{ key: "dedicated", value: "gpu", effect: "NoSchedule" }]);
    await createJob("tainted", "echo tainted", { completions: 2, parallelism: 2 });
    await waitForCondition(cluster.api, "tainted", "Complete");
    expect(new Set((await podsOf(cluster.api, "tainted")).map((p) => p.spec?.nodeName))).toEqual(new Set(["node-a"]));
    expect(kubectl(["taint", "nodes", "node-b", "dedicated:NoSchedule-"])).toEqual({ code: 0, stdout: "node/node-b untainted\n", stderr: "" });
    expect((await cluster.api.get<Node>("/api/v1/nodes/node-b")).spec?.taints ?? []).toEqual([]);

    // drain: cordon, then evict each pod of the node (POST pods/{name}/eviction, policy/v1) and
    // wait until they are gone; the Job replaces its pod on the other node. The Job's pod is put
    // on node-a by tainting node-b while it is scheduled.
    expect(kubectl(["taint", "nodes", "node-b", "hold=on:NoSchedule"])).toMatchObject({ code: 0 });
    await createJob("drained", "sleep 300");
    const first = await waitFor("a running drained pod", async () => (await podsOf(cluster.api, "drained")).find((p) => p.status?.phase === "Running"), 60_000, 200);
    expect(first.spec?.nodeName).toBe("node-a");
    expect(kubectl(["taint", "nodes", "node-b", "hold:NoSchedule-"])).toMatchObject({ code: 0 });
    const onA = (await cluster.api.get<{ items: Pod[] }>("/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a")).items.filter((p) => !p.metadata?.deletionTimestamp);
    const drain = kubectl(["drain", "node-a", "--timeout=60s"]);
    expect(drain.stderr).toBe("");
    expect(drain.code).toBe(0);
    expect(lines(drain.stdout)[0]).toBe("node/node-a cordoned");
    expect(lines(drain.stdout).at(-1)).toBe("node/node-a drained");
    expect(lines(drain.stdout).filter((l) => l.startsWith("evicting pod ")).sort()).toEqual(onA.map((p) => `evicting pod default/${p.metadata?.name ?? ""}`).sort());
    expect(lines(drain.stdout).filter((l) => l.endsWith(" evicted")).sort()).toEqual(onA.map((p) => `pod/${p.metadata?.name ?? ""} evicted`).sort());
    for (const p of onA) expect(await gone(`${podsPath}/${p.metadata?.name ?? ""}`)).toBe(true);
    const replacement = await waitFor("the replacement running", async () => (await podsOf(cluster.api, "drained")).find((p) => p.status?.phase === "Running"), 60_000, 200);
    expect(replacement.spec?.nodeName).toBe("node-b");
    expect(replacement.metadata?.uid).not.toBe(first.metadata?.uid);
    expect(kubectl(["uncordon", "node-a"])).toMatchObject({ code: 0 });
    await cluster.api.delete(`${jobsPath}/drained`, { propagationPolicy: "Background" });
  });

  it("pods/eviction over HTTP: a policy/v1 Eviction deletes the pod with its DeleteOptions; 1.23's errors", async () => {
    const pod = (name: string) => ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName: "node-a", terminationGracePeriodSeconds: 30, containers: [{ name: "c", image: "busybox", command: ["sleep", "300"] }] } });
    await cluster.api.create(podsPath, pod("ev-1"));
    const evict = (name: string, body: unknown) => cluster.api.create(`${podsPath}/${name}/eviction`, body);
    await expect(evict("ev-1", { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "other" } })).rejects.toMatchObject({ status: 400, body: expect.stringContaining("name in URL does not match name in Eviction object") });
    await expect(evict("ev-1", { apiVersion: "v1", kind: "Pod", metadata: { name: "ev-1" } })).rejects.toMatchObject({ status: 400 });
    await expect(evict("nope", { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "nope" } })).rejects.toMatchObject({ status: 404, body: expect.stringContaining('pods \\"nope\\" not found') });
    await expect(evict("ev-1", { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "ev-1" }, deleteOptions: { preconditions: { uid: "wrong" } } })).rejects.toMatchObject({ status: 409 });
    // dryRun leaves the pod as it is.
    expect(await evict("ev-1", { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "ev-1" }, deleteOptions: { dryRun: ["All"] } })).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
    expect((await cluster.api.get<Pod>(`${podsPath}/ev-1`)).metadata?.deletionTimestamp).toBeUndefined();
    expect(await evict("ev-1", { apiVersion: "policy/v1beta1", kind: "Eviction", metadata: { name: "ev-1" }, deleteOptions: { gracePeriodSeconds: 0 } })).toMatchObject({ status: "Success", code: 201 });
    await waitFor("ev-1 gone", () => gone(`${podsPath}/ev-1`), 30_000, 100);
  });

  it("auth can-i, auth whoami, config view --minify", () => {
    expect(kubectl(["auth", "can-i", "create", "jobs"])).toEqual({ code: 0, stdout: "yes\n", stderr: "" });
    expect(kubectl(["auth", "can-i", "delete", "pods", "--subresource=eviction"])).toEqual({ code: 0, stdout: "yes\n", stderr: "" });
    expect(kubectl(["auth", "can-i", "get", "/healthz"])).toEqual({ code: 0, stdout: "yes\n", stderr: "" });
    const whoami = kubectl(["auth", "whoami"]);
    expect(whoami.code).toBe(0);
    expect(lines(whoami.stdout).map((l) => l.trim().split(/\s{2,}/))).toEqual([
      ["ATTRIBUTE", "VALUE"],
      ["Username", "admin"],
      ["UID", "admin"],
      ["Groups", "[system:masters system:authenticated]"],
    ]);
    const view = kubectl(["config", "view", "--minify"]);
    expect(view.code).toBe(0);
    expect(view.stdout).toMatch(/^apiVersion: v1\nclusters:\n- cluster:\n {4}certificate-authority-data: DATA\+OMITTED\n {4}server: https:\/\/127\.0\.0\.1:\d+\n {2}name: skiff\n/);
    expect(view.stdout).toContain("current-context: skiff\n");
    expect(view.stdout).toContain("    token: REDACTED\n");
  });

  it("top: the apiserver serves metrics.k8s.io (metrics-server's role), so kubectl top prints numbers", async () => {
    const out = await waitFor("kubectl top nodes", () => {
      const r = kubectl(["top", "nodes"]);
      return r.code === 0 ? r : undefined;
    }, 60_000, 1_000);
    expect(header(out.stdout)).toEqual(["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]);
    expect(row(out.stdout, "node-a")?.[1]).toMatch(/^\d+m$/);
    expect(row(out.stdout, "node-b")?.[3]).toMatch(/^\d+Mi$/);
  });
});
