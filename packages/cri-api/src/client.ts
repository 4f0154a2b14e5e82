import { credentials, type CallOptions, type Client, type ServiceError } from "@grpc/grpc-js";
import { parseCRIEndpoint } from "./endpoint.js";
import { CRIError, toCRIError } from "./errors.js";
import type { ContainerStatsRequest } from "./generated/runtime/v1/ContainerStatsRequest.js";
import type { ContainerStatsResponse__Output } from "./generated/runtime/v1/ContainerStatsResponse.js";
import type { ListContainerStatsRequest } from "./generated/runtime/v1/ListContainerStatsRequest.js";
import type { ListContainerStatsResponse__Output } from "./generated/runtime/v1/ListContainerStatsResponse.js";
import type { ContainerStatusRequest } from "./generated/runtime/v1/ContainerStatusRequest.js";
import type { UpdateContainerResourcesRequest } from "./generated/runtime/v1/UpdateContainerResourcesRequest.js";
import type { UpdateContainerResourcesResponse__Output } from "./generated/runtime/v1/UpdateContainerResourcesResponse.js";
import type { ContainerStatusResponse__Output } from "./generated/runtime/v1/ContainerStatusResponse.js";
import type { CreateContainerRequest } from "./generated/runtime/v1/CreateContainerRequest.js";
import type { CreateContainerResponse__Output } from "./generated/runtime/v1/CreateContainerResponse.js";
import type { AttachRequest } from "./generated/runtime/v1/AttachRequest.js";
import type { AttachResponse__Output } from "./generated/runtime/v1/AttachResponse.js";
import type { ExecRequest } from "./generated/runtime/v1/ExecRequest.js";
import type { ExecResponse__Output } from "./generated/runtime/v1/ExecResponse.js";
import type { PortForwardRequest } from "./generated/runtime/v1/PortForwardRequest.js";
import type { PortForwardResponse__Output } from "./generated/runtime/v1/PortForwardResponse.js";
import type { ExecSyncRequest } from "./generated/runtime/v1/ExecSyncRequest.js";
import type { ExecSyncResponse__Output } from "./generated/runtime/v1/ExecSyncResponse.js";
import type { ImageFsInfoRequest } from "./generated/runtime/v1/ImageFsInfoRequest.js";
import type { ImageFsInfoResponse__Output } from "./generated/runtime/v1/ImageFsInfoResponse.js";
import type { ImageStatusRequest } from "./generated/runtime/v1/ImageStatusRequest.js";
import type { ImageStatusResponse__Output } from "./generated/runtime/v1/ImageStatusResponse.js";
import type { ListContainersRequest } from "./generated/runtime/v1/ListContainersRequest.js";
import type { ListContainersResponse__Output } from "./generated/runtime/v1/ListContainersResponse.js";
import type { ListImagesRequest } from "./generated/runtime/v1/ListImagesRequest.js";
import type { ListImagesResponse__Output } from "./generated/runtime/v1/ListImagesResponse.js";
import type { ListPodSandboxRequest } from "./generated/runtime/v1/ListPodSandboxRequest.js";
import type { ListPodSandboxResponse__Output } from "./generated/runtime/v1/ListPodSandboxResponse.js";
import type { PodSandboxStatusRequest } from "./generated/runtime/v1/PodSandboxStatusRequest.js";
import type { PodSandboxStatusResponse__Output } from "./generated/runtime/v1/PodSandboxStatusResponse.js";
import type { PullImageRequest } from "./generated/runtime/v1/PullImageRequest.js";
import type { PullImageResponse__Output } from "./generated/runtime/v1/PullImageResponse.js";
import type { RemoveContainerRequest } from "./generated/runtime/v1/RemoveContainerRequest.js";
import type { RemoveContainerResponse__Output } from "./generated/runtime/v1/RemoveContainerResponse.js";
import type { RemoveImageRequest } from "./generated/runtime/v1/RemoveImageRequest.js";
import type { RemoveImageResponse__Output } from "./generated/runtime/v1/RemoveImageResponse.js";
import type { RemovePodSandboxRequest } from "./generated/runtime/v1/RemovePodSandboxRequest.js";
import type { RemovePodSandboxResponse__Output } from "./generated/runtime/v1/RemovePodSandboxResponse.js";
import type { ReopenContainerLogRequest } from "./generated/runtime/v1/ReopenContainerLogRequest.js";
import type { ReopenContainerLogResponse__Output } from "./generated/runtime/v1/ReopenContainerLogResponse.js";
import type { RunPodSandboxRequest } from "./generated/runtime/v1/RunPodSandboxRequest.js";
import type { RunPodSandboxResponse__Output } from "./generated/runtime/v1/RunPodSandboxResponse.js";
import type { StartContainerRequest } from "./generated/runtime/v1/StartContainerRequest.js";
import type { StartContainerResponse__Output } from "./generated/runtime/v1/StartContainerResponse.js";
import type { StatusRequest } from "./generated/runtime/v1/StatusRequest.js";
import type { StatusResponse__Output } from "./generated/runtime/v1/StatusResponse.js";
import type { StopContainerRequest } from "./generated/runtime/v1/StopContainerRequest.js";
import type { StopContainerResponse__Output } from "./generated/runtime/v1/StopContainerResponse.js";
import type { StopPodSandboxRequest } from "./generated/runtime/v1/StopPodSandboxRequest.js";
import type { StopPodSandboxResponse__Output } from "./generated/runtime/v1/StopPodSandboxResponse.js";
import type { UpdateRuntimeConfigRequest } from "./generated/runtime/v1/UpdateRuntimeConfigRequest.js";
import type { UpdateRuntimeConfigResponse__Output } from "./generated/runtime/v1/UpdateRuntimeConfigResponse.js";
import type { VersionRequest } from "./generated/runtime/v1/VersionRequest.js";
import type { VersionResponse__Output } from "./generated/runtime/v1/VersionResponse.js";
import { loadGrpcObject } from "./internal/package-definition.js";

/** How {@link createRuntimeClient} and {@link createImageClient} reach the runtime. */
export interface CRIClientOptions {
  /** `unix:///path/to.sock` or `/path/to.sock` (see {@link parseCRIEndpoint}). */
  endpoint: string;
  /**
   * Deadline of each call in milliseconds, the kubelet's `--runtime-request-timeout`. StopContainer
   * gets the stop grace period on top, ExecSync its command timeout on top (no deadline when that
   * is 0), as in the kubelet; PullImage uses `pullImageTimeoutMs`. Must be > 0.
   */
  timeoutMs: number;
  /**
   * Deadline of PullImage in milliseconds; 0 means none (the kubelet 1.23 sets none).
   * @defaultValue 600_000 (10 minutes)
   */
  pullImageTimeoutMs?: number;
}

/** Per-call settings. */
export interface CRICallOptions {
  /** Overrides the deadline this call would get, in milliseconds; 0 means no deadline. */
  timeoutMs?: number;
}

/**
 * Promise-based client of `runtime.v1.RuntimeService`. Requests take the generated input types
 * (every field optional, camelCase, int64 as number or string); responses are the `__Output`
 * types (every field present with its proto3 default; int64 as a decimal string, enums as their
 * names). Every method rejects with a {@link CRIError}.
 *
 * @see pkg/kubelet/cri/remote/remote_runtime.go
 */
export interface RuntimeClient {
  version(request?: VersionRequest, options?: CRICallOptions): Promise<VersionResponse__Output>;
  /** Creates and starts a pod sandbox; resolves once it is ready. */
  runPodSandbox(request: RunPodSandboxRequest, options?: CRICallOptions): Promise<RunPodSandboxResponse__Output>;
  /** Stops the sandbox and kills its containers. Idempotent. */
  stopPodSandbox(request: StopPodSandboxRequest, options?: CRICallOptions): Promise<StopPodSandboxResponse__Output>;
  /** Removes the sandbox and its containers. Idempotent. */
  removePodSandbox(request: RemovePodSandboxRequest, options?: CRICallOptions): Promise<RemovePodSandboxResponse__Output>;
  podSandboxStatus(request: PodSandboxStatusRequest, options?: CRICallOptions): Promise<PodSandboxStatusResponse__Output>;
  listPodSandbox(request?: ListPodSandboxRequest, options?: CRICallOptions): Promise<ListPodSandboxResponse__Output>;
  createContainer(request: CreateContainerRequest, options?: CRICallOptions): Promise<CreateContainerResponse__Output>;
  startContainer(request: StartContainerRequest, options?: CRICallOptions): Promise<StartContainerResponse__Output>;
  /**
   * Stops a container: stop signal, then SIGKILL after `request.timeout` seconds. The deadline is
   * `timeoutMs + timeout * 1000`. Idempotent.
   */
  stopContainer(request: StopContainerRequest, options?: CRICallOptions): Promise<StopContainerResponse__Output>;
  /** Removes a container, killing it first if it runs. Idempotent. */
  removeContainer(request: RemoveContainerRequest, options?: CRICallOptions): Promise<RemoveContainerResponse__Output>;
  listContainers(request?: ListContainersRequest, options?: CRICallOptions): Promise<ListContainersResponse__Output>;
  containerStatus(request: ContainerStatusRequest, options?: CRICallOptions): Promise<ContainerStatusResponse__Output>;
  reopenContainerLog(request: ReopenContainerLogRequest, options?: CRICallOptions): Promise<ReopenContainerLogResponse__Output>;
  /**
   * Updates a created or running container's Linux resources (the kubelet's CPU manager sends
   * only `cpuset_cpus`; containerd applies the fields that are set). `Unimplemented` on runtimes
   * without it.
   */
  updateContainerResources(request: UpdateContainerResourcesRequest, options?: CRICallOptions): Promise<UpdateContainerResourcesResponse__Output>;
  /**
   * Runs a command in a container and returns its output. The deadline is
   * `timeoutMs + timeout * 1000`, or none when `request.timeout` is 0.
   */
  execSync(request: ExecSyncRequest, options?: CRICallOptions): Promise<ExecSyncResponse__Output>;
  /** CPU, memory and writable-layer usage of one container; `NotFound` when it does not exist; `Unimplemented` on runtimes without stats. */
  containerStats(request: ContainerStatsRequest, options?: CRICallOptions): Promise<ContainerStatsResponse__Output>;
  /** Stats of the running containers matching `request.filter`; `Unimplemented` on runtimes without stats. */
  listContainerStats(request?: ListContainerStatsRequest, options?: CRICallOptions): Promise<ListContainerStatsResponse__Output>;
  /**
   * Prepares a streaming exec and answers the URL of the runtime's streaming server (the client
   * upgrades there to SPDY/3.1 or WebSocket within the runtime's token lifetime, a minute in
   * containerd). Errors: `NotFound` for an unknown container, `FailedPrecondition` when it is not running.
   * @see staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto (Exec) in kubernetes/kubernetes v1.23
   */
  exec(request: ExecRequest, options?: CRICallOptions): Promise<ExecResponse__Output>;
  /** Like {@link RuntimeClient.exec}, attaching to the container's main process. */
  attach(request: AttachRequest, options?: CRICallOptions): Promise<AttachResponse__Output>;
  /** Like {@link RuntimeClient.exec}, forwarding ports of a pod sandbox's network namespace. */
  portForward(request: PortForwardRequest, options?: CRICallOptions): Promise<PortForwardResponse__Output>;
  updateRuntimeConfig(request: UpdateRuntimeConfigRequest, options?: CRICallOptions): Promise<UpdateRuntimeConfigResponse__Output>;
  /** Runtime conditions; `RuntimeReady` and `NetworkReady` are the required ones. */
  status(request?: StatusRequest, options?: CRICallOptions): Promise<StatusResponse__Output>;
  /** Closes the channel; pending calls fail with `Cancelled`/`Unavailable`. Idempotent. */
  close(): void;
}

/**
 * Promise-based client of `runtime.v1.ImageService`; same conventions as {@link RuntimeClient}.
 *
 * @see pkg/kubelet/cri/remote/remote_image.go
 */
export interface ImageClient {
  listImages(request?: ListImagesRequest, options?: CRICallOptions): Promise<ListImagesResponse__Output>;
  /** Resolves with `image: null` (not an error) when the image is not present. */
  imageStatus(request: ImageStatusRequest, options?: CRICallOptions): Promise<ImageStatusResponse__Output>;
  /** Pulls an image; the deadline is `pullImageTimeoutMs`. */
  pullImage(request: PullImageRequest, options?: CRICallOptions): Promise<PullImageResponse__Output>;
  /** Removes an image. Idempotent. */
  removeImage(request: RemoveImageRequest, options?: CRICallOptions): Promise<RemoveImageResponse__Output>;
  imageFsInfo(request?: ImageFsInfoRequest, options?: CRICallOptions): Promise<ImageFsInfoResponse__Output>;
  /** Closes the channel. Idempotent. */
  close(): void;
}

// The kubelet's limit for CRI responses (pkg/kubelet/cri/remote/remote_runtime.go maxMsgSize).
const maxMessageBytes = 16 * 1024 * 1024;
const defaultPullImageTimeoutMs = 600_000;

type UnaryMethod = (request: object, options: CallOptions, callback: (err: ServiceError | null, value?: unknown) => void) => unknown;

interface Connection {
  client: Client;
}

function validateOptions(options: CRIClientOptions, service: string): { target: string; timeoutMs: number; pullImageTimeoutMs: number } {
  const parsed = parseCRIEndpoint(options.endpoint);
  if (!parsed.ok) {
    throw new CRIError({ code: "InvalidArgument", method: "Dial", details: parsed.errors.join("; ") });
  }
  const { timeoutMs } = options;
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new CRIError({ code: "InvalidArgument", method: "Dial", details: `${service}: timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}` });
  }
  const pullImageTimeoutMs = options.pullImageTimeoutMs ?? defaultPullImageTimeoutMs;
  if (typeof pullImageTimeoutMs !== "number" || !Number.isFinite(pullImageTimeoutMs) || pullImageTimeoutMs < 0) {
    throw new CRIError({ code: "InvalidArgument", method: "Dial", details: `${service}: pullImageTimeoutMs must be ≥ 0 milliseconds, got ${String(pullImageTimeoutMs)}` });
  }
  return { target: parsed.value.target, timeoutMs, pullImageTimeoutMs };
}

function seconds(value: number | string | { toString(): string } | undefined): number {
  const n = Number(value === undefined ? 0 : String(value));
  return Number.isFinite(n) && n > 0 ? n : 0;
}

function call<Res>(conn: Connection, method: string, request: object | undefined, deadlineMs: number, options: CRICallOptions | undefined): Promise<Res> {
  const timeoutMs = options?.timeoutMs ?? deadlineMs;
  return new Promise<Res>((resolve, reject) => {
    const fn = (conn.client as unknown as Record<string, UnaryMethod | undefined>)[method];
    if (typeof fn !== "function") {
      reject(new CRIError({ code: "Unimplemented", method, details: `the client has no method ${method}` }));
      return;
    }
    const callOptions: CallOptions = timeoutMs > 0 ? { deadline: Date.now() + timeoutMs } : {};
    try {
      fn.call(conn.client, request ?? {}, callOptions, (err, value) => {
        if (err) reject(toCRIError(err, method));
        else resolve(value as Res);
      });
    } catch (err) {
      reject(toCRIError(err, method));
    }
  });
}

/**
 * Creates a promise-based `runtime.v1.RuntimeService` client on a unix socket. The channel
 * connects lazily: a runtime that is not listening surfaces as `Unavailable` on the first call,
 * an overrun deadline as `DeadlineExceeded`.
 *
 * @throws CRIError `InvalidArgument` (method `Dial`) for a malformed endpoint or timeout.
 * @see pkg/kubelet/cri/remote/remote_runtime.go (`NewRemoteRuntimeService`)
 * @example
 * ```ts
 * const rt = createRuntimeClient({ endpoint: "unix:///run/containerd/containerd.sock", timeoutMs: 120_000 });
 * const { podSandboxId } = await rt.runPodSandbox({ config: { metadata: { name: "web", namespace: "default", uid: "u1" } } });
 * rt.close();
 * ```
 */
export function createRuntimeClient(options: CRIClientOptions): RuntimeClient {
  const { target, timeoutMs } = validateOptions(options, "RuntimeService");
  const Ctor = loadGrpcObject().runtime.v1.RuntimeService;
  const client = new Ctor(target, credentials.createInsecure(), { "grpc.max_receive_message_length": maxMessageBytes });
  const conn: Connection = { client };
  const t = timeoutMs;
  return {
    version: (req, o) => call(conn, "Version", req, t, o),
    runPodSandbox: (req, o) => call(conn, "RunPodSandbox", req, t, o),
    stopPodSandbox: (req, o) => call(conn, "StopPodSandbox", req, t, o),
    removePodSandbox: (req, o) => call(conn, "RemovePodSandbox", req, t, o),
    podSandboxStatus: (req, o) => call(conn, "PodSandboxStatus", req, t, o),
    listPodSandbox: (req, o) => call(conn, "ListPodSandbox", req, t, o),
    createContainer: (req, o) => call(conn, "CreateContainer", req, t, o),
    startContainer: (req, o) => call(conn, "StartContainer", req, t, o),
    stopContainer: (req, o) => call(conn, "StopContainer", req, t + seconds(req.timeout) * 1000, o),
    removeContainer: (req, o) => call(conn, "RemoveContainer", req, t, o),
    listContainers: (req, o) => call(conn, "ListContainers", req, t, o),
    containerStatus: (req, o) => call(conn, "ContainerStatus", req, t, o),
    reopenContainerLog: (req, o) => call(conn, "ReopenContainerLog", req, t, o),
    updateContainerResources: (req, o) => call(conn, "UpdateContainerResources", req, t, o),
    execSync: (req, o) => {
      const commandSeconds = seconds(req.timeout);
      return call(conn, "ExecSync", req, commandSeconds > 0 ? t + commandSeconds * 1000 : 0, o);
    },
    containerStats: (req, o) => call(conn, "ContainerStats", req, t, o),
    listContainerStats: (req, o) => call(conn, "ListContainerStats", req, t, o),
    exec: (req, o) => call(conn, "Exec", req, t, o),
    attach: (req, o) => call(conn, "Attach", req, t, o),
    portForward: (req, o) => call(conn, "PortForward", req, t, o),
    updateRuntimeConfig: (req, o) => call(conn, "UpdateRuntimeConfig", req, t, o),
    status: (req, o) => call(conn, "Status", req, t, o),
    close: () => client.close(),
  };
}

/**
 * Creates a promise-based `runtime.v1.ImageService` client on a unix socket; see
 * {@link createRuntimeClient}. PullImage's deadline is `pullImageTimeoutMs`.
 *
 * @throws CRIError `InvalidArgument` (method `Dial`) for a malformed endpoint or timeout.
 * @see pkg/kubelet/cri/remote/remote_image.go (`NewRemoteImageService`)
 * @example
 * ```ts
 * const images = createImageClient({ endpoint: "/run/containerd/containerd.sock", timeoutMs: 120_000 });
 * const { imageRef } = await images.pullImage({ image: { image: "busybox:1.36" } });
 * images.close();
 * ```
 */
export function createImageClient(options: CRIClientOptions): ImageClient {
  const { target, timeoutMs, pullImageTimeoutMs } = validateOptions(options, "ImageService");
  const Ctor = loadGrpcObject().runtime.v1.ImageService;
  const client = new Ctor(target, credentials.createInsecure(), { "grpc.max_receive_message_length": maxMessageBytes });
  const conn: Connection = { client };
  const t = timeoutMs;
  return {
    listImages: (req, o) => call(conn, "ListImages", req, t, o),
    imageStatus: (req, o) => call(conn, "ImageStatus", req, t, o),
    pullImage: (req, o) => call(conn, "PullImage", req, pullImageTimeoutMs, o),
    removeImage: (req, o) => call(conn, "RemoveImage", req, t, o),
    imageFsInfo: (req, o) => call(conn, "ImageFsInfo", req, t, o),
    close: () => client.close(),
  };
}
