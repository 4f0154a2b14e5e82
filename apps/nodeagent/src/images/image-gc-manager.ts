/**
 * Image garbage collection: when the image filesystem's usage reaches `--image-gc-high-threshold`
 * percent, unused images (not used by any container, not the pod infra image) that were first
 * seen at least `--minimum-image-ttl-duration` ago are removed, least recently used first, until
 * usage is down to `--image-gc-low-threshold`.
 * @see pkg/kubelet/images/image_gc_manager.go in kubernetes/kubernetes v1.23
 */
import type { ImageClient, RuntimeClient } from "@skiff/cri-api";
import type { FsStats } from "../stats/types.js";

/** `--image-gc-high-threshold`, `--image-gc-low-threshold` (percent) and `--minimum-image-ttl-duration` (ms). */
export interface ImageGCPolicy {
  readonly highThresholdPercent: number;
  readonly lowThresholdPercent: number;
  readonly minAgeMs: number;
}

/** What the manager remembers of an image: first seen, last seen in use (ms, 0 never), size in bytes. */
export interface ImageRecord {
  firstDetectedMs: number;
  lastUsedMs: number;
  sizeBytes: number;
}

/** Options of {@link ImageGCManager}. */
export interface ImageGCManagerOptions {
  readonly policy: ImageGCPolicy;
  readonly images: () => ImageClient;
  readonly runtime: () => RuntimeClient;
  /** The image fs stats (the stats provider's `imageFsStats`). */
  readonly imageFsStats: () => Promise<FsStats | undefined>;
  /** `--pod-infra-container-image`: never removed. */
  readonly sandboxImage: string;
  /** Records an event on the Node (`InvalidDiskCapacity`, `FreeDiskSpaceFailed`, `ImageGCFailed`); every event is also logged (`event <type> <reason> on node: <message>`, level 1 for warnings). */
  readonly recordNodeEvent?: (type: "Normal" | "Warning", reason: string, message: string) => void;
  readonly log: (message: string, level?: number) => void;
  /** @defaultValue Date.now */
  readonly clock?: () => number;
}

/** Error of {@link ImageGCManager.garbageCollect} and friends, with 1.23's message. */
export class ImageGCError extends Error {
  readonly reason = "ImageGCFailed";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ImageGCError";
  }
}

/** Validation of the policy, as 1.23's `NewImageGCManager`. @throws ImageGCError */
function checkPolicy(p: ImageGCPolicy): void {
  if (p.highThresholdPercent < 0 || p.highThresholdPercent > 100) throw new ImageGCError(`invalid HighThresholdPercent ${p.highThresholdPercent}, must be in range [0-100]`);
  if (p.lowThresholdPercent < 0 || p.lowThresholdPercent > 100) throw new ImageGCError(`invalid LowThresholdPercent ${p.lowThresholdPercent}, must be in range [0-100]`);
  if (p.lowThresholdPercent > p.highThresholdPercent) throw new ImageGCError(`LowThresholdPercent ${p.lowThresholdPercent} can not be higher than HighThresholdPercent ${p.highThresholdPercent}`);
}

/**
 * The images to remove to free `bytesToFree`, in order: not in use now, first detected at least
 * `minAgeMs` before `nowMs`, least recently used first (then earliest detected), until the sizes
 * add up. Pure.
 * @see pkg/kubelet/images/image_gc_manager.go (freeSpace, byLastUsedAndDetected) in kubernetes/kubernetes v1.23
 */
export function planImageRemoval(records: ReadonlyMap<string, ImageRecord>, inUse: ReadonlySet<string>, bytesToFree: number, nowMs: number, minAgeMs: number): string[] {
  const candidates = [...records.entries()].filter(([id]) => !inUse.has(id));
  candidates.sort(([, a], [, b]) => (a.lastUsedMs === b.lastUsedMs ? a.firstDetectedMs - b.firstDetectedMs : a.lastUsedMs - b.lastUsedMs));
  const out: string[] = [];
  let freed = 0;
  for (const [id, r] of candidates) {
    if (r.lastUsedMs >= nowMs) continue;
    if (nowMs - r.firstDetectedMs < minAgeMs) continue;
    out.push(id);
    freed += r.sizeBytes;
    if (freed >= bytesToFree) break;
  }
  return out;
}

/**
 * The kubelet's image GC manager over CRI. {@link garbageCollect} runs every 5 minutes (unless the
 * high threshold is 100); {@link deleteUnusedImages} is the eviction manager's node-level reclaim.
 * @example
 * ```ts
 * const gc = new ImageGCManager({ policy: { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 120_000 },
 *   images: () => runtime.cri.images, runtime: () => runtime.cri.runtime, imageFsStats: () => stats.imageFsStats(),
 *   sandboxImage: "k8s.gcr.io/pause:3.6", log });
 * await gc.garbageCollect();
 * ```
 * @see pkg/kubelet/images/image_gc_manager.go (realImageGCManager) in kubernetes/kubernetes v1.23
 */
export class ImageGCManager {
  private readonly records = new Map<string, ImageRecord>();
  private readonly clock: () => number;
  private recordNodeEvent: ImageGCManagerOptions["recordNodeEvent"];

  /** @throws ImageGCError for a policy outside [0,100] or low above high. */
  constructor(private readonly o: ImageGCManagerOptions) {
    checkPolicy(o.policy);
    this.clock = o.clock ?? Date.now;
    this.recordNodeEvent = o.recordNodeEvent;
  }

  /** Sets where Node events go. */
  setNodeEventRecorder(record: ImageGCManagerOptions["recordNodeEvent"]): void {
    this.recordNodeEvent = record;
  }

  /** Logs a Node event (level 1 for warnings, 2 otherwise, as the pod events) and records it where set. */
  private nodeEvent(type: "Normal" | "Warning", reason: string, message: string): void {
    this.o.log(`event ${type} ${reason} on node: ${message}`, type === "Warning" ? 1 : 2);
    this.recordNodeEvent?.(type, reason, message);
  }

  /** The records (tests, debugging). */
  imageRecords(): ReadonlyMap<string, ImageRecord> {
    return this.records;
  }

  /**
   * Refreshes the records from the runtime's images and the images its containers (any state)
   * use: new images get `firstDetected = nowMs`, images in use `lastUsed = nowMs`, gone images are
   * forgotten. The sandbox image counts as in use. Returns the image IDs in use.
   * @throws CRIError when the runtime cannot list.
   * @see pkg/kubelet/images/image_gc_manager.go (detectImages) in kubernetes/kubernetes v1.23
   */
  async detectImages(nowMs: number): Promise<Set<string>> {
    const [{ images }, { containers }] = await Promise.all([this.o.images().listImages({}), this.o.runtime().listContainers({})]);
    const inUse = new Set<string>();
    const refs = new Set<string>();
    for (const c of containers) {
      if (c.imageRef) refs.add(c.imageRef);
      if (c.image?.image) refs.add(c.image.image);
    }
    refs.add(this.o.sandboxImage);
    const present = new Set<string>();
    for (const img of images) {
      present.add(img.id);
      const used = refs.has(img.id) || img.repoTags.some((t) => refs.has(t) || refs.has(t.replace(/^docker\.io\/(library\/)?/, ""))) || img.repoDigests.some((d) => refs.has(d));
      if (used) inUse.add(img.id);
      const r = this.records.get(img.id);
      if (!r) this.records.set(img.id, { firstDetectedMs: nowMs, lastUsedMs: used ? nowMs : 0, sizeBytes: Number(img.size) || 0 });
      else {
        if (used) r.lastUsedMs = nowMs;
        r.sizeBytes = Number(img.size) || 0;
      }
    }
    for (const id of [...this.records.keys()]) if (!present.has(id)) this.records.delete(id);
    return inUse;
  }

  /**
   * Removes unused images until `bytesToFree` are freed; resolves with the bytes freed. A removal
   * that fails is skipped (the next image in eviction order is tried) and reported at the end.
   * @throws ImageGCError `wanted to free <n> bytes, but freed <m> bytes space with errors in image deletion: ...` when removals failed.
   * @see pkg/kubelet/images/image_gc_manager.go (freeSpace) in kubernetes/kubernetes v1.23
   */
  async freeSpace(bytesToFree: number, nowMs: number): Promise<number> {
    const inUse = await this.detectImages(nowMs);
    let freed = 0;
    const errors: string[] = [];
    // Every eligible image in eviction order; a failed removal frees nothing, so the next one is tried.
    for (const id of planImageRemoval(this.records, inUse, Number.MAX_SAFE_INTEGER, nowMs, this.o.policy.minAgeMs)) {
      const r = this.records.get(id);
      this.o.log(`Removing image to free bytes imageID="${id}" size=${r?.sizeBytes ?? 0}`);
      try {
        await this.o.images().removeImage({ image: { image: id } });
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
        continue;
      }
      this.records.delete(id);
      freed += r?.sizeBytes ?? 0;
      if (freed >= bytesToFree) break;
    }
    if (errors.length > 0) throw new ImageGCError(`wanted to free ${bytesToFree} bytes, but freed ${freed} bytes space with errors in image deletion: [${errors.join(", ")}]`);
    return freed;
  }

  /**
   * One collection: reads the image fs; at `usage% >= high` frees
   * `capacity × (100 − low)/100 − available` bytes.
   * @throws ImageGCError `invalid capacity 0 on image filesystem` (event `InvalidDiskCapacity`),
   *   `failed to garbage collect required amount of images. Wanted to free <n> bytes, but freed <m> bytes`
   *   (event `FreeDiskSpaceFailed`), {@link freeSpace}'s removal errors (no event), or a stats/runtime failure.
   * @see pkg/kubelet/images/image_gc_manager.go (GarbageCollect) in kubernetes/kubernetes v1.23
   */
  async garbageCollect(): Promise<void> {
    const fs = await this.o.imageFsStats();
    if (!fs || fs.capacityBytes === undefined || fs.availableBytes === undefined) throw new ImageGCError("failed to get image stats: no capacity or available bytes on the image filesystem");
    const capacity = fs.capacityBytes;
    const available = Math.min(fs.availableBytes, capacity);
    if (capacity === 0) {
      const message = "invalid capacity 0 on image filesystem";
      this.nodeEvent("Warning", "InvalidDiskCapacity", message);
      throw new ImageGCError(message);
    }
    const usagePercent = 100 - Math.trunc((available * 100) / capacity);
    if (usagePercent < this.o.policy.highThresholdPercent) return;
    const amountToFree = Math.trunc((capacity * (100 - this.o.policy.lowThresholdPercent)) / 100) - available;
    this.o.log(`Disk usage on image filesystem is over the high threshold, trying to free bytes down to the low threshold usage=${usagePercent} highThreshold=${this.o.policy.highThresholdPercent} amountToFree=${amountToFree} lowThreshold=${this.o.policy.lowThresholdPercent}`);
    // A removal error fails the collection without an event, as 1.23 (only falling short records one).
    const freed = await this.freeSpace(amountToFree, this.clock());
    if (freed < amountToFree) {
      const message = `failed to garbage collect required amount of images. Wanted to free ${amountToFree} bytes, but freed ${freed} bytes`;
      this.nodeEvent("Warning", "FreeDiskSpaceFailed", message);
      throw new ImageGCError(message);
    }
  }

  /**
   * Removes every unused image old enough (the eviction manager's reclaim).
   * @see pkg/kubelet/images/image_gc_manager.go (DeleteUnusedImages) in kubernetes/kubernetes v1.23
   */
  async deleteUnusedImages(): Promise<void> {
    this.o.log("Attempting to delete unused images");
    await this.freeSpace(Number.MAX_SAFE_INTEGER, this.clock());
  }

  private timers: NodeJS.Timeout[] = [];

  /**
   * Starts the loops: image detection now and every 5 minutes and, unless the high threshold is
   * 100, a collection right after the first detection and every 5 minutes; a failure twice in a
   * row records the Node event `ImageGCFailed`.
   * @see pkg/kubelet/kubelet.go (StartGarbageCollection), image_gc_manager.go (Start) in kubernetes/kubernetes v1.23
   */
  start(periodMs = 5 * 60_000): void {
    if (this.timers.length > 0) return;
    const detect = () => this.detectImages(this.clock()).then(
      () => undefined,
      (err: unknown) => this.o.log(`Failed to monitor images: ${err instanceof Error ? err.message : String(err)}`, 1),
    );
    let collect: (() => void) | undefined;
    if (this.o.policy.highThresholdPercent < 100) {
      let prevFailed = false;
      let busy = false;
      collect = () => {
        if (busy) return;
        busy = true;
        void this.garbageCollect()
          .then(
            () => {
              prevFailed = false;
              this.o.log("Image garbage collection succeeded", 4);
            },
            (err: unknown) => {
              const message = err instanceof Error ? err.message : String(err);
              if (prevFailed) {
                this.o.log(`Image garbage collection failed multiple times in a row: ${message}`);
                this.nodeEvent("Warning", "ImageGCFailed", message);
              } else this.o.log(`Image garbage collection failed once. Stats initialization may not have completed yet: ${message}`);
              prevFailed = true;
            },
          )
          .finally(() => (busy = false));
      };
    } else this.o.log("ImageGCHighThresholdPercent is set 100, Disable image GC");
    // As wait.Until: the first detection, then the first collection, at once; then every period.
    void detect().then(() => collect?.());
    this.timers.push(setInterval(() => void detect(), periodMs));
    if (collect) this.timers.push(setInterval(collect, periodMs));
    for (const t of this.timers) t.unref();
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }
}
