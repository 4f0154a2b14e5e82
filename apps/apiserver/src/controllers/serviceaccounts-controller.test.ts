import type { ConfigMap, ServiceAccount } from "@skiff/api-types";
import type { GenericStore } from "@skiff/apiserver-core";
import type { APIObject } from "@skiff/apiserver-core";
import { MemoryStorage } from "@skiff/storage";
import { afterEach, describe, expect, it } from "vitest";
import { ensureBootstrapNamespaces } from "../bootstrap.js";
import { createAllStrategies } from "../registry/index.js";
import { createControllerStores, systemContext } from "./common.js";
import { RootCACertPublisher, rootCADescriptionAnnotation } from "./root-ca-cert-publisher.js";
import { ServiceAccountsController } from "./serviceaccounts-controller.js";

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

const until = async (check: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`never happened: ${what}`);
};

async function setUp() {
  const storage = new MemoryStorage({ compactionIntervalMs: 0 });
  cleanup.push(() => storage.close());
  const strategies = createAllStrategies({ jobReadyPods: false, jobTrackingWithFinalizers: false, jobMutableNodeSchedulingDirectives: true });
  await ensureBootstrapNamespaces(strategies, storage, ["default"]);
  const stores = createControllerStores(strategies, storage);
  const store = (kind: string) => stores.forKind("v1", kind)!;
  const ctx = (ns?: string) => systemContext("test", ns);
  const exists = async (kind: string, ns: string, name: string): Promise<APIObject | undefined> => {
    try {
      return await store(kind).get(ctx(ns), name);
    } catch {
      return undefined;
    }
  };
  const createNamespace = (name: string) => store("Namespace").create(ctx(), { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return { storage, stores, store, ctx, exists, createNamespace };
}

describe("ServiceAccountsController", () => {
  it("creates default in every namespace, existing and new, and again after it is deleted", async () => {
    const t = await setUp();
    const c = new ServiceAccountsController(t.stores, t.storage);
    await c.start();
    cleanup.push(() => c.stop());
    await until(async () => (await t.exists("ServiceAccount", "default", "default")) !== undefined, "default/default");
    await t.createNamespace("team");
    await until(async () => (await t.exists("ServiceAccount", "team", "default")) !== undefined, "team/default");
    const sa = (await t.exists("ServiceAccount", "team", "default")) as ServiceAccount;
    // Only a name: no field to own, so no managedFields entry (as 1.23 shows the default SA).
    expect(sa.metadata?.managedFields).toBeUndefined();
    const uid = sa.metadata?.uid;
    await t.store("ServiceAccount").delete(t.ctx("team"), "default", {});
    await until(async () => {
      const again = await t.exists("ServiceAccount", "team", "default");
      return again !== undefined && again.metadata?.uid !== uid;
    }, "recreated");
  });

  it("leaves a terminating namespace alone", async () => {
    const t = await setUp();
    await t.createNamespace("going");
    await t.store("Namespace").delete(t.ctx(), "going", {});
    const c = new ServiceAccountsController(t.stores, t.storage);
    await c.start();
    cleanup.push(() => c.stop());
    await until(async () => (await t.exists("ServiceAccount", "default", "default")) !== undefined, "default/default");
    expect(await t.exists("ServiceAccount", "going", "default")).toBeUndefined();
  });
});

describe("RootCACertPublisher", () => {
  it("publishes kube-root-ca.crt with ca.crt in every namespace and restores it when changed or deleted", async () => {
    const t = await setUp();
    const p = new RootCACertPublisher(t.stores, t.storage, { rootCA: "PEM" });
    await p.start();
    cleanup.push(() => p.stop());
    const cm = async (ns: string) => (await t.exists("ConfigMap", ns, "kube-root-ca.crt")) as ConfigMap | undefined;
    await until(async () => (await cm("default")) !== undefined, "default/kube-root-ca.crt");
    expect((await cm("default"))?.data).toEqual({ "ca.crt": "PEM" });
    expect((await cm("default"))?.metadata?.annotations?.[rootCADescriptionAnnotation]).toMatch(/^Contains a CA bundle/);
    expect((await cm("default"))?.metadata?.managedFields?.[0]?.manager).toBe("kube-controller-manager");
    await t.createNamespace("team");
    await until(async () => (await cm("team")) !== undefined, "team/kube-root-ca.crt");
    const configMaps: GenericStore = t.store("ConfigMap");
    await configMaps.update(t.ctx("team"), "kube-root-ca.crt", (cur) => ({ ...cur!, data: { "ca.crt": "tampered", extra: "x" } }));
    await until(async () => JSON.stringify((await cm("team"))?.data) === JSON.stringify({ "ca.crt": "PEM" }), "restored data");
    await configMaps.delete(t.ctx("team"), "kube-root-ca.crt", {});
    await until(async () => (await cm("team"))?.data?.["ca.crt"] === "PEM", "recreated");
  });
});
