// kubectl acceptance (issue 3): the real kubectl 1.32 and 1.27 against the real skiff-apiserver,
// on all four kinds — api-resources, create -f, get (table, -o yaml, -o wide, -w, --chunk-size,
// -l, --field-selector), delete, explain — and errors printed as Kubernetes prints them.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, writeKubeconfig, removeWhenDone } from "./harness.js";
import type { RunningServer } from "./harness.js";
import { Kubectl, headerColumns, kindCases, kubectlBuilds } from "./kubectl-helpers.js";
import type { KindCase } from "./kubectl-helpers.js";

const missing = kubectlBuilds.filter((b) => b.path === undefined).map((b) => b.label);
if (missing.length > 0) console.warn(`kubectl ${missing.join(", ")} not installed here: those builds are skipped`);

// Valid names per kind: CSIDriver names look like driver names.
const objName = (c: KindCase, tag: string, ver: string) => (c.kind === "CSIDriver" ? `${tag}-${ver}.csi.example.io` : `${tag}-${ver}`);
const plural = (c: KindCase) => (c.qualified.includes(".") ? `${c.resource}.${c.qualified.slice(c.qualified.indexOf(".") + 1)}` : c.resource);

let s: RunningServer;
let kubeconfig: string;
beforeAll(async () => {
  s = await startServer();
  kubeconfig = await writeKubeconfig(s);
}, 60_000);
afterAll(async () => {
  await s.stop();
});

describe.each(kubectlBuilds.map((b) => [b.label, b] as const))("kubectl %s", (label, build) => {
  const ver = `v${label.replace(".", "")}`;
  const k = () => new Kubectl(build.path ?? "", kubeconfig, join(s.dir, `home-${ver}`));
  const skip = build.path === undefined;
  // Default validation (--validate=strict) on every build: 1.27 reads /openapi/v2 first.
  const create = (kc: Kubectl, file: string) => kc.run("create", "-f", file);

  it.skipIf(skip)("api-resources lists the four kinds with group/version, scope and kind", () => {
    const r = k().run("api-resources");
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split("\n").map((l) => l.trim().split(/\s+/));
    const row = (name: string) => rows.find((cols) => cols[0] === name);
    expect(row("jobs")).toEqual(["jobs", "batch/v1", "true", "Job"]);
    expect(row("csidrivers")).toEqual(["csidrivers", "storage.example.io/v1", "false", "CSIDriver"]);
    expect(row("csinodes")).toEqual(["csinodes", "storage.example.io/v1", "false", "CSINode"]);
    expect(row("podtemplates")).toEqual(["podtemplates", "v1", "true", "PodTemplate"]);
    const grouped = k().run("api-resources", "--api-group=storage.example.io", "-o", "name");
    expect(grouped.stdout.trim().split("\n").sort()).toEqual(["csidrivers.storage.example.io", "csinodes.storage.example.io"]);
  });

  it.skipIf(skip)("pods: Priority admission resolves the built-in classes and refuses an unknown one with 1.23's message", async () => {
    const kc = k();
    const manifest = (name: string, className: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  priorityClassName: ${className}
  containers: [{name: c, image: busybox}]
`;
    const critical = join(s.dir, `prio-ok-${ver}.yaml`);
    await writeFile(critical, manifest(`prio-ok-${ver}`, "system-node-critical"));
    const created = create(kc, critical);
    expect(created.code, created.stderr).toBe(0);
    const got = kc.run("get", "pod", `prio-ok-${ver}`, "-o", "jsonpath={.spec.priority} {.spec.preemptionPolicy}");
    expect(got.stdout).toBe("2000001000 PreemptLowerPriority");
    const unknown = join(s.dir, `prio-bad-${ver}.yaml`);
    await writeFile(unknown, manifest(`prio-bad-${ver}`, "high"));
    const refused = create(kc, unknown);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`Error from server (Forbidden): error when creating "${unknown}": pods "prio-bad-${ver}" is forbidden: no PriorityClass with name high was found\n`);
    expect(kc.run("delete", "pod", `prio-ok-${ver}`, "--grace-period=0").code).toBe(0);
  });

  it.skipIf(skip)("priorityclasses: kubectl create priorityclass, get pc, the global default, and 1.23's refusals", () => {
    const kc = k();
    const ok = (r: { code: number | null; stdout: string; stderr: string }) => {
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    expect(ok(kc.run("create", "priorityclass", `high-${ver}`, "--value=1000", "--description=for the important ones"))).toBe(`priorityclass.scheduling.k8s.io/high-${ver} created\n`);
    const table = ok(kc.run("get", "pc")).split("\n");
    expect(headerColumns(table[0] ?? "")).toEqual(["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE"]);
    expect(table.find((l) => l.startsWith("system-node-critical"))?.split(/\s+/).slice(0, 3)).toEqual(["system-node-critical", "2000001000", "false"]);
    expect(table.find((l) => l.startsWith(`high-${ver}`))?.split(/\s+/).slice(0, 3)).toEqual([`high-${ver}`, "1000", "false"]);
    expect(ok(kc.run("get", "priorityclass", `high-${ver}`, "-o", "jsonpath={.value} {.preemptionPolicy} {.description}"))).toBe("1000 PreemptLowerPriority for the important ones");

    const tooHigh = kc.run("create", "priorityclass", `too-high-${ver}`, "--value=1000000001");
    // kubectl's imperative create prints the Status message (1.23's qualified kind) after its own prefix.
    expect(tooHigh.stderr).toBe(`error: failed to create priorityclass: PriorityClass.scheduling.k8s.io "too-high-${ver}" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000\n`);
    const changed = kc.run("patch", "pc", `high-${ver}`, "--type=merge", "-p", '{"value":5}');
    expect(changed.stderr).toBe(`The PriorityClass "high-${ver}" is invalid: value: Forbidden: may not be changed in an update.\n`);
    const system = kc.run("delete", "pc", "system-node-critical");
    expect(system.stderr).toBe('Error from server (Forbidden): priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted\n');

    // A pod naming the class gets its value; with a global default, a pod naming none gets the default.
    ok(kc.run("run", `prio-user-${ver}`, "--image=busybox", "--restart=Never", `--overrides={"spec":{"priorityClassName":"high-${ver}"}}`));
    expect(ok(kc.run("get", "pod", `prio-user-${ver}`, "-o", "jsonpath={.spec.priority}"))).toBe("1000");
    ok(kc.run("create", "priorityclass", `default-${ver}`, "--value=7", "--global-default", "--preemption-policy=Never"));
    const second = kc.run("create", "priorityclass", `default2-${ver}`, "--value=8", "--global-default");
    expect(second.stderr).toBe(`error: failed to create priorityclass: priorityclasses.scheduling.k8s.io "default2-${ver}" is forbidden: PriorityClass default-${ver} is already marked as default. Only one default can exist\n`);
    ok(kc.run("run", `prio-default-${ver}`, "--image=busybox", "--restart=Never"));
    expect(ok(kc.run("get", "pod", `prio-default-${ver}`, "-o", "jsonpath={.spec.priorityClassName} {.spec.priority} {.spec.preemptionPolicy}"))).toBe(`default-${ver} 7 Never`);
    ok(kc.run("delete", "pod", `prio-user-${ver}`, `prio-default-${ver}`, "--grace-period=0"));
    ok(kc.run("delete", "pc", `high-${ver}`, `default-${ver}`));
  });

  it.skipIf(skip)("pods: RuntimeClass admission refuses a runtimeClassName and a pod overhead (Skiff serves no RuntimeClasses), with 1.23's messages", () => {
    const kc = k();
    const named = kc.run("run", `rc-${ver}`, "--image=busybox", "--restart=Never", '--overrides={"spec":{"runtimeClassName":"gvisor"}}');
    expect(named.stderr).toBe(`Error from server (Forbidden): pods "rc-${ver}" is forbidden: pod rejected: RuntimeClass "gvisor" not found\n`);
    const overhead = kc.run("run", `oh-${ver}`, "--image=busybox", "--restart=Never", '--overrides={"spec":{"overhead":{"cpu":"100m"}}}');
    expect(overhead.stderr).toBe(`Error from server (Forbidden): pods "oh-${ver}" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead\n`);
    expect(kc.run("get", "pod", `rc-${ver}`).code).toBe(1);
  });

  it.skipIf(skip)("speaks HTTP/2 to the apiserver (ALPN h2), requests and watch as streams of one connection", () => {
    // Go's http2 transport logs each connection it creates with GODEBUG=http2debug=1.
    const r = k().runWithEnv({ GODEBUG: "http2debug=1" }, "get", "podtemplates", "--watch-only", "--request-timeout=2s");
    const conns = r.stderr.split("\n").filter((l) => l.includes("http2: Transport creating client conn"));
    expect(conns.length, r.stderr.slice(0, 2000)).toBe(1);
    expect(r.stderr).toMatch(/http2: Transport encoding header ":path" = "\/api\/v1\/namespaces\/default\/podtemplates\?.*watch=true/);
  });

  it.skipIf(skip).each(kindCases.map((c) => [c.kind, c] as const))(
    "%s: create -f, AlreadyExists, get (table, -o yaml, -o wide, -l, --field-selector, --chunk-size=1), delete, NotFound",
    async (_kind, c) => {
      const kc = k();
      const a = objName(c, "a", ver);
      const b = objName(c, "b", ver);
      const fa = await kc.manifest(`${c.resource}-a-${ver}.yaml`, c.manifest(a, { family: ver, tier: "gold" }));
      const fb = await kc.manifest(`${c.resource}-b-${ver}.yaml`, c.manifest(b, { family: ver }));

      const created = create(kc, fa);
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout.trim()).toBe(`${c.qualified}/${a} created`);
      expect(create(kc, fb).code).toBe(0);

      const again = create(kc, fa);
      expect(again.code).toBe(1);
      expect(again.stderr.trim()).toBe(`Error from server (AlreadyExists): error when creating "${fa}": ${plural(c)} "${a}" already exists`);

      const table = kc.run("get", c.resource, a);
      expect(table.code, table.stderr).toBe(0);
      expect(headerColumns(table.stdout)).toEqual(c.columns);
      expect(table.stdout.split("\n")[1]?.split(/\s{2,}/)[0]).toBe(a);

      const wide = kc.run("get", c.resource, a, "-o", "wide");
      expect(headerColumns(wide.stdout)).toEqual(c.wideColumns);

      const y = kc.run("get", c.resource, a, "-o", "yaml");
      expect(y.code, y.stderr).toBe(0);
      expect(y.stdout).toContain(`kind: ${c.kind}\n`);
      expect(y.stdout).toContain(`  name: ${a}\n`);
      expect(y.stdout).toMatch(/ {2}resourceVersion: "\d+"\n/);
      expect(y.stdout).toMatch(/ {2}uid: [0-9a-f-]{36}\n/);

      const byLabel = kc.run("get", c.resource, "-l", `family=${ver},tier=gold`, "-o", "name");
      expect(byLabel.stdout.trim()).toBe(`${c.qualified}/${a}`);
      const byField = kc.run("get", c.resource, "--field-selector", `metadata.name=${b}`, "-o", "name");
      expect(byField.stdout.trim()).toBe(`${c.qualified}/${b}`);
      const badField = kc.run("get", c.resource, "--field-selector", "spec.nothing=1");
      expect(badField.code).toBe(1);
      expect(badField.stderr).toContain("Error from server (BadRequest):");

      const chunked = kc.run("get", c.resource, "-l", `family=${ver}`, "--chunk-size=1", "-v=6");
      expect(chunked.code, chunked.stderr).toBe(0);
      expect(chunked.stdout.split("\n").slice(1).filter(Boolean).map((l) => l.split(/\s{2,}/)[0])).toEqual([a, b].sort());
      // Two items at one per page: kubectl followed a continue token.
      expect(chunked.stderr).toMatch(/limit=1/);
      expect(chunked.stderr).toMatch(/continue=/);

      const del = kc.run("delete", c.resource, a);
      expect(del.code, del.stderr).toBe(0);
      expect(del.stdout.trim()).toBe(`${c.qualified} "${a}" deleted`);
      const gone = kc.run("get", c.resource, a);
      expect(gone.code).toBe(1);
      expect(gone.stderr.trim()).toBe(`Error from server (NotFound): ${plural(c)} "${a}" not found`);
      expect(kc.run("delete", "-f", fb).code).toBe(0);
    },
    120_000,
  );

  it.skipIf(skip).each(kindCases.map((c) => [c.kind, c] as const))(
    "%s: get -w shows ADDED, MODIFIED and DELETED rows as they happen",
    async (_kind, c) => {
      const kc = k();
      const name = objName(c, "w", ver);
      const file = await kc.manifest(`${c.resource}-w-${ver}.yaml`, c.manifest(name, { watched: ver }));
      const w = kc.watch("get", c.resource, "-w", "--output-watch-events", "-l", `watched=${ver}`);
      try {
        // Give the list+watch a moment to be established before writing (a missed ADDED still
        // arrives through the initial list, so this cannot make the test pass wrongly).
        await new Promise((r) => setTimeout(r, 1500));
        expect(create(kc, file).code).toBe(0);
        const added = await w.waitFor(new RegExp(`^ADDED\\s+${name.replace(/\./g, "\\.")}\\s`));
        if (c.kind === "Job") expect(added).toMatch(/\s0\/3\s/);
        expect(kc.run("label", c.resource, name, "touched=yes").code).toBe(0);
        await w.waitFor(new RegExp(`^MODIFIED\\s+${name.replace(/\./g, "\\.")}\\s`));
        expect(kc.run("delete", c.resource, name).code).toBe(0);
        await w.waitFor(new RegExp(`^DELETED\\s+${name.replace(/\./g, "\\.")}\\s`));
        expect(headerColumns(w.output())).toEqual(["EVENT", ...c.columns]);
      } finally {
        await w.stop();
      }
    },
    120_000,
  );

  it.skipIf(skip).each(kindCases.map((c) => [c.kind, c] as const))("%s: explain reads the OpenAPI v3 document", (_kind, c) => {
    const r = k().run("explain", c.explainField);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`KIND:\\s+${c.kind}\\n`));
    expect(r.stdout).toMatch(new RegExp(`FIELD:\\s+${c.explainField.split(".").pop() ?? ""}`));
    expect(r.stdout).toContain("DESCRIPTION:");
    const top = k().run("explain", c.resource);
    expect(top.stdout).toMatch(/FIELDS:\n/);
    expect(top.stdout).toMatch(/\bmetadata\s+<(Object|ObjectMeta)>/);
  });

  it.skipIf(skip).each(kindCases.map((c) => [c.kind, c] as const))("%s: an invalid object prints Kubernetes' Invalid line", async (_kind, c) => {
    const kc = k();
    const name = objName(c, "bad", ver);
    const file = await kc.manifest(`${c.resource}-bad-${ver}.yaml`, c.invalid.manifest(name));
    const r = create(kc, file);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(c.invalid.line(name));
  });

  it.skipIf(skip)("default create -f rejects unknown fields (fieldValidation=Strict) and stores nothing", async () => {
    const kc = k();
    const name = `unknown-${ver}`;
    const manifest = (kindCases[0]?.manifest(name, {}) ?? "").replace("spec:\n", "spec:\n  bogus: 1\n").replace("image: busybox:1.36\n", "image: busybox:1.36\n        colour: red\n");
    const file = await kc.manifest(`unknown-${ver}.yaml`, manifest);
    const r = kc.run("create", "-f", file, "-v=6");
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/POST \S+\/jobs\?fieldManager=kubectl-create&fieldValidation=Strict 400/);
    expect(r.stderr).toContain(
      `Error from server (BadRequest): error when creating "${file}": strict decoding error: unknown field "spec.bogus", unknown field "spec.template.spec.containers[0].colour"`,
    );
    expect(kc.run("get", "job", name).code).toBe(1);
  });

  // kubectl 1.27 parses /openapi/v2 (gnostic protobuf) into its proto models before create and
  // explain; a document it cannot parse fails both. --output=plaintext-openapiv2 prints from v2 only.
  it.skipIf(skip || !build.readsOpenAPIV2).each(kindCases.map((c) => [c.kind, c] as const))("%s: /openapi/v2 is read (protobuf) and explain prints from it", (_kind, c) => {
    const r = k().run("explain", c.explainField, "--output=plaintext-openapiv2", "-v=6");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/GET \S+\/openapi\/v2\?timeout=32s 200 OK/);
    expect(r.stdout).toMatch(new RegExp(`KIND:\\s+${c.kind}\\n`));
    expect(r.stdout).toMatch(new RegExp(`(FIELD|RESOURCE):\\s+${c.explainField.split(".").pop() ?? ""} <`));
    expect(r.stdout).toContain("DESCRIPTION:");
    const top = k().run("explain", c.resource, "--output=plaintext-openapiv2");
    expect(top.stdout).toMatch(/FIELDS:\n/);
    expect(top.stdout).toMatch(/\bmetadata\s+<Object>/);
  });

  it.skipIf(skip)("a wrong token prints the Unauthorized error and exits 1", async () => {
    const bad = join(s.dir, `kubeconfig-bad-${ver}`);
    const { readFile } = await import("node:fs/promises");
    await writeFile(bad, (await readFile(kubeconfig, "utf8")).replace(/token: .*/, "token: wrong-token"));
    const r = new Kubectl(build.path ?? "", bad, join(s.dir, `home-bad-${ver}`)).run("get", "jobs");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: You must be logged in to the server \((Unauthorized|the server has asked for the client to provide credentials)\)$/m);
  });
});

describe("kubectl against an ABAC-restricted server: Forbidden", () => {
  let ro: RunningServer;
  beforeAll(async () => {
    const { mkdtemp } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const dir = removeWhenDone(await mkdtemp(join(tmpdir(), "skiff-abac-")));
    const policy = join(dir, "policy.jsonl");
    const line = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Policy", spec });
    await writeFile(policy, [line({ user: "viewer", namespace: "*", resource: "*", apiGroup: "*", readonly: true }), line({ user: "viewer", nonResourcePath: "*" })].join("\n") + "\n");
    // system:masters bypasses every authorizer (1.23's privileged-groups authorizer), so the denied
    // user is a second, plain one; this later --token-auth-file replaces the harness's.
    const tokens = join(dir, "tokens.csv");
    await writeFile(tokens, `admin-token,viewer,2,"readers"\n`);
    ro = await startServer({ extraArgs: ["--authorization-mode=ABAC", `--authorization-policy-file=${policy}`, `--token-auth-file=${tokens}`] });
  }, 60_000);
  afterAll(async () => {
    await ro.stop();
  });

  it.each(kubectlBuilds.filter((b) => b.path !== undefined).map((b) => [b.label, b] as const))("kubectl %s: create as a read-only user is Forbidden", async (label, build) => {
    const kc = new Kubectl(build.path ?? "", await writeKubeconfig(ro), join(ro.dir, `home-${label}`));
    const file = await kc.manifest("job.yaml", kindCases[0]?.manifest("denied", {}) ?? "");
    const r = kc.run("create", "-f", file);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(
      new RegExp(`^Error from server \\(Forbidden\\): error when creating "${file}": jobs\\.batch is forbidden: User "viewer" cannot create resource "jobs" in API group "batch" in the namespace "default"`),
    );
    expect(kc.run("get", "jobs").code).toBe(0);
  }, 60_000);
});
