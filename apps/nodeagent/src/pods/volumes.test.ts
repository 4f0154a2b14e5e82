import { chmodSync, existsSync, mkdtempSync, writeFileSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Container, Pod, Volume } from "@skiff/api-types";
import { newNotFound } from "@skiff/apimachinery";
import type { ObjectManager } from "./object-manager.js";
import type { ConfigMapObject, PodObjectManagers, SecretObject } from "./pod-objects.js";
import type { PodVolumeHooks } from "./types.js";
import type { TokenRequestSpec } from "@skiff/client";
import { ServiceAccountTokenManager } from "./token-manager.js";
import { emptyDirMemorySizeBytes, PodVolumeManager, podVolumeDir, tmpfsMountCommand, VolumeSetUpError, type TmpfsMounter } from "./volumes.js";

const root = mkdtempSync(join(tmpdir(), "skiff-vol-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function makePod(volumes: Volume[], containers: Container[] = [{ name: "main", image: "busybox" }]): Pod {
  n++;
  return { metadata: { name: `p${n}`, namespace: "default", uid: `uid-${n}`, labels: { app: "web" } }, spec: { volumes, containers } };
}

function fakeTmpfs() {
  const mounted = new Set<string>();
  const calls: string[] = [];
  const m: TmpfsMounter = {
    mount: async (dir, size) => {
      mounted.add(dir);
      calls.push(`mount ${dir} ${size ?? "-"}`);
    },
    unmount: async (dir) => {
      mounted.delete(dir);
      calls.push(`umount ${dir}`);
    },
    isMountPoint: async (dir) => mounted.has(dir),
  };
  return { m, calls, mounted };
}

// An in-memory ConfigMap/Secret source (what the managers answer), keyed "ns/name".
function fakeObjects() {
  const cms = new Map<string, ConfigMapObject>();
  const secrets = new Map<string, SecretObject>();
  const mgr = <T>(m: Map<string, T>, resource: string): ObjectManager<T> => ({
    get: async (ns, name) => {
      const o = m.get(`${ns}/${name}`);
      if (!o) throw newNotFound({ group: "", resource }, name);
      return o;
    },
    registerPod: () => {},
    unregisterPod: () => {},
    stop: () => {},
  });
  const objects: PodObjectManagers = { configMaps: mgr(cms, "configmap"), secrets: mgr(secrets, "secret") };
  return { cms, secrets, objects };
}

const b64 = (s: string) => Buffer.from(s).toString("base64");

function manager(extra?: PodVolumeHooks, objects?: PodObjectManagers, nodeMemoryBytes = 1024, sizeMemoryBackedVolumes = true) {
  const events: string[] = [];
  const tmpfs = fakeTmpfs();
  const vm = new PodVolumeManager({
    rootDir: root,
    tmpfs: tmpfs.m,
    onEvent: (_p, type, reason, message) => events.push(`${type} ${reason} ${message}`),
    nodeAllocatable: { cpuMilli: 2000, memoryBytes: nodeMemoryBytes, ephemeralStorageBytes: 0 },
    sizeMemoryBackedVolumes,
    ...(extra ? { extra } : {}),
    ...(objects ? { objects } : {}),
  });
  return { vm, events, tmpfs };
}

describe("PodVolumeManager", () => {
  it("creates emptyDirs (0777) and tmpfs for medium Memory with the size limit, and removes them with the pod", async () => {
    const { vm, tmpfs } = manager(undefined, undefined, 8 * 1024 ** 3);
    const pod = makePod([{ name: "scratch", emptyDir: {} }, { name: "mem", emptyDir: { medium: "Memory", sizeLimit: "64Mi" } }]);
    await vm.setUp(pod);
    await vm.setUp(pod); // idempotent
    const scratch = podVolumeDir(root, "uid-1", "emptyDir", "scratch");
    expect(scratch).toBe(join(root, "pods", "uid-1", "volumes", "kubernetes.io~empty-dir", "scratch"));
    expect(statSync(scratch).mode & 0o777).toBe(0o777);
    const mem = podVolumeDir(root, "uid-1", "emptyDir", "mem");
    expect(tmpfs.calls).toEqual([`mount ${mem} ${64 * 1024 * 1024}`]);
    await vm.tearDown(pod);
    expect(tmpfs.calls).toContain(`umount ${mem}`);
    expect(existsSync(join(root, "pods", "uid-1"))).toBe(false);
  });

  it("SizeMemoryBackedVolumes: a memory emptyDir without sizeLimit is sized to node allocatable memory; gate off: no size option", async () => {
    const on = manager(undefined, undefined, 8 * 1024 ** 3);
    const pod = makePod([{ name: "mem", emptyDir: { medium: "Memory" } }]);
    await on.vm.setUp(pod);
    const mem = podVolumeDir(root, pod.metadata?.uid ?? "", "emptyDir", "mem");
    expect(on.tmpfs.calls).toEqual([`mount ${mem} ${8 * 1024 ** 3}`]);
    await on.vm.tearDown(pod);
    const off = manager(undefined, undefined, 8 * 1024 ** 3, false);
    const limited = makePod([{ name: "mem", emptyDir: { medium: "Memory", sizeLimit: "64Mi" } }]);
    await off.vm.setUp(limited);
    expect(off.tmpfs.calls).toEqual([`mount ${podVolumeDir(root, limited.metadata?.uid ?? "", "emptyDir", "mem")} -`]);
    await off.vm.tearDown(limited);
  });

  it("--experimental-mounter-path: tmpfs mounts run through the mounter with 'mount' first, as 1.23's doMount", () => {
    expect(tmpfsMountCommand("", "/d", 1024)).toEqual({ file: "mount", args: ["-t", "tmpfs", "-o", "size=1024", "tmpfs", "/d"] });
    expect(tmpfsMountCommand("mount", "/d", undefined)).toEqual({ file: "mount", args: ["-t", "tmpfs", "-o", "mode=0777", "tmpfs", "/d"] });
    expect(tmpfsMountCommand("/opt/mounter", "/d", 1024)).toEqual({ file: "/opt/mounter", args: ["mount", "-t", "tmpfs", "-o", "size=1024", "tmpfs", "/d"] });
  });

  it.skipIf(process.getuid?.() !== 0)("--experimental-mounter-path reaches the default tmpfs mounter (skipped unless root: the system mounter is used only as root)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skiff-mounter-"));
    try {
      const record = join(dir, "args");
      const mounter = join(dir, "mounter");
      writeFileSync(mounter, `#!/bin/sh\necho "$@" > ${record}\n`);
      chmodSync(mounter, 0o755);
      const vm = new PodVolumeManager({ rootDir: join(dir, "root"), mounterPath: mounter, nodeAllocatable: { cpuMilli: 2000, memoryBytes: 8 * 1024 ** 3, ephemeralStorageBytes: 0 } });
      const pod = makePod([{ name: "mem", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } }]);
      await vm.setUp(pod);
      const mem = podVolumeDir(join(dir, "root"), pod.metadata?.uid ?? "", "emptyDir", "mem");
      expect(readFileSync(record, "utf8")).toBe(`mount -t tmpfs -o size=1048576 tmpfs ${mem}\n`);
      await vm.tearDown(pod);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses an unknown medium", async () => {
    const { vm, events } = manager();
    const pod = makePod([{ name: "x", emptyDir: { medium: "Tape" } }]);
    await expect(vm.setUp(pod)).rejects.toThrow('MountVolume.SetUp failed for volume "x" : unknown storage medium "Tape"');
    expect(events).toHaveLength(1);
  });

  it("a persistentVolumeClaim or ephemeral volume (what volumeDevices may name) has no plugin: FailedMount, the pod waits in ContainerCreating", async () => {
    const { vm, events } = manager();
    const pod = makePod([
      { name: "data", persistentVolumeClaim: { claimName: "data" } },
      { name: "eph", ephemeral: { volumeClaimTemplate: { spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } } } },
    ]);
    pod.spec!.containers[0]!.volumeDevices = [{ name: "data", devicePath: "/dev/xvda" }];
    const err = await vm.setUp(pod).catch((e: unknown) => e);
    const message = "Unable to attach or mount volumes: unmounted volumes=[data eph], unattached volumes=[], failed to process volumes=[data eph]: timed out waiting for the condition";
    expect(err).toBeInstanceOf(VolumeSetUpError);
    expect(err).toMatchObject({ reason: "FailedMount", waitingReason: "ContainerCreating", message });
    expect(events).toEqual([`Warning FailedMount ${message}`]);
  });

  it("checks hostPath types and fails with a FailedMount event", async () => {
    const { vm, events } = manager();
    const target = join(root, "hp-dir");
    const ok = makePod([{ name: "h", hostPath: { path: target, type: "DirectoryOrCreate" } }]);
    await vm.setUp(ok);
    expect(statSync(target).isDirectory()).toBe(true);
    const bad = makePod([{ name: "h", hostPath: { path: target, type: "File" } }]);
    const err = await vm.setUp(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VolumeSetUpError);
    expect(err).toMatchObject({ reason: "FailedMount", waitingReason: "ContainerCreating", message: `MountVolume.SetUp failed for volume "h" : hostPath type check failed: ${target} is not a file` });
    expect(events).toEqual([`Warning FailedMount MountVolume.SetUp failed for volume "h" : hostPath type check failed: ${target} is not a file`]);
  });

  it("writes downwardAPI files with modes and rewrites them when labels change", async () => {
    const { vm } = manager();
    const pod = makePod([
      {
        name: "info",
        downwardAPI: {
          defaultMode: 0o600,
          items: [
            { path: "labels", fieldRef: { fieldPath: "metadata.labels" } },
            { path: "ns/name", fieldRef: { fieldPath: "metadata.name" }, mode: 0o644 },
            { path: "cpu", resourceFieldRef: { containerName: "main", resource: "limits.cpu", divisor: "1m" } },
          ],
        },
      },
    ]);
    await vm.setUp(pod);
    const d = podVolumeDir(root, pod.metadata?.uid ?? "", "downwardAPI", "info");
    expect(readFileSync(join(d, "labels"), "utf8")).toBe('app="web"');
    expect(readFileSync(join(d, "ns/name"), "utf8")).toBe(pod.metadata?.name);
    expect(readFileSync(join(d, "cpu"), "utf8")).toBe("2000");
    expect(statSync(join(d, "labels")).mode & 0o777).toBe(0o600);
    expect(statSync(join(d, "ns/name")).mode & 0o777).toBe(0o644);
    await vm.setUp({ ...pod, metadata: { ...pod.metadata, labels: { app: "web", v: "2" } } });
    expect(readFileSync(join(d, "labels"), "utf8")).toBe('app="web"\nv="2"');
  });

  it("projects downwardAPI sources and names unavailable sources in the kubelet's words", async () => {
    const { objects } = fakeObjects();
    const { vm, events } = manager(undefined, objects);
    const ok = makePod([{ name: "proj", projected: { sources: [{ downwardAPI: { items: [{ path: "uid", fieldRef: { fieldPath: "metadata.uid" } }] } }, { configMap: { name: "opt", optional: true } }] } }]);
    await vm.setUp(ok);
    expect(readFileSync(join(podVolumeDir(root, ok.metadata?.uid ?? "", "projected", "proj"), "uid"), "utf8")).toBe(ok.metadata?.uid);
    const bad = makePod([{ name: "kube-api-access", projected: { sources: [{ serviceAccountToken: { path: "token" } }, { configMap: { name: "kube-root-ca.crt" } }, { secret: { name: "s" } }] } }]);
    const err = await vm.setUp(bad).catch((e: unknown) => e);
    expect(err).toMatchObject({ waitingReason: "ContainerCreating" });
    expect((err as Error).message).toBe(
      'MountVolume.SetUp failed for volume "kube-api-access" : [failed to fetch token: this node agent has no service-account token manager, configmap "kube-root-ca.crt" not found, secret "s" not found]',
    );
    expect(events).toHaveLength(1);
  });

  it("projects a serviceAccountToken source: a token requested for the pod's service account, bound to the pod, renewed past 80 % of its life", async () => {
    const { cms, objects } = fakeObjects();
    cms.set("default/kube-root-ca.crt", { data: { "ca.crt": "CERT" } });
    let nowMs = Date.parse("2026-01-01T00:00:00Z");
    const requests: Array<{ target: unknown; spec: TokenRequestSpec }> = [];
    const tokens = new ServiceAccountTokenManager(
      (target, spec) => {
        requests.push({ target, spec });
        const exp = new Date(nowMs + (spec.expirationSeconds ?? 3600) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
        return Promise.resolve({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { ...spec, audiences: spec.audiences ?? [], expirationSeconds: spec.expirationSeconds ?? 3600 }, status: { token: `token-${String(requests.length)}`, expirationTimestamp: exp } });
      },
      { now: () => nowMs, random: () => 0 },
    );
    const { vm } = manager(undefined, { ...objects, serviceAccountTokens: tokens });
    const pod = makePod([
      { name: "kube-api-access", projected: { sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 3607 } }, { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } }] } },
    ]);
    pod.spec = { ...pod.spec, containers: pod.spec?.containers ?? [], serviceAccountName: "builder" };
    await vm.setUp(pod);
    const dir = podVolumeDir(root, pod.metadata?.uid ?? "", "projected", "kube-api-access");
    expect(readFileSync(join(dir, "token"), "utf8")).toBe("token-1");
    expect(readFileSync(join(dir, "ca.crt"), "utf8")).toBe("CERT");
    expect(requests[0]).toEqual({
      target: { namespace: "default", name: "builder" },
      spec: { audiences: [], expirationSeconds: 3607, boundObjectRef: { apiVersion: "v1", kind: "Pod", name: pod.metadata?.name, uid: pod.metadata?.uid } },
    });
    nowMs += 0.79 * 3607 * 1000;
    await vm.setUp(pod);
    expect(readFileSync(join(dir, "token"), "utf8")).toBe("token-1");
    nowMs += 0.02 * 3607 * 1000;
    await vm.setUp(pod);
    expect(readFileSync(join(dir, "token"), "utf8")).toBe("token-2");
    expect(readlinkSync(join(dir, "..data"))).toMatch(/^\.\.\d/);
  });

  it("projects configMap, secret and downwardAPI sources into one directory with items and modes", async () => {
    const { cms, secrets, objects } = fakeObjects();
    cms.set("default/ca", { data: { "ca.crt": "CERT" } });
    secrets.set("default/tok", { data: { token: b64("TOKEN"), other: b64("x") } });
    const { vm } = manager(undefined, objects);
    const pod = makePod([
      {
        name: "all",
        projected: {
          defaultMode: 0o440,
          sources: [{ configMap: { name: "ca" } }, { secret: { name: "tok", items: [{ key: "token", path: "sa/token", mode: 0o400 }] } }, { downwardAPI: { items: [{ path: "namespace", fieldRef: { fieldPath: "metadata.namespace" } }] } }],
        },
      },
    ]);
    await vm.setUp(pod);
    const d = podVolumeDir(root, pod.metadata?.uid ?? "", "projected", "all");
    expect(readdirSync(d).filter((x) => !x.startsWith("..")).sort()).toEqual(["ca.crt", "namespace", "sa"]);
    expect(readFileSync(join(d, "ca.crt"), "utf8")).toBe("CERT");
    expect(readFileSync(join(d, "sa/token"), "utf8")).toBe("TOKEN");
    expect(statSync(join(d, "sa/token")).mode & 0o777).toBe(0o400);
    expect(statSync(join(d, "ca.crt")).mode & 0o777).toBe(0o440);
    expect(readFileSync(join(d, "namespace"), "utf8")).toBe("default");
  });

  it("writes configMap and secret volumes (all keys or items, modes, binaryData) and follows updates through ..data", async () => {
    const { cms, secrets, objects } = fakeObjects();
    cms.set("default/app", { data: { "app.properties": "a=1\n", level: "debug" }, binaryData: { "logo.bin": Buffer.from([0, 1, 2]).toString("base64") } });
    secrets.set("default/db", { data: { password: b64("s3cr3t"), user: b64("bob") } });
    const { vm } = manager(undefined, objects);
    const pod = makePod([
      { name: "cfg", configMap: { name: "app" } },
      { name: "creds", secret: { secretName: "db", defaultMode: 0o400, items: [{ key: "password", path: "db/pass" }, { key: "user", path: "user", mode: 0o444 }] } },
    ]);
    await vm.setUp(pod);
    const cfg = podVolumeDir(root, pod.metadata?.uid ?? "", "configMap", "cfg");
    const creds = podVolumeDir(root, pod.metadata?.uid ?? "", "secret", "creds");
    expect(readFileSync(join(cfg, "app.properties"), "utf8")).toBe("a=1\n");
    expect([...readFileSync(join(cfg, "logo.bin"))]).toEqual([0, 1, 2]);
    expect(statSync(join(cfg, "level")).mode & 0o777).toBe(0o644);
    expect(readFileSync(join(creds, "db/pass"), "utf8")).toBe("s3cr3t");
    expect(statSync(join(creds, "db/pass")).mode & 0o777).toBe(0o400);
    expect(statSync(join(creds, "user")).mode & 0o777).toBe(0o444);
    const before = readlinkSync(join(cfg, "..data"));
    await vm.setUp(pod);
    expect(readlinkSync(join(cfg, "..data"))).toBe(before);
    cms.set("default/app", { data: { level: "info" } });
    await vm.setUp(pod);
    expect(readlinkSync(join(cfg, "..data"))).not.toBe(before);
    expect(readFileSync(join(cfg, "level"), "utf8")).toBe("info");
    expect(existsSync(join(cfg, "app.properties"))).toBe(false);
  });

  it("fails configMap and secret volumes that are missing (pod stays ContainerCreating), unless optional", async () => {
    const { cms, objects } = fakeObjects();
    const { vm, events } = manager(undefined, objects);
    const cm = makePod([{ name: "cfg", configMap: { name: "app-config" } }, { name: "ok", emptyDir: {} }]);
    await expect(vm.setUp(cm)).rejects.toMatchObject({ waitingReason: "ContainerCreating", message: 'MountVolume.SetUp failed for volume "cfg" : configmap "app-config" not found' });
    expect(existsSync(podVolumeDir(root, cm.metadata?.uid ?? "", "emptyDir", "ok"))).toBe(true); // the others are still set up
    const sec = makePod([{ name: "creds", secret: { secretName: "db" } }]);
    await expect(vm.setUp(sec)).rejects.toThrow('secret "db" not found');
    const optional = makePod([{ name: "cfg", configMap: { name: "x", optional: true } }, { name: "s", secret: { secretName: "y", optional: true, items: [{ key: "k", path: "k" }] } }]);
    await vm.setUp(optional);
    expect(existsSync(join(podVolumeDir(root, optional.metadata?.uid ?? "", "configMap", "cfg"), "..data"))).toBe(true);
    expect(events).toHaveLength(2);
    cms.set("default/partial", { data: { a: "1" } });
    const missingKey = makePod([{ name: "cfg", configMap: { name: "partial", items: [{ key: "b", path: "b" }] } }]);
    await expect(vm.setUp(missingKey)).rejects.toThrow('MountVolume.SetUp failed for volume "cfg" : configmap references non-existent config key: b');
    // Created later: the next sync's set-up succeeds.
    cms.set("default/app-config", { data: { k: "v" } });
    await vm.setUp(cm);
    expect(readFileSync(join(podVolumeDir(root, cm.metadata?.uid ?? "", "configMap", "cfg"), "k"), "utf8")).toBe("v");
  });

  it("refuses configMap, secret and projected API sources in standalone mode", async () => {
    const { vm } = manager();
    await expect(vm.setUp(makePod([{ name: "cfg", configMap: { name: "a", optional: true } }]))).rejects.toThrow("cannot setup configMap volume cfg because kube client is not configured");
    await expect(vm.setUp(makePod([{ name: "s", secret: { secretName: "a" } }]))).rejects.toThrow("cannot setup secret volume s because kube client is not configured");
    await expect(vm.setUp(makePod([{ name: "p", projected: { sources: [{ secret: { name: "a" } }] } }]))).rejects.toThrow("cannot setup projected volume p because kube client is not configured");
  });

  it("builds CRI mounts: subPath created inside the volume, subPathExpr, readOnly, propagation", async () => {
    const { vm } = manager();
    const pod = makePod(
      [
        { name: "data", emptyDir: {} },
        { name: "host", hostPath: { path: "/etc/hostname", type: "" } },
        { name: "info", downwardAPI: { items: [{ path: "name", fieldRef: { fieldPath: "metadata.name" } }] } },
      ],
      [
        {
          name: "main",
          image: "busybox",
          env: [{ name: "POD", value: "alpha" }],
          volumeMounts: [
            { name: "data", mountPath: "/data" },
            { name: "data", mountPath: "/logs", subPath: "logs/app", readOnly: true },
            { name: "data", mountPath: "/per-pod", subPathExpr: "$(POD)" },
            { name: "host", mountPath: "/h", mountPropagation: "HostToContainer" },
            { name: "info", mountPath: "/info", mountPropagation: "Bidirectional" },
            { name: "data", mountPath: "/escape", subPath: "../x" },
            { name: "nope", mountPath: "/nope" },
          ],
        },
      ],
    );
    await vm.setUp(pod);
    const base = podVolumeDir(root, pod.metadata?.uid ?? "", "emptyDir", "data");
    const mounts = vm.mounts(pod, pod.spec?.containers[0] ?? { name: "" });
    expect(mounts).toEqual([
      { containerPath: "/data", hostPath: base, readonly: false, propagation: "PROPAGATION_PRIVATE" },
      { containerPath: "/logs", hostPath: join(base, "logs/app"), readonly: true, propagation: "PROPAGATION_PRIVATE" },
      { containerPath: "/per-pod", hostPath: join(base, "alpha"), readonly: false, propagation: "PROPAGATION_PRIVATE" },
      { containerPath: "/h", hostPath: "/etc/hostname", readonly: false, propagation: "PROPAGATION_HOST_TO_CONTAINER" },
      { containerPath: "/info", hostPath: podVolumeDir(root, pod.metadata?.uid ?? "", "downwardAPI", "info"), readonly: true, propagation: "PROPAGATION_BIDIRECTIONAL" },
    ]);
    expect(statSync(join(base, "logs/app")).isDirectory()).toBe(true);
    expect(statSync(join(base, "alpha")).isDirectory()).toBe(true);
  });

  it("delegates other kinds to the extra hooks, after its own", async () => {
    const calls: string[] = [];
    const extra: PodVolumeHooks = {
      setUp: async () => void calls.push("setUp"),
      tearDown: async () => void calls.push("tearDown"),
      mounts: () => [{ containerPath: "/csi", hostPath: "/x" }],
    };
    const { vm } = manager(extra);
    const pod = makePod([{ name: "c", csi: { driver: "d" } }, { name: "bad", hostPath: { path: join(root, "nope"), type: "Directory" } }], [{ name: "main", volumeMounts: [{ name: "c", mountPath: "/csi" }] }]);
    await expect(vm.setUp(pod)).rejects.toThrow("is not a directory");
    expect(calls).toEqual([]); // built-in failure stops before the extra hooks
    const good = makePod([{ name: "c", csi: { driver: "d" } }], [{ name: "main", volumeMounts: [{ name: "c", mountPath: "/csi" }] }]);
    await vm.setUp(good);
    expect(vm.mounts(good, good.spec?.containers[0] ?? { name: "" })).toEqual([{ containerPath: "/csi", hostPath: "/x" }]);
    await vm.tearDown(good);
    expect(calls).toEqual(["setUp", "tearDown"]);
  });

  it("a volume no plugin supports (nfs; csi without CSI support or with CSIInlineVolume off) holds the pod in ContainerCreating with 1.23's FailedMount", async () => {
    const { vm, events } = manager();
    const pod = makePod([{ name: "scratch", emptyDir: {} }, { name: "share", nfs: { server: "nfs.example.com", path: "/export" } } as Volume, { name: "inline", csi: { driver: "d" } }]);
    const err = await vm.setUp(pod).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VolumeSetUpError);
    expect((err as VolumeSetUpError).waitingReason).toBe("ContainerCreating");
    const message = "Unable to attach or mount volumes: unmounted volumes=[inline share], unattached volumes=[], failed to process volumes=[inline share]: timed out waiting for the condition";
    expect((err as Error).message).toBe(message);
    expect(events).toEqual([`Warning FailedMount ${message}`]);
    const gateOff: PodVolumeHooks = { canSupport: () => false, setUp: async () => undefined, tearDown: async () => undefined, mounts: () => [] };
    const off = manager(gateOff);
    await expect(off.vm.setUp(makePod([{ name: "inline", csi: { driver: "d" } }]))).rejects.toThrow("failed to process volumes=[inline]");
  });

  it("tears down a pod it never saw without failing", async () => {
    const { vm } = manager();
    await expect(vm.tearDown(makePod([]))).resolves.toBeUndefined();
  });
});

describe.skipIf(process.getuid?.() !== 0)("PodVolumeManager fsGroup (chown needs root)", () => {
  it("gives emptyDir (rw, once) and downwardAPI (read-only) volumes to the pod's fsGroup with setgid directories", async () => {
    const { vm } = manager();
    const pod = makePod([
      { name: "scratch", emptyDir: {} },
      { name: "info", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
    ]);
    pod.spec = { ...pod.spec, containers: pod.spec?.containers ?? [], securityContext: { fsGroup: 4321 } };
    await vm.setUp(pod);
    const uid = pod.metadata?.uid ?? "";
    const scratch = podVolumeDir(root, uid, "emptyDir", "scratch");
    expect(statSync(scratch).gid).toBe(4321);
    expect(statSync(scratch).mode & 0o7777).toBe(0o2777);
    const info = podVolumeDir(root, uid, "downwardAPI", "info");
    expect(statSync(info).gid).toBe(4321);
    expect(statSync(info).mode & 0o2000).toBe(0o2000);
    expect(statSync(join(info, "labels")).gid).toBe(4321);
    expect(statSync(join(info, "labels")).mode & 0o440).toBe(0o440);
    await vm.setUp(pod); // a second sync keeps the emptyDir as it is
    expect(statSync(scratch).mode & 0o7777).toBe(0o2777);
    await vm.tearDown(pod);
  });
});

describe("emptyDirMemorySizeBytes (1.23 TestCalculateEmptyDirMemorySize)", () => {
  const Gi = 1024n ** 3n;
  const pod = (limits: Record<string, string>[], requests?: Record<string, string>[]): Pod => ({
    metadata: { name: "p", uid: "u" },
    spec: { containers: limits.map((l, i) => ({ name: `c${String(i)}`, image: "busybox", resources: { limits: l, ...(requests?.[i] ? { requests: requests[i] } : {}) } })) },
  });
  it.each([
    ["gate off", pod([{ memory: "1Gi" }]), "1Gi", false, undefined],
    ["BestEffort, no sizeLimit: node allocatable", pod([{}]), undefined, true, 16n * Gi],
    ["Guaranteed pod limit below allocatable", pod([{ memory: "1Gi", cpu: "1" }]), undefined, true, 1n * Gi],
    ["sizeLimit below the pod limit", pod([{ memory: "1Gi", cpu: "1" }]), "500Mi", true, 500n * 1024n * 1024n],
    ["sizeLimit above the pod limit is ignored", pod([{ memory: "1Gi", cpu: "1" }]), "2Gi", true, 1n * Gi],
    ["sizeLimit above node allocatable is ignored", pod([{}]), "32Gi", true, 16n * Gi],
    ["Burstable without a memory limit on every container: node allocatable", pod([{ memory: "1Gi" }, {}], [{ memory: "1Gi" }, { memory: "100Mi" }]), undefined, true, 16n * Gi],
    ["Burstable with every memory limit: their sum", pod([{ memory: "1Gi" }, { memory: "1Gi" }], [{ memory: "100Mi" }, { memory: "100Mi" }]), undefined, true, 2n * Gi],
  ] as const)("%s", (_name, p, sizeLimit, enabled, want) => {
    expect(emptyDirMemorySizeBytes(p, sizeLimit, 16n * Gi, enabled)).toBe(want);
  });
});
