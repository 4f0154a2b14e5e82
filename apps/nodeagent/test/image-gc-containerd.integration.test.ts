// Image garbage collection of the REAL node agent binary on a private containerd + runc
// (tools/containerd/setup.sh in a temporary directory, purged afterwards). A first agent runs a
// static pod on busybox:1.36 with image GC off (--image-gc-high-threshold=100) and is stopped (its
// container keeps running, as the kubelet's). A throwaway image is imported, and a second agent
// starts with --image-gc-high-threshold=1 --image-gc-low-threshold=0: the image fs is over 1 %,
// so its first collection removes every unused image old enough: the throwaway one goes, busybox
// (in use by the running container) and the pod infra image stay.
// Skip rules as the other containerd suites: with CI=true it must run.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createImageClient, createRuntimeClient } from "@skiff/cri-api";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import type { HarnessAgent } from "./agent-harness.js";
import { eventually, removePodLogs, startHarnessAgent } from "./agent-harness.js";

const setup = setUpContainerd({ prefix: "skiff-igc-", suite: "containerd image GC suite" });
const nodeName = `igc-${Math.random().toString(36).slice(2, 8)}`;
const victim = "skiff.test/gc-victim:1";
const toolsDir = join(dirname(fileURLToPath(import.meta.url)), "../../../tools/containerd");
const agents: HarnessAgent[] = [];

afterAll(async () => {
  for (const a of agents) await a.stop(10_000);
  tearDownContainerd(setup);
  await removePodLogs(nodeName);
}, 180_000);

const manifest = `apiVersion: v1
kind: Pod
metadata: {name: keeper, namespace: default}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox:1.36
    imagePullPolicy: IfNotPresent
    command: ["sleep", "3600"]
`;

describe.skipIf(setup.endpoint === undefined)("image GC on containerd", () => {
  const endpoint = setup.endpoint ?? "";

  it("removes an unused image when the image fs is over the high threshold, keeping images in use and the pod infra image", async () => {
    const rt = createRuntimeClient({ endpoint, timeoutMs: 30_000 });
    const images = createImageClient({ endpoint, timeoutMs: 30_000 });
    const tags = async () => (await images.listImages({})).images.flatMap((i) => i.repoTags);
    try {
      const manifests = join(setup.dir, "manifests");
      mkdirSync(manifests, { recursive: true });
      writeFileSync(join(manifests, "keeper.yaml"), manifest);
      const first = await startHarnessAgent({ dir: join(setup.dir, "agent1"), nodeName, runtimeEndpoint: endpoint, manifests, args: ["--file-check-frequency=1s", "--image-gc-high-threshold=100"] });
      agents.push(first);
      await eventually("keeper running", async () => (await rt.listContainers({})).containers.find((c) => c.state === "CONTAINER_RUNNING" && c.labels["io.example.pod.name"] === `keeper-${nodeName}`), 90_000, () => first.logs());
      await first.stop(10_000);

      const tarball = join(setup.dir, "victim.tar");
      execFileSync("bash", [join(toolsDir, "build-image.sh"), "--out", tarball, "--cmd", "true", victim], { stdio: "ignore", timeout: 300_000 });
      const snapshotter = readFileSync(join(setup.dir, "snapshotter"), "utf8").trim();
      execFileSync("ctr", ["--address", join(setup.dir, "containerd.sock"), "--namespace", "k8s.io", "images", "import", "--snapshotter", snapshotter, tarball], { stdio: "ignore", timeout: 120_000 });
      await eventually("the throwaway image known to CRI", async () => ((await tags()).some((t) => t.endsWith(victim)) ? true : undefined), 60_000);

      const second = await startHarnessAgent({
        dir: join(setup.dir, "agent2"),
        nodeName,
        runtimeEndpoint: endpoint,
        manifests,
        args: ["--file-check-frequency=1s", "--image-gc-high-threshold=1", "--image-gc-low-threshold=0", "--minimum-image-ttl-duration=0s"],
      });
      agents.push(second);
      const left = await eventually("the throwaway image removed", async () => {
        const t = await tags();
        return t.some((x) => x.endsWith(victim)) ? undefined : t;
      }, 90_000, () => second.logs());
      expect(left.some((t) => t.endsWith("busybox:1.36"))).toBe(true);
      expect(left).toContain("k8s.gcr.io/pause:3.6");
      expect(second.logs()).toContain("Disk usage on image filesystem is over the high threshold, trying to free bytes down to the low threshold");
      // Not everything could be freed (the disk holds more than images): reported, not fatal.
      expect(second.logs()).toMatch(/failed to garbage collect required amount of images/);
    } finally {
      rt.close();
      images.close();
    }
  }, 600_000);
});
