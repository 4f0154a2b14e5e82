import { createImageClient, createRuntimeClient, isCRIError, type ImageClient, type RuntimeClient } from "@skiff/cri-api";
import { formatDuration } from "@skiff/flags";
import type { RuntimeState } from "./types.js";

/** Wraps a CRI client (e.g. to record runtime operation metrics); must keep its methods. */
export type CRIClientWrapper = <T extends object>(client: T) => T;

/**
 * Opens the CRI clients of a runtime: called once at construction and again on each reconnect
 * (after a failed probe). The default dials gRPC to the runtime and image endpoints; an
 * in-process runtime (a simulated fleet's) returns its own clients.
 */
export type CRIDialer = () => { readonly runtime: RuntimeClient; readonly images: ImageClient };

/**
 * How long the runtime may go without a successful status check before it counts as down (1.23's
 * `maxWaitForContainerRuntime`, 30 s), in milliseconds.
 * @see pkg/kubelet/kubelet.go in kubernetes/kubernetes v1.23
 */
export const maxWaitForContainerRuntimeMs = 30_000;

/** 1.23's PLEG `relistThreshold` (3 min), in milliseconds. */
export const plegRelistThresholdMs = 3 * 60_000;

/**
 * The PLEG's health (1.23's `GenericPLEG.Healthy`): why it is unhealthy given when its last
 * relist succeeded (`lastRelistMs`, undefined: never) and the time now (both in milliseconds), or
 * `undefined` while it is healthy. The node agent adds it as the "PLEG" health check of
 * {@link RuntimeClients}, so the node reads "PLEG is not healthy: …".
 * @see pkg/kubelet/pleg/generic.go (Healthy) in kubernetes/kubernetes v1.23
 */
export function plegHealthError(lastRelistMs: number | undefined, nowMs: number): string | undefined {
  if (lastRelistMs === undefined) return "pleg has yet to be successful";
  const elapsedMs = nowMs - lastRelistMs;
  return elapsedMs > plegRelistThresholdMs ? `pleg was last seen active ${formatDuration(BigInt(elapsedMs) * 1_000_000n)} ago; threshold is ${formatDuration(BigInt(plegRelistThresholdMs) * 1_000_000n)}` : undefined;
}

/** Options of {@link RuntimeClients} beyond its endpoints. */
export interface RuntimeClientsOptions {
  /** The clock, in milliseconds since the epoch (a fake one in tests). Default `Date.now`. */
  readonly clock?: () => number;
  /** See {@link maxWaitForContainerRuntimeMs} (the default). */
  readonly downThresholdMs?: number;
  /** Where each failed status check is logged. Default: nowhere. */
  readonly log?: (message: string) => void;
}

// A runtime condition as 1.23's RuntimeCondition.String() prints it ("<nil>" when absent).
function conditionString(c: { type: string; status: boolean; reason: string; message: string } | undefined): string {
  return c === undefined ? "<nil>" : `${c.type}=${String(c.status)} reason:${c.reason} message:${c.message}`;
}

// Several errors as apimachinery's utilerrors.Aggregate prints them: one alone, else "[a, b]".
function aggregateMessage(errors: readonly string[]): string {
  return errors.length <= 1 ? (errors[0] ?? "") : `[${errors.join(", ")}]`;
}

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
  private readonly dial: CRIDialer;
  // When Status last answered RuntimeReady=true (1.23's lastBaseRuntimeSync); undefined: never.
  private lastSyncMs: number | undefined;
  private runtimeError = "";
  private networkError = "";
  private runtimeName = "";
  private runtimeVersion: string | undefined;
  private needVersion = true;
  private readonly healthChecks: { readonly name: string; readonly check: () => string | undefined }[] = [];
  private readonly clock: () => number;
  private readonly downThresholdMs: number;
  private readonly log: (message: string) => void;

  constructor(
    endpoint: string,
    private readonly timeoutMs: number,
    imageEndpoint = "",
    private readonly wrap: CRIClientWrapper = (c) => c,
    dial?: CRIDialer,
    options: RuntimeClientsOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
    this.downThresholdMs = options.downThresholdMs ?? maxWaitForContainerRuntimeMs;
    this.log = options.log ?? (() => undefined);
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

  /**
   * The runtime's state now, as 1.23's `runtimeState.runtimeErrors()` and `networkErrors()` read
   * it: not ready before the first successful Status ("container runtime status check may not
   * have completed yet"), once {@link RuntimeClientsOptions.downThresholdMs} (30 s) passed without
   * one ("container runtime is down"), while a health check fails ("PLEG is not healthy: …") and
   * while the last Status said RuntimeReady=false. A single failed or slow probe changes nothing.
   * NetworkReady=false is reported apart (`networkError`): it keeps only pods off the host network
   * from starting. Computed on each call, so "down" shows while a probe is still waiting.
   */
  current(): RuntimeState {
    const errors: string[] = [];
    if (this.lastSyncMs === undefined) errors.push("container runtime status check may not have completed yet");
    else if (this.clock() - this.lastSyncMs >= this.downThresholdMs) errors.push("container runtime is down");
    for (const hc of this.healthChecks) {
      const err = hc.check();
      if (err !== undefined) errors.push(`${hc.name} is not healthy: ${err}`);
    }
    if (this.runtimeError !== "") errors.push(this.runtimeError);
    const unique = [...new Set(errors)];
    return {
      ready: unique.length === 0,
      message: aggregateMessage(unique),
      errors: unique,
      networkError: this.networkError,
      runtimeName: this.runtimeName,
      ...(this.runtimeVersion !== undefined ? { runtimeVersion: this.runtimeVersion } : {}),
    };
  }

  /**
   * Whether the runtime answered Status with RuntimeReady=true less than `downThresholdMs` ago:
   * {@link current} without the health checks. The PLEG relist runs while this holds (its own
   * health check must not stop it).
   */
  runtimeUp(): boolean {
    return this.lastSyncMs !== undefined && this.runtimeError === "" && this.clock() - this.lastSyncMs < this.downThresholdMs;
  }

  /**
   * Adds a health check to {@link current} (1.23's `runtimeState.addHealthCheck`, e.g. the PLEG's):
   * `check` returns why it is unhealthy, or `undefined`.
   */
  addHealthCheck(name: string, check: () => string | undefined): void {
    this.healthChecks.push({ name, check });
  }

  /**
   * One runtime status check (1.23's `updateRuntimeUp`): Status with the runtime request
   * timeout. An error is logged ("Container runtime sanity check failed") and changes no state;
   * {@link current} turns "down" only when no check succeeded for `downThresholdMs`. NetworkReady
   * and RuntimeReady false set their errors at once. On success the runtime's Version is asked
   * when not yet known or after a reconnect. The channels are replaced (a reconnect) when the
   * runtime is Unavailable, or when a check runs out of time while the runtime already counts as
   * down: a slow runtime under load keeps its channels and in-flight calls. Never throws.
   * @see pkg/kubelet/kubelet.go (updateRuntimeUp), pkg/kubelet/runtime.go in kubernetes/kubernetes v1.23
   */
  async probe(): Promise<RuntimeState> {
    try {
      const status = await this.rt.status({}, { timeoutMs: this.timeoutMs });
      const conditions = status.status?.conditions ?? [];
      const network = conditions.find((c) => c.type === "NetworkReady");
      this.networkError = network?.status ? "" : `container runtime network not ready: ${conditionString(network)}`;
      if (this.networkError !== "") this.log(`Container runtime network not ready: ${conditionString(network)}`);
      const runtimeReady = conditions.find((c) => c.type === "RuntimeReady");
      if (!runtimeReady?.status) {
        this.runtimeError = `container runtime not ready: ${conditionString(runtimeReady)}`;
        this.log(`Container runtime not ready: ${conditionString(runtimeReady)}`);
        return this.current();
      }
      this.runtimeError = "";
      if (this.needVersion) {
        try {
          const version = await this.rt.version({}, { timeoutMs: this.timeoutMs });
          this.runtimeName = version.runtimeName;
          this.runtimeVersion = version.runtimeVersion;
          this.needVersion = false;
        } catch (err) {
          this.log(`Get runtime Version failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      this.lastSyncMs = this.clock();
    } catch (err) {
      this.log(`Container runtime sanity check failed: ${err instanceof Error ? err.message : String(err)}`);
      const down = this.lastSyncMs === undefined || this.clock() - this.lastSyncMs >= this.downThresholdMs;
      if (isCRIError(err, "Unavailable") || (down && isCRIError(err, "DeadlineExceeded"))) this.reconnect();
    }
    return this.current();
  }

  private reconnect(): void {
    this.rt.close();
    this.img.close();
    const opened = this.dial();
    this.raw = this.wrap(opened.runtime);
    this.rt = this.counting(this.raw);
    this.img = this.wrap(opened.images);
    this.needVersion = true;
    this.invalidate();
  }

  /** Closes both channels. */
  close(): void {
    this.rt.close();
    this.img.close();
  }
}
