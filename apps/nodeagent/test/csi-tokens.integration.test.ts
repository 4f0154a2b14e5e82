// CSIDriver tokenRequests and requiresRepublish end to end on the process runtime: the REAL
// apiserver process (TokenRequest, JWKS, TokenReview), the node agent in-process (API-server mode,
// --sync-frequency=1s) on the project's process CRI server, and the project's fake CSI driver
// recording every NodePublishVolume to a JSON-lines file (csi-tokens-helpers.ts). On containerd,
// what the container sees: csi-tokens-containerd.integration.test.ts.
//
// Republish before expiry in test time: the apiserver refuses lifetimes under 10 minutes, and the
// token manager refreshes at 80 % of a token's lifetime (480 s of 600 s). The agent's token-manager
// clock is injectable (AppIO.now); the test moves it 500 s forward once the first tokens have been
// republished unchanged. The apiserver keeps real time, so the new tokens are real tokens issued now.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Event } from "@skiff/api-types";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { csiVolumeHandle } from "../src/csi/index.js";
import { apiCall } from "./cluster-helpers.js";
import { createTokenDriver, runTokenPod, startTokenCluster, tokensOf, verifyWithJWKS, type TokenCluster } from "./csi-tokens-helpers.js";
import { waitFor } from "./pods-helpers.js";

const nodeName = "node-csitok";
const vault = "vault.example.io";

describe("CSIDriver tokenRequests and requiresRepublish (real apiserver, node agent in-process, fake CSI driver, process runtime)", () => {
  let dir: string;
  let cri: ProcessRuntime | undefined;
  let c: TokenCluster | undefined;
  const cluster = (): TokenCluster => {
    if (!c) throw new Error("not started");
    return c;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-csitok-"));
    cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state") });
    c = await startTokenCluster({ dir, nodeName, runtimeEndpoint: cri.endpoint });
  }, 120_000);

  afterAll(async () => {
    await c?.stop();
    await cri?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("publishes a token per audience bound to the pod, republishes them cached, and fresh ones past 80 % of their lifetime", async () => {
    const k = cluster();
    // A named audience with the shortest lifetime allowed, and "" (the apiserver's audiences).
    await createTokenDriver(k, [
      { audience: vault, expirationSeconds: 600 },
      { audience: "", expirationSeconds: 3600 },
    ]);
    const pod = await runTokenPod(k, "tok", nodeName, "busybox");
    const uid = pod.metadata?.uid ?? "";

    // The first publish: both tokens, beside the attributes and the pod info.
    const first = (await k.publishesOf(uid, "secrets"))[0];
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
    const config = await k.getJSON<{ issuer: string }>("/.well-known/openid-configuration");
    for (const [audience, lifetime] of [
      [vault, 600],
      ["", 3600],
    ] as const) {
      const entry = t0[audience];
      if (!entry) throw new Error(`no token for audience "${audience}"`);
      const claims = await verifyWithJWKS(k, entry.token);
      expect(claims.aud).toEqual(audience === "" ? [config.issuer] : [audience]);
      expect(claims.iss).toBe(config.issuer);
      expect(claims.sub).toBe("system:serviceaccount:default:csi-user");
      expect(claims["kubernetes.io"].namespace).toBe("default");
      expect(claims["kubernetes.io"].pod).toEqual({ name: "tok", uid });
      expect(claims.exp - claims.iat).toBe(lifetime);
      expect(Date.parse(entry.expirationTimestamp)).toBe(claims.exp * 1000);
    }
    // The apiserver-audience token authenticates as the pod's service account, bound to the pod.
    const review = (await k.post("/apis/authentication.k8s.io/v1/tokenreviews", { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: t0[""]?.token } })) as {
      status: { authenticated?: boolean; user?: { username?: string; extra?: Record<string, string[]> } };
    };
    expect(review.status.authenticated).toBe(true);
    expect(review.status.user?.username).toBe("system:serviceaccount:default:csi-user");
    expect(review.status.user?.extra?.["authentication.kubernetes.io/pod-name"]).toEqual(["tok"]);
    expect(review.status.user?.extra?.["authentication.kubernetes.io/pod-uid"]).toEqual([uid]);

    // requiresRepublish: NodePublishVolume again at pod syncs, with the cached tokens while fresh.
    const republished = await waitFor("two republishes", async () => {
      const rs = await k.publishesOf(uid, "secrets");
      return rs.length >= 3 ? rs : undefined;
    }, 60_000);
    for (const r of republished) expect(tokensOf(r)).toEqual(t0);

    // Past 80 % of the 600 s token (on the agent's token-manager clock): a fresh vault token; the
    // 3600 s token is still fresh and stays.
    k.setSkewMs(500_000);
    const fresh = await waitFor("a republish with a new vault token", async () => (await k.publishesOf(uid, "secrets")).find((r) => tokensOf(r)[vault]?.token !== t0[vault]?.token), 60_000);
    const t1 = tokensOf(fresh);
    expect(t1[""]).toEqual(t0[""]);
    const newVault = t1[vault];
    if (!newVault) throw new Error("no vault token in the republish");
    const claims = await verifyWithJWKS(k, newVault.token);
    expect(claims.aud).toEqual([vault]);
    expect(claims["kubernetes.io"].pod).toEqual({ name: "tok", uid });
    expect(Date.parse(newVault.expirationTimestamp)).toBeGreaterThan(Date.parse(t0[vault]?.expirationTimestamp ?? ""));

    // No FailedMount events; no token (nor its signature) in the agent's log.
    const events = (await k.getJSON<{ items: Event[] }>("/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=tok")).items;
    expect(events.filter((e) => e.reason === "FailedMount")).toEqual([]);
    const logs = k.agentLogs();
    expect(logs).toMatch(/republished CSI volume secrets/);
    for (const t of [t0[vault]?.token, t0[""]?.token, newVault.token]) {
      expect(t).toBeTruthy();
      expect(logs).not.toContain(t ?? "");
      expect(logs).not.toContain((t ?? "").split(".")[2] ?? "");
    }

    // Pod removal unpublishes the volume.
    expect((await apiCall(k.api, "DELETE", "/api/v1/namespaces/default/pods/tok")).status).toBe(200);
    await waitFor("NodeUnpublishVolume", () => (k.fake.callsOf("NodeUnpublishVolume").some((r) => r.request["volumeId"] === csiVolumeHandle(uid, "secrets")) ? true : undefined), 60_000);
  }, 240_000);
});
