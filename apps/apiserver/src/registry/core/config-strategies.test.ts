import type { ConfigMap, Secret, ServiceAccount } from "@skiff/api-types";
import type { RequestContext } from "@skiff/apiserver-core";
import { describe, expect, it } from "vitest";
import { configMapTable, createConfigMapStrategy } from "./configmap/strategy.js";
import { createSecretStrategy, secretTable } from "./secret/strategy.js";
import { createServiceAccountStrategy, serviceAccountTable } from "./serviceaccount/strategy.js";

const ctx: RequestContext = { namespace: "default", user: { username: "u", groups: [] }, now: new Date(), dryRun: false, warnings: [] };
const now = new Date("2024-01-01T01:00:00Z");
const metadata = { name: "x", namespace: "default", creationTimestamp: "2024-01-01T00:00:00Z", resourceVersion: "1" };
const b64 = (s: string) => Buffer.from(s).toString("base64");

describe("ConfigMap strategy", () => {
  const s = createConfigMapStrategy();
  it("serves configmaps (cm) with a Status on delete and NAME DATA AGE columns", () => {
    expect(s.resource).toMatchObject({ plural: "configmaps", shortNames: ["cm"], namespaced: true });
    expect(s.returnDeletedObject).toBe(false);
    expect(configMapTable.columns.map((c) => c.name)).toEqual(["Name", "Data", "Age"]);
    const cm: ConfigMap & Record<string, unknown> = { metadata, data: { a: "1", b: "2" }, binaryData: { c: b64("3") } };
    expect(configMapTable.cells(cm, now)).toEqual(["x", 3, "60m"]);
  });
  it("validates on create and keeps an immutable ConfigMap's data on update", () => {
    const cm: ConfigMap & Record<string, unknown> = { metadata, data: { a: "1" }, immutable: true };
    s.prepareForCreate(ctx, cm);
    expect(s.validate(ctx, cm)).toEqual([]);
    expect(cm.metadata?.generation).toBeUndefined();
    const u = { ...cm, data: { a: "2" } };
    s.prepareForUpdate(ctx, u, cm);
    expect(s.validateUpdate(ctx, u, cm).map((e) => e.field)).toEqual(["data"]);
  });
});

describe("Secret strategy", () => {
  const s = createSecretStrategy();
  it("merges stringData at defaulting, never keeps it, defaults type, and selects on type", () => {
    const sec: Secret & Record<string, unknown> = { metadata, stringData: { password: "hunter2" } };
    s.applyDefaults(sec);
    s.prepareForCreate(ctx, sec);
    expect(sec).toEqual({ metadata, data: { password: b64("hunter2") }, type: "Opaque" });
    expect(s.validate(ctx, sec)).toEqual([]);
    expect(s.getAttrs(sec).fields).toMatchObject({ type: "Opaque", "metadata.name": "x" });
    expect(s.fieldSelectorKeys).toEqual(["type"]);
    expect(s.returnDeletedObject).toBe(false);
  });
  it("keeps the old type when an update sends none, and refuses a type change", () => {
    const old: Secret & Record<string, unknown> = { metadata, type: "kubernetes.io/tls", data: { "tls.crt": "", "tls.key": "" } };
    const u: Secret & Record<string, unknown> = { metadata, data: { "tls.crt": "", "tls.key": "" } };
    s.prepareForUpdate(ctx, u, old);
    expect(u.type).toBe("kubernetes.io/tls");
    expect(s.validateUpdate(ctx, { ...u, type: "Opaque" }, old).map((e) => `${e.field} ${e.detail}`)).toEqual(["type field is immutable"]);
  });
  it("prints NAME TYPE DATA AGE without values", () => {
    expect(secretTable.columns.map((c) => c.name)).toEqual(["Name", "Type", "Data", "Age"]);
    const cells = secretTable.cells({ metadata, type: "Opaque", data: { a: b64("secret-value") } }, now);
    expect(cells).toEqual(["x", "Opaque", 1, "60m"]);
  });
});

describe("ServiceAccount strategy", () => {
  const s = createServiceAccountStrategy();
  it("keeps only the names of secrets references on create and update; NAME SECRETS AGE", () => {
    const sa: ServiceAccount & Record<string, unknown> = { metadata, secrets: [{ name: "t", kind: "Secret", uid: "u", namespace: "other" }, { kind: "Secret" }] };
    s.prepareForCreate(ctx, sa);
    expect(sa.secrets).toEqual([{ name: "t" }, {}]);
    const u: ServiceAccount & Record<string, unknown> = { metadata, secrets: [{ name: "t2", apiVersion: "v1" }] };
    s.prepareForUpdate(ctx, u, sa);
    expect(u.secrets).toEqual([{ name: "t2" }]);
    expect(s.resource.shortNames).toEqual(["sa"]);
    expect(serviceAccountTable.columns.map((c) => c.name)).toEqual(["Name", "Secrets", "Age"]);
    expect(serviceAccountTable.cells(u, now)).toEqual(["x", 1, "60m"]);
  });
});
