import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CSIDriver, Pod } from "@skiff/api-types";
import type { TokenRequest, TokenRequestSpec } from "@skiff/client";
import { startFakeCsiDriver, volumeContextFileName, type FakeCsiDriver } from "@skiff/fake-csi-driver";
import { ServiceAccountTokenManager } from "../pods/token-manager.js";
import type { RegisteredCsiDriver } from "./plugin-manager.js";
import { CsiVolumeError, CsiVolumeManager, buildVolumeContext, csiVolumeHandle, csiVolumeTargetPath, podServiceAccountTokenAttrs } from "./volumes.js";

const pod: Pod = {
  metadata: { name: "p", namespace: "ns", uid: "uid-1" },
  spec: {
    serviceAccountName: "sa",
    volumes: [
      { name: "vol", csi: { driver: "fake.csi.example.io", volumeAttributes: { size: "1Mi" }, fsType: "ext4" } },
      { name: "scratch", emptyDir: {} },
    ],
    containers: [
      {
        name: "main",
        image: "busybox",
        volumeMounts: [
          { name: "vol", mountPath: "/data" },
          { name: "vol", mountPath: "/sub", subPath: "a/b", readOnly: true },
          { name: "scratch", mountPath: "/scratch" },
          { name: "vol", mountPath: "/escape", subPath: "../../etc" },
        ],
      },
    ],
  },
};
const driverObj = (spec: CSIDriver["spec"]): CSIDriver => ({ metadata: { name: "fake.csi.example.io" }, spec: { volumeLifecycleModes: ["Ephemeral"], ...spec } });

describe("csiVolumeHandle / csiVolumeTargetPath", () => {
  it("is csi- plus the hex SHA-256 of pod UID and volume name", () => {
    expect(csiVolumeHandle("uid-1", "vol")).toBe("csi-67efd08187334bc4caecc2244debc613d2dae49b3b82338caf725c10f4e8a821");
    expect(csiVolumeHandle("uid-1", "vol2")).not.toBe(csiVolumeHandle("uid-1", "vol"));
  });
  it("puts the target under the pod's kubernetes.io~csi directory", () => {
    expect(csiVolumeTargetPath("/r", "u", "v")).toBe("/r/pods/u/volumes/kubernetes.io~csi/v/mount");
  });
});

describe("buildVolumeContext", () => {
  const src = { driver: "fake.csi.example.io", volumeAttributes: { size: "1Mi" } };
  it("passes only the attributes without podInfoOnMount (or without a CSIDriver)", () => {
    expect(buildVolumeContext(pod, src, undefined)).toEqual({ size: "1Mi" });
    expect(buildVolumeContext(pod, src, driverObj({ podInfoOnMount: false }))).toEqual({ size: "1Mi" });
  });
  it("adds the pod.* keys, serviceAccount.name and ephemeral with podInfoOnMount", () => {
    expect(buildVolumeContext(pod, src, driverObj({ podInfoOnMount: true }))).toEqual({
      size: "1Mi",
      "csi.storage.example.io/pod.name": "p",
      "csi.storage.example.io/pod.namespace": "ns",
      "csi.storage.example.io/pod.uid": "uid-1",
      "csi.storage.example.io/serviceAccount.name": "sa",
      "csi.storage.example.io/ephemeral": "true",
    });
  });
});

// A TokenRequest answer as the apiserver gives it: `tok-<audiences>-<n>`, expiring `expirationSeconds` after `nowMs`.
function issuer(nowMs: () => number) {
  const requests: Array<{ namespace: string; name: string; spec: TokenRequestSpec }> = [];
  const request = (target: { namespace: string; name: string }, spec: TokenRequestSpec): Promise<TokenRequest> => {
    requests.push({ ...target, spec });
    const expirationSeconds = spec.expirationSeconds ?? 3600;
    const audiences = spec.audiences ?? [];
    return Promise.resolve({
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { ...spec, audiences, expirationSeconds },
      status: { token: `tok-${audiences.join("+") || "api"}-${requests.length}`, expirationTimestamp: new Date(nowMs() + expirationSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z") },
    } as TokenRequest);
  };
  return { requests, request };
}

describe("podServiceAccountTokenAttrs", () => {
  it("is empty without tokenRequests (or without a CSIDriver), and requests nothing", async () => {
    const { requests, request } = issuer(() => 0);
    const get = (ns: string, name: string, spec: TokenRequestSpec) => request({ namespace: ns, name }, spec);
    expect(await podServiceAccountTokenAttrs(pod, undefined, get)).toEqual({});
    expect(await podServiceAccountTokenAttrs(pod, driverObj({ tokenRequests: [] }), get)).toEqual({});
    expect(requests).toEqual([]);
  });

  it("maps each audience (sorted) to its token and expiry; an empty audience asks for the apiserver's audiences", async () => {
    const now = Date.parse("2026-01-02T03:04:05Z");
    const { requests, request } = issuer(() => now);
    const attrs = await podServiceAccountTokenAttrs(pod, driverObj({ tokenRequests: [{ audience: "vault", expirationSeconds: 600 }, { audience: "" }] }), (ns, name, spec) => request({ namespace: ns, name }, spec));
    expect(Object.keys(attrs)).toEqual(["csi.storage.example.io/serviceAccount.tokens"]);
    const text = attrs["csi.storage.example.io/serviceAccount.tokens"] ?? "";
    // Go marshals the map with sorted keys and TokenRequestStatus as {token, expirationTimestamp}.
    expect(text).toBe('{"":{"token":"tok-api-2","expirationTimestamp":"2026-01-02T04:04:05Z"},"vault":{"token":"tok-vault-1","expirationTimestamp":"2026-01-02T03:14:05Z"}}');
    const bound = { apiVersion: "v1", kind: "Pod", name: "p", uid: "uid-1" };
    expect(requests).toEqual([
      { namespace: "ns", name: "sa", spec: { audiences: ["vault"], expirationSeconds: 600, boundObjectRef: bound } },
      { namespace: "ns", name: "sa", spec: { audiences: [], boundObjectRef: bound } },
    ]);
  });
});

describe("CsiVolumeManager", () => {
  let dir: string;
  let fake: FakeCsiDriver;
  let registered: RegisteredCsiDriver | undefined;
  let csiDriver: CSIDriver | undefined;
  const events: string[] = [];
  let manager: CsiVolumeManager;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-csiv-"));
    fake = await startFakeCsiDriver({ csiSocketPath: join(dir, "csi.sock") });
    registered = { name: "fake.csi.example.io", nodeId: "n", maxVolumesPerNode: 0, topology: {}, endpoint: fake.csiSocketPath, version: "1.5.0", socketPath: "" };
    csiDriver = undefined;
    events.length = 0;
    manager = new CsiVolumeManager({
      rootDir: join(dir, "root"),
      driver: (name) => (name === registered?.name ? registered : undefined),
      getCSIDriver: () => Promise.resolve(csiDriver),
      onEvent: (_p, type, reason, message) => events.push(`${type} ${reason} ${message}`),
    });
  });
  afterEach(async () => {
    await fake.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("publishes once with the volume id, target, capability and context; then unpublishes", async () => {
    csiDriver = driverObj({ podInfoOnMount: true });
    await manager.setUp(pod);
    await manager.setUp(pod);
    const calls = fake.callsOf("NodePublishVolume");
    expect(calls).toHaveLength(1);
    const target = csiVolumeTargetPath(join(dir, "root"), "uid-1", "vol");
    expect(calls[0]?.request).toMatchObject({
      volumeId: csiVolumeHandle("uid-1", "vol"),
      targetPath: target,
      readonly: false,
      volumeCapability: { mount: { fsType: "ext4" }, accessMode: { mode: "SINGLE_NODE_WRITER" } },
    });
    const ctx = JSON.parse(readFileSync(join(target, volumeContextFileName), "utf8")) as Record<string, string>;
    expect(ctx["csi.storage.example.io/pod.uid"]).toBe("uid-1");
    expect(ctx["csi.storage.example.io/ephemeral"]).toBe("true");
    await manager.tearDown(pod);
    expect(fake.callsOf("NodeUnpublishVolume").map((c) => c.request)).toEqual([{ volumeId: csiVolumeHandle("uid-1", "vol"), targetPath: target }]);
    expect(existsSync(join(dir, "root", "pods", "uid-1", "volumes", "kubernetes.io~csi", "vol"))).toBe(false);
  });

  it("DelegateFSGroupToCSIDriver: a driver with VOLUME_MOUNT_GROUP gets the fsGroup as volume_mount_group and the agent does not chown; without it the agent applies the fsGroup", async () => {
    const fsGroupPod: Pod = { ...pod, spec: { ...pod.spec, containers: pod.spec?.containers ?? [], securityContext: { fsGroup: 2345 } } };
    csiDriver = driverObj({ fsGroupPolicy: "File" });
    await fake.stop();
    fake = await startFakeCsiDriver({ csiSocketPath: join(dir, "csi-vmg.sock"), volumeMountGroup: true });
    registered = { ...(registered as RegisteredCsiDriver), endpoint: fake.csiSocketPath };
    await manager.setUp(fsGroupPod);
    expect(fake.callsOf("NodeGetCapabilities")).toHaveLength(1);
    expect(fake.callsOf("NodePublishVolume")[0]?.request).toMatchObject({ volumeCapability: { mount: { fsType: "ext4", volumeMountGroup: "2345" } } });
    const target = csiVolumeTargetPath(join(dir, "root"), "uid-1", "vol");
    expect(statSync(target).gid).not.toBe(2345);
    await manager.tearDown(fsGroupPod);

    // Gate off: no capability check, no volume_mount_group; the agent gives the volume to the fsGroup.
    const off = new CsiVolumeManager({ rootDir: join(dir, "root"), driver: () => registered, getCSIDriver: () => Promise.resolve(csiDriver), delegateFSGroupToCSIDriver: false });
    await off.setUp(fsGroupPod);
    expect(fake.callsOf("NodeGetCapabilities")).toHaveLength(1);
    const second = fake.callsOf("NodePublishVolume")[1]?.request as { volumeCapability: { mount: { volumeMountGroup?: string } } };
    expect(second.volumeCapability.mount.volumeMountGroup ?? "").toBe("");
    if (process.getuid?.() === 0) expect(statSync(target).gid).toBe(2345);
    await off.tearDown(fsGroupPod);
  });

  it("publishes again at every setUp when the CSIDriver sets requiresRepublish", async () => {
    csiDriver = driverObj({ requiresRepublish: true });
    await manager.setUp(pod);
    await manager.setUp(pod);
    await manager.setUp(pod);
    expect(fake.callsOf("NodePublishVolume")).toHaveLength(3);
  });

  it("passes the pod's service-account tokens with tokenRequests, and fails without a token getter", async () => {
    csiDriver = driverObj({ tokenRequests: [{ audience: "vault" }] });
    const err = await manager.setUp(pod).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CsiVolumeError);
    expect((err as CsiVolumeError).reason).toBe("TokenRequestFailed");
    expect((err as Error).message).toBe('MountVolume.SetUp failed for volume "vol" : csi: mounter.SetUpAt failed to get service accoount token attributes: ServiceAccountTokenGetter is nil');
    expect(events[0]).toMatch(/^Warning FailedMount MountVolume\.SetUp failed/);
    expect(fake.callsOf("NodePublishVolume")).toEqual([]);
  });

  it("refuses a driver whose CSIDriver does not allow Ephemeral volumes", async () => {
    csiDriver = driverObj({ volumeLifecycleModes: ["Persistent"] });
    await expect(manager.setUp(pod)).rejects.toThrow(/volume mode "Ephemeral" not supported by driver/);
  });

  it("fails with DriverNotRegistered for an unknown driver, and tearDown does not block", async () => {
    registered = undefined;
    const err = await manager.setUp(pod).catch((e: unknown) => e);
    expect((err as CsiVolumeError).reason).toBe("DriverNotRegistered");
    await expect(manager.tearDown(pod)).resolves.toBeUndefined();
  });

  it("gives CRI mounts only for CSI volumes, with subPath and readOnly", () => {
    const c = pod.spec?.containers[0];
    if (!c) throw new Error("no container");
    const target = csiVolumeTargetPath(join(dir, "root"), "uid-1", "vol");
    expect(manager.mounts(pod, c)).toEqual([
      { containerPath: "/data", hostPath: target, readonly: false },
      { containerPath: "/sub", hostPath: join(target, "a/b"), readonly: true },
    ]);
  });

  describe("with tokenRequests and the token manager", () => {
    let nowMs: number;
    let tokens: ServiceAccountTokenManager;
    let iss: ReturnType<typeof issuer>;
    let failNext: boolean;
    const logs: string[] = [];
    const received = (i: number) => {
      const ctx = (fake.callsOf("NodePublishVolume")[i]?.request["volumeContext"] ?? {}) as Record<string, string>;
      return { ctx, tokens: JSON.parse(ctx["csi.storage.example.io/serviceAccount.tokens"] ?? "null") as Record<string, { token: string; expirationTimestamp: string }> | null };
    };

    beforeEach(() => {
      nowMs = Date.parse("2026-01-02T03:00:00Z");
      iss = issuer(() => nowMs);
      failNext = false;
      logs.length = 0;
      tokens = new ServiceAccountTokenManager((t, spec) => (failNext ? Promise.reject(new Error('serviceaccounts "sa" not found')) : iss.request(t, spec)), { now: () => nowMs, random: () => 0 });
      manager = new CsiVolumeManager({
        rootDir: join(dir, "root"),
        driver: (name) => (name === registered?.name ? registered : undefined),
        getCSIDriver: () => Promise.resolve(csiDriver),
        getServiceAccountToken: (ns, name, spec) => tokens.get(ns, name, spec),
        onEvent: (_p, type, reason, message) => events.push(`${type} ${reason} ${message}`),
        log: (m) => logs.push(m),
      });
    });

    it("passes a token per audience beside the pod info; with requiresRepublish the driver gets fresh ones past 80 % of their lifetime", async () => {
      csiDriver = driverObj({ podInfoOnMount: true, requiresRepublish: true, tokenRequests: [{ audience: "vault", expirationSeconds: 600 }, { audience: "storage", expirationSeconds: 3600 }] });
      await manager.setUp(pod);
      const first = received(0);
      expect(first.ctx["csi.storage.example.io/pod.uid"]).toBe("uid-1");
      expect(first.ctx["size"]).toBe("1Mi");
      expect(first.tokens).toEqual({
        storage: { token: "tok-storage-2", expirationTimestamp: "2026-01-02T04:00:00Z" },
        vault: { token: "tok-vault-1", expirationTimestamp: "2026-01-02T03:10:00Z" },
      });
      // Within 80 % of the lifetime: republished with the cached tokens.
      nowMs += 470_000;
      await manager.setUp(pod);
      expect(received(1).tokens).toEqual(first.tokens);
      // Past 80 % of the 600 s token (480 s): a new vault token; the 3600 s one is still fresh.
      nowMs += 20_000;
      await manager.setUp(pod);
      expect(received(2).tokens).toEqual({
        storage: { token: "tok-storage-2", expirationTimestamp: "2026-01-02T04:00:00Z" },
        vault: { token: "tok-vault-3", expirationTimestamp: "2026-01-02T03:18:10Z" },
      });
      expect(fake.callsOf("NodePublishVolume")).toHaveLength(3);
      // Tokens appear in no log line and no event.
      for (const line of [...logs, ...events]) expect(line).not.toMatch(/tok-/);
      expect(logs.filter((l) => l.startsWith("republished CSI volume vol"))).toHaveLength(2);
    });

    it("without requiresRepublish publishes once (tokens of the first publish only)", async () => {
      csiDriver = driverObj({ tokenRequests: [{ audience: "vault" }] });
      await manager.setUp(pod);
      nowMs += 4000_000;
      await manager.setUp(pod);
      expect(fake.callsOf("NodePublishVolume")).toHaveLength(1);
      expect(received(0).tokens).toEqual({ vault: { token: "tok-vault-1", expirationTimestamp: "2026-01-02T04:00:00Z" } });
    });

    it("reads requiresRepublish from the CSIDriver at each sync, as RequiresRemount does", async () => {
      csiDriver = driverObj({ tokenRequests: [{ audience: "vault" }] });
      await manager.setUp(pod);
      await manager.setUp(pod);
      csiDriver = driverObj({ tokenRequests: [{ audience: "vault" }], requiresRepublish: true });
      await manager.setUp(pod);
      expect(fake.callsOf("NodePublishVolume")).toHaveLength(2);
    });

    it("holds the pod when the first token request fails; a failed republish is an event and the pod goes on", async () => {
      csiDriver = driverObj({ requiresRepublish: true, tokenRequests: [{ audience: "vault", expirationSeconds: 600 }] });
      failNext = true;
      const err = await manager.setUp(pod).catch((e: unknown) => e);
      expect((err as CsiVolumeError).reason).toBe("TokenRequestFailed");
      expect((err as Error).message).toBe('MountVolume.SetUp failed for volume "vol" : csi: mounter.SetUpAt failed to get service accoount token attributes: failed to fetch token: serviceaccounts "sa" not found');
      expect(fake.callsOf("NodePublishVolume")).toEqual([]);
      failNext = false;
      await manager.setUp(pod);
      expect(fake.callsOf("NodePublishVolume")).toHaveLength(1);
      // Expired and the refresh fails: the republish is skipped with a FailedMount event, no throw.
      nowMs += 700_000;
      failNext = true;
      events.length = 0;
      await expect(manager.setUp(pod)).resolves.toBeUndefined();
      expect(fake.callsOf("NodePublishVolume")).toHaveLength(1);
      expect(events).toEqual([
        'Warning FailedMount MountVolume.SetUp failed for volume "vol" : csi: mounter.SetUpAt failed to get service accoount token attributes: token ns/sa expired and refresh failed: serviceaccounts "sa" not found',
      ]);
      // The volume is still known: removal unpublishes it.
      await manager.tearDown(pod);
      expect(fake.callsOf("NodeUnpublishVolume")).toHaveLength(1);
    });
  });
});
