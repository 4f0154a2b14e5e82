/**
 * A token bucket: `qps` tokens per second, at most `burst` stored, starting full. `qps` ≤ 0 means
 * unlimited.
 * @see staging/src/k8s.io/client-go/util/flowcontrol/throttle.go (NewTokenBucketRateLimiter)
 */
export class TokenBucket {
  private tokens: number;
  private lastMs: number;

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.tokens = Math.max(burst, 1);
    this.lastMs = nowMs();
  }

  /** Takes a token when one is available; never waits. */
  tryAccept(): boolean {
    if (this.qps <= 0) return true;
    const now = this.nowMs();
    this.tokens = Math.min(Math.max(this.burst, 1), this.tokens + ((now - this.lastMs) / 1000) * this.qps);
    this.lastMs = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }
}

/** Why an image pull was refused or failed; `code` is stable. */
export class ImagePullError extends Error {
  /** `QPSExceeded`: the registry rate limit refused the pull; `PullFailed`: the runtime failed it. */
  readonly code: "QPSExceeded" | "PullFailed";
  constructor(code: "QPSExceeded" | "PullFailed", message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ImagePullError";
    this.code = code;
  }
}

/**
 * Runs image pulls serially (one at a time, `--serialize-image-pulls`) or in parallel, each
 * first taking a token of a {@link TokenBucket} (`--registry-qps`/`--registry-burst`); without a
 * token the pull fails at once with `pull QPS exceeded`, as the kubelet's throttled image service.
 * @see pkg/kubelet/images/puller.go, pkg/kubelet/images/helpers.go (throttleImagePulling)
 */
export class ImagePuller {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly serialize: boolean,
    private readonly bucket: TokenBucket,
  ) {}

  /** Runs `pull` under the limits; rejects with {@link ImagePullError}. */
  pull<T>(pull: () => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      if (!this.bucket.tryAccept()) throw new ImagePullError("QPSExceeded", "pull QPS exceeded");
      try {
        return await pull();
      } catch (err) {
        throw new ImagePullError("PullFailed", err instanceof Error ? err.message : String(err), { cause: err });
      }
    };
    if (!this.serialize) return run();
    const result = this.chain.then(run, run);
    this.chain = result.catch(() => undefined);
    return result;
  }
}
