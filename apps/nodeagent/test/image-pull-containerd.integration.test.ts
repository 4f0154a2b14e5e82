// Image pull credentials reaching a registry through real containerd: the REAL apiserver, the node
// agent in-process in API-server mode, a docker-registry Secret in the pod's imagePullSecrets.
// containerd's CRI plugin is pointed (DIR/certs.d/<registry>/hosts.toml, see
// tools/containerd/setup.sh) at a plain-HTTP server on loopback that plays a registry requiring
// basic auth: it answers 401 with a Basic challenge and records the Authorization header of every
// request. The credentials the node agent sent as CRI AuthConfig must arrive there as
// `Basic base64(user:password)`. The registry has no images, so the pull then fails: the pod
// reports ErrImagePull with containerd's error. With CI=true it must run; elsewhere it is skipped
// (with the reason) when containerd cannot be set up.
import { startAPIModeAgent, textSink } from "./api-mode-agent.js";
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import { setUpContainerd, tearDownContainerd, waitFor as pollUntil } from "@skiff/test-support";
import { apiCall, startAPIServer, writeAdminKubeconfig, type APIServerProcess } from "./cluster-helpers.js";

const run = promisify(execFile);
const nodeName = "node-pullc";
const registry = "registry.example:5000";
const setup = setUpContainerd({ prefix: "skiff-plc-", suite: "containerd image pull credentials suite" });


describe.skipIf(setup.endpoint === undefined)("image pull credentials on containerd (loopback registry requiring basic auth)", () => {
  let api: APIServerProcess;
  let kubeconfig: string;
  let registryServer: Server;
  const seen: Array<{ method: string; url: string; authorization: string }> = [];
  const stop = new AbortController();
  let agentDone: Promise<number> | undefined;
  const agentOut = textSink();
  const agentErr = textSink();

  const kubectl = async (...args: string[]) => run("kubectl", ["--kubeconfig", kubeconfig, ...args], { timeout: 60_000 });
  const getPod = async (name: string): Promise<Pod | undefined> => {
    const r = await apiCall(api, "GET", `/api/v1/namespaces/default/pods/${name}`);
    return r.status === 200 ? (r.json() as Pod) : undefined;
  };
  const createPod = async (name: string, image: string, imagePullSecrets: Array<{ name: string }>) => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace: "default" },
      spec: { nodeName, restartPolicy: "Never", terminationGracePeriodSeconds: 1, automountServiceAccountToken: false, imagePullSecrets, containers: [{ name: "main", image, command: ["true"] }] },
    };
    const r = await apiCall(api, "POST", "/api/v1/namespaces/default/pods", pod);
    expect(r.status, r.body).toBe(201);
  };
  // On a timeout the error names the pod's last status and the agent's last output lines.
  let lastStatus = "";
  const waitingOf = (name: string, reason: string) =>
    pollUntil(
      async () => {
        const status = (await getPod(name))?.status;
        lastStatus = JSON.stringify(status ?? null);
        const w = status?.containerStatuses?.[0]?.state?.waiting;
        return w?.reason === reason ? w : undefined;
      },
      { what: `${name} ${reason}`, timeoutMs: 120_000, context: () => `pod status ${lastStatus}; agent's last output: ${(agentOut.text() + agentErr.text()).slice(-3000)}` },
    );

  beforeAll(async () => {
    // The "registry": every request is refused with a Basic challenge, its Authorization recorded.
    registryServer = createServer((req, res) => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization ?? "" });
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="skiff-test"', "Content-Type": "application/json", "Docker-Distribution-API-Version": "registry/2.0" });
      res.end('{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}');
    });
    await new Promise<void>((r) => registryServer.listen(0, "127.0.0.1", r));
    const port = (registryServer.address() as AddressInfo).port;
    mkdirSync(join(setup.dir, "certs.d", registry), { recursive: true });
    writeFileSync(join(setup.dir, "certs.d", registry, "hosts.toml"), `server = "http://127.0.0.1:${port}"\n\n[host."http://127.0.0.1:${port}"]\n  capabilities = ["pull", "resolve"]\n`);

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
    await kubectl("create", "secret", "docker-registry", "regcred", `--docker-server=${registry}`, "--docker-username=alice", "--docker-password=pw-secret");
  }, 180_000);

  afterAll(async () => {
    stop.abort();
    await agentDone?.catch(() => 1);
    await api?.stop();
    await new Promise<void>((r) => (registryServer ? registryServer.close(() => r()) : r()));
    tearDownContainerd(setup);
  }, 120_000);

  it("the pull secret's credentials reach the registry as HTTP basic auth", async () => {
    const image = `${registry}/team/app:v1`;
    await createPod("with-secret", image, [{ name: "regcred" }]);
    const waiting = await waitingOf("with-secret", "ErrImagePull");
    const expected = `Basic ${Buffer.from("alice:pw-secret").toString("base64")}`;
    expect(seen.some((r) => r.url.startsWith("/v2/team/app/manifests/v1") && r.authorization === expected), JSON.stringify(seen)).toBe(true);
    // containerd's error, as the kubelet prints a gRPC status.
    expect(waiting.message).toMatch(/^rpc error: code = Unknown desc = failed to pull and unpack image "registry\.example:5000\/team\/app:v1": /);
    expect(agentOut.text() + agentErr.text()).not.toContain("pw-secret");
  }, 180_000);

  it("without a pull secret no credentials are sent", async () => {
    const image = `${registry}/team/anon:v1`;
    await createPod("no-secret", image, []);
    await waitingOf("no-secret", "ErrImagePull");
    const anon = seen.filter((r) => r.url.startsWith("/v2/team/anon/"));
    expect(anon.length).toBeGreaterThan(0);
    expect(anon.every((r) => r.authorization === "")).toBe(true);
  }, 180_000);
});
