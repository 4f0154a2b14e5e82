import type { Pod } from "@skiff/api-types";
import { createClient, createSharedInformerFactory } from "@skiff/client";
import type { Informer, KubeObject, ResourceClient, SharedInformerFactory } from "@skiff/client";
import { describe, expect, it } from "vitest";
import { enabledControllers, isControllerEnabled, startControllers, stopControllers, validateControllerSelection } from "./controller-manager.js";
import type { ControllerContext, ControllerInitializer } from "./controller-manager.js";
import { controllerInitializers } from "./controllers.js";
import { parseControllerManagerOptions } from "./options.js";

const names = (controllers: string[]): string[] => enabledControllers(controllerInitializers, controllers).map((c) => c.name);

describe("the controller table", () => {
  it("has kube-controller-manager's names, in start order", () => {
    expect(controllerInitializers.map((c) => c.name)).toEqual(["job", "ttl-after-finished", "nodelifecycle"]);
  });
});

describe("--controllers (1.23 IsControllerEnabled)", () => {
  it("defaults to * : every on-by-default controller", () => {
    const r = parseControllerManagerOptions(["--clusterconfig=k"], controllerInitializers);
    expect(r.ok && r.value.controllers).toEqual(["*"]);
    expect(r.ok && r.enabled).toEqual(["job", "ttl-after-finished", "nodelifecycle"]);
  });
  it("name enables one, -name disables one, the first entry naming a controller decides", () => {
    expect(names(["job"])).toEqual(["job"]);
    expect(names(["job", "nodelifecycle"])).toEqual(["job", "nodelifecycle"]);
    expect(names(["*", "-nodelifecycle"])).toEqual(["job", "ttl-after-finished"]);
    expect(names(["-job", "*"])).toEqual(["ttl-after-finished", "nodelifecycle"]);
    expect(names(["job", "-job"])).toEqual(["job"]);
    expect(names(["-job"])).toEqual([]);
    expect(names([])).toEqual([]);
  });
  it("* leaves out controllers disabled by default; naming them enables them", () => {
    expect(isControllerEnabled("x", true, ["*"])).toBe(false);
    expect(isControllerEnabled("x", true, ["*", "x"])).toBe(true);
    expect(isControllerEnabled("x", false, ["*"])).toBe(true);
  });
  it("parses the list as a stringSlice (commas, repeats append)", () => {
    const r = parseControllerManagerOptions(["--clusterconfig=k", "--controllers=*,-ttl-after-finished", "--controllers", "-job"], controllerInitializers);
    expect(r.ok && r.enabled).toEqual(["nodelifecycle"]);
  });
  it("refuses unknown names, with or without -, in 1.23's wording", () => {
    expect(validateControllerSelection(controllerInitializers, ["*", "job", "-nodelifecycle"])).toEqual([]);
    expect(validateControllerSelection(controllerInitializers, ["jobs", "-nope"])).toEqual(['"jobs" is not in the list of known controllers', '"nope" is not in the list of known controllers']);
    const r = parseControllerManagerOptions(["--clusterconfig=k", "--controllers=*,node-lifecycle"], controllerInitializers);
    expect(r.ok ? [] : r.errors).toEqual(['"node-lifecycle" is not in the list of known controllers']);
  });
});

/** A factory that records, per caller, which informer each `informerFor` handed out. */
function recordingFactory(inner: SharedInformerFactory): { factory: SharedInformerFactory; handed: Array<{ by: string; plural: string; informer: Informer<KubeObject> }>; as(by: string): void } {
  const handed: Array<{ by: string; plural: string; informer: Informer<KubeObject> }> = [];
  let by = "";
  const factory: SharedInformerFactory = {
    ...inner,
    informerFor<T extends KubeObject>(resource: ResourceClient<T>, options?: Parameters<SharedInformerFactory["informerFor"]>[1]): Informer<T> {
      const informer = inner.informerFor(resource, options as never);
      handed.push({ by, plural: resource.info.plural, informer: informer as unknown as Informer<KubeObject> });
      return informer;
    },
    start: () => undefined, // never list: no apiserver here
  };
  return { factory, handed, as: (name) => void (by = name) };
}

describe("one controller context", () => {
  it("every enabled controller gets the same informer factory: the Job and node lifecycle controllers share one Pod informer", async () => {
    const parsed = parseControllerManagerOptions(["--clusterconfig=k"], controllerInitializers);
    if (!parsed.ok) throw new Error(parsed.errors.join());
    const client = createClient({ server: "https://127.0.0.1:1", insecureSkipTLSVerify: false });
    const inner = createSharedInformerFactory({ onError: () => {} });
    const rec = recordingFactory(inner);
    const ctx: ControllerContext = { client, eventClient: client, informerClient: client, informerFactory: rec.factory, featureGates: parsed.gates, options: parsed.value, log: () => {} };
    // Tag each controller's requests, then start the table's rows as the manager does.
    const tagged: ControllerInitializer[] = controllerInitializers.map((c) => ({ ...c, start: (x: ControllerContext) => (rec.as(c.name), c.start(x)) }));
    const running = tagged.map((c) => c.start(ctx));
    const pods = rec.handed.filter((h) => h.plural === "pods");
    expect(pods.map((h) => h.by)).toEqual(["job", "nodelifecycle"]);
    expect(pods[0]?.informer).toBe(pods[1]?.informer);
    expect(pods[0]?.informer).toBe(inner.informerFor(client.pods) as unknown as Informer<KubeObject>);
    const jobs = rec.handed.filter((h) => h.plural === "jobs");
    expect(jobs.map((h) => h.by)).toEqual(["job", "ttl-after-finished"]);
    expect(jobs[0]?.informer).toBe(jobs[1]?.informer);
    // Both controllers' indexers sit on the one pod informer.
    const pod: Pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" }, spec: { nodeName: "n1", containers: [] } };
    (pods[0]?.informer.store as unknown as { set(o: Pod): void }).set(pod); // the informer's own Store (read-only in its type)
    expect(pods[0]?.informer.store.byIndex("spec.nodeName", "n1")).toHaveLength(1);
    expect(pods[0]?.informer.store.byIndex("orphanNamespace", "ns")).toHaveLength(1);
    inner.stop();
    await stopControllers(running);
    client.close();
  });

  it("only enabled controllers start, and only their informers exist", async () => {
    const parsed = parseControllerManagerOptions(["--clusterconfig=k", "--controllers=nodelifecycle"], controllerInitializers);
    if (!parsed.ok) throw new Error(parsed.errors.join());
    const client = createClient({ server: "https://127.0.0.1:1", insecureSkipTLSVerify: false });
    const rec = recordingFactory(createSharedInformerFactory({ onError: () => {} }));
    let started = 0;
    const ctx: ControllerContext = { client, eventClient: client, informerClient: client, informerFactory: { ...rec.factory, start: () => void started++ }, featureGates: parsed.gates, options: parsed.value, log: () => {} };
    const enabled = enabledControllers(controllerInitializers, parsed.value.controllers);
    const stub: ControllerInitializer[] = enabled.map((c) => ({ ...c, start: (x: ControllerContext) => ({ ...c.start(x), started: Promise.resolve() }) }));
    const running = await startControllers(stub, ctx);
    expect(running).toHaveLength(1);
    expect(started).toBe(1);
    expect([...new Set(rec.handed.map((h) => h.plural))].sort()).toEqual(["leases", "nodes", "pods"]);
    rec.factory.stop();
    await stopControllers(running);
    client.close();
  });
});
