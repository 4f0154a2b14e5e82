// pods/ephemeralcontainers (1.23's EphemeralContainersREST) against the real apiserver: kubectl
// 1.32's `debug` (a strategic-merge PATCH of the subresource), `describe`, the subresource's
// PUT / JSON patch / merge patch, 1.23's validation messages, a regular pod update that may not
// touch ephemeral containers, discovery, RBAC on pods/ephemeralcontainers, and the
// EphemeralContainers gate turned off.
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, removeWhenDone, startServer, writeKubeconfig } from "./harness.js";
import type { RunningServer } from "./harness.js";
import { Kubectl, kubectlBuilds } from "./kubectl-helpers.js";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers

const pods = "/api/v1/namespaces/default/pods";
const kubectl132 = kubectlBuilds.find((b) => b.label === "1.32")?.path;
const podBody = (name: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { nodeName: "n1", containers: [{ name: "app", image: "busybox:1.36", command: ["sleep", "3600"] }] },
});
const debugger1 = { name: "debugger-1", image: "busybox", command: ["sh"], imagePullPolicy: "IfNotPresent", terminationMessagePolicy: "File" };

describe("pods/ephemeralcontainers", () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer();
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  it("is listed in discovery with get, patch and update, responding with a Pod", async () => {
    const r = await call(s, "GET", "/api/v1");
    const pod = ((r.json() as Obj)["resources"] as Obj[]).find((x) => x["name"] === "pods/ephemeralcontainers");
    expect(pod).toMatchObject({ kind: "Pod", namespaced: true });
    expect([...(pod?.["verbs"] as string[])].sort()).toEqual(["get", "patch", "update"]);
    const agg = await call(s, "GET", "/api", undefined, { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" });
    const res = ((agg.json() as Obj)["items"][0].versions[0].resources as Obj[]).find((x) => x["resource"] === "pods");
    expect((res?.["subresources"] as Obj[]).find((x) => x["subresource"] === "ephemeralcontainers")).toEqual({
      subresource: "ephemeralcontainers",
      responseKind: { group: "", version: "", kind: "Pod" },
      verbs: ["get", "patch", "update"],
    });
  });

  it("GET returns the pod; PUT keeps only spec.ephemeralContainers of the body", async () => {
    expect((await call(s, "POST", pods, podBody("put"))).status).toBe(201);
    const got = await call(s, "GET", `${pods}/put/ephemeralcontainers`);
    expect(got.status).toBe(200);
    const pod = got.json() as Obj;
    expect(pod["kind"]).toBe("Pod");
    pod["metadata"].labels = { ignored: "yes" };
    pod["spec"].containers[0].image = "busybox:1.37";
    pod["spec"].ephemeralContainers = [debugger1];
    const put = await call(s, "PUT", `${pods}/put/ephemeralcontainers`, pod);
    expect(put.status, put.body).toBe(200);
    const stored = (await call(s, "GET", `${pods}/put`)).json() as Obj;
    expect(stored["metadata"].labels).toBeUndefined();
    expect(stored["spec"].containers[0].image).toBe("busybox:1.36");
    expect(stored["spec"].ephemeralContainers).toEqual([{ ...debugger1, terminationMessagePath: "/dev/termination-log" }]);
    // Removing it is refused with 1.23's message.
    stored["spec"].ephemeralContainers = [];
    const removed = await call(s, "PUT", `${pods}/put/ephemeralcontainers`, stored);
    expect(removed.status).toBe(422);
    expect((removed.json() as Obj)["details"].causes).toEqual([
      { reason: "FieldValueForbidden", message: 'Forbidden: existing ephemeral containers "debugger-1" may not be removed\n', field: "spec.ephemeralContainers" },
    ]);
  });

  it("JSON patch and merge patch; a regular pod update may not change ephemeralContainers", async () => {
    expect((await call(s, "POST", pods, podBody("patches"))).status).toBe(201);
    const jp = await call(s, "PATCH", `${pods}/patches/ephemeralcontainers`, [{ op: "add", path: "/spec/ephemeralContainers", value: [debugger1] }], {
      "content-type": "application/json-patch+json",
    });
    expect(jp.status, jp.body).toBe(200);
    const merge = await call(s, "PATCH", `${pods}/patches/ephemeralcontainers`, { spec: { ephemeralContainers: [{ ...debugger1, image: "busybox:1.36" }] } }, {
      "content-type": "application/merge-patch+json",
    });
    expect(merge.status).toBe(422);
    expect((merge.json() as Obj)["message"]).toContain('spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger-1" may not be changed\n');
    const pod = (await call(s, "GET", `${pods}/patches`)).json() as Obj;
    pod["spec"].ephemeralContainers.push({ ...debugger1, name: "debugger-2" });
    const upd = await call(s, "PUT", `${pods}/patches`, pod);
    expect(upd.status).toBe(422);
    expect((upd.json() as Obj)["details"].causes[0]).toMatchObject({ reason: "FieldValueForbidden", field: "spec" });
    // Ephemeral containers may not be set on create either.
    const created = await call(s, "POST", pods, { ...podBody("on-create"), spec: { ...podBody("x").spec, ephemeralContainers: [debugger1] } });
    expect(created.status).toBe(422);
    expect((created.json() as Obj)["message"]).toContain("spec.ephemeralContainers: Forbidden: cannot be set on create");
    // A missing pod is a 404 naming it (so kubectl does not mistake it for a disabled feature).
    const missing = await call(s, "GET", `${pods}/nope/ephemeralcontainers`);
    expect(missing.status).toBe(404);
    expect((missing.json() as Obj)["details"]).toMatchObject({ name: "nope", kind: "pods" });
  });

  describe.skipIf(kubectl132 === undefined)("kubectl 1.32", () => {
    let k: Kubectl;
    beforeAll(async () => {
      k = new Kubectl(kubectl132!, await writeKubeconfig(s), join(s.dir, "kubectl-home"));
      expect((await call(s, "POST", pods, podBody("web"))).status).toBe(201);
    });

    it("kubectl debug --target adds an ephemeral container through a strategic-merge patch", async () => {
      const r = k.run("debug", "web", "--image=busybox", "--target=app", "--", "sh", "-c", "echo hi");
      expect(r.code, r.stderr).toBe(0);
      const pod = (await call(s, "GET", `${pods}/web`)).json() as Obj;
      expect(pod["spec"].ephemeralContainers).toHaveLength(1);
      const name = pod["spec"].ephemeralContainers[0].name as string;
      expect(name).toMatch(/^debugger-[a-z0-9]{5}$/);
      expect(pod["spec"].ephemeralContainers[0]).toMatchObject({ name, image: "busybox", targetContainerName: "app", command: ["sh", "-c", "echo hi"], imagePullPolicy: "Always" });
      // A second debug container joins the first.
      const r2 = k.run("debug", "web", "--image=busybox:1.36", "-c", "second", "--", "true");
      expect(r2.code, r2.stderr).toBe(0);
      const again = (await call(s, "GET", `${pods}/web`)).json() as Obj;
      expect((again["spec"].ephemeralContainers as Obj[]).map((c) => c["name"])).toEqual([name, "second"]);
    });

    it("kubectl describe pod shows Ephemeral Containers", () => {
      const r = k.run("describe", "pod", "web");
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/Ephemeral Containers:\n\s+debugger-[a-z0-9]+:/);
      expect(r.stdout).toMatch(/Ephemeral Containers:\n\s+debugger-[a-z0-9]+:\n\s+Image:\s+busybox\n/);
    });

    it("kubectl debug with a target that is not a container gets 1.23's Not found", () => {
      const r = k.run("debug", "web", "--image=busybox", "--target=nope", "--", "true");
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/spec\.ephemeralContainers\[\d\]\.targetContainerName: Not found: "nope"/);
    });

    it("kubectl debug with a name already used gets Duplicate value", () => {
      const r = k.run("debug", "web", "--image=busybox", "-c", "app", "--", "true");
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/spec\.ephemeralContainers\[\d\]\.name: Duplicate value: "app"/);
    });
  });
});

describe.skipIf(kubectl132 === undefined)("pods/ephemeralcontainers with the EphemeralContainers gate off", () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer({ extraArgs: ["--feature-gates=EphemeralContainers=false"] });
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  it("is not served and kubectl debug says ephemeral containers are disabled", async () => {
    expect((await call(s, "POST", pods, podBody("web"))).status).toBe(201);
    expect((await call(s, "GET", `${pods}/web/ephemeralcontainers`)).status).toBe(404);
    const k = new Kubectl(kubectl132!, await writeKubeconfig(s), join(s.dir, "kubectl-home"));
    const r = k.run("debug", "web", "--image=busybox", "--", "true");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("ephemeral containers are disabled for this cluster");
  });
});

describe.skipIf(kubectl132 === undefined)("pods/ephemeralcontainers under RBAC", () => {
  let s: RunningServer;
  let admin: Kubectl;
  let bob: Kubectl;
  beforeAll(async () => {
    const tokens = join(removeWhenDone(await mkdtemp(join(tmpdir(), "skiff-ec-rbac-"))), "tokens.csv");
    await writeFile(tokens, `${adminToken},admin,1,"system:masters"\nbob-token,bob,2\n`);
    s = await startServer({ extraArgs: ["--authorization-mode=RBAC", `--token-auth-file=${tokens}`] });
    const kubeconfig = await writeKubeconfig(s);
    const bobConfig = join(s.dir, "bob.kubeconfig");
    await writeFile(bobConfig, (await readFile(kubeconfig, "utf8")).replace(`token: ${adminToken}`, "token: bob-token"));
    admin = new Kubectl(kubectl132!, kubeconfig, join(s.dir, "admin-home"));
    bob = new Kubectl(kubectl132!, bobConfig, join(s.dir, "bob-home"));
  }, 90_000);
  afterAll(async () => {
    await s.stop();
  });

  it("is authorized as the resource pods/ephemeralcontainers", async () => {
    expect((await call(s, "POST", pods, podBody("web"))).status).toBe(201);
    expect(admin.run("create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods").code).toBe(0);
    expect(admin.run("create", "rolebinding", "bob-reads", "--role=pod-reader", "--user=bob").code).toBe(0);
    const refused = bob.run("debug", "web", "--image=busybox", "--", "true");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('User "bob" cannot patch resource "pods/ephemeralcontainers" in API group "" in the namespace "default"');
    expect(admin.run("create", "role", "debugger", "--verb=patch", "--resource=pods/ephemeralcontainers").code).toBe(0);
    expect(admin.run("create", "rolebinding", "bob-debugs", "--role=debugger", "--user=bob").code).toBe(0);
    const allowed = bob.run("debug", "web", "--image=busybox", "--", "true");
    expect(allowed.code, allowed.stderr).toBe(0);
    const pod = (await call(s, "GET", `${pods}/web`)).json() as Obj;
    expect(pod["spec"].ephemeralContainers).toHaveLength(1);
  });
});
