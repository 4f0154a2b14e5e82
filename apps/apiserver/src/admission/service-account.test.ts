import type { Pod } from "@skiff/api-types";
import { GenericStore, parseRequestInfo } from "@skiff/apiserver-core";
import type { AdmissionAttributes, AdmissionPlugin } from "@skiff/apiserver-core";
import { isStatusError } from "@skiff/apimachinery";
import { MemoryStorage } from "@skiff/storage";
import { afterEach, describe, expect, it } from "vitest";
import { systemContext } from "../controllers/common.js";
import { createServiceAccountStrategy } from "../registry/core/serviceaccount/strategy.js";
import { serviceAccountAdmission, tokenVolumeSource } from "./service-account.js";

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function setUp(opts: { mount?: boolean; serviceAccounts?: Record<string, unknown>[] } = {}) {
  const storage = new MemoryStorage({ compactionIntervalMs: 0 });
  cleanup.push(() => storage.close());
  const store = new GenericStore(createServiceAccountStrategy(), storage);
  for (const sa of opts.serviceAccounts ?? [{ metadata: { name: "default" } }]) await store.create(systemContext("t", "ns"), { apiVersion: "v1", kind: "ServiceAccount", ...sa });
  let lookups = 0;
  const counting = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "get") return (...args: Parameters<GenericStore["get"]>) => (lookups++, target.get(...args));
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  const plugin = serviceAccountAdmission({ serviceAccounts: counting, mountServiceAccountToken: opts.mount ?? true, retryIntervalMs: () => 1, randomSuffix: () => "abcde" });
  return { plugin, lookups: () => lookups };
}

const attrs = (pod: Pod, path = "/api/v1/namespaces/ns/pods"): AdmissionAttributes => ({
  operation: "CREATE",
  info: parseRequestInfo("POST", path, {}),
  object: pod as unknown as AdmissionAttributes["object"],
  oldObject: undefined,
  ctx: systemContext("u", "ns"),
});
type PodWithSpec = Pod & { spec: NonNullable<Pod["spec"]> };
const pod = (spec: Partial<NonNullable<Pod["spec"]>> = {}, annotations?: Record<string, string>): PodWithSpec => ({
  metadata: { name: "p", ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: "c", image: "busybox" }], ...spec },
});
const admit = (plugin: AdmissionPlugin, p: Pod, path?: string) => plugin.mutate!(attrs(p, path));
const refusal = async (plugin: AdmissionPlugin, p: Pod) => {
  try {
    await admit(plugin, p);
  } catch (e) {
    if (isStatusError(e)) return e.status;
    throw e;
  }
  throw new Error("admitted");
};

describe("ServiceAccount admission", () => {
  it("defaults serviceAccountName (and the deprecated alias) and mounts kube-api-access into every container", async () => {
    const { plugin } = await setUp();
    const p = pod({ initContainers: [{ name: "i", image: "busybox" }] });
    await admit(plugin, p);
    expect(p.spec.serviceAccountName).toBe("default");
    expect(p.spec.serviceAccount).toBe("default");
    const mount = { name: "kube-api-access-abcde", readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" };
    expect(p.spec.containers[0]?.volumeMounts).toEqual([mount]);
    expect(p.spec.initContainers?.[0]?.volumeMounts).toEqual([mount]);
    expect(p.spec.volumes).toEqual([{ name: "kube-api-access-abcde", projected: tokenVolumeSource() }]);
    expect(tokenVolumeSource()).toEqual({
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
      ],
    });
  });

  it("honours automountServiceAccountToken (pod first, then service account) and existing mounts", async () => {
    const { plugin } = await setUp({ serviceAccounts: [{ metadata: { name: "default" } }, { metadata: { name: "quiet" }, automountServiceAccountToken: false, imagePullSecrets: [{ name: "reg" }] }] });
    const off = pod({ automountServiceAccountToken: false });
    await admit(plugin, off);
    expect(off.spec.volumes).toBeUndefined();
    const quiet = pod({ serviceAccountName: "quiet" });
    await admit(plugin, quiet);
    expect(quiet.spec.volumes).toBeUndefined();
    expect(quiet.spec.imagePullSecrets).toEqual([{ name: "reg" }]);
    const podWins = pod({ serviceAccountName: "quiet", automountServiceAccountToken: true, imagePullSecrets: [{ name: "own" }] });
    await admit(plugin, podWins);
    expect(podWins.spec.volumes?.map((v) => v.name)).toEqual(["kube-api-access-abcde"]);
    expect(podWins.spec.imagePullSecrets).toEqual([{ name: "own" }]);
    const own = pod({ containers: [{ name: "c", image: "b", volumeMounts: [{ name: "mine", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" }] }], volumes: [{ name: "mine", emptyDir: {} }] });
    await admit(plugin, own);
    expect(own.spec.volumes?.map((v) => v.name)).toEqual(["mine"]);
    const alias = pod({ serviceAccount: "quiet" });
    await admit(plugin, alias);
    expect(alias.spec.serviceAccountName).toBe("quiet");
  });

  it("adds no volume when mounting is off (skiff-apiserver's default until TokenRequest is served)", async () => {
    const { plugin } = await setUp({ mount: false });
    const p = pod();
    await admit(plugin, p);
    expect(p.spec.serviceAccountName).toBe("default");
    expect(p.spec.volumes).toBeUndefined();
  });

  it("refuses a missing service account with 403 in 1.23's words, looking the default one up 10 times", async () => {
    const { plugin, lookups } = await setUp({ serviceAccounts: [] });
    const st = await refusal(plugin, pod());
    expect(st).toMatchObject({ code: 403, reason: "Forbidden", message: 'pods "p" is forbidden: error looking up service account ns/default: serviceaccount "default" not found' });
    expect(lookups()).toBe(10);
    const other = await refusal(plugin, pod({ serviceAccountName: "nope" }));
    expect(other.message).toBe('pods "p" is forbidden: error looking up service account ns/nope: serviceaccount "nope" not found');
    expect(lookups()).toBe(11);
  });

  it("leaves mirror pods unchanged and refuses ones naming service accounts, secrets or tokens", async () => {
    const { plugin } = await setUp();
    const mirror = { "example.io/config.mirror": "hash" };
    const m = pod({}, mirror);
    await admit(plugin, m);
    expect(m.spec.serviceAccountName).toBeUndefined();
    expect(m.spec.volumes).toBeUndefined();
    expect((await refusal(plugin, pod({ serviceAccountName: "default" }, mirror))).message).toBe('pods "p" is forbidden: a mirror pod may not reference service accounts');
    expect((await refusal(plugin, pod({ volumes: [{ name: "s", secret: { secretName: "x" } }] }, mirror))).message).toBe('pods "p" is forbidden: a mirror pod may not reference secrets');
    expect((await refusal(plugin, pod({ volumes: [{ name: "t", projected: tokenVolumeSource() }] }, mirror))).message).toBe(
      'pods "p" is forbidden: a mirror pod may not use ServiceAccountToken volume projections',
    );
  });

  it("with kubernetes.io/enforce-mountable-secrets, limits secret volumes, secretKeyRef env vars and pull secrets to the service account's", async () => {
    const { plugin } = await setUp({
      serviceAccounts: [{ metadata: { name: "strict", annotations: { "kubernetes.io/enforce-mountable-secrets": "true" } }, secrets: [{ name: "ok" }], imagePullSecrets: [{ name: "reg" }] }],
    });
    const allowed = pod({ serviceAccountName: "strict", volumes: [{ name: "v", secret: { secretName: "ok" } }] });
    await admit(plugin, allowed);
    expect(allowed.spec.imagePullSecrets).toEqual([{ name: "reg" }]);
    const refusedMessage = async (spec: Partial<NonNullable<Pod["spec"]>>) => (await refusal(plugin, pod({ serviceAccountName: "strict", ...spec }))).message;
    expect(await refusedMessage({ volumes: [{ name: "v", secret: { secretName: "other" } }] })).toBe(
      'pods "p" is forbidden: volume with secret.secretName="other" is not allowed because service account strict does not reference that secret',
    );
    expect(await refusedMessage({ initContainers: [{ name: "i", image: "b", env: [{ name: "E", valueFrom: { secretKeyRef: { name: "other", key: "k" } } }] }] })).toBe(
      'pods "p" is forbidden: init container i with envVar E referencing secret.secretName="other" is not allowed because service account strict does not reference that secret',
    );
    expect(await refusedMessage({ imagePullSecrets: [{ name: "reg" }, { name: "x" }] })).toBe(
      'pods "p" is forbidden: imagePullSecrets[1].name="x" is not allowed because service account strict does not reference that imagePullSecret',
    );
  });

  it("ignores other resources, subresources and updates", async () => {
    const { plugin } = await setUp({ serviceAccounts: [] });
    const p = pod();
    await admit(plugin, p, "/api/v1/namespaces/ns/pods/p/binding");
    await admit(plugin, p, "/api/v1/namespaces/ns/podtemplates");
    await plugin.mutate!({ ...attrs(p), operation: "UPDATE", oldObject: p as unknown as AdmissionAttributes["object"] });
    expect(p.spec.serviceAccountName).toBeUndefined();
  });
});

describe("ServiceAccount admission of pods/ephemeralcontainers updates (1.23 limitEphemeralContainerSecretReferences)", () => {
  const update = (p: Pod): AdmissionAttributes => ({
    operation: "UPDATE",
    info: parseRequestInfo("PATCH", "/api/v1/namespaces/ns/pods/p/ephemeralcontainers", {}),
    object: p as unknown as AdmissionAttributes["object"],
    oldObject: p as unknown as AdmissionAttributes["object"],
    ctx: systemContext("u", "ns"),
  });
  const withEphemeral = (secret: string): Pod => ({
    ...pod({ serviceAccountName: "strict" }),
    spec: { ...pod().spec, serviceAccountName: "strict", ephemeralContainers: [{ name: "dbg", image: "busybox", env: [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: secret, key: "k" } } }] }] },
  });

  it("with an enforcing service account, ephemeral containers may reference only its secrets", async () => {
    const { plugin } = await setUp({
      serviceAccounts: [{ metadata: { name: "strict", annotations: { "kubernetes.io/enforce-mountable-secrets": "true" } }, secrets: [{ name: "ok" }] }],
    });
    await plugin.validate!(update(withEphemeral("ok")));
    await expect(plugin.validate!(update(withEphemeral("nope")))).rejects.toMatchObject({
      status: { code: 403, message: expect.stringContaining('ephemeral container dbg with envVar TOKEN referencing secret.secretName="nope" is not allowed because service account strict does not reference that secret') as unknown },
    });
  });

  it("without enforcement anything goes, and other updates are not looked at", async () => {
    const { plugin, lookups } = await setUp({ serviceAccounts: [{ metadata: { name: "strict" } }] });
    await plugin.validate!(update(withEphemeral("nope")));
    const before = lookups();
    await plugin.validate!({ ...update(withEphemeral("nope")), info: parseRequestInfo("PUT", "/api/v1/namespaces/ns/pods/p", {}) });
    expect(lookups()).toBe(before);
  });
});
