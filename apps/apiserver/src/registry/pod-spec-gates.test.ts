import type { Job, Pod, PodTemplate } from "@skiff/api-types";
import type { RequestContext } from "@skiff/apiserver-core";
import { formatFieldError } from "@skiff/apimachinery";
import { describe, expect, it } from "vitest";
import { createJobStrategy } from "./batch/job/strategy.js";
import { createPodStrategy } from "./core/pod/strategy.js";
import { createPodTemplateStrategy } from "./core/podtemplate/strategy.js";

// pkg/api/pod/util.go (dropDisabledFields, GetValidationOptionsFromPodSpecAndMeta) in 1.23: a
// disabled gate drops spec.os and refuses hostProcess, unless the stored object already used them.
const ctx: RequestContext = { namespace: "default", user: { username: "u", groups: [] }, now: new Date(), dryRun: false, warnings: [] };
const off = { identifyPodOS: false, windowsHostProcessContainers: false };
const jobGates = { jobReadyPods: true, jobTrackingWithFinalizers: false, jobMutableNodeSchedulingDirectives: true };

type P = Pod & Record<string, unknown>;
const windowsPod = (hostProcess?: boolean): P => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default", uid: "u1", resourceVersion: "1" },
  spec: {
    os: { name: "windows" },
    hostNetwork: true,
    ...(hostProcess !== undefined ? { securityContext: { windowsOptions: { hostProcess } } } : {}),
    containers: [{ name: "c", image: "busybox" }],
  },
});
const messages = (errs: ReturnType<ReturnType<typeof createPodStrategy>["validate"]>) => errs.map((e) => formatFieldError(e));
const hostProcessOff = "spec.securityContext.windowsOptions.hostProcess: Forbidden: not allowed when feature gate 'WindowsHostProcessContainers' is not enabled";

describe("Pod strategy with IdentifyPodOS and WindowsHostProcessContainers", () => {
  it("keeps spec.os and allows hostProcess with the gates on (the default)", () => {
    const s = createPodStrategy();
    const p = windowsPod(true);
    s.applyDefaults(p);
    s.prepareForCreate(ctx, p);
    expect(p.spec?.os).toEqual({ name: "windows" });
    expect(messages(s.validate(ctx, p))).toEqual([]);
  });

  it("drops spec.os on create and refuses hostProcess with the gates off", () => {
    const s = createPodStrategy({ ephemeralContainers: true, ...off });
    const p = windowsPod(true);
    s.applyDefaults(p);
    s.prepareForCreate(ctx, p);
    expect(p.spec?.os).toBeUndefined();
    expect(messages(s.validate(ctx, p))).toEqual([hostProcessOff]);
  });

  it("keeps what the stored pod already used on update", () => {
    const s = createPodStrategy({ ephemeralContainers: true, ...off });
    const old = windowsPod(true);
    s.applyDefaults(old);
    const next = structuredClone(old);
    next.metadata = { ...next.metadata, labels: { a: "b" } };
    s.prepareForUpdate(ctx, next, old);
    expect(next.spec?.os).toEqual({ name: "windows" });
    expect(messages(s.validateUpdate(ctx, next, old))).toEqual([]);
    // Adding os in an update of a pod without it is dropped (the update is then a no-op for os).
    const bare = windowsPod();
    delete bare.spec?.os;
    s.applyDefaults(bare);
    const withOS = structuredClone(bare);
    withOS.spec = { ...withOS.spec, containers: withOS.spec?.containers ?? [], os: { name: "linux" } };
    s.prepareForUpdate(ctx, withOS, bare);
    expect(withOS.spec?.os).toBeUndefined();
  });
});

describe("PodTemplate and Job strategies drop the template's spec.os with IdentifyPodOS off", () => {
  it("PodTemplate: dropped on create, kept on update when stored", () => {
    const s = createPodTemplateStrategy(off);
    const t: PodTemplate & Record<string, unknown> = { metadata: { name: "t", namespace: "default" }, template: { spec: { os: { name: "linux" }, containers: [{ name: "c", image: "busybox" }] } } };
    const stored = structuredClone(t);
    s.prepareForCreate(ctx, t);
    expect(t.template?.spec?.os).toBeUndefined();
    const next = structuredClone(stored);
    s.prepareForUpdate(ctx, next, stored);
    expect(next.template?.spec?.os).toEqual({ name: "linux" });
    const on = createPodTemplateStrategy();
    const kept = structuredClone(stored);
    on.applyDefaults(kept);
    on.prepareForCreate(ctx, kept);
    expect(kept.template?.spec?.os).toEqual({ name: "linux" });
    expect(on.validate(ctx, kept)).toEqual([]);
  });

  it("Job: dropped on create with the gate off, kept with it on", () => {
    const job = (): Job & Record<string, unknown> => ({
      metadata: { name: "j", namespace: "default", uid: "u" },
      spec: { template: { spec: { os: { name: "linux" }, restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
    });
    const j = job();
    createJobStrategy({ ...jobGates, ...off }).prepareForCreate(ctx, j);
    expect(j.spec?.template.spec?.os).toBeUndefined();
    const k = job();
    createJobStrategy(jobGates).prepareForCreate(ctx, k);
    expect(k.spec?.template.spec?.os).toEqual({ name: "linux" });
  });
});
