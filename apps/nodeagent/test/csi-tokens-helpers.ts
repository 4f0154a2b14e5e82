// Shared parts of the CSIDriver tokenRequests suites (process runtime and containerd): the REAL
// apiserver process, the node agent in-process (API-server mode, --sync-frequency=1s) with an
// injectable token-manager clock, and the project's fake CSI driver recording every
// NodePublishVolume to a JSON-lines file.
import { createPublicKey, verify, type JsonWebKey } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CSINode, Pod } from "@skiff/api-types";
import { readPublishRecords, startFakeCsiDriver, type FakeCsiDriver, type FakePublishRecord } from "@skiff/fake-csi-driver";
import { runNodeAgent } from "../src/app.js";
import { csiVolumeHandle, pluginsRegistryDir } from "../src/csi/index.js";
import type { RunningServers } from "../src/server/index.js";
import { freePort } from "./cli-helpers.js";
import { apiCall, startAPIServer, writeAdminKubeconfig, type APIServerProcess } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";

export const tokensKey = "csi.storage.example.io/serviceAccount.tokens";
export const tokenDriverName = "tokens.csi.example.io";

/** The decoded `csi.storage.example.io/serviceAccount.tokens` value. */
export type Tokens = Record<string, { token: string; expirationTimestamp: string }>;

/** The claims of a service-account JWT the suites check. */
export interface Claims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  sub: string;
  "kubernetes.io": { namespace: string; pod?: { name: string; uid: string }; serviceaccount: { name: string; uid: string } };
}

/** The tokens a recorded NodePublishVolume received (`null` without the key). */
export const tokensOf = (r: FakePublishRecord): Tokens => JSON.parse(r.volumeContext[tokensKey] ?? "null") as Tokens;

/** The running pieces of a suite. */
export interface TokenCluster {
  readonly api: APIServerProcess;
  readonly fake: FakeCsiDriver;
  readonly recordFile: string;
  /** Moves the agent's token-manager clock `ms` ahead of real time. */
  setSkewMs(ms: number): void;
  /** The agent's stdout and stderr so far. */
  agentLogs(): string;
  getJSON<T>(path: string): Promise<T>;
  post(path: string, body: unknown): Promise<unknown>;
  /** The recorded NodePublishVolume calls of a pod's volume, oldest first. */
  publishesOf(podUID: string, volume: string): Promise<FakePublishRecord[]>;
  stop(): Promise<void>;
}

function sink(): { write(s: string): boolean; text(): string } {
  let out = "";
  return { write: (s: string) => ((out += s), true), text: () => out };
}

/**
 * Starts the apiserver (in `<dir>/apiserver`), the agent (root `<dir>/root`) on `runtimeEndpoint`,
 * the fake driver (registered through the agent's plugins_registry), and creates the ServiceAccount
 * `default/csi-user`.
 */
export async function startTokenCluster(o: { dir: string; nodeName: string; runtimeEndpoint: string; args?: readonly string[] }): Promise<TokenCluster> {
  const rootDir = join(o.dir, "root");
  const api = await startAPIServer(o.dir);
  const kubeconfig = await writeAdminKubeconfig(api);
  const configFile = join(o.dir, "agent-config.yaml");
  writeFileSync(
    configFile,
    "apiVersion: nodeagent.config.example.io/v1beta1\nkind: NodeAgentConfiguration\nauthentication:\n  anonymous: {enabled: true}\n  webhook: {enabled: false}\nauthorization: {mode: AlwaysAllow}\n",
  );
  let skewMs = 0;
  const stop = new AbortController();
  const out = sink();
  const err = sink();
  let ready!: (s: RunningServers | undefined) => void;
  const readyP = new Promise<RunningServers | undefined>((r) => (ready = r));
  const agentDone = runNodeAgent(
    [
      `--clusterconfig=${kubeconfig}`,
      `--hostname-override=${o.nodeName}`,
      "--node-ip=127.0.0.1",
      "--address=127.0.0.1",
      `--port=${await freePort()}`,
      "--read-only-port=0",
      "--healthz-port=0",
      `--root-dir=${rootDir}`,
      `--cert-dir=${join(o.dir, "agent-pki")}`,
      `--container-runtime-endpoint=${o.runtimeEndpoint}`,
      "--node-status-update-frequency=1s",
      "--sync-frequency=1s",
      `--config=${configFile}`,
      "-v=4",
      ...(o.args ?? []),
    ],
    { stdout: out, stderr: err, stopSignal: stop.signal, onReady: ready, now: () => Date.now() + skewMs },
  );
  const stopAll = async (fake?: FakeCsiDriver) => {
    stop.abort();
    await agentDone.catch(() => 1);
    await fake?.stop();
    await api.stop();
  };
  try {
    await Promise.race([readyP, agentDone.then((code) => Promise.reject(new Error(`agent exited ${code}: ${err.text()}`)))]);
  } catch (e) {
    await stopAll();
    throw e;
  }
  const recordFile = join(o.dir, "publish.jsonl");
  const fake = await startFakeCsiDriver({ csiSocketPath: join(o.dir, "driver", "csi.sock"), pluginsRegistryDir: pluginsRegistryDir(rootDir), name: tokenDriverName, recordFile });
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
  try {
    await waitFor(
      "driver registered in the CSINode",
      async () => {
        const r = await apiCall(api, "GET", `/apis/storage.example.io/v1/csinodes/${o.nodeName}`);
        return r.status === 200 && (r.json() as CSINode).spec.drivers.some((d) => d.name === tokenDriverName) ? true : undefined;
      },
      60_000,
    );
    await post("/api/v1/namespaces/default/serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "csi-user" } });
  } catch (e) {
    await stopAll(fake);
    throw e;
  }
  return {
    api,
    fake,
    recordFile,
    setSkewMs: (ms) => (skewMs = ms),
    agentLogs: () => out.text() + err.text(),
    getJSON,
    post,
    publishesOf: async (podUID, volume) => (await readPublishRecords(recordFile)).filter((r) => r.volumeId === csiVolumeHandle(podUID, volume)),
    stop: () => stopAll(fake),
  };
}

/** Creates the CSIDriver `tokens.csi.example.io` (podInfoOnMount, requiresRepublish, Ephemeral) with `tokenRequests`. */
export async function createTokenDriver(c: TokenCluster, tokenRequests: ReadonlyArray<{ audience: string; expirationSeconds?: number }>): Promise<void> {
  await c.post("/apis/storage.example.io/v1/csidrivers", {
    apiVersion: "storage.example.io/v1",
    kind: "CSIDriver",
    metadata: { name: tokenDriverName },
    spec: { attachRequired: false, podInfoOnMount: true, requiresRepublish: true, volumeLifecycleModes: ["Ephemeral"], tokenRequests },
  });
}

/** Creates pod `default/<name>` on `nodeName` as ServiceAccount `csi-user`, the driver's volume `secrets` at `/secrets`, and waits for Running. */
export async function runTokenPod(c: TokenCluster, name: string, nodeName: string, image: string): Promise<Pod> {
  await c.post("/api/v1/namespaces/default/pods", {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      nodeName,
      serviceAccountName: "csi-user",
      restartPolicy: "Never",
      terminationGracePeriodSeconds: 1,
      volumes: [{ name: "secrets", csi: { driver: tokenDriverName, volumeAttributes: { role: "reader" } } }],
      containers: [{ name: "main", image, imagePullPolicy: "IfNotPresent", command: ["sh", "-c", "sleep 600"], volumeMounts: [{ name: "secrets", mountPath: "/secrets" }] }],
    },
  });
  return await waitFor(
    `pod ${name} Running`,
    async () => {
      const p = await c.getJSON<Pod>(`/api/v1/namespaces/default/pods/${name}`);
      return p.status?.phase === "Running" ? p : undefined;
    },
    120_000,
  );
}

/**
 * Verifies a JWT's RS256 signature against the apiserver's JWKS (`/openid/v1/jwks`, key by `kid`)
 * and answers its claims.
 * @throws Error when the key is missing or the signature does not verify.
 */
export async function verifyWithJWKS(c: TokenCluster, token: string): Promise<Claims> {
  const [h = "", p = "", s = ""] = token.split(".");
  const header = JSON.parse(Buffer.from(h, "base64url").toString("utf8")) as { alg: string; kid: string };
  if (header.alg !== "RS256") throw new Error(`alg ${header.alg}, want RS256`);
  const jwks = await c.getJSON<{ keys: Array<JsonWebKey & { kid: string }> }>("/openid/v1/jwks");
  const jwk = jwks.keys.find((k) => k.kid === header.kid);
  if (!jwk) throw new Error(`no key ${header.kid} in the JWKS`);
  if (!verify("RSA-SHA256", Buffer.from(`${h}.${p}`), createPublicKey({ key: jwk, format: "jwk" }), Buffer.from(s, "base64url"))) throw new Error("the signature does not verify");
  return JSON.parse(Buffer.from(p, "base64url").toString("utf8")) as Claims;
}
