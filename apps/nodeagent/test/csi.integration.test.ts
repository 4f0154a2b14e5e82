// CSI end to end: the REAL apiserver process, the node agent's CSI support in-process, the
// project's fake CSI driver, and pods on the process CRI server.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CSINode, Node } from "@skiff/api-types";
import { NodeIDAnnotation } from "@skiff/api-types";
import { isNotFound } from "@skiff/apimachinery";
import { createRuntimeClient } from "@skiff/cri-api";
import { nodeAgentFeatureGates } from "@skiff/feature-gates";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { startFakeCsiDriver, volumeContextFileName, type FakeCsiDriver } from "@skiff/fake-csi-driver";
import { createCsiSupport, csiVolumeHandle, csiVolumeTargetPath, migratedInTreePlugins, pluginsRegistryDir, type CsiSupport } from "../src/csi/index.js";
import { createPodRuntime, type PodRuntime } from "../src/pods/index.js";
import { ServiceAccountTokenManager } from "../src/pods/token-manager.js";
import { startApiserver, type RunningApiserver } from "./csi-helpers.js";
import { findPod, waitFor } from "./pods-helpers.js";

const nodeName = "csi-node";
const driverName = "fake.csi.example.io";

describe("CSI with the real apiserver", () => {
  let dir: string;
  let api: RunningApiserver;
  let node: Node;
  let csi: CsiSupport;
  let cri: ProcessRuntime;
  let pods: PodRuntime;
  let fake: FakeCsiDriver | undefined;
  const rootDir = () => join(dir, "root");
  const csiNode = () => api.client.csiNodes.get(nodeName);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-csi-it-"));
    api = await startApiserver();
    node = await api.client.nodes.create({ apiVersion: "v1", kind: "Node", metadata: { name: nodeName, labels: { "example.io/hostname": nodeName } } });
    const tokens = new ServiceAccountTokenManager((target, spec) => api.client.createServiceAccountToken(target, spec));
    csi = createCsiSupport({
      rootDir: rootDir(),
      nodeName,
      client: api.client,
      scanPeriodMs: 100,
      nodeWaitPeriodMs: 100,
      migratedPlugins: migratedInTreePlugins(nodeAgentFeatureGates()),
      getServiceAccountToken: (ns, name, spec) => tokens.get(ns, name, spec),
    });
    cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "state") });
    mkdirSync(join(dir, "manifests"));
    pods = createPodRuntime({
      nodeName,
      rootDir: rootDir(),
      podLogsDir: join(dir, "logs"),
      containerRuntimeEndpoint: cri.endpoint,
      runtimeRequestTimeoutMs: 10_000,
      staticPodPath: join(dir, "manifests"),
      fileCheckFrequencyMs: 200,
      syncFrequencyMs: 2_000,
      relistPeriodMs: 200,
      runtimeCheckPeriodMs: 300,
      volumes: csi.volumes,
    });
    await pods.start();
    await csi.start();
  });

  afterAll(async () => {
    await pods?.stop();
    await csi?.stop();
    await fake?.stop();
    await cri?.stop();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates the CSINode with an ownerReference to the Node and no drivers once the Node exists", async () => {
    const c = await waitFor("CSINode", () => csiNode());
    expect(c.metadata?.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: nodeName, uid: node.metadata?.uid }]);
    expect(c.spec.drivers).toEqual([]);
    // 1.23: storage.alpha.kubernetes.io/migrated-plugins lists the in-tree plugins migrated by default.
    expect(c.metadata?.annotations?.["storage.alpha.example.io/migrated-plugins"]).toBe("example.io/aws-ebs,example.io/azure-disk,example.io/azure-file,example.io/cinder,example.io/gce-pd");
  });

  it("adds the driver entry and the Node's topology labels when the driver registers", async () => {
    fake = await startFakeCsiDriver({
      csiSocketPath: join(dir, "driver", "csi.sock"),
      pluginsRegistryDir: pluginsRegistryDir(rootDir()),
      name: driverName,
      nodeId: "storage-node-7",
      topology: { "topology.fake.example.io/zone": "zone-a" },
      maxVolumesPerNode: 12,
    });
    const c = await waitFor("driver entry", async () => {
      const got: CSINode = await csiNode();
      return got.spec.drivers.length > 0 ? got : undefined;
    });
    expect(c.spec.drivers).toEqual([{ name: driverName, nodeID: "storage-node-7", topologyKeys: ["topology.fake.example.io/zone"], allocatable: { count: 12 } }]);
    expect(c.metadata?.ownerReferences?.[0]?.uid).toBe(node.metadata?.uid);
    const n = await api.client.nodes.get(nodeName);
    expect(n.metadata?.labels?.["topology.fake.example.io/zone"]).toBe("zone-a");
    expect(n.metadata?.labels?.["example.io/hostname"]).toBe(nodeName);
    expect(JSON.parse(n.metadata?.annotations?.[NodeIDAnnotation] ?? "{}")).toEqual({ [driverName]: "storage-node-7" });
    expect(fake.registrationStatuses).toEqual([{ pluginRegistered: true, error: "" }]);
  });

  it("publishes an inline CSI volume with the pod.* keys when the CSIDriver has podInfoOnMount, mounts it, and unpublishes on removal", async () => {
    if (!fake) throw new Error("driver not started");
    await api.client.csiDrivers.create({
      apiVersion: "storage.example.io/v1",
      kind: "CSIDriver",
      metadata: { name: driverName },
      spec: { attachRequired: false, podInfoOnMount: true, volumeLifecycleModes: ["Ephemeral"] },
    });
    const manifest = join(dir, "manifests", "csi-pod.json");
    writeFileSync(
      manifest,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "csi-pod", namespace: "default" },
        spec: {
          restartPolicy: "Never",
          terminationGracePeriodSeconds: 1,
          volumes: [{ name: "data", csi: { driver: driverName, volumeAttributes: { size: "1Mi" } } }],
          containers: [{ name: "main", image: "busybox", command: ["sh", "-c", "sleep 30"], volumeMounts: [{ name: "data", mountPath: "/data" }] }],
        },
      }),
    );
    const pod = await waitFor("pod running", () => {
      const p = findPod(pods.listPods(), "csi-pod");
      return p?.status?.phase === "Running" ? p : undefined;
    });
    const uid = pod.metadata?.uid ?? "";
    const target = csiVolumeTargetPath(rootDir(), uid, "data");
    const publish = fake.callsOf("NodePublishVolume");
    expect(publish).toHaveLength(1);
    expect(publish[0]?.request).toMatchObject({ volumeId: csiVolumeHandle(uid, "data"), targetPath: target });
    const ctx = JSON.parse(readFileSync(join(target, volumeContextFileName), "utf8")) as Record<string, string>;
    expect(ctx).toEqual({
      size: "1Mi",
      "csi.storage.example.io/pod.name": pod.metadata?.name,
      "csi.storage.example.io/pod.namespace": "default",
      "csi.storage.example.io/pod.uid": uid,
      "csi.storage.example.io/serviceAccount.name": "",
      "csi.storage.example.io/ephemeral": "true",
    });
    // The container got the volume as a CRI mount.
    const rt = createRuntimeClient({ endpoint: cri.endpoint, timeoutMs: 5_000 });
    try {
      const { containers } = await rt.listContainers({ filter: { labelSelector: { "io.example.pod.uid": uid } } });
      const st = await rt.containerStatus({ containerId: containers[0]?.id ?? "" });
      // Beside the agent's own /etc/hosts and termination-log mounts, the CSI volume at /data.
      const mounts = (st.status?.mounts ?? []).map((m) => ({ containerPath: m.containerPath, hostPath: m.hostPath }));
      expect(mounts.filter((m) => m.containerPath !== "/etc/hosts" && m.containerPath !== "/dev/termination-log")).toEqual([{ containerPath: "/data", hostPath: target }]);
    } finally {
      rt.close();
    }
    unlinkSync(manifest);
    await waitFor("NodeUnpublishVolume", () => (fake?.callsOf("NodeUnpublishVolume").length === 1 ? true : undefined));
    expect(fake.callsOf("NodeUnpublishVolume")[0]?.request).toEqual({ volumeId: csiVolumeHandle(uid, "data"), targetPath: target });
  });

  it.skipIf(process.getuid?.() !== 0)("gives an inline volume to the pod's fsGroup when the CSIDriver's fsGroupPolicy is File (chown needs root)", async () => {
    await api.client.csiDrivers.delete(driverName);
    await waitFor("CSIDriver gone", async () => {
      try {
        await api.client.csiDrivers.get(driverName);
        return undefined;
      } catch (err) {
        return isNotFound(err) ? true : undefined;
      }
    });
    await api.client.csiDrivers.create({
      apiVersion: "storage.example.io/v1",
      kind: "CSIDriver",
      metadata: { name: driverName },
      spec: { attachRequired: false, volumeLifecycleModes: ["Ephemeral"], fsGroupPolicy: "File" },
    });
    const manifest = join(dir, "manifests", "fsgroup-pod.json");
    writeFileSync(
      manifest,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "fsgroup-pod", namespace: "default" },
        spec: {
          restartPolicy: "Never",
          terminationGracePeriodSeconds: 1,
          securityContext: { fsGroup: 4321 },
          volumes: [{ name: "data", csi: { driver: driverName } }],
          containers: [{ name: "main", image: "busybox", command: ["sh", "-c", "sleep 30"], volumeMounts: [{ name: "data", mountPath: "/data" }] }],
        },
      }),
    );
    const pod = await waitFor("fsgroup pod running", () => {
      const p = findPod(pods.listPods(), "fsgroup-pod");
      return p?.status?.phase === "Running" ? p : undefined;
    });
    const target = csiVolumeTargetPath(rootDir(), pod.metadata?.uid ?? "", "data");
    expect(statSync(target).gid).toBe(4321);
    expect(statSync(target).mode & 0o2770).toBe(0o2770);
    expect(statSync(join(target, volumeContextFileName)).gid).toBe(4321);
    unlinkSync(manifest);
    await waitFor("fsgroup pod gone", () => (findPod(pods.listPods(), "fsgroup-pod") ? undefined : true));
  });

  // The whole tokenRequests flow (API pods, tokens verified, republish): csi-tokens.integration.test.ts.
  it("holds a static pod whose driver asks for tokenRequests: no token can be bound to a pod the apiserver does not know", async () => {
    await api.client.csiDrivers.delete(driverName);
    await waitFor("CSIDriver gone", async () => {
      try {
        await api.client.csiDrivers.get(driverName);
        return undefined;
      } catch (err) {
        return isNotFound(err) ? true : undefined;
      }
    });
    await api.client.csiDrivers.create({
      apiVersion: "storage.example.io/v1",
      kind: "CSIDriver",
      metadata: { name: driverName },
      spec: { attachRequired: false, volumeLifecycleModes: ["Ephemeral"], tokenRequests: [{ audience: "vault" }] },
    });
    const manifest = join(dir, "manifests", "token-pod.json");
    writeFileSync(
      manifest,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "token-pod", namespace: "default" },
        spec: {
          restartPolicy: "Never",
          serviceAccountName: "default",
          volumes: [{ name: "data", csi: { driver: driverName } }],
          containers: [{ name: "main", image: "busybox", command: ["sh", "-c", "sleep 30"], volumeMounts: [{ name: "data", mountPath: "/data" }] }],
        },
      }),
    );
    const waiting = await waitFor("waiting message", () => {
      const w = findPod(pods.listPods(), "token-pod")?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.message ? w : undefined;
    });
    expect(waiting.reason).toBe("ContainerCreating");
    expect(waiting.message).toMatch(/^MountVolume\.SetUp failed for volume "data" : csi: mounter\.SetUpAt failed to get service accoount token attributes: failed to fetch token: /);
    const volumeId = csiVolumeHandle(findPod(pods.listPods(), "token-pod")?.metadata?.uid ?? "", "data");
    expect(fake?.callsOf("NodePublishVolume").filter((c) => c.request["volumeId"] === volumeId)).toEqual([]);
    unlinkSync(manifest);
  });

  it("drops the driver entry and its topology labels when the driver's socket goes", async () => {
    if (!fake) throw new Error("driver not started");
    await fake.unregister();
    const c = await waitFor("entry dropped", async () => {
      const got = await csiNode();
      return got.spec.drivers.length === 0 ? got : undefined;
    });
    expect(c.metadata?.ownerReferences?.[0]?.name).toBe(nodeName);
    const n = await waitFor("labels dropped", async () => {
      const got = await api.client.nodes.get(nodeName);
      return got.metadata?.labels?.["topology.fake.example.io/zone"] === undefined ? got : undefined;
    });
    expect(n.metadata?.annotations?.[NodeIDAnnotation]).toBeUndefined();
    expect(n.metadata?.labels?.["example.io/hostname"]).toBe(nodeName);
  });
});
