// Image garbage collection of the REAL node agent binary against a small REAL image fs: the private
// containerd's root (content store, snapshots, metadata) sits on a 64 MiB tmpfs mounted by the
// test (setUpContainerd rootTmpfsBytes) and unmounted on teardown. Three images with random,
// incompressible content of distinct sizes are imported: "never" (never used), "used" (used by a
// pod that is gone by the time of the collection) and busybox:1.36 (used by a running pod).
//
// A first agent (GC off) runs the pods of busybox:1.36 and "used", then stops. A second agent
// starts with the thresholds computed from the measured usage: at its start the image fs is over
// the high threshold, but every image is either in use (busybox, pause, "used" whose container
// still exists) or younger than --minimum-image-ttl-duration=60s ("never"): the first collection
// frees nothing and reports it (the FreeDiskSpaceFailed Node event, logged in standalone mode).
// The test then removes the "user" pod's container; five minutes later
// (the kubelet's fixed ImageGCPeriod) the second collection frees down to the low threshold, least
// recently used first: "never" (never used) goes, "used" (used at the first detection) stays since
// removing "never" was enough, busybox (in use) and the pause image stay, and the image fs usage
// ends under the low threshold.
// Skip rules as the other containerd suites: with CI=true it must run.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, statfsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createImageClient, createRuntimeClient, isCRIError } from "@skiff/cri-api";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import type { HarnessAgent } from "./agent-harness.js";
import { eventually, removePodLogs, startHarnessAgent } from "./agent-harness.js";

const setup = setUpContainerd({ prefix: "skiff-lru-", suite: "containerd image GC LRU suite", rootTmpfsBytes: 64 * 1024 * 1024 });
const nodeName = `lru-${Math.random().toString(36).slice(2, 8)}`;
const never = "skiff.test/gc-never:1";
const used = "skiff.test/gc-used:1";
const toolsDir = join(dirname(fileURLToPath(import.meta.url)), "../../../tools/containerd");
const agents: HarnessAgent[] = [];

afterAll(async () => {
  for (const a of agents) await a.stop(10_000);
  tearDownContainerd(setup);
  await removePodLogs(nodeName);
}, 180_000);

const pod = (name: string, image: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: default}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: ${image}
    imagePullPolicy: IfNotPresent
    command: ["sleep", "3600"]
`;

/** Used and total bytes of the filesystem holding `path`. */
function fsUsage(path: string): { used: number; capacity: number } {
  const s = statfsSync(path);
  return { used: (s.blocks - s.bavail) * s.bsize, capacity: s.blocks * s.bsize };
}

describe.skipIf(setup.endpoint === undefined)("image GC on a small containerd image fs", () => {
  const endpoint = setup.endpoint ?? "";
  const imageFs = join(setup.dir, "root");

  it("removes unused images least recently used first until under the low threshold; in-use, recently used and pause images stay", async () => {
    const rt = createRuntimeClient({ endpoint, timeoutMs: 30_000 });
    const images = createImageClient({ endpoint, timeoutMs: 30_000 });
    const list = async () => (await images.listImages({})).images;
    const has = (all: Awaited<ReturnType<typeof list>>, name: string) => all.some((i) => i.repoTags.some((t) => t.endsWith(name)));
    try {
      // Images with distinct, incompressible content: busybox plus a random file of 6 or 8 MiB.
      const snapshotter = readFileSync(join(setup.dir, "snapshotter"), "utf8").trim();
      for (const [name, mib] of [[never, 6], [used, 8]] as const) {
        const filler = join(setup.dir, `filler-${mib}`);
        execFileSync("bash", ["-c", `head -c ${mib * 1024 * 1024} /dev/urandom > ${filler} && chmod +x ${filler}`]);
        const tarball = join(setup.dir, `image-${mib}.tar`);
        execFileSync("bash", [join(toolsDir, "build-image.sh"), "--out", tarball, "--add", filler, "--cmd", "sh", name], { stdio: "ignore", timeout: 300_000 });
        execFileSync("ctr", ["--address", join(setup.dir, "containerd.sock"), "--namespace", "k8s.io", "images", "import", "--snapshotter", snapshotter, tarball], { stdio: "ignore", timeout: 120_000 });
      }
      await eventually("the imported images known to CRI", async () => {
        const all = await list();
        return has(all, never) && has(all, used) ? true : undefined;
      }, 60_000);
      const sizeOf = (all: Awaited<ReturnType<typeof list>>, name: string) => Number(all.find((i) => i.repoTags.some((t) => t.endsWith(name)))?.size ?? 0);
      const neverSize = sizeOf(await list(), never);
      const neverId = (await list()).find((i) => i.repoTags.some((t) => t.endsWith(never)))?.id ?? "";
      const usedSize = sizeOf(await list(), used);
      expect(neverSize).toBeGreaterThan(6 * 1024 * 1024);
      expect(usedSize).toBeGreaterThan(8 * 1024 * 1024);

      // A first agent (image GC off) runs the keeper (busybox:1.36) and a pod of the "used" image.
      const manifests1 = join(setup.dir, "manifests1");
      mkdirSync(manifests1, { recursive: true });
      writeFileSync(join(manifests1, "keeper.yaml"), pod("keeper", "busybox:1.36"));
      writeFileSync(join(manifests1, "user.yaml"), pod("user", used));
      const first = await startHarnessAgent({ dir: join(setup.dir, "agent1"), nodeName, runtimeEndpoint: endpoint, manifests: manifests1, args: ["--file-check-frequency=1s", "--image-gc-high-threshold=100"] });
      agents.push(first);
      await eventually("keeper and user running", async () => {
        const running = (await rt.listContainers({})).containers.filter((c) => c.state === "CONTAINER_RUNNING").map((c) => c.labels["io.example.pod.name"]);
        return running.includes(`keeper-${nodeName}`) && running.includes(`user-${nodeName}`) ? true : undefined;
      }, 90_000, () => first.logs());
      await first.stop(10_000);

      // Thresholds from the usage now: over the high threshold; the low threshold about half of
      // the "never" image below it, so that removing "never" alone is enough (and "used" alone
      // would be too: only the least recently used order picks "never").
      const { used: usedBytes, capacity } = fsUsage(imageFs);
      const high = Math.floor((usedBytes * 100) / capacity) - 1;
      const low = Math.floor(((usedBytes - neverSize / 2) * 100) / capacity);
      expect(low).toBeGreaterThan(0);
      expect(high - low).toBeGreaterThanOrEqual(2);

      const manifests2 = join(setup.dir, "manifests2");
      mkdirSync(manifests2, { recursive: true });
      writeFileSync(join(manifests2, "keeper.yaml"), pod("keeper", "busybox:1.36"));
      const second = await startHarnessAgent({
        dir: join(setup.dir, "agent2"),
        nodeName,
        runtimeEndpoint: endpoint,
        manifests: manifests2,
        args: ["--file-check-frequency=1s", "-v=1", `--image-gc-high-threshold=${high}`, `--image-gc-low-threshold=${low}`, "--minimum-image-ttl-duration=60s"],
      });
      agents.push(second);
      const logs = () => second.logs();
      // First collection, at start: nothing may go (in use, or too young), so it falls short.
      await eventually("the first collection falls short", () => /event Warning FreeDiskSpaceFailed on node: failed to garbage collect required amount of images\. Wanted to free \d+ bytes, but freed 0 bytes/.test(logs()), 60_000, logs);
      expect(has(await list(), never)).toBe(true);
      // Now the "user" pod goes: its container and sandbox are removed, so "used" is no longer in
      // use. The agent's orphan clean-up may stop the same pod at the same time (no source of the
      // second agent wants it): containerd then fails one of two concurrent StopPodSandbox calls in
      // the CNI DEL ("failed to delete eth0: no such device", seen in CI), and a removal can find
      // the object gone. Each step is retried, and an object already gone is fine.
      const settle = async (what: string, call: () => Promise<unknown>): Promise<void> => {
        for (let attempt = 1; ; attempt++) {
          try {
            await call();
            return;
          } catch (err) {
            if (isCRIError(err, "NotFound")) return;
            if (attempt >= 5) throw new Error(`${what}: still failing after ${String(attempt)} attempts`, { cause: err });
            await new Promise((r) => setTimeout(r, 1_000));
          }
        }
      };
      const userContainers = (await rt.listContainers({})).containers.filter((c) => c.labels["io.example.pod.name"] === `user-${nodeName}`);
      for (const c of userContainers) {
        await settle(`stop container ${c.id}`, () => rt.stopContainer({ containerId: c.id, timeout: 0 }));
        await settle(`remove container ${c.id}`, () => rt.removeContainer({ containerId: c.id }));
      }
      for (const id of new Set(userContainers.map((c) => c.podSandboxId))) {
        await settle(`stop sandbox ${id}`, () => rt.stopPodSandbox({ podSandboxId: id }));
        await settle(`remove sandbox ${id}`, () => rt.removePodSandbox({ podSandboxId: id }));
      }

      // Second collection, one ImageGCPeriod (5 min) after the first.
      const left = await eventually("the never-used image removed", async () => {
        const all = await list();
        return has(all, never) ? undefined : all;
      }, 420_000, logs);
      const tags = left.flatMap((i) => i.repoTags);
      expect(tags.some((t) => t.endsWith(used))).toBe(true);
      expect(tags.some((t) => t.endsWith("busybox:1.36"))).toBe(true);
      expect(tags).toContain("k8s.gcr.io/pause:3.6");
      const removals = logs().split("\n").filter((l) => l.includes("Removing image to free bytes"));
      expect(removals).toHaveLength(1);
      expect(removals[0]).toContain(neverId);
      // Usage ends under the low threshold (containerd drops the content and snapshot at removal).
      await eventually("image fs under the low threshold", () => {
        const u = fsUsage(imageFs);
        return Math.floor((u.used * 100) / u.capacity) < low ? true : undefined;
      }, 30_000, logs);
      expect(logs()).not.toMatch(/Image garbage collection failed multiple times in a row/);
    } finally {
      rt.close();
      images.close();
    }
  }, 900_000);
});
