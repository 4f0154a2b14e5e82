// Image pull credentials end to end: the REAL apiserver process (service-account admission copies
// a ServiceAccount's imagePullSecrets into its pods), real kubectl to create docker-registry
// secrets, the node agent in-process (API-server mode) with a real exec credential provider plugin
// (a shell script written here), on the project's process CRI server. That runtime has no
// registry: it records every PullImage with the CRI AuthConfig it carried (`pullRequests`, kept
// for tests) and, for the registries given in `registryCredentials`, refuses pulls without the
// right credentials as containerd does when a registry denies them.
import { startAPIModeAgent, textSink } from "./api-mode-agent.js";
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Event, Pod } from "@skiff/api-types";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { apiCall, startAPIServer, writeAdminKubeconfig, type APIServerProcess } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";

const run = promisify(execFile);
const nodeName = "node-pull";
const registry = "registry.example:5000";
const pluginRegistry = "eu.plugin.example";

const configText = `apiVersion: nodeagent.config.example.io/v1beta1\nkind: NodeAgentConfiguration\nauthentication:\n  anonymous: {enabled: true}\n  webhook: {enabled: false}\nauthorization: {mode: AlwaysAllow}\n`;

// The plugin answers for *.plugin.example, counting its runs (cacheKeyType Registry, 1h).
const pluginScript = (dir: string) => `#!/bin/sh
cat > ${dir}/last-request.json
echo run >> ${dir}/runs.txt
printf '{"kind":"CredentialProviderResponse","apiVersion":"credentialprovider.kubelet.k8s.io/v1alpha1","cacheKeyType":"Registry","cacheDuration":"1h","auth":{"*.plugin.example":{"username":"plugin-user","password":"%s"}}}\\n' "$PLUGIN_PASSWORD"
`;

const pluginConfig = `apiVersion: kubelet.config.k8s.io/v1alpha1
kind: CredentialProviderConfig
providers:
  - name: example-plugin
    matchImages: ["*.plugin.example"]
    defaultCacheDuration: 1m
    apiVersion: credentialprovider.kubelet.k8s.io/v1alpha1
    env:
      - name: PLUGIN_PASSWORD
        value: plugin-pw
`;


describe("image pull credentials (API-server mode, process runtime recording CRI AuthConfig)", () => {
  let dir: string;
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
  const createPod = async (name: string, image: string, extra: Partial<NonNullable<Pod["spec"]>> = {}) => {
    const spec = { nodeName, terminationGracePeriodSeconds: 1, restartPolicy: "Never", automountServiceAccountToken: false, containers: [{ name: "main", image, command: ["sh", "-c", "echo pulled"] }], ...extra };
    const r = await apiCall(api, "POST", "/api/v1/namespaces/default/pods", { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default" }, spec });
    expect(r.status, r.body).toBe(201);
    return r.json() as Pod;
  };
  const phase = (name: string, want: string) => waitFor(`${name} ${want}`, async () => ((await getPod(name))?.status?.phase === want ? ((await getPod(name)) as Pod) : undefined), 60_000);
  const pullsOf = (image: string) => cri.pullRequests.filter((p) => p.image === image).map((p) => (p.auth ? `${p.auth.username}:${p.auth.password}` : "none"));
  const events = async (name: string): Promise<Event[]> => ((await apiCall(api, "GET", `/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=${name}`)).json() as { items: Event[] }).items;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-pull-"));
    api = await startAPIServer(dir);
    kubeconfig = await writeAdminKubeconfig(api);
    cri = await startProcessRuntime({
      socketPath: join(dir, "cri.sock"),
      stateDir: join(dir, "cri-state"),
      registryCredentials: { [registry]: { username: "alice", password: "pw-secret" }, [pluginRegistry]: { username: "plugin-user", password: "plugin-pw" } },
    });
    const binDir = join(dir, "plugins");
    mkdirSync(binDir);
    writeFileSync(join(binDir, "example-plugin"), pluginScript(dir));
    chmodSync(join(binDir, "example-plugin"), 0o755);
    writeFileSync(join(dir, "credential-providers.yaml"), pluginConfig);
    writeFileSync(join(dir, "config.yaml"), configText);
    agentDone = (
      await startAPIModeAgent({
        kubeconfig,
        nodeName,
        rootDir: join(dir, "root"),
        certDir: join(dir, "agent-pki"),
        endpoint: cri.endpoint,
        args: [
          "--node-status-update-frequency=1s",
          "--sync-frequency=2s",
          `--config=${join(dir, "config.yaml")}`,
          `--image-credential-provider-config=${join(dir, "credential-providers.yaml")}`,
          `--image-credential-provider-bin-dir=${binDir}`,
          "-v=4",
        ],
        stdout: agentOut, stderr: agentErr,
        stopSignal: stop.signal,
      })
    ).done;
    await kubectl("create", "secret", "docker-registry", "regcred", `--docker-server=${registry}`, "--docker-username=alice", "--docker-password=pw-secret");
    await kubectl("create", "secret", "docker-registry", "stale", `--docker-server=https://${registry}/v1/`, "--docker-username=alice", "--docker-password=old-pw");
    // A legacy .dockercfg secret, auth given only as base64(user:password).
    const dockercfg = Buffer.from(JSON.stringify({ [registry]: { auth: Buffer.from("alice:pw-secret").toString("base64"), email: "a@example.io" } })).toString("base64");
    const r = await apiCall(api, "POST", "/api/v1/namespaces/default/secrets", { apiVersion: "v1", kind: "Secret", metadata: { name: "legacy" }, type: "kubernetes.io/dockercfg", data: { ".dockercfg": dockercfg } });
    expect(r.status, r.body).toBe(201);
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await agentDone?.catch(() => 1);
    await cri?.stop();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("sends a dockerconfigjson pull secret as CRI AuthConfig, trying each matching credential in turn", async () => {
    const image = `${registry}/team/app:v1`;
    await createPod("with-secrets", image, { imagePullSecrets: [{ name: "stale" }, { name: "regcred" }] });
    await phase("with-secrets", "Succeeded");
    // Both secrets match the registry: the stale one is tried first (secret order) and refused.
    expect(pullsOf(image)).toEqual(["alice:old-pw", "alice:pw-secret"]);
    const auth = cri.pullRequests.find((p) => p.image === image && p.auth?.password === "pw-secret")?.auth;
    expect(auth).toEqual({ username: "alice", password: "pw-secret", auth: "", serverAddress: "", identityToken: "", registryToken: "" });
  });

  it("reads a legacy kubernetes.io/dockercfg secret with an auth field", async () => {
    const image = `${registry}/team/legacy:v1`;
    await createPod("with-dockercfg", image, { imagePullSecrets: [{ name: "legacy" }] });
    await phase("with-dockercfg", "Succeeded");
    expect(pullsOf(image)).toEqual(["alice:pw-secret"]);
  });

  it("uses the ServiceAccount's imagePullSecrets (copied into the pod by admission)", async () => {
    await kubectl("create", "serviceaccount", "puller");
    await kubectl("patch", "serviceaccount", "puller", "-p", JSON.stringify({ imagePullSecrets: [{ name: "regcred" }] }));
    const image = `${registry}/team/sa:v1`;
    const created = await createPod("via-sa", image, { serviceAccountName: "puller" });
    expect(created.spec?.imagePullSecrets).toEqual([{ name: "regcred" }]);
    await phase("via-sa", "Succeeded");
    expect(pullsOf(image)).toEqual(["alice:pw-secret"]);
  });

  it("pulls without a missing secret (logged), and fails with ErrImagePull then ImagePullBackOff as 1.23", async () => {
    const image = `${registry}/team/denied:v1`;
    await createPod("missing-secret", image, { imagePullSecrets: [{ name: "nope" }] });
    const waiting = await waitFor("ErrImagePull", async () => {
      const w = (await getPod("missing-secret"))?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === "ErrImagePull" ? w : undefined;
    });
    const denied = `rpc error: code = Unknown desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed`;
    expect(waiting.message).toBe(denied);
    expect(pullsOf(image)[0]).toBe("none");
    expect(agentOut.text() + agentErr.text()).toContain(`Unable to retrieve pull secret, the image pull may not succeed.\\" pod=\\"default/missing-secret\\" secret=\\"default/nope\\"`);
    const backOff = await waitFor("ImagePullBackOff", async () => {
      const w = (await getPod("missing-secret"))?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === "ImagePullBackOff" ? w : undefined;
    });
    expect(backOff.message).toBe(`Back-off pulling image "${image}"`);
    const msgs = (await events("missing-secret")).map((e) => `${e.reason ?? ""}: ${e.message ?? ""}`);
    expect(msgs).toContain(`Failed: Failed to pull image "${image}": ${denied}`);
    expect(msgs).toContain("Failed: Error: ErrImagePull");
  });

  it("reports an unparsable image name as InvalidImageName without pulling (1.23's applyDefaultImageTag)", async () => {
    await createPod("bad-name", "Registry.Example/App");
    const waiting = await waitFor("InvalidImageName", async () => {
      const w = (await getPod("bad-name"))?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === "InvalidImageName" ? w : undefined;
    });
    expect(waiting.message).toBe('Failed to apply default image tag "Registry.Example/App": couldn\'t parse image reference "Registry.Example/App": invalid reference format: repository name must be lowercase');
    expect(pullsOf("Registry.Example/App")).toEqual([]);
  });

  it("gets credentials from the exec plugin for matching images, cached per registry", async () => {
    const image = `${pluginRegistry}/app:v1`;
    await createPod("via-plugin", image);
    await phase("via-plugin", "Succeeded");
    expect(pullsOf(image)).toEqual(["plugin-user:plugin-pw"]);
    expect(JSON.parse(readFileSync(join(dir, "last-request.json"), "utf8"))).toEqual({ kind: "CredentialProviderRequest", apiVersion: "credentialprovider.kubelet.k8s.io/v1alpha1", image: `${pluginRegistry}/app` });
    const image2 = `${pluginRegistry}/other:v1`;
    await createPod("via-plugin-2", image2);
    await phase("via-plugin-2", "Succeeded");
    expect(pullsOf(image2)).toEqual(["plugin-user:plugin-pw"]);
    expect(readFileSync(join(dir, "runs.txt"), "utf8").trim().split("\n")).toHaveLength(1);
    // Images the plugin does not match never run it and carry no credentials.
    await createPod("no-creds", "busybox:1.36");
    await phase("no-creds", "Succeeded");
    expect(pullsOf("busybox:1.36")).toEqual(["none"]);
  });
});
