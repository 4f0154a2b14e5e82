// 401/403 from the REAL node agent binary with Webhook authentication and authorization. Standalone
// mode cannot answer 403: its only authorizer is AlwaysAllow, and Webhook needs an apiserver to
// ask (the agent refuses to start with it, as the kubelet does — checked below). So the agent gets
// a --clusterconfig for the REAL apiserver (token file with an admin and a viewer, ABAC policy
// giving the viewer read access to pods only) and asks it TokenReview / SubjectAccessReview.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HarnessAgent, TLSClient } from "./agent-harness.js";
import { startHarnessAgent } from "./agent-harness.js";
import { freePort, runAgent } from "./cli-helpers.js";
import { adminToken, startAPIServer, viewerToken, writeAdminKubeconfig, type APIServerProcess } from "./cluster-helpers.js";
import { request } from "node:https";

function getWithToken(port: number, path: string, tls: TLSClient, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        agent: false,
        rejectUnauthorized: true,
        ca: tls.ca ?? "",
        servername: tls.servername ?? "",
        headers: token !== undefined ? { authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("nodeagent binary: webhook authentication and authorization through the apiserver", () => {
  const nodeName = `bbw-${Math.random().toString(36).slice(2, 8)}`;
  let dir: string;
  let api: APIServerProcess | undefined;
  let agent: HarnessAgent | undefined;
  let tls: TLSClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-bbw-"));
    api = await startAPIServer(dir);
    const kubeconfig = await writeAdminKubeconfig(api);
    agent = await startHarnessAgent({
      dir: join(dir, "agent"),
      nodeName,
      // No runtime: authentication and authorization do not need one.
      runtimeEndpoint: `unix://${join(dir, "no-runtime.sock")}`,
      args: [`--clusterconfig=${kubeconfig}`, "--anonymous-auth=false", "--authentication-token-webhook", "--authorization-mode=Webhook", "--node-ip=127.0.0.1"],
    });
    tls = { ca: await agent.servingCert(), servername: nodeName };
  }, 120_000);

  afterAll(async () => {
    await agent?.stop(5_000);
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("standalone, Webhook authorization is refused at start (no apiserver to ask)", async () => {
    const r = await runAgent(["--authorization-mode=Webhook", `--root-dir=${join(dir, "standalone")}`, "--read-only-port=0", "--healthz-port=0", `--port=${await freePort()}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no client provided, cannot use webhook authorization");
  });

  it("401 without a token or with one the apiserver does not know", async () => {
    if (!agent) throw new Error("no agent");
    expect(await getWithToken(agent.ports.main, "/pods", tls)).toMatchObject({ status: 401, body: "Unauthorized" });
    expect(await getWithToken(agent.ports.main, "/pods", tls, "not-a-token")).toMatchObject({ status: 401, body: "Unauthorized" });
  });

  it("403 for a user the apiserver does not allow nodes/proxy, with the kubelet's message; 200 for the admin", async () => {
    if (!agent) throw new Error("no agent");
    expect(await getWithToken(agent.ports.main, "/pods", tls, viewerToken)).toMatchObject({
      status: 403,
      body: "Forbidden (user=viewer, verb=get, resource=nodes, subresource=proxy)",
    });
    expect(await getWithToken(agent.ports.main, "/configz", tls, viewerToken)).toMatchObject({ status: 403 });
    const ok = await getWithToken(agent.ports.main, "/pods", tls, adminToken);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ kind: "PodList" });
    // The read-only and healthz ports do not authenticate.
    expect((await fetch(`http://127.0.0.1:${agent.ports.readOnly}/pods`)).status).toBe(200);
  });
});
