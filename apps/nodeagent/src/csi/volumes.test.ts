import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CSIDriver, Pod } from "@skiff/api-types";
import { startFakeCsiDriver, volumeContextFileName, type FakeCsiDriver } from "@skiff/fake-csi-driver";
import type { RegisteredCsiDriver } from "./plugin-manager.js";
import { CsiVolumeError, CsiVolumeManager, buildVolumeContext, csiVolumeHandle, csiVolumeTargetPath } from "./volumes.js";

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

  it("publishes again at every setUp when the CSIDriver sets requiresRepublish", async () => {
    csiDriver = driverObj({ requiresRepublish: true });
    await manager.setUp(pod);
    await manager.setUp(pod);
    await manager.setUp(pod);
    expect(fake.callsOf("NodePublishVolume")).toHaveLength(3);
  });

  it("refuses tokenRequests with a NotSupported error and a FailedMount event", async () => {
    csiDriver = driverObj({ tokenRequests: [{ audience: "vault" }] });
    const err = await manager.setUp(pod).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CsiVolumeError);
    expect((err as CsiVolumeError).reason).toBe("NotSupported");
    expect((err as Error).message).toMatch(/^MountVolume\.SetUp failed for volume "vol" : NotSupported: CSIDriver "fake\.csi\.example\.io" sets tokenRequests.*no TokenRequest API is served/);
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
});
