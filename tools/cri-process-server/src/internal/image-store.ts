import { createHash } from "node:crypto";
import type { AuthConfig__Output, Image, ImageFsInfoResponse, ImageSpec__Output, ImageStatusResponse, ListImagesResponse, PullImageResponse } from "@skiff/cri-api";
import { join } from "node:path";
import { checkpointVersion, readRecord, RecordWriter } from "./checkpoint.js";
import { nowNs } from "./clock.js";
import { invalidArgument, notFound, unknownError } from "./errors.js";
import { defaultsForRepository, isImageId, parseImageReference, type ImageDefaults } from "./image-names.js";

// Nothing is downloaded; every image claims this size (the kubelet rejects a size of 0).
const imageSizeBytes = 1_048_576;

export interface StoredImage {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  /** Repository of the first name the image was pulled by, e.g. docker.io/library/busybox. */
  repository: string;
}

/**
 * Images "pulled" by name: PullImage records the normalised reference under the ID
 * `sha256:<sha256 of the normalised name>`, so `busybox` and `docker.io/library/busybox:latest`
 * are the same image, and any name succeeds without a registry.
 */
export class ImageStore {
  private readonly byId = new Map<string, StoredImage>();
  private readonly idByName = new Map<string, string>();

  /** Every PullImage received, in order, with its `auth` (tests read it: the runtime has no registry to send it to). */
  readonly pullRequests: Array<{ image: string; auth: AuthConfig__Output | null }> = [];

  private readonly writer: RecordWriter;

  /**
   * @param mountpoint the image filesystem's directory; with `persist`, the image list is kept in
   *   `<mountpoint>/images.json` (see {@link ImageStore.load} and {@link ImageStore.save}).
   */
  constructor(
    private readonly mountpoint: string,
    private readonly registryCredentials: Readonly<Record<string, { username: string; password: string }>> = {},
    private readonly persist = false,
    log: (message: string) => void = () => {},
  ) {
    this.writer = new RecordWriter((err) => log(`images: ${err instanceof Error ? err.message : String(err)}`));
  }

  private get recordPath(): string {
    return join(this.mountpoint, "images.json");
  }

  /**
   * Loads the images a previous run recorded (a restart keeps them, as containerd's content store
   * does). Returns the reason when the record exists but cannot be used (the store stays empty).
   */
  async load(): Promise<string | undefined> {
    if (!this.persist) return undefined;
    const record = await readRecord(this.recordPath);
    if (record === undefined) return undefined;
    if (record instanceof Error) return record.message;
    const images = Array.isArray(record.images) ? (record.images as StoredImage[]) : [];
    for (const image of images) {
      if (typeof image?.id !== "string" || !Array.isArray(image.repoTags) || !Array.isArray(image.repoDigests)) continue;
      const stored: StoredImage = { id: image.id, repoTags: image.repoTags.map(String), repoDigests: image.repoDigests.map(String), repository: String(image.repository ?? "") };
      this.byId.set(stored.id, stored);
      for (const name of [...stored.repoTags, ...stored.repoDigests]) this.idByName.set(name, stored.id);
    }
    return undefined;
  }

  /** Writes the image list (when persisting); resolves once it is on disk. */
  save(): Promise<void> {
    if (!this.persist) return Promise.resolve();
    return this.writer.write(this.recordPath, () => ({ version: checkpointVersion, images: [...this.byId.values()] }));
  }

  pull(method: string, spec: ImageSpec__Output | null, auth: AuthConfig__Output | null = null): PullImageResponse {
    const name = spec?.image ?? "";
    this.pullRequests.push({ image: name, auth });
    if (isImageId(name)) {
      if (!this.byId.has(name)) throw notFound(method, `image ${name} not found: an image ID cannot be pulled`);
      return { imageRef: name };
    }
    const parsed = parseImageReference(name);
    if (!parsed.ok) throw invalidArgument(method, parsed.error);
    const ref = parsed.value;
    const host = ref.repository.slice(0, ref.repository.indexOf("/"));
    const required = this.registryCredentials[host];
    if (required && (auth?.username !== required.username || auth.password !== required.password)) {
      // What containerd answers when a registry refuses the credentials (or their absence).
      throw unknownError(method, `failed to pull and unpack image "${ref.normalized}": failed to resolve reference "${ref.normalized}": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed`);
    }
    const id = `sha256:${createHash("sha256").update(ref.normalized).digest("hex")}`;
    let image = this.byId.get(id);
    if (!image) {
      image = { id, repoTags: [], repoDigests: [], repository: ref.repository };
      this.byId.set(id, image);
    }
    const names = ref.digest === undefined ? image.repoTags : image.repoDigests;
    if (!names.includes(ref.normalized)) names.push(ref.normalized);
    this.idByName.set(ref.normalized, id);
    return { imageRef: id };
  }

  /** The image an ImageSpec names (ID, or any name that normalises to a pulled one). */
  resolve(name: string): StoredImage | undefined {
    if (isImageId(name)) return this.byId.get(name);
    const parsed = parseImageReference(name);
    if (!parsed.ok) return undefined;
    const id = this.idByName.get(parsed.value.normalized);
    return id === undefined ? undefined : this.byId.get(id);
  }

  defaults(image: StoredImage): ImageDefaults {
    return defaultsForRepository(image.repository);
  }

  status(spec: ImageSpec__Output | null, verbose: boolean): ImageStatusResponse {
    const image = this.resolve(spec?.image ?? "");
    if (!image) return { image: null, info: {} };
    return { image: toImage(image), info: verbose ? { info: JSON.stringify({ repository: image.repository }) } : {} };
  }

  list(filter: ImageSpec__Output | null): ListImagesResponse {
    if (filter?.image) {
      const image = this.resolve(filter.image);
      return { images: image ? [toImage(image)] : [] };
    }
    return { images: [...this.byId.values()].map(toImage) };
  }

  /** Removes the image with all its names; unknown images are fine (idempotent). */
  remove(spec: ImageSpec__Output | null): void {
    const image = this.resolve(spec?.image ?? "");
    if (!image) return;
    this.byId.delete(image.id);
    for (const name of [...image.repoTags, ...image.repoDigests]) this.idByName.delete(name);
  }

  fsInfo(): ImageFsInfoResponse {
    return {
      imageFilesystems: [
        {
          timestamp: nowNs().toString(),
          fsId: { mountpoint: this.mountpoint },
          usedBytes: { value: String(this.byId.size * imageSizeBytes) },
          inodesUsed: { value: String(this.byId.size) },
        },
      ],
    };
  }
}

function toImage(image: StoredImage): Image {
  return { id: image.id, repoTags: [...image.repoTags], repoDigests: [...image.repoDigests], size: String(imageSizeBytes), uid: { value: String(process.getuid?.() ?? 0) }, username: "" };
}
