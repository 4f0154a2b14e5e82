// CSIDriver tokenRequests and requiresRepublish on real containerd + runc: what the container sees.
// The fake CSI driver writes each NodePublishVolume's volume context into the target directory
// (`volume_context.json`), which the agent bind-mounts at /secrets; the test reads it from inside
// the container (CRI ExecSync) before and after a republish with fresh tokens. Set-up as
// csi-tokens.integration.test.ts (real apiserver, agent in-process with a token-manager clock moved
// 500 s ahead to pass 80 % of a 600 s token). With CI=true it must run; elsewhere it is skipped
// (with the reason) when containerd cannot be set up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntimeClient } from "@skiff/cri-api";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { createTokenDriver, runTokenPod, startTokenCluster, tokensKey, verifyWithJWKS, type TokenCluster, type Tokens } from "./csi-tokens-helpers.js";
import { waitFor } from "./pods-helpers.js";

const nodeName = "node-csitok-ctd";
const vault = "vault.example.io";
const setup = setUpContainerd({ prefix: "skiff-csitok-ctd-", suite: "containerd CSI tokenRequests suite" });

describe.skipIf(setup.endpoint === undefined)("CSIDriver tokenRequests on containerd: the container sees the tokens and their refresh", () => {
  let c: TokenCluster | undefined;

  beforeAll(async () => {
    c = await startTokenCluster({ dir: setup.dir, nodeName, runtimeEndpoint: setup.endpoint ?? "", args: ["--runtime-request-timeout=1m"] });
  }, 180_000);

  afterAll(async () => {
    await c?.stop();
    tearDownContainerd(setup);
  }, 120_000);

  it("mounts the driver's volume with both tokens; after a republish with a fresh token the running container reads the new one", async () => {
    if (!c) throw new Error("not started");
    const k = c;
    await createTokenDriver(k, [
      { audience: vault, expirationSeconds: 600 },
      { audience: "", expirationSeconds: 3600 },
    ]);
    const pod = await runTokenPod(k, "tok-ctd", nodeName, "busybox:1.36");
    const uid = pod.metadata?.uid ?? "";
    const rt = createRuntimeClient({ endpoint: setup.endpoint ?? "", timeoutMs: 30_000 });
    try {
      const { containers } = await rt.listContainers({ filter: { labelSelector: { "io.example.pod.uid": uid } } });
      const containerId = containers[0]?.id ?? "";
      // What the container reads at /secrets/volume_context.json (undefined mid-write).
      const seen = async (): Promise<Tokens | undefined> => {
        const r = await rt.execSync({ containerId, cmd: ["cat", "/secrets/volume_context.json"], timeout: 10 });
        try {
          const ctx = JSON.parse(r.stdout.toString("utf8")) as Record<string, string>;
          return ctx[tokensKey] !== undefined ? (JSON.parse(ctx[tokensKey]) as Tokens) : undefined;
        } catch {
          return undefined;
        }
      };
      const t0 = await waitFor("tokens in the container", seen, 60_000);
      expect(Object.keys(t0).sort()).toEqual(["", vault]);
      const first = await verifyWithJWKS(k, t0[vault]?.token ?? "");
      expect(first.aud).toEqual([vault]);
      expect(first["kubernetes.io"].pod).toEqual({ name: "tok-ctd", uid });
      // The republishes with the cached tokens leave the same content.
      await waitFor("a republish", async () => ((await k.publishesOf(uid, "secrets")).length >= 2 ? true : undefined), 60_000);
      expect(await seen()).toEqual(t0);

      k.setSkewMs(500_000);
      const t1 = await waitFor("a new vault token in the container", async () => {
        const t = await seen();
        return t && t[vault]?.token !== t0[vault]?.token ? t : undefined;
      }, 60_000);
      expect(t1[""]).toEqual(t0[""]);
      const fresh = await verifyWithJWKS(k, t1[vault]?.token ?? "");
      expect(fresh.aud).toEqual([vault]);
      expect(fresh["kubernetes.io"].pod).toEqual({ name: "tok-ctd", uid });
      expect(fresh.exp).toBeGreaterThan(first.exp);
    } finally {
      rt.close();
    }
  }, 240_000);
});
