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
  private rt: RuntimeClient;
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
    this.rt = this.counting(this.wrap(opened.runtime));
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

  /** Changes {@link generation}: what was read before may be stale. */
  invalidate(): void {
    this.#generation++;
  }

  // The runtime client with every state-changing call counted in the generation.
  private counting(client: RuntimeClient): RuntimeClient {
    const bump = () => this.invalidate();
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
    this.rt = this.counting(this.wrap(opened.runtime));
    this.img = this.wrap(opened.images);
    this.invalidate();
  }

  /** Closes both channels. */
  close(): void {
    this.rt.close();
    this.img.close();
  }
}
