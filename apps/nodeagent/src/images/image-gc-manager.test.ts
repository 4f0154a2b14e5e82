import { describe, expect, it, vi } from "vitest";
import type { ImageClient, RuntimeClient } from "@skiff/cri-api";
import { ImageGCError, ImageGCManager, planImageRemoval } from "./image-gc-manager.js";
import type { ImageRecord } from "./image-gc-manager.js";

interface FakeImage {
  id: string;
  tag: string;
  size: number;
}

function fakes(images: FakeImage[], containerImages: string[]) {
  const removed: string[] = [];
  const imageClient = {
    listImages: async () => ({ images: images.filter((i) => !removed.includes(i.id)).map((i) => ({ id: i.id, repoTags: [i.tag], repoDigests: [], size: String(i.size) })) }),
    removeImage: async (req: { image: { image: string } }) => void removed.push(req.image.image),
  } as unknown as ImageClient;
  const runtimeClient = {
    listContainers: async () => ({ containers: containerImages.map((ref, n) => ({ id: `c${n}`, imageRef: ref, image: { image: ref } })) }),
  } as unknown as RuntimeClient;
  return { removed, imageClient, runtimeClient };
}

describe("planImageRemoval", () => {
  it("removes unused images old enough, least recently used first, until enough is freed", () => {
    const records = new Map<string, ImageRecord>([
      ["recent", { firstDetectedMs: 0, lastUsedMs: 50, sizeBytes: 10 }],
      ["never-used", { firstDetectedMs: 0, lastUsedMs: 0, sizeBytes: 10 }],
      ["old-use", { firstDetectedMs: 0, lastUsedMs: 20, sizeBytes: 10 }],
      ["young", { firstDetectedMs: 95, lastUsedMs: 0, sizeBytes: 10 }],
      ["in-use", { firstDetectedMs: 0, lastUsedMs: 100, sizeBytes: 10 }],
    ]);
    expect(planImageRemoval(records, new Set(["in-use"]), 15, 100, 10)).toEqual(["never-used", "old-use"]);
    expect(planImageRemoval(records, new Set(["in-use"]), Number.MAX_SAFE_INTEGER, 100, 10)).toEqual(["never-used", "old-use", "recent"]);
  });
});

describe("ImageGCManager", () => {
  const policy = { highThresholdPercent: 80, lowThresholdPercent: 50, minAgeMs: 0 };
  const gcOptions = (f: ReturnType<typeof fakes>, clock: () => number) => ({
    policy,
    images: () => f.imageClient,
    runtime: () => f.runtimeClient,
    sandboxImage: "k8s.gcr.io/pause:3.6",
    clock,
    log: () => {},
  });

  it("above the high threshold frees down to the low one, never touching images in use or the sandbox image", async () => {
    const f = fakes(
      [
        { id: "sha256:used", tag: "busybox:1.36", size: 300 },
        { id: "sha256:pause", tag: "k8s.gcr.io/pause:3.6", size: 300 },
        { id: "sha256:a", tag: "a:1", size: 200 },
        { id: "sha256:b", tag: "b:1", size: 200 },
      ],
      ["sha256:used"],
    );
    let now = 1_000;
    let available = 100;
    const events: string[] = [];
    const gc = new ImageGCManager({
      policy,
      images: () => f.imageClient,
      runtime: () => f.runtimeClient,
      imageFsStats: async () => ({ time: "", capacityBytes: 1000, availableBytes: available }),
      sandboxImage: "k8s.gcr.io/pause:3.6",
      recordNodeEvent: (type, reason, message) => events.push(`${type} ${reason}: ${message}`),
      clock: () => now,
      log: () => {},
    });
    await gc.detectImages(now);
    now = 2_000;
    // usage 90% ≥ 80%: free 1000 × 50% − 100 = 400 bytes: both unused images (200 each).
    await gc.garbageCollect();
    expect(f.removed).toEqual(["sha256:a", "sha256:b"]);
    // Still over (the stats say so): nothing left to free → FreeDiskSpaceFailed.
    now = 3_000;
    await expect(gc.garbageCollect()).rejects.toThrow(new ImageGCError("failed to garbage collect required amount of images. Wanted to free 400 bytes, but freed 0 bytes"));
    expect(events).toEqual(["Warning FreeDiskSpaceFailed: failed to garbage collect required amount of images. Wanted to free 400 bytes, but freed 0 bytes"]);
    available = 900;
    await gc.garbageCollect();
    expect(f.removed).toHaveLength(2);
  });

  it("keeps images younger than --minimum-image-ttl-duration and refuses an image fs of capacity 0", async () => {
    const f = fakes([{ id: "sha256:a", tag: "a:1", size: 200 }], []);
    const events: string[] = [];
    const logs: string[] = [];
    let capacity = 1000;
    const gc = new ImageGCManager({
      policy: { ...policy, minAgeMs: 60_000 },
      images: () => f.imageClient,
      runtime: () => f.runtimeClient,
      imageFsStats: async () => ({ time: "", capacityBytes: capacity, availableBytes: 0 }),
      sandboxImage: "k8s.gcr.io/pause:3.6",
      recordNodeEvent: (type, reason) => events.push(`${type} ${reason}`),
      clock: () => 1_000,
      log: (m, level) => logs.push(`${level ?? 0} ${m}`),
    });
    await gc.deleteUnusedImages();
    expect(f.removed).toEqual([]);
    capacity = 0;
    await expect(gc.garbageCollect()).rejects.toThrow("invalid capacity 0 on image filesystem");
    expect(events).toEqual(["Warning InvalidDiskCapacity"]);
    // Node events are logged too (all there is of them in standalone mode).
    expect(logs).toContain("1 event Warning InvalidDiskCapacity on node: invalid capacity 0 on image filesystem");
  });

  it("a failed removal frees nothing: the next image in eviction order is tried, and the error fails the collection without FreeDiskSpaceFailed", async () => {
    const f = fakes(
      [
        { id: "sha256:stuck", tag: "stuck:1", size: 300 },
        { id: "sha256:b", tag: "b:1", size: 300 },
        { id: "sha256:c", tag: "c:1", size: 300 },
      ],
      [],
    );
    const removeImage = f.imageClient.removeImage.bind(f.imageClient);
    f.imageClient.removeImage = (async (req: { image: { image: string } }) => {
      if (req.image.image === "sha256:stuck") throw new Error("image is in use by a container");
      return removeImage(req as never);
    }) as typeof f.imageClient.removeImage;
    const events: string[] = [];
    const gc = new ImageGCManager({ ...gcOptions(f, () => 2_000), imageFsStats: async () => ({ time: "", capacityBytes: 1000, availableBytes: 200 }), recordNodeEvent: (type, reason) => events.push(`${type} ${reason}`) });
    await gc.detectImages(500);
    gc.imageRecords().get("sha256:b")!.lastUsedMs = 600;
    gc.imageRecords().get("sha256:c")!.lastUsedMs = 700;
    // usage 80% ≥ 80%: free 1000 × 50% − 200 = 300 bytes. "stuck" (never used) fails, so "b" (used
    // before "c") is removed instead and is enough; "c" stays.
    await expect(gc.garbageCollect()).rejects.toThrow(new ImageGCError("wanted to free 300 bytes, but freed 300 bytes space with errors in image deletion: [image is in use by a container]"));
    expect(f.removed).toEqual(["sha256:b"]);
    expect(events).toEqual([]);
  });

  it("refuses a low threshold above the high one", () => {
    const f = fakes([], []);
    expect(() => new ImageGCManager({ policy: { highThresholdPercent: 50, lowThresholdPercent: 60, minAgeMs: 0 }, images: () => f.imageClient, runtime: () => f.runtimeClient, imageFsStats: async () => undefined, sandboxImage: "", log: () => {} })).toThrow(
      "LowThresholdPercent 60 can not be higher than HighThresholdPercent 50",
    );
  });

  it("start(): FreeDiskSpaceFailed at every collection that falls short, ImageGCFailed (the same message) only from the second failure in a row, as 1.23's StartGarbageCollection", async () => {
    vi.useFakeTimers();
    try {
      const f = fakes([{ id: "sha256:used", tag: "busybox:1.36", size: 300 }], ["sha256:used"]);
      const events: string[] = [];
      const logs: string[] = [];
      let available = 100;
      const gc = new ImageGCManager({
        ...gcOptions(f, () => Date.now()),
        imageFsStats: async () => ({ time: "", capacityBytes: 1000, availableBytes: available }),
        recordNodeEvent: (type, reason, message) => events.push(`${type} ${reason}: ${message}`),
        log: (m) => logs.push(m),
      });
      gc.start(300_000);
      const short = "failed to garbage collect required amount of images. Wanted to free 400 bytes, but freed 0 bytes";
      await vi.advanceTimersByTimeAsync(10);
      expect(events).toEqual([`Warning FreeDiskSpaceFailed: ${short}`]);
      expect(logs).toContain(`Image garbage collection failed once. Stats initialization may not have completed yet: ${short}`);
      await vi.advanceTimersByTimeAsync(300_000);
      expect(events).toEqual([`Warning FreeDiskSpaceFailed: ${short}`, `Warning FreeDiskSpaceFailed: ${short}`, `Warning ImageGCFailed: ${short}`]);
      // A success resets the count: the next failure is "once" again.
      available = 900;
      await vi.advanceTimersByTimeAsync(300_000);
      available = 100;
      await vi.advanceTimersByTimeAsync(300_000);
      expect(events.filter((e) => e.includes("ImageGCFailed"))).toHaveLength(1);
      expect(events.filter((e) => e.includes("FreeDiskSpaceFailed"))).toHaveLength(3);
      gc.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
