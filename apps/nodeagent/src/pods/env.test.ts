import { describe, expect, it } from "vitest";
import type { Container, Pod } from "@skiff/api-types";
import { newNotFound } from "@skiff/apimachinery";
import { makeEnvironmentVariables, type EnvContext } from "./env.js";
import type { ConfigMapObject, EnvObjects, FetchResult, SecretObject } from "./pod-objects.js";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const node = { cpuMilli: 4000, memoryBytes: 8 * 1024 ** 3, ephemeralStorageBytes: 0 };

function objects(cms: Record<string, Record<string, string> | "missing">, secrets: Record<string, Record<string, string> | "missing"> = {}): EnvObjects {
  const conv = <T>(m: Record<string, Record<string, string> | "missing">, resource: string, make: (d: Record<string, string>) => T) =>
    new Map<string, FetchResult<T>>(Object.entries(m).map(([n, d]) => [n, d === "missing" ? { ok: false, error: newNotFound({ group: "", resource }, n) } : { ok: true, object: make(d) }]));
  return {
    configMaps: conv<ConfigMapObject>(cms, "configmap", (data) => ({ data })),
    secrets: conv<SecretObject>(secrets, "secret", (d) => ({ data: Object.fromEntries(Object.entries(d).map(([k, v]) => [k, b64(v)])) })),
  };
}

const pod = (c: Container): Pod => ({ metadata: { name: "p", namespace: "ns", uid: "u" }, spec: { containers: [c] } });

function run(c: Container, objs: EnvObjects | undefined, events: string[] = []) {
  const ctx: EnvContext = { objects: objs, fieldRef: (e) => `field:${e.valueFrom?.fieldRef?.fieldPath ?? ""}`, nodeAllocatable: node, onEvent: (t, r, m) => events.push(`${t} ${r} ${m}`) };
  return Object.fromEntries(makeEnvironmentVariables(pod(c), c, ctx));
}

describe("makeEnvironmentVariables", () => {
  const objs = objects({ cfg: { LEVEL: "debug", MODE: "fast", "bad key": "x", "1st": "y" }, gone: "missing" }, { creds: { PASSWORD: "s3cr3t", USER: "bob" } });

  it.each<[string, Container, Record<string, string>]>([
    ["a configMapKeyRef", { name: "c", env: [{ name: "L", valueFrom: { configMapKeyRef: { name: "cfg", key: "LEVEL" } } }] }, { L: "debug" }],
    ["a secretKeyRef, decoded", { name: "c", env: [{ name: "P", valueFrom: { secretKeyRef: { name: "creds", key: "PASSWORD" } } }] }, { P: "s3cr3t" }],
    ["envFrom a secret with a prefix", { name: "c", envFrom: [{ prefix: "DB_", secretRef: { name: "creds" } }] }, { DB_PASSWORD: "s3cr3t", DB_USER: "bob" }],
    ["env overriding envFrom", { name: "c", envFrom: [{ configMapRef: { name: "cfg" } }], env: [{ name: "MODE", value: "slow" }] }, { LEVEL: "debug", MODE: "slow" }],
    ["$(VAR) expanded from envFrom and earlier env", { name: "c", envFrom: [{ configMapRef: { name: "cfg" } }], env: [{ name: "A", value: "x" }, { name: "B", value: "$(LEVEL)-$(A)-$(NOPE)" }] }, { LEVEL: "debug", MODE: "fast", A: "x", B: "debug-x-$(NOPE)" }],
    ["optional missing configMap: nothing set", { name: "c", envFrom: [{ configMapRef: { name: "gone", optional: true } }], env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "gone", key: "k", optional: true } } }] }, {}],
    ["optional missing key: nothing set", { name: "c", env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "cfg", key: "nope", optional: true } } }, { name: "Y", valueFrom: { secretKeyRef: { name: "creds", key: "nope", optional: true } } }] }, {}],
    ["fieldRef through the runtime manager", { name: "c", env: [{ name: "N", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }] }, { N: "field:metadata.name" }],
    ["resourceFieldRef limits defaulting to node allocatable", { name: "c", env: [{ name: "CPU", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } }, { name: "MEM", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } } }] }, { CPU: "4", MEM: "8192" }],
    [
      "resourceFieldRef with set limits, requests, divisor and ceiling",
      { name: "c", resources: { limits: { cpu: "250m", memory: "100M" }, requests: { cpu: "100m" } }, env: [{ name: "CPU", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } }, { name: "MC", valueFrom: { resourceFieldRef: { resource: "requests.cpu", divisor: "1m" } } }, { name: "MEM", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } } }] },
      { CPU: "1", MC: "100", MEM: "96" },
    ],
    ["an empty value", { name: "c", env: [{ name: "E", value: "" }] }, { E: "" }],
  ])("resolves %s", (_, c, want) => {
    expect(run(c, objs)).toEqual(want);
  });

  it.each<[string, Container, EnvObjects | undefined, string]>([
    ["a missing configMap (envFrom)", { name: "c", envFrom: [{ configMapRef: { name: "gone" } }] }, objects({ gone: "missing" }), 'configmap "gone" not found'],
    ["a missing configMap (key ref)", { name: "c", env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "gone", key: "k" } } }] }, objects({ gone: "missing" }), 'configmap "gone" not found'],
    ["a missing secret", { name: "c", envFrom: [{ secretRef: { name: "gone" } }] }, objects({}, { gone: "missing" }), 'secret "gone" not found'],
    ["a missing ConfigMap key", { name: "c", env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "cfg", key: "nope" } } }] }, objs, "couldn't find key nope in ConfigMap ns/cfg"],
    ["a missing Secret key", { name: "c", env: [{ name: "X", valueFrom: { secretKeyRef: { name: "creds", key: "nope" } } }] }, objs, "couldn't find key nope in Secret ns/creds"],
    ["standalone configMap", { name: "c", env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "cfg", key: "k", optional: true } } }] }, undefined, "couldn't get configMap ns/cfg, no kubeClient defined"],
    ["standalone secret", { name: "c", envFrom: [{ secretRef: { name: "creds", optional: true } }] }, undefined, "couldn't get secret ns/creds, no kubeClient defined"],
    ["an unknown resource", { name: "c", env: [{ name: "X", valueFrom: { resourceFieldRef: { resource: "limits.gpu" } } }] }, objs, "unsupported container resource : limits.gpu"],
  ])("fails for %s with 1.23's message", (_, c, o, message) => {
    expect(() => run(c, o)).toThrow(message);
  });

  it("a fetch error other than NotFound fails even when optional", () => {
    const o: EnvObjects = { configMaps: new Map([["cfg", { ok: false, error: new Error("failed to sync configmap cache: timed out waiting for the condition") }]]), secrets: new Map() };
    expect(() => run({ name: "c", envFrom: [{ configMapRef: { name: "cfg", optional: true } }] }, o)).toThrow("failed to sync configmap cache");
  });

  it("skips invalid names with one InvalidEnvironmentVariableNames warning per source", () => {
    const events: string[] = [];
    const env = run({ name: "c", envFrom: [{ configMapRef: { name: "cfg" } }, { prefix: "S.", secretRef: { name: "creds" } }] }, objs, events);
    expect(env).toEqual({ LEVEL: "debug", MODE: "fast", "S.PASSWORD": "s3cr3t", "S.USER": "bob" });
    expect(events).toEqual(["Warning InvalidEnvironmentVariableNames Keys [1st, bad key] from the EnvFrom configMap ns/cfg were skipped since they are considered invalid environment variable names."]);
    const events2: string[] = [];
    run({ name: "c", envFrom: [{ prefix: "..", secretRef: { name: "creds" } }] }, objs, events2);
    expect(events2).toEqual(["Warning InvalidEnvironmentVariableNames Keys [..PASSWORD, ..USER] from the EnvFrom secret ns/creds were skipped since they are considered invalid environment variable names."]);
  });
});
