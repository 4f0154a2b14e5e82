import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import { FileSource, readStaticPodPath, type StaticPodFileCache } from "./file-source.js";
import { PodConfig, type PodConfigUpdate } from "./pod-config.js";

const pod = (name: string, image = "busybox") => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec: {containers: [{name: c, image: ${image}}]}\n`;

describe("readStaticPodPath", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "skiff-fs-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads a directory sorted, skipping dot-files and sub-directories, reporting bad files", async () => {
    writeFileSync(join(dir, "b.yaml"), pod("b"));
    writeFileSync(join(dir, "a.json"), JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "a" }, spec: { containers: [{ name: "c", image: "i" }] } }));
    writeFileSync(join(dir, ".c.yaml"), pod("c"));
    writeFileSync(join(dir, "README"), "hello there");
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", "d.yaml"), pod("d"));
    const r = await readStaticPodPath({ path: `${dir}/`, nodeName: "n" });
    expect(r.pods.map((p) => p.metadata?.name)).toEqual(["a-n", "b-n"]);
    expect(r.errors.some((e) => e.includes("README"))).toBe(true);
    expect(r.errors.some((e) => e.includes("sub") && e.includes("not recursing"))).toBe(true);
  });

  it("reads a single file", async () => {
    writeFileSync(join(dir, "one.yaml"), pod("one"));
    const r = await readStaticPodPath({ path: join(dir, "one.yaml"), nodeName: "n" });
    expect(r.pods.map((p) => p.metadata?.name)).toEqual(["one-n"]);
  });

  it("treats a missing path as no pods", async () => {
    const r = await readStaticPodPath({ path: join(dir, "missing"), nodeName: "n" });
    expect(r.pods).toEqual([]);
    expect(r.errors[0]).toMatch(/path does not exist, ignoring/);
  });

  it("rejects files over 10 MiB", async () => {
    writeFileSync(join(dir, "big.yaml"), pod("big") + "#".repeat(10 * 1024 * 1024));
    const r = await readStaticPodPath({ path: dir, nodeName: "n" });
    expect(r.pods).toEqual([]);
    expect(r.errors[0]).toMatch(/larger than/);
  });

  it("with a cache, decodes a file again only when it changed (same size, new content included)", async () => {
    const cache: StaticPodFileCache = new Map();
    writeFileSync(join(dir, "a.yaml"), pod("a", "image1"));
    writeFileSync(join(dir, "b.yaml"), pod("b"));
    const first = await readStaticPodPath({ path: dir, nodeName: "n" }, cache);
    const second = await readStaticPodPath({ path: dir, nodeName: "n" }, cache);
    // Unchanged files: the very pods decoded the first time.
    expect(second.pods[0]).toBe(first.pods[0]);
    expect(second.pods[1]).toBe(first.pods[1]);
    writeFileSync(join(dir, "a.yaml"), pod("a", "image2"));
    const third = await readStaticPodPath({ path: dir, nodeName: "n" }, cache);
    expect(third.pods[0]?.spec?.containers[0]?.image).toBe("image2");
    expect(third.pods[0]?.metadata?.uid).not.toBe(first.pods[0]?.metadata?.uid);
    expect(third.pods[1]).toBe(first.pods[1]);
    rmSync(join(dir, "b.yaml"));
    const fourth = await readStaticPodPath({ path: dir, nodeName: "n" }, cache);
    expect(fourth.pods.map((p) => p.metadata?.name)).toEqual(["a-n"]);
    expect([...cache.keys()]).toEqual([join(dir, "a.yaml")]);
  });

  it("FileSource feeds a PodConfig with ADD, UPDATE and REMOVE", async () => {
    const updates: PodConfigUpdate[] = [];
    const config = new PodConfig((u) => updates.push(u));
    writeFileSync(join(dir, "a.yaml"), pod("a"));
    const src = new FileSource({ path: dir, nodeName: "n", periodMs: 60_000 }, (pods: Pod[]) => config.set("file", pods));
    await src.start();
    try {
      expect(updates.map((u) => u.op)).toEqual(["ADD"]);
      expect(config.pods()[0]?.metadata?.annotations?.["example.io/config.source"]).toBe("file");
      expect(config.pods()[0]?.metadata?.annotations?.["example.io/config.seen"]).toMatch(/^\d{4}-/);
      writeFileSync(join(dir, "a.yaml"), pod("a", "busybox:1.36"));
      await src.poll();
      // New content → new UID: the old pod goes and a new one comes.
      expect(updates.slice(1).map((u) => u.op).sort()).toEqual(["ADD", "REMOVE"]);
      rmSync(join(dir, "a.yaml"));
      await src.poll();
      expect(updates.at(-1)?.op).toBe("REMOVE");
      expect(config.pods()).toEqual([]);
    } finally {
      src.stop();
    }
  });

  it("FileSource hands the pods over on the first read and after a change, not after a read that found nothing changed", async () => {
    const sets: Pod[][] = [];
    writeFileSync(join(dir, "a.yaml"), pod("a"));
    writeFileSync(join(dir, "b.yaml"), pod("b"));
    const src = new FileSource({ path: dir, nodeName: "n", periodMs: 60_000 }, (pods: Pod[]) => sets.push(pods));
    await src.start();
    try {
      expect(sets.map((s) => s.map((p) => p.metadata?.name))).toEqual([["a-n", "b-n"]]);
      await src.poll();
      await src.poll();
      expect(sets).toHaveLength(1);
      writeFileSync(join(dir, "b.yaml"), pod("b", "busybox:1.36"));
      await src.poll();
      expect(sets).toHaveLength(2);
      expect(sets[1]?.[1]?.spec?.containers[0]?.image).toBe("busybox:1.36");
      rmSync(join(dir, "a.yaml"));
      await src.poll();
      expect(sets.at(-1)?.map((p) => p.metadata?.name)).toEqual(["b-n"]);
      rmSync(join(dir, "b.yaml"));
      await src.poll();
      await src.poll();
      expect(sets.slice(3)).toEqual([[]]);
    } finally {
      src.stop();
    }
  });
});

describe("PodConfig", () => {
  const p = (name: string, uid: string, labels: Record<string, string> = {}): Pod => ({ metadata: { name, namespace: "default", uid, labels }, spec: { containers: [{ name: "c", image: "i" }] } });

  it("reconciles a status change of a pod with readiness gates (its status replaced), and of no other pod", () => {
    const updates: PodConfigUpdate[] = [];
    const config = new PodConfig((u) => updates.push(u));
    const withStatus = (pod: Pod, rv: string, conditions: { type: string; status: string }[]): Pod => ({ ...pod, metadata: { ...pod.metadata, resourceVersion: rv }, status: { phase: "Running", conditions } });
    const gated: Pod = { metadata: { name: "g", namespace: "default", uid: "g1" }, spec: { readinessGates: [{ conditionType: "x" }], containers: [{ name: "c", image: "i" }] } };
    const plain = p("a", "a1");
    config.set("api", [withStatus(gated, "1", []), withStatus(plain, "1", [])]);
    expect(updates.map((u) => u.op)).toEqual(["ADD"]);
    const incoming = withStatus(gated, "2", [{ type: "x", status: "True" }]);
    config.set("api", [incoming, withStatus(plain, "2", [{ type: "x", status: "True" }])]);
    expect(updates.map((u) => [u.op, u.pods.map((x) => x.metadata?.name)])).toEqual([["ADD", ["g", "a"]], ["RECONCILE", ["g"]]]);
    const reconciled = updates[1]!.pods[0]!;
    expect(reconciled.status?.conditions).toEqual([{ type: "x", status: "True" }]);
    expect(reconciled.status).not.toBe(incoming.status);
    // The very pod object the workers hold, with its config annotations kept.
    expect(reconciled).toBe(config.pods().find((x) => x.metadata?.name === "g"));
    expect(reconciled.metadata?.annotations?.["example.io/config.source"]).toBe("api");
    // The same status again (a new resourceVersion): nothing to reconcile.
    config.set("api", [withStatus(gated, "3", [{ type: "x", status: "True" }]), withStatus(plain, "3", [])]);
    expect(updates).toHaveLength(2);
  });

  it("drops a duplicate name within a source and reports UPDATE on label change", () => {
    const updates: PodConfigUpdate[] = [];
    const logs: string[] = [];
    const config = new PodConfig((u) => updates.push(u), (m) => logs.push(m));
    config.set("file", [p("a", "1"), p("a", "2")]);
    expect(config.pods().map((x) => x.metadata?.uid)).toEqual(["1"]);
    expect(logs[0]).toMatch(/duplicate pod name/);
    config.set("file", [p("a", "1", { x: "y" })]);
    expect(updates.map((u) => u.op)).toEqual(["ADD", "UPDATE"]);
    config.set("file", [p("a", "1", { x: "y" })]);
    expect(updates).toHaveLength(2);
    expect(config.hasSeen("file")).toBe(true);
    expect(config.hasSeen("http")).toBe(false);
  });

  it("keeps sources apart", () => {
    const config = new PodConfig();
    config.set("file", [p("a", "1")]);
    config.set("http", [p("b", "2")]);
    config.set("file", []);
    expect(config.pods().map((x) => x.metadata?.name)).toEqual(["b"]);
    expect(config.podsOf("http")[0]?.metadata?.annotations?.["example.io/config.source"]).toBe("http");
  });

  it("API pods: a status-only change is no UPDATE, a new deletionTimestamp is; an unchanged resourceVersion is taken as unchanged", () => {
    const updates: PodConfigUpdate[] = [];
    const config = new PodConfig((u) => updates.push(u));
    const at = (rv: string, extra: Partial<Pod> = {}): Pod => ({ ...p("a", "1"), ...extra, metadata: { ...p("a", "1").metadata, resourceVersion: rv, ...(extra.metadata ?? {}) } });
    config.set("api", [at("1")]);
    const first = config.pods()[0];
    config.set("api", [at("2", { status: { phase: "Running" } })]);
    expect(updates.map((u) => u.op)).toEqual(["ADD"]);
    expect(config.pods()[0]).toBe(first);
    // The same resourceVersion again: the list is the informer's, the object has not changed.
    config.set("api", [at("2", { status: { phase: "Running" } })]);
    expect(updates).toHaveLength(1);
    config.set("api", [at("3", { metadata: { name: "a", namespace: "default", uid: "1", resourceVersion: "3", deletionTimestamp: "2026-01-01T00:00:00Z" } })]);
    expect(updates.map((u) => u.op)).toEqual(["ADD", "UPDATE"]);
    expect(updates[1]?.pods[0]?.metadata?.annotations?.["example.io/config.seen"]).toBe(first?.metadata?.annotations?.["example.io/config.seen"]);
    config.set("api", []);
    expect(updates.at(-1)?.op).toBe("REMOVE");
  });
});
