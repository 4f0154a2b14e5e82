// CSIDriver tokenRequests and requiresRepublish end to end: the REAL apiserver process (TokenRequest,
// JWKS, TokenReview), the node agent in-process (API-server mode, --sync-frequency=1s) on the
// project's process CRI server, and the project's fake CSI driver recording every
// NodePublishVolume to a JSON-lines file.
//
// Republish before expiry in test time: the apiserver refuses lifetimes under 10 minutes, and the
// token manager refreshes at 80 % of a token's lifetime (480 s of 600 s). The agent's token-manager
// clock is injectable (AppIO.now); the test moves it 500 s forward once the first tokens have been
// republished unchanged. The apiserver keeps real time, so the new tokens are real tokens issued now.
import { createPublicKey, verify, type JsonWebKey } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CSINode, Event, Pod } from "@skiff/api-types";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { readPublishRecords, startFakeCsiDriver, type FakeCsiDriver, type FakePublishRecord } from "@skiff/fake-csi-driver";
import { runNodeAgent } from "../src/app.js";
import { csiVolumeHandle, pluginsRegistryDir } from "../src/csi/index.js";
import type { RunningServers } from "../src/server/index.js";
import { freePort } from "./cli-helpers.js";
import { apiCall, startAPIServer, writeAdminKubeconfig, type APIServerProcess } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";

const nodeName = "node-csitok";
const driverName = "tokens.csi.example.io";
const tokensKey = "csi.storage.example.io/serviceAccount.tokens";
const vault = "vault.example.io";

type Tokens = Record<string, { token: string; expirationTimestamp: string }>;
interface Claims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  sub: string;
  "kubernetes.io": { namespace: string; pod?: { name: string; uid: string }; serviceaccount: { name: string; uid: string } };
}

function sink(): { write(s: string): boolean; text(): string } {
  let out = "";
  return { write: (s: string) => ((out += s), true), text: () => out };
}

const tokensOf = (r: FakePublishRecord): Tokens => JSON.parse(r.volumeContext[tokensKey] ?? "null") as Tokens;

describe("CSIDriver tokenRequests and requiresRepublish (real apiserver, node agent in-process, fake CSI driver)", () => {
  let dir: string;
  let api: APIServerProcess;
  let cri: ProcessRuntime;
  let fake: FakeCsiDriver;
  let skewMs = 0;
  const stop = new AbortController();
  let agentDone: Promise<number>;
  const agentOut = sink();
  const agentErr = sink();
  const recordFile = () => join(dir, "publish.jsonl");

  const getJSON = async <T>(path: string): Promise<T> => {
    const r = await apiCall(api, "GET", path);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body}`);
    return r.json() as T;
  };
  const post = async (path: string, body: unknown): Promise<unknown> => {
    const r = await apiCall(api, "POST", path, body);
    if (r.status !== 201 && r.status !== 200) throw new Error(`POST ${path}: ${r.status} ${r.body}`);
    return r.json();
  };

  // Verifies the JWT's RS256 signature against the apiserver's JWKS; answers its claims.
  const verifyWithJWKS = async (token: string): Promise<Claims> => {
    const [h = "", p = "", s = ""] = token.split(".");
    const header = JSON.parse(Buffer.from(h, "base64url").toString("utf8")) as { alg: string; kid: string };
    expect(header.alg).toBe("RS256");
    const jwks = await getJSON<{ keys: Array<JsonWebKey & { kid: string }> }>("/openid/v1/jwks");
    const jwk = jwks.keys.find((k) => k.kid === header.kid);
    if (!jwk) throw new Error(`no key ${header.kid} in the JWKS`);
    expect(verify("RSA-SHA256", Buffer.from(`${h}.${p}`), createPublicKey({ key: jwk, format: "jwk" }), Buffer.from(s, "base64url"))).toBe(true);
    return JSON.parse(Buffer.from(p, "base64url").toString("utf8")) as Claims;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-csitok-"));
    const rootDir = join(dir, "root");
    api = await startAPIServer(dir);
    const kubeconfig = await writeAdminKubeconfig(api);
    cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state") });
    const configFile = join(dir, "config.yaml");
    writeFileSync(
      configFile,
      "apiVersion: nodeagent.config.example.io/v1beta1\nkind: NodeAgentConfiguration\nauthentication:\n  anonymous: {enabled: true}\n  webhook: {enabled: false}\nauthorization: {mode: AlwaysAllow}\n",
    );
    let ready!: (s: RunningServers | undefined) => void;
    const readyP = new Promise<RunningServers | undefined>((r) => (ready = r));
    agentDone = runNodeAgent(
      [
        `--clusterconfig=${kubeconfig}`,
        `--hostname-override=${nodeName}`,
        "--node-ip=127.0.0.1",
        "--address=127.0.0.1",
        `--port=${await freePort()}`,
        "--read-only-port=0",
        "--healthz-port=0",
        `--root-dir=${rootDir}`,
        `--cert-dir=${join(dir, "agent-pki")}`,
        `--container-runtime-endpoint=${cri.endpoint}`,
        "--node-status-update-frequency=1s",
        "--sync-frequency=1s",
        `--config=${configFile}`,
        "-v=4",
      ],
      { stdout: agentOut, stderr: agentErr, stopSignal: stop.signal, onReady: ready, now: () => Date.now() + skewMs },
    );
    await Promise.race([readyP, agentDone.then((code) => Promise.reject(new Error(`agent exited ${code}: ${agentErr.text()}`)))]);
    fake = await startFakeCsiDriver({ csiSocketPath: join(dir, "driver", "csi.sock"), pluginsRegistryDir: pluginsRegistryDir(rootDir), name: driverName, recordFile: recordFile() });
    await waitFor("driver registered in the CSINode", async () => {
      const r = await apiCall(api, "GET", `/apis/storage.example.io/v1/csinodes/${nodeName}`);
      return r.status === 200 && (r.json() as CSINode).spec.drivers.some((d) => d.name === driverName) ? true : undefined;
    }, 60_000);
    await post("/api/v1/namespaces/default/serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "csi-user" } });
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await agentDone?.catch(() => 1);
    await fake?.stop();
    await cri?.stop();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("publishes a token per audience bound to the pod, republishes them cached, and fresh ones past 80 % of their lifetime", async () => {
    await post("/apis/storage.example.io/v1/csidrivers", {
      apiVersion: "storage.example.io/v1",
      kind: "CSIDriver",
      metadata: { name: driverName },
      spec: {
        attachRequired: false,
        podInfoOnMount: true,
        requiresRepublish: true,
        volumeLifecycleModes: ["Ephemeral"],
        // A named audience with the shortest lifetime allowed, and "" (the apiserver's audiences).
        tokenRequests: [{ audience: vault, expirationSeconds: 600 }, { audience: "", expirationSeconds: 3600 }],
      },
    });
    await post("/api/v1/namespaces/default/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "tok", namespace: "default" },
      spec: {
        nodeName,
        serviceAccountName: "csi-user",
        restartPolicy: "Never",
        terminationGracePeriodSeconds: 1,
        volumes: [{ name: "secrets", csi: { driver: driverName, volumeAttributes: { role: "reader" } } }],
        containers: [{ name: "main", image: "busybox", command: ["sh", "-c", "sleep 600"], volumeMounts: [{ name: "secrets", mountPath: "/secrets" }] }],
      },
    });
    const pod = await waitFor("pod Running", async () => {
      const p = await getJSON<Pod>("/api/v1/namespaces/default/pods/tok");
      return p.status?.phase === "Running" ? p : undefined;
    }, 90_000);
    const uid = pod.metadata?.uid ?? "";
    const ours = async () => (await readPublishRecords(recordFile())).filter((r) => r.volumeId === csiVolumeHandle(uid, "secrets"));

    // The first publish: both tokens, beside the attributes and the pod info.
    const first = (await ours())[0];
    if (!first) throw new Error("no NodePublishVolume recorded");
    expect(first.volumeContext).toMatchObject({
      role: "reader",
      "csi.storage.example.io/pod.name": "tok",
      "csi.storage.example.io/pod.namespace": "default",
      "csi.storage.example.io/pod.uid": uid,
      "csi.storage.example.io/serviceAccount.name": "csi-user",
      "csi.storage.example.io/ephemeral": "true",
    });
    const t0 = tokensOf(first);
    expect(Object.keys(t0).sort()).toEqual(["", vault]);

    // Both verify against the apiserver's JWKS: signature, audience, subject, pod binding, lifetime.
    const config = await getJSON<{ issuer: string }>("/.well-known/openid-configuration");
    for (const [audience, lifetime] of [
      [vault, 600],
      ["", 3600],
    ] as const) {
      const entry = t0[audience];
      if (!entry) throw new Error(`no token for audience "${audience}"`);
      const claims = await verifyWithJWKS(entry.token);
      expect(claims.aud).toEqual(audience === "" ? [config.issuer] : [audience]);
      expect(claims.iss).toBe(config.issuer);
      expect(claims.sub).toBe("system:serviceaccount:default:csi-user");
      expect(claims["kubernetes.io"].namespace).toBe("default");
      expect(claims["kubernetes.io"].pod).toEqual({ name: "tok", uid });
      expect(claims.exp - claims.iat).toBe(lifetime);
      expect(Date.parse(entry.expirationTimestamp)).toBe(claims.exp * 1000);
    }
    // The apiserver-audience token authenticates as the pod's service account, bound to the pod.
    const review = (await post("/apis/authentication.k8s.io/v1/tokenreviews", { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: t0[""]?.token } })) as {
      status: { authenticated?: boolean; user?: { username?: string; extra?: Record<string, string[]> } };
    };
    expect(review.status.authenticated).toBe(true);
    expect(review.status.user?.username).toBe("system:serviceaccount:default:csi-user");
    expect(review.status.user?.extra?.["authentication.kubernetes.io/pod-name"]).toEqual(["tok"]);
    expect(review.status.user?.extra?.["authentication.kubernetes.io/pod-uid"]).toEqual([uid]);

    // requiresRepublish: NodePublishVolume again at pod syncs, with the cached tokens while fresh.
    const republished = await waitFor("two republishes", async () => {
      const rs = await ours();
      return rs.length >= 3 ? rs : undefined;
    }, 60_000);
    for (const r of republished) expect(tokensOf(r)).toEqual(t0);

    // Past 80 % of the 600 s token (on the agent's token-manager clock): a fresh vault token; the
    // 3600 s token is still fresh and stays.
    skewMs = 500_000;
    const fresh = await waitFor("a republish with a new vault token", async () => (await ours()).find((r) => tokensOf(r)[vault]?.token !== t0[vault]?.token), 60_000);
    const t1 = tokensOf(fresh);
    expect(t1[""]).toEqual(t0[""]);
    const newVault = t1[vault];
    if (!newVault) throw new Error("no vault token in the republish");
    const claims = await verifyWithJWKS(newVault.token);
    expect(claims.aud).toEqual([vault]);
    expect(claims["kubernetes.io"].pod).toEqual({ name: "tok", uid });
    expect(Date.parse(newVault.expirationTimestamp)).toBeGreaterThan(Date.parse(t0[vault]?.expirationTimestamp ?? ""));

    // No FailedMount events; no token in the agent's log.
    const events = (await getJSON<{ items: Event[] }>("/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=tok")).items;
    expect(events.filter((e) => e.reason === "FailedMount")).toEqual([]);
    const logs = agentOut.text() + agentErr.text();
    expect(logs).toMatch(/republished CSI volume secrets/);
    for (const t of [t0[vault]?.token, t0[""]?.token, newVault.token]) {
      expect(t).toBeTruthy();
      expect(logs).not.toContain(t ?? "");
      // Nor a telling part of one (the signature).
      expect(logs).not.toContain((t ?? "").split(".")[2] ?? "");
    }

    // Pod removal unpublishes the volume.
    const del = await apiCall(api, "DELETE", "/api/v1/namespaces/default/pods/tok");
    expect(del.status).toBe(200);
    await waitFor("NodeUnpublishVolume", () => (fake.callsOf("NodeUnpublishVolume").some((c) => c.request["volumeId"] === csiVolumeHandle(uid, "secrets")) ? true : undefined), 60_000);
  }, 240_000);
});
