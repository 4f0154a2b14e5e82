import { createImageClient, createRuntimeClient, isCRIError, type ImageClient, type RuntimeClient } from "@skiff/cri-api";
import type { RuntimeState } from "./types.js";

/** Wraps a CRI client (e.g. to record runtime operation metrics); must keep its methods. */
export type CRIClientWrapper = <T extends object>(client: T) => T;

/**
 * Opens the CRI clients of a runtime: called once at construction and again on each reconnect
 * (after a failed probe). The default dials gRPC to the runtime and image endpoints; an
 * in-process runtime (a simulated fleet's) returns its own clients.
 */
export type CRIDialer = () => { readonly runtime: RuntimeClient; readonly images: ImageClient };

/** When a read of a pod's runtime state began (see `RuntimeClients.stamp`). */
export interface PodReadStamp {
  readonly generation: number;
  readonly epoch: number;
}

// The RuntimeService calls that change sandboxes or containers.
const mutatingCalls = new Set(["runPodSandbox", "stopPodSandbox", "removePodSandbox", "createContainer", "startContainer", "stopContainer", "removeContainer", "updateContainerResources"]);

/**
 * Holds the CRI clients and the runtime's readiness. The gRPC channel backs off up to two minutes
 * after failed connects, so a failed probe replaces the channels: the agent notices a runtime that
 * (re)appears at the next probe. Image calls go to `imageEndpoint` (`--image-service-endpoint`)
 * over a channel of their own when it is given, else to the runtime endpoint.
 * @see pkg/kubelet/kubelet.go (updateRuntimeUp), pkg/kubelet/kubelet.go (getRuntimeAndImageServices) in kubernetes/kubernetes v1.23
 */
export class RuntimeClients {
  #generation = 0;
  // Per-pod staleness: the value of #epoch when each pod was last marked changed (invalidatePod).
  #epoch = 0;
  readonly #podChangedAt = new Map<string, number>();
  private rt: RuntimeClient;
  // The wrapped runtime client without the counting proxy (forPod counts per pod).
  private raw: RuntimeClient;
  private img: ImageClient;
  private state: RuntimeState = { ready: false, message: "container runtime status check may not have completed yet", runtimeName: "" };
  private readonly dial: CRIDialer;

  constructor(
    endpoint: string,
    private readonly timeoutMs: number,
    imageEndpoint = "",
    private readonly wrap: CRIClientWrapper = (c) => c,
    dial?: CRIDialer,
  ) {
    const imageTarget = imageEndpoint !== "" ? imageEndpoint : endpoint;
    this.dial =
      dial ??
      (() => ({
        runtime: createRuntimeClient({ endpoint, timeoutMs }),
        images: createImageClient({ endpoint: imageTarget, timeoutMs, pullImageTimeoutMs: 0 }),
      }));
    const opened = this.dial();
    this.raw = this.wrap(opened.runtime);
    this.rt = this.counting(this.raw);
    this.img = this.wrap(opened.images);
  }

  /**
   * A number that changes whenever the runtime's state may have changed through this agent: at
   * the start and at the end of every call that changes containers or sandboxes, on
   * {@link invalidate} (the relist saw a change) and on a reconnect. A pod status read while it
   * stayed the same is still the runtime's state (see `RuntimeManager.getPodStatus`).
   */
  get generation(): number {
    return this.#generation;
  }

  /** Changes {@link generation}: what was read before may be stale, for every pod. */
  invalidate(): void {
    this.#generation++;
  }

  /**
   * Marks what was read of the pod with `uid` before now as stale, and nothing else: a change the
   * relist saw in that pod, or a state-changing call made for it ({@link forPod}). 1.23's PLEG
   * updates the pod cache per pod in the same way. The record of marked pods is bounded: past
   * 4,096 pods it is cleared with one {@link invalidate}.
   */
  invalidatePod(uid: string): void {
    if (this.#podChangedAt.size >= 4_096 && !this.#podChangedAt.has(uid)) {
      this.#podChangedAt.clear();
      this.invalidate();
    }
    this.#podChangedAt.set(uid, ++this.#epoch);
  }

  /**
   * A stamp to take before reading the runtime state of a pod: the read is still the runtime's
   * state while {@link isCurrent} says so for it.
   */
  stamp(): PodReadStamp {
    return { generation: this.#generation, epoch: this.#epoch };
  }

  /**
   * Whether a read of the pod with `uid` that began at `stamp` is still the runtime's state: no
   * {@link invalidate}, reconnect or state-changing call through {@link runtime} since, and no
   * {@link invalidatePod} of that pod.
   */
  isCurrent(uid: string, stamp: PodReadStamp): boolean {
    return stamp.generation === this.#generation && (this.#podChangedAt.get(uid) ?? 0) <= stamp.epoch;
  }

  /**
   * The runtime client for calls made on behalf of the pod with `uid`: its state-changing calls
   * mark only that pod stale ({@link invalidatePod}), where those through {@link runtime} mark
   * every pod. The pod's own state is all such a call changes (a container or sandbox of that pod).
   */
  forPod(uid: string): RuntimeClient {
    return this.counting(this.raw, () => this.invalidatePod(uid));
  }

  // The runtime client with every state-changing call counted: `bump` runs before and after each.
  private counting(client: RuntimeClient, bump: () => void = () => this.invalidate()): RuntimeClient {
    return new Proxy(client, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== "function" || typeof prop !== "string" || !mutatingCalls.has(prop)) return value;
        return (...args: unknown[]) => {
          bump();
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).finally(bump);
        };
      },
    });
  }

  get runtime(): RuntimeClient {
    return this.rt;
  }

  get images(): ImageClient {
    return this.img;
  }

  /** The last probe's answer. */
  current(): RuntimeState {
    return this.state;
  }

  /** Asks the runtime for Version and Status; updates {@link current}. Never throws. */
  async probe(): Promise<RuntimeState> {
    try {
      const version = await this.rt.version({}, { timeoutMs: Math.min(this.timeoutMs, 10_000) });
      const status = await this.rt.status({}, { timeoutMs: Math.min(this.timeoutMs, 10_000) });
      const conditions = status.status?.conditions ?? [];
      const runtimeReady = conditions.find((c) => c.type === "RuntimeReady");
      if (!runtimeReady?.status) {
        this.state = { ready: false, message: `container runtime is down: RuntimeReady=false reason:${runtimeReady?.reason ?? ""} message:${runtimeReady?.message ?? ""}`, runtimeName: version.runtimeName, runtimeVersion: version.runtimeVersion };
      } else {
        this.state = { ready: true, message: "", runtimeName: version.runtimeName, runtimeVersion: version.runtimeVersion };
      }
    } catch (err) {
      this.state = { ...this.state, ready: false, message: `container runtime is down: ${err instanceof Error ? err.message : String(err)}` };
      if (isCRIError(err, "Unavailable") || isCRIError(err, "DeadlineExceeded")) this.reconnect();
    }
    return this.state;
  }

  private reconnect(): void {
    this.rt.close();
    this.img.close();
    const opened = this.dial();
    this.raw = this.wrap(opened.runtime);
    this.rt = this.counting(this.raw);
    this.img = this.wrap(opened.images);
    this.invalidate();
  }

  /** Closes both channels. */
  close(): void {
    this.rt.close();
    this.img.close();
  }
}
