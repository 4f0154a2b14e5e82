import { readdir, rm } from "node:fs/promises";
import { basename, dirname, isAbsolute, join } from "node:path";
import type { Container, ContainerPort, ContainerState, ContainerStatus, EnvVar, EphemeralContainer, LifecycleHandler, Pod, PodSpec, PodStatus, Secret } from "@skiff/api-types";
import { CRIError, isCRIError, type AuthConfig as CRIAuthConfig, type ContainerConfig, type DNSConfig, type LinuxContainerResources, type Mount, type PodSandboxConfig } from "@skiff/cri-api";
import { applyDefaultImageTag, makeDockerKeyring, parseImageName, type AuthConfig, type DockerKeyring } from "../credentialprovider/index.js";
import type { BackOff } from "./backoff.js";
import { makeEnvironmentVariables } from "./env.js";
import { expandVars } from "./expand.js";
import { ImagePullError, type ImagePuller } from "./image-puller.js";
import { runLifecycleHook } from "./lifecycle-hooks.js";
import { buildContainerLogPath, buildPodLogsDirectory } from "./logs.js";
import { computePodConditions, computePodPhase } from "./phase.js";
import type { EnvObjects } from "./pod-objects.js";
import { podQOSClass } from "./resources.js";
import type { PodReadStamp, RuntimeClients } from "./runtime-clients.js";
import { containerSecurityContext, imageUserOf, sandboxSecurity, verifyRunAsNonRoot, type ImageUser, type SecurityContextOptions } from "./security-context.js";
import { terminationMessage } from "./termination-message.js";
import { machineAllocatable, type NodeAllocatable } from "./volumes-files.js";
import { agentTracer } from "../internal/trace.js";
import type { DeviceContainerOptions } from "./types.js";

/** CRI labels and annotations the agent puts on sandboxes and containers (`io.kubernetes.*` renamed). */
export const criLabels = {
  podName: "io.example.pod.name",
  podNamespace: "io.example.pod.namespace",
  podUID: "io.example.pod.uid",
  containerName: "io.example.container.name",
  restartCount: "io.example.container.restartCount",
  terminationGracePeriod: "io.example.pod.terminationGracePeriod",
  /**
   * The container's `lifecycle.preStop` handler (JSON), so that a container can be killed with its
   * hook when the pod's spec is gone (an orphan, an agent restart), as 1.23's annotation.
   */
  preStopHandler: "io.example.container.preStopHandler",
  /** The container's `ports` (JSON), for a preStop httpGet hook's named port. */
  ports: "io.example.container.ports",
  /**
   * Skiff's own (the kubelet has none): the node agent that created the sandbox or container. Pods
   * found running with this agent's node name and unknown to it are orphans it stops (1.23's
   * HandlePodCleanups); another agent's pods on a shared runtime (tests) are never touched.
   */
  nodeName: "io.skiff.node.name",
} as const;

/** One container as the runtime reports it, times in ms since the epoch (0 = unset). */
export interface RuntimeContainer {
  readonly id: string;
  readonly sandboxId: string;
  readonly name: string;
  readonly restartCount: number;
  readonly state: "created" | "running" | "exited" | "unknown";
  readonly createdAtMs: number;
  readonly startedAtMs: number;
  readonly finishedAtMs: number;
  readonly exitCode: number;
  readonly reason: string;
  readonly message: string;
  readonly image: string;
  readonly imageRef: string;
  readonly logPath: string;
  /** The container's mounts as the runtime reports them (the termination log is found among them). */
  readonly mounts: ReadonlyArray<{ readonly containerPath: string; readonly hostPath: string }>;
  /** The container's CRI labels ({@link criLabels}: the pod's name, namespace and UID). @defaultValue none */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * The container's preStop hook as the agent recorded it on the container ({@link criLabels}
   * `preStopHandler`, `ports`); absent when it has none.
   */
  readonly preStop?: RecordedPreStop;
}

/** A container's preStop hook and ports as recorded in its CRI annotations. */
export interface RecordedPreStop {
  readonly handler: LifecycleHandler;
  readonly ports: ContainerPort[];
}

// The recorded preStop hook of a container, from its annotations; undefined when it has none or
// the annotation is not a JSON object (written by another agent version).
function recordedPreStop(annotations: Readonly<Record<string, string>>): RecordedPreStop | undefined {
  const text = annotations[criLabels.preStopHandler];
  if (text === undefined) return undefined;
  try {
    const handler: unknown = JSON.parse(text);
    if (typeof handler !== "object" || handler === null || Array.isArray(handler)) return undefined;
    const portsText = annotations[criLabels.ports];
    const ports: unknown = portsText === undefined ? [] : JSON.parse(portsText);
    return { handler: handler as LifecycleHandler, ports: Array.isArray(ports) ? (ports as ContainerPort[]) : [] };
  } catch {
    return undefined;
  }
}

/** One sandbox as the runtime reports it. */
export interface RuntimeSandbox {
  readonly id: string;
  readonly ready: boolean;
  readonly attempt: number;
  readonly createdAtMs: number;
  readonly ip: string;
}

/** A pod's runtime state: sandboxes and containers, newest first. */
export interface RuntimePodStatus {
  readonly sandboxes: RuntimeSandbox[];
  readonly containers: RuntimeContainer[];
}

/** Why a container is waiting (the kubelet's sync errors: `ErrImagePull`, `CrashLoopBackOff`, ...). */
export interface ContainerWaitReason {
  readonly reason: string;
  readonly message: string;
}

/** What one {@link RuntimeManager.syncPod} did and saw. */
export interface SyncPodResult {
  readonly status: RuntimePodStatus;
  /** Waiting reasons by container name. */
  readonly waiting: ReadonlyMap<string, ContainerWaitReason>;
  /** When the pod needs its next sync (a back-off ends), ms since the epoch. */
  readonly nextSyncAtMs?: number;
}

/** What {@link RuntimeManager} needs. */
export interface RuntimeManagerOptions {
  readonly clients: RuntimeClients;
  /** The node's name, put on every sandbox and container as {@link criLabels}.nodeName (none when unset). */
  readonly nodeName?: string;
  readonly puller: ImagePuller;
  readonly podLogsDir: string;
  readonly hostIP: string;
  readonly backOff: BackOff;
  readonly imageBackOff: BackOff;
  readonly log: (message: string) => void;
  /**
   * Whether each sync removes a container's dead instances beyond the newest one (off when the
   * container garbage collector owns that). @defaultValue true
   */
  readonly pruneDeadContainers?: boolean;
  /**
   * The CRI mounts of a container (volume hooks, the managed /etc/hosts, the termination log) in
   * `sandbox`; none when absent. May write files (asynchronously: the pod worker does not block the
   * agent's event loop on the disk). A throw or rejection is a CreateContainerConfigError.
   */
  readonly mounts?: (pod: Pod, container: Container, sandbox: RuntimeSandbox) => Mount[] | Promise<Mount[]>;
  /**
   * The sandbox's host name (UTS; not set for host-network pods) and CRI DNS configuration
   * (`./dns.ts`); the pod name cut to 63 characters and no DNS configuration when absent.
   * @throws Error when they cannot be formed (the sandbox is not created; the next sync retries).
   */
  readonly sandboxNetwork?: (pod: Pod) => { hostname: string; dnsConfig: DNSConfig };
  /**
   * Why a running container must be killed (its liveness or startup probe failed), by container
   * name and runtime ID; never killed when absent.
   */
  readonly probeFailure?: (containerName: string, containerId: string) => { kind: "liveness" | "startup"; message: string } | undefined;
  /** Sets `started`/`ready` of the container statuses (the prober) before conditions are computed; mutates `status`. */
  readonly updateContainerReadiness?: (pod: Pod, status: PodStatus) => void;
  /**
   * Event sink: the kubelet's container events (`Pulling`, `Pulled`, `Created`, `Started`,
   * `Failed`, `BackOff`, `Killing`, `ErrImageNeverPull`), with 1.23's messages.
   */
  readonly onEvent?: (pod: Pod, type: "Normal" | "Warning", reason: string, message: string) => void;
  /** The ProbeTerminationGracePeriod gate. @defaultValue false */
  readonly probeTerminationGracePeriod?: boolean;
  /** Seccomp root, `--seccomp-default`, gate ProcMountType. @defaultValue seccomp root `/var/lib/nodeagent/seccomp`, the rest off */
  readonly security?: SecurityContextOptions;
  /** The CRI `linux.resources` of a container (requests/limits); none when absent. */
  readonly containerResources?: (pod: Pod, container: Container) => LinuxContainerResources;
  /**
   * What a container's devices add to its config (the device manager's `GetDeviceRunContainerOptions`):
   * envs before the container's own, mounts before its volumes, CRI devices, annotations under the
   * agent's. A failure is a `CreateContainerConfigError`, as 1.23. None when absent.
   */
  readonly deviceOptions?: (pod: Pod, container: Container) => Promise<DeviceContainerOptions | undefined>;
  /** The sandbox's `linux.cgroup_parent` (the pod cgroup); `""` when absent. */
  readonly cgroupParent?: (pod: Pod) => string;
  /**
   * The ConfigMaps and Secrets fetched for `pod`'s env before this sync; absent (standalone mode):
   * referencing one fails with 1.23's `couldn't get configMap ns/x, no kubeClient defined`.
   */
  readonly envObjects?: (pod: Pod) => EnvObjects | undefined;
  /** Node allocatable for `resourceFieldRef` env without a limit. @defaultValue the machine's */
  readonly nodeAllocatable?: NodeAllocatable;
  /**
   * The service environment of every container (the `kubernetes` service's variables,
   * `./service-env.ts`, in API-server mode). @defaultValue none (standalone mode)
   */
  readonly serviceEnv?: ReadonlyMap<string, string>;
  /** The node's keyring (docker config files, exec plugins), after the pod's pull secrets. @defaultValue none */
  readonly keyring?: DockerKeyring;
  /**
   * The pod's `imagePullSecrets` that could be read (the kubelet's `getPullSecretsForPod`: a
   * missing one is logged and left out); asked only when an image is pulled. @defaultValue none
   */
  readonly pullSecrets?: (pod: Pod) => Promise<Secret[]>;
}

const noKeyring: DockerKeyring = { lookup: () => Promise.resolve([]) };

// The runtime's error as the kubelet prints a gRPC status (`rpc error: code = ... desc = ...`).
function pullErrorMessage(err: unknown): string {
  if (err instanceof CRIError) return `rpc error: code = ${err.code} desc = ${err.details}`;
  return err instanceof Error ? err.message : String(err);
}

/** apimachinery's `Aggregate.Error()`: one message alone; several, de-duplicated, as `[a, b]`. */
function aggregateMessage(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return messages.length === 1 || unique.length === 1 ? (unique[0] ?? "") : `[${unique.join(", ")}]`;
}

function criAuth(c: AuthConfig): CRIAuthConfig {
  return {
    username: c.username,
    password: c.password,
    auth: c.auth ?? "",
    serverAddress: c.serverAddress ?? "",
    identityToken: c.identityToken ?? "",
    registryToken: c.registryToken ?? "",
  };
}

function nsToMs(ns: string): number {
  if (!ns || ns === "0") return 0;
  try {
    return Number(BigInt(ns) / 1_000_000n);
  } catch {
    return 0;
  }
}

/** metav1.Time: RFC 3339 in whole seconds. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function containerState(s: string): RuntimeContainer["state"] {
  switch (s) {
    case "CONTAINER_CREATED":
      return "created";
    case "CONTAINER_RUNNING":
      return "running";
    case "CONTAINER_EXITED":
      return "exited";
    default:
      return "unknown";
  }
}

function podFullName(pod: Pod): string {
  return `${pod.metadata?.name ?? ""}_${pod.metadata?.namespace ?? ""}`;
}

function backOffKey(pod: Pod, container: Container): string {
  return `${podFullName(pod)}_${container.name}`;
}

function sandboxHostname(pod: Pod): string {
  const name = specOf(pod).hostname || pod.metadata?.name || "";
  return name.slice(0, 63).replace(/[-.]+$/, "");
}

function restartAllowed(pod: Pod, exitCode: number): boolean {
  const policy = specOf(pod).restartPolicy ?? "Always";
  return policy === "Always" || (policy === "OnFailure" && exitCode !== 0);
}

function gracePeriodSeconds(pod: Pod): number {
  // Graceful deletion (API-server mode): the shorter of the deletion's and the spec's grace period.
  const spec = specOf(pod).terminationGracePeriodSeconds ?? 30;
  const del = pod.metadata?.deletionGracePeriodSeconds;
  const g = del === undefined ? spec : Math.min(del, spec);
  return Math.max(g, 2);
}

class ContainerConfigError extends Error {
  readonly code = "CreateContainerConfigError";
}

/**
 * The kubelet's runtime manager over CRI, for one pod at a time (the pod workers serialize per
 * pod): reads the pod's sandboxes and containers by label, creates the sandbox, runs init
 * containers in order (each must exit 0), then the containers, restarts per restartPolicy with
 * crash-loop back-off, kills pods, collects dead containers, and turns runtime state into a v1
 * PodStatus.
 * @see pkg/kubelet/kuberuntime/kuberuntime_manager.go (SyncPod, computePodActions, KillPod),
 *   kuberuntime_container.go, kuberuntime_gc.go in kubernetes/kubernetes v1.23
 */
export class RuntimeManager {
  constructor(private readonly o: RuntimeManagerOptions) {}

  // The last status read of each pod, with the clients' generation it was read in.
  readonly #statusCache = new Map<string, { readonly stamp: PodReadStamp; readonly status: RuntimePodStatus }>();

  /**
   * The runtime state of the pod with `uid`, newest first. With `allowCached`, the last one read
   * when that pod's runtime state cannot have changed since (no state-changing CRI call by this
   * agent for it, no change in it seen by the relist: `RuntimeClients.isCurrent`), as 1.23's pod workers
   * read the PLEG's pod cache instead of the runtime; a pod resynced every minute then costs no
   * CRI calls on a quiet node. The result must not be mutated.
   * @throws CRIError
   * @see pkg/kubelet/container/cache.go (GetNewerThan) in kubernetes/kubernetes v1.23
   */
  async getPodStatus(uid: string, allowCached = false): Promise<RuntimePodStatus> {
    const clients = this.o.clients;
    const stamp = clients.stamp();
    if (allowCached) {
      const hit = this.#statusCache.get(uid);
      if (hit !== undefined && clients.isCurrent(uid, hit.stamp)) return hit.status;
    }
    const status = await this.readPodStatus(uid);
    // Kept with the stamp it started at: a change during the read makes it stale at once.
    this.#statusCache.set(uid, { stamp, status });
    return status;
  }

  /** Forgets the cached status of `uid` (its pod is gone). */
  forgetPodStatus(uid: string): void {
    this.#statusCache.delete(uid);
  }

  private async readPodStatus(uid: string): Promise<RuntimePodStatus> {
    const rt = this.o.clients.runtime;
    const selector = { [criLabels.podUID]: uid };
    const [{ items }, { containers }] = await Promise.all([rt.listPodSandbox({ filter: { labelSelector: selector } }), rt.listContainers({ filter: { labelSelector: selector } })]);
    const sandboxes: RuntimeSandbox[] = [];
    for (const s of items) {
      let ip = "";
      const ready = s.state === "SANDBOX_READY";
      if (ready) {
        const st = await rt.podSandboxStatus({ podSandboxId: s.id }).catch(() => undefined);
        ip = st?.status?.network?.ip ?? "";
      }
      sandboxes.push({ id: s.id, ready, attempt: s.metadata?.attempt ?? 0, createdAtMs: nsToMs(s.createdAt), ip });
    }
    sandboxes.sort((a, b) => b.createdAtMs - a.createdAtMs || b.attempt - a.attempt);
    const out: RuntimeContainer[] = [];
    for (const c of containers) {
      const st = await rt.containerStatus({ containerId: c.id }).catch((err: unknown) => {
        if (isCRIError(err, "NotFound")) return undefined;
        throw err;
      });
      const s = st?.status;
      if (!s) continue;
      const restartCount = Number(s.annotations[criLabels.restartCount] ?? s.metadata?.attempt ?? 0) || 0;
      const preStop = recordedPreStop(s.annotations);
      out.push({
        id: s.id,
        sandboxId: c.podSandboxId,
        name: s.metadata?.name ?? c.labels[criLabels.containerName] ?? "",
        restartCount,
        state: containerState(s.state),
        createdAtMs: nsToMs(s.createdAt),
        startedAtMs: nsToMs(s.startedAt),
        finishedAtMs: nsToMs(s.finishedAt),
        exitCode: s.exitCode,
        reason: s.reason,
        message: s.message,
        image: s.image?.image ?? "",
        imageRef: s.imageRef,
        logPath: s.logPath,
        mounts: s.mounts.map((m) => ({ containerPath: m.containerPath, hostPath: m.hostPath })),
        labels: c.labels,
        ...(preStop ? { preStop } : {}),
      });
    }
    out.sort((a, b) => b.restartCount - a.restartCount || b.createdAtMs - a.createdAtMs);
    return { sandboxes, containers: out };
  }

  /**
   * One sync of `pod`: makes the runtime match the spec a step at a time (sandbox → ephemeral
   * containers not yet started → next init container → containers), as computePodActions + SyncPod. `terminal` pods are only killed.
   * @throws CRIError when the runtime cannot be listed (the worker retries at the next sync).
   */
  async syncPod(pod: Pod): Promise<SyncPodResult> {
    const uid = pod.metadata?.uid ?? "";
    const waiting = new Map<string, ContainerWaitReason>();
    let nextSyncAtMs: number | undefined;
    const wakeAt = (ms: number) => {
      nextSyncAtMs = nextSyncAtMs === undefined ? ms : Math.min(nextSyncAtMs, ms);
    };
    let status = await this.getPodStatus(uid, true);
    const latestOf = (name: string) => status.containers.find((c) => c.name === name);

    let sandbox = status.sandboxes.find((s) => s.ready);
    if (!sandbox) {
      const policyNever = (specOf(pod).restartPolicy ?? "Always") === "Never";
      if (policyNever && status.containers.length > 0) {
        // A dead sandbox of a Never pod that already ran is not recreated.
        return { status, waiting };
      }
      for (const c of status.containers) if (c.state === "running") await this.stopContainer(uid, c.id, 2).catch(() => undefined);
      for (const s of status.sandboxes) await this.o.clients.forPod(uid).stopPodSandbox({ podSandboxId: s.id }).catch(() => undefined);
      const attempt = status.sandboxes.length === 0 ? 0 : Math.max(...status.sandboxes.map((s) => s.attempt)) + 1;
      const t0 = agentTracer.now();
      const created = await this.o.clients.forPod(uid).runPodSandbox({ config: this.sandboxConfig(pod, attempt) });
      agentTracer.record("sandbox", t0, agentTracer.now(), { uid });
      this.o.log(`started sandbox ${created.podSandboxId} for pod ${pod.metadata?.namespace}/${pod.metadata?.name}`);
      status = await this.getPodStatus(uid);
      sandbox = status.sandboxes.find((s) => s.id === created.podSandboxId) ?? { id: created.podSandboxId, ready: true, attempt, createdAtMs: Date.now(), ip: "" };
    }

    // Ephemeral containers (computePodActions' EphemeralContainersToStart, SyncPod step 5): each
    // started once, even before initialization completes, and never restarted.
    for (const ec of specOf(pod).ephemeralContainers ?? []) {
      if (latestOf(ec.name)) continue;
      const r = await this.startEphemeralContainer(pod, ec, status, sandbox, waiting);
      if (r !== undefined) wakeAt(r);
    }

    // Init containers, in order; at most one step per sync.
    let initDone = true;
    for (const c of specOf(pod).initContainers ?? []) {
      const latest = latestOf(c.name);
      if (latest?.state === "exited" && latest.exitCode === 0) continue;
      initDone = false;
      if (latest?.state === "running") break;
      if (latest?.state === "exited") {
        if (!restartAllowed(pod, 1)) break;
        const r = await this.startWithBackOff(pod, c, latest, sandbox, waiting);
        if (r !== undefined) wakeAt(r);
        break;
      }
      const r = await this.startContainer(pod, c, latest ? latest.restartCount + 1 : 0, sandbox, waiting);
      if (r !== undefined) wakeAt(r);
      break;
    }
    if (initDone) {
      for (const c of specOf(pod).containers) {
        const latest = latestOf(c.name);
        if (latest?.state === "running") {
          const failed = this.o.probeFailure?.(c.name, latest.id);
          if (!failed) continue;
          // computePodActions: a failed liveness/startup probe kills the container; it is started
          // again (by the next sync) when the restart policy allows.
          const restart = (specOf(pod).restartPolicy ?? "Always") !== "Never";
          const message = restart ? `${failed.message}, will be restarted` : failed.message;
          this.o.log(`killing container ${c.name} (${latest.id}) of pod ${pod.metadata?.namespace}/${pod.metadata?.name}: ${message}`);
          await this.killContainer(pod, c, latest.id, this.podIPOf(pod, sandbox), message, this.containerKillGracePeriod(pod, c, failed.kind));
          if (restart) wakeAt(Date.now());
          continue;
        }
        if (!latest) {
          const r = await this.startContainer(pod, c, 0, sandbox, waiting);
          if (r !== undefined) wakeAt(r);
          continue;
        }
        if (latest.state === "created" || latest.state === "unknown") {
          await this.o.clients.forPod(uid).removeContainer({ containerId: latest.id }).catch(() => undefined);
          const r = await this.startContainer(pod, c, latest.restartCount + 1, sandbox, waiting);
          if (r !== undefined) wakeAt(r);
          continue;
        }
        if (!restartAllowed(pod, latest.exitCode)) continue;
        const r = await this.startWithBackOff(pod, c, latest, sandbox, waiting);
        if (r !== undefined) wakeAt(r);
      }
    }
    // Read again, from the cache when no CRI call changed anything since the first read (a
    // periodic resync of a running pod: no CRI call at all instead of two reads of four calls).
    status = await this.getPodStatus(uid, true);
    if (this.o.pruneDeadContainers !== false) {
      await this.removeDeadContainers(uid, status);
      status = await this.getPodStatus(uid, true);
    }
    return nextSyncAtMs === undefined ? { status, waiting } : { status, waiting, nextSyncAtMs };
  }

  private async startWithBackOff(pod: Pod, c: Container, latest: RuntimeContainer, sandbox: RuntimeSandbox, waiting: Map<string, ContainerWaitReason>): Promise<number | undefined> {
    const key = backOffKey(pod, c);
    const finished = latest.finishedAtMs || Date.now();
    if (this.o.backOff.isInBackOffSince(key, finished)) {
      const seconds = Math.round(this.o.backOff.get(key) / 1000);
      waiting.set(c.name, { reason: "CrashLoopBackOff", message: `back-off ${seconds}s restarting failed container=${c.name} pod=${podFullName(pod)}(${pod.metadata?.uid ?? ""})` });
      this.eventOnce(pod, `${key}/restart`, `${latest.id}`, "Warning", "BackOff", "Back-off restarting failed container");
      return this.o.backOff.backOffEndMs(key, finished) + 1;
    }
    this.o.backOff.next(key, finished);
    return this.startContainer(pod, c, latest.restartCount + 1, sandbox, waiting);
  }

  /**
   * Starts ephemeral container `ec` (attempt 0): with `targetContainerName`, in the PID namespace of
   * that container's newest instance (CRI `NamespaceMode.TARGET`; 1.23's `getTargetID`: the target
   * must have a runtime instance, else `CreateContainerConfigError` `unable to find target container
   * <name>` and a retry at a later sync).
   * @see pkg/kubelet/kuberuntime/kuberuntime_container.go (startContainer, getTargetID) in kubernetes/kubernetes v1.23
   */
  private async startEphemeralContainer(pod: Pod, ec: EphemeralContainer, status: RuntimePodStatus, sandbox: RuntimeSandbox, waiting: Map<string, ContainerWaitReason>): Promise<number | undefined> {
    const { targetContainerName, ...common } = ec;
    let targetId: string | undefined;
    if (targetContainerName) {
      targetId = status.containers.find((x) => x.name === targetContainerName)?.id;
      if (targetId === undefined) {
        const message = `unable to find target container ${targetContainerName}`;
        waiting.set(ec.name, { reason: "CreateContainerConfigError", message });
        this.eventOnce(pod, `${backOffKey(pod, common)}/config`, message, "Warning", "Failed", `Error: ${message}`);
        return Date.now() + 1_000;
      }
    }
    return this.startContainer(pod, common, 0, sandbox, waiting, targetId);
  }

  /**
   * Pulls the image when needed, then creates and starts the container; failures land in `waiting`.
   * `pidTargetId`: an ephemeral container's target (its PID namespace is joined).
   */
  private async startContainer(pod: Pod, c: Container, restartCount: number, sandbox: RuntimeSandbox, waiting: Map<string, ContainerWaitReason>, pidTargetId?: string): Promise<number | undefined> {
    const image = c.image ?? "";
    const t0 = agentTracer.now();
    const pulled = await this.ensureImage(pod, c, waiting);
    if (pulled !== true) return pulled;
    let config: ContainerConfig;
    try {
      // generateContainerConfig's order: run options (env) first, then the image user and runAsNonRoot.
      const imageUser = imageUserOf(await this.o.clients.images.imageStatus({ image: { image } }));
      const dev = await this.o.deviceOptions?.(pod, c);
      const mounts = (await this.o.mounts?.(pod, c, sandbox)) ?? [];
      config = this.containerConfig(pod, c, restartCount, sandbox, imageUser, pidTargetId, dev, mounts);
      const nonRoot = verifyRunAsNonRoot(pod, c, imageUser);
      if (nonRoot !== undefined) throw new ContainerConfigError(nonRoot);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      waiting.set(c.name, { reason: "CreateContainerConfigError", message });
      this.eventOnce(pod, `${backOffKey(pod, c)}/config`, message, "Warning", "Failed", `Error: ${message}`);
      return Date.now() + 10_000;
    }
    const rt = this.o.clients.forPod(pod.metadata?.uid ?? "");
    let containerId: string;
    try {
      containerId = (await rt.createContainer({ podSandboxId: sandbox.id, config, sandboxConfig: this.sandboxConfig(pod, sandbox.attempt) })).containerId;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      waiting.set(c.name, { reason: "CreateContainerError", message });
      this.o.onEvent?.(pod, "Warning", "Failed", `Error: ${message}`);
      return Date.now() + 10_000;
    }
    this.o.onEvent?.(pod, "Normal", "Created", `Created container ${c.name}`);
    try {
      await rt.startContainer({ containerId });
      this.o.log(`started container ${c.name} (${containerId}) of pod ${pod.metadata?.namespace}/${pod.metadata?.name}, restartCount ${restartCount} (image ${image})`);
      agentTracer.record("container-start", t0, agentTracer.now(), { uid: pod.metadata?.uid ?? "", attrs: { container: c.name } });
      this.o.onEvent?.(pod, "Normal", "Started", `Started container ${c.name}`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      waiting.set(c.name, { reason: "RunContainerError", message });
      this.o.onEvent?.(pod, "Warning", "Failed", `Error: ${message}`);
      return Date.now() + 1_000;
    }
    // startContainer's step 4: the postStart hook runs to its end before anything else of the pod
    // is managed; when it fails the container is killed (its preStop hook runs) and restarted
    // according to the restart policy, waiting meanwhile with PostStartHookError.
    const postStart = c.lifecycle?.postStart;
    if (postStart) {
      const podIP = this.podIPOf(pod, sandbox);
      const failure = await runLifecycleHook(postStart, { pod, container: c, containerId, podIP, runtime: this.o.clients.runtime });
      if (failure !== undefined) {
        this.o.log(`postStart hook of container ${c.name} (${containerId}) of pod ${pod.metadata?.namespace}/${pod.metadata?.name} failed: ${failure}`);
        this.o.onEvent?.(pod, "Warning", "FailedPostStartHook", failure);
        await this.killContainer(pod, c, containerId, podIP, "FailedPostStartHook", this.containerKillGracePeriod(pod, c)).catch((err: unknown) => {
          this.o.log(`failed to kill container ${c.name} (${containerId}) after its postStart hook failed: ${err instanceof Error ? err.message : String(err)}`);
        });
        if ((specOf(pod).restartPolicy ?? "Always") !== "Never") waiting.set(c.name, { reason: "PostStartHookError", message: failure });
        return Date.now();
      }
    }
    return undefined;
  }

  // The pod's IP as a hook sees it: the host's for a host-network pod, else the sandbox's.
  private podIPOf(pod: Pod, sandbox: RuntimeSandbox): string {
    return specOf(pod).hostNetwork === true ? this.o.hostIP : sandbox.ip;
  }

  /**
   * Kills one running container as 1.23's killContainer: records `Killing` with `message`, runs
   * its preStop hook (when it has one) for at most `gracePeriodSeconds` (a failure is a
   * `FailedPreStopHook` event), then stops it with what is left of the grace period, at least 2 s.
   * A container already gone is not an error.
   * @throws CRIError when the runtime cannot stop it.
   * @see pkg/kubelet/kuberuntime/kuberuntime_container.go (killContainer, executePreStopHook) in kubernetes/kubernetes v1.23
   */
  private async killContainer(pod: Pod, c: Pick<Container, "name" | "ports" | "lifecycle">, containerId: string, podIP: string, message: string, gracePeriodSeconds: number): Promise<void> {
    this.o.onEvent?.(pod, "Normal", "Killing", message);
    let timeout = gracePeriodSeconds;
    const preStop = c.lifecycle?.preStop;
    if (preStop && gracePeriodSeconds > 0) {
      const start = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const hook = runLifecycleHook(preStop, { pod, container: c, containerId, podIP, runtime: this.o.clients.runtime }).then((failure) => {
        if (failure === undefined) return;
        this.o.log(`preStop hook of container ${c.name} (${containerId}) of pod ${pod.metadata?.namespace}/${pod.metadata?.name} failed: ${failure}`);
        this.o.onEvent?.(pod, "Warning", "FailedPreStopHook", failure);
      });
      const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, gracePeriodSeconds * 1000)));
      await Promise.race([hook, graceOver]);
      clearTimeout(timer);
      // Whole seconds, as Go's int64(Duration.Seconds()); the container always gets 2 s at least.
      timeout = Math.max(gracePeriodSeconds - Math.floor((Date.now() - start) / 1000), 2);
    }
    await this.stopContainer(pod.metadata?.uid ?? "", containerId, timeout).catch((err: unknown) => {
      if (!isCRIError(err, "NotFound")) throw err;
    });
  }

  private async ensureImage(pod: Pod, c: Container, waiting: Map<string, ContainerWaitReason>): Promise<true | number> {
    // Events and back-off name the image as written; the runtime gets it with the default tag.
    const image = c.image ?? "";
    let imageRef: string;
    try {
      imageRef = applyDefaultImageTag(image);
    } catch (err) {
      // 1.23's EnsureImageExists: an unparsable name is InvalidImageName, never pulled.
      const message = `Failed to apply default image tag ${JSON.stringify(image)}: ${(err as Error).message}`;
      waiting.set(c.name, { reason: "InvalidImageName", message });
      this.eventOnce(pod, `${backOffKey(pod, c)}/invalid`, image, "Warning", "InspectFailed", message);
      return Date.now() + 10_000;
    }
    const policy = c.imagePullPolicy ?? "IfNotPresent";
    const images = this.o.clients.images;
    let present = false;
    if (policy !== "Always") {
      const st = await images.imageStatus({ image: { image: imageRef } }).catch(() => undefined);
      present = Boolean(st?.image?.id);
    }
    if (present) {
      this.o.onEvent?.(pod, "Normal", "Pulled", `Container image "${image}" already present on machine`);
      return true;
    }
    if (policy === "Never") {
      const message = `Container image "${image}" is not present with pull policy of Never`;
      waiting.set(c.name, { reason: "ErrImageNeverPull", message });
      this.eventOnce(pod, `${backOffKey(pod, c)}/never`, image, "Warning", "ErrImageNeverPull", message);
      return Date.now() + 10_000;
    }
    const key = `${pod.metadata?.uid ?? ""}_${image}`;
    const now = Date.now();
    if (this.o.imageBackOff.isInBackOffSince(key, now)) {
      waiting.set(c.name, { reason: "ImagePullBackOff", message: `Back-off pulling image "${image}"` });
      this.eventOnce(pod, `${key}/pull`, String(this.o.imageBackOff.get(key)), "Normal", "BackOff", `Back-off pulling image "${image}"`);
      return now + this.o.imageBackOff.get(key);
    }
    try {
      this.o.onEvent?.(pod, "Normal", "Pulling", `Pulling image "${image}"`);
      const startedMs = Date.now();
      await this.o.puller.pull(() => this.pullImage(pod, imageRef));
      this.o.imageBackOff.reset(key);
      this.o.onEvent?.(pod, "Normal", "Pulled", `Successfully pulled image "${image}" in ${formatSeconds(Date.now() - startedMs)}`);
      return true;
    } catch (err) {
      this.o.imageBackOff.next(key, now);
      const detail = err instanceof ImagePullError ? err.message : String(err);
      // 1.23's EnsureImageExists: the waiting message is the pull error itself; the event says which image.
      waiting.set(c.name, { reason: "ErrImagePull", message: detail });
      this.o.onEvent?.(pod, "Warning", "Failed", `Failed to pull image "${image}": ${detail}`);
      this.o.onEvent?.(pod, "Warning", "Failed", "Error: ErrImagePull");
      return now + this.o.imageBackOff.get(key);
    }
  }

  /**
   * Pulls `image` with the credentials of the pod's pull secrets and the node's keyring for its
   * repository: without any, one pull without `auth`; else one pull per credential, in order,
   * until one succeeds.
   * @throws Error the image reference's parse error, a pull secret's docker config error, or the
   *   runtime's error (several as `[a, b]`).
   * @see pkg/kubelet/kuberuntime/kuberuntime_image.go (PullImage) in kubernetes/kubernetes v1.23
   */
  private async pullImage(pod: Pod, image: string): Promise<string> {
    const { repoToPull } = parseImageName(image);
    const secrets = (await this.o.pullSecrets?.(pod)) ?? [];
    const keyring = makeDockerKeyring(secrets, this.o.keyring ?? noKeyring);
    const creds = await keyring.lookup(repoToPull);
    const images = this.o.clients.images;
    if (creds.length === 0) {
      try {
        return (await images.pullImage({ image: { image } })).imageRef;
      } catch (err) {
        throw new Error(pullErrorMessage(err), { cause: err });
      }
    }
    const errors: string[] = [];
    for (const c of creds) {
      try {
        return (await images.pullImage({ image: { image }, auth: criAuth(c) })).imageRef;
      } catch (err) {
        errors.push(pullErrorMessage(err));
      }
    }
    throw new Error(aggregateMessage(errors));
  }

  readonly #lastEvent = new Map<string, string>();

  // A waiting state is re-checked on every sync; its event is recorded once per distinct cause
  // (the kubelet relies on the event correlator to fold repeats, which Skiff does not have).
  private eventOnce(pod: Pod, key: string, cause: string, type: "Normal" | "Warning", reason: string, message: string): void {
    const k = `${pod.metadata?.uid ?? ""}/${key}`;
    if (this.#lastEvent.get(k) === cause) return;
    this.#lastEvent.set(k, cause);
    this.o.onEvent?.(pod, type, reason, message);
  }

  /** The CRI sandbox config of `pod`. */
  sandboxConfig(pod: Pod, attempt: number): PodSandboxConfig {
    const meta = pod.metadata ?? {};
    const hostNetwork = specOf(pod).hostNetwork === true;
    const security = sandboxSecurity(pod, this.securityOptions());
    const config: PodSandboxConfig = {
      metadata: { name: meta.name ?? "", namespace: meta.namespace ?? "", uid: meta.uid ?? "", attempt },
      logDirectory: buildPodLogsDirectory(this.o.podLogsDir, meta.namespace ?? "", meta.name ?? "", meta.uid ?? ""),
      labels: { ...(meta.labels ?? {}), [criLabels.podName]: meta.name ?? "", [criLabels.podNamespace]: meta.namespace ?? "", [criLabels.podUID]: meta.uid ?? "", ...this.nodeLabel() },
      annotations: { ...(meta.annotations ?? {}) },
      linux: {
        cgroupParent: "",
        ...security,
      },
    };
    const network = this.o.sandboxNetwork?.(pod);
    if (network) config.dnsConfig = network.dnsConfig;
    if (!hostNetwork) config.hostname = network?.hostname ?? sandboxHostname(pod);
    const cgroupParent = this.o.cgroupParent?.(pod);
    if (cgroupParent && config.linux) config.linux.cgroupParent = cgroupParent;
    return config;
  }

  private buildEnv(pod: Pod, c: Container, sandbox: RuntimeSandbox): Array<{ key: string; value: string }> {
    const env = makeEnvironmentVariables(pod, c, {
      objects: this.o.envObjects?.(pod),
      fieldRef: (e) => this.envValue(pod, e, sandbox),
      nodeAllocatable: this.o.nodeAllocatable ?? machineAllocatable(),
      ...(this.o.serviceEnv ? { serviceEnv: this.o.serviceEnv } : {}),
      onEvent: (type, reason, message) => this.o.onEvent?.(pod, type, reason, message),
    });
    return env.map(([key, value]) => ({ key, value }));
  }

  // The value of a `fieldRef` env var (the other sources are resolved by makeEnvironmentVariables).
  private envValue(pod: Pod, e: EnvVar, sandbox: RuntimeSandbox): string {
    const from = e.valueFrom;
    if (from?.fieldRef) {
      const path = from.fieldRef.fieldPath;
      const meta = pod.metadata ?? {};
      const m = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(path);
      if (m) return (m[1] === "labels" ? meta.labels : meta.annotations)?.[m[2] ?? ""] ?? "";
      switch (path) {
        case "metadata.name":
          return meta.name ?? "";
        case "metadata.namespace":
          return meta.namespace ?? "";
        case "metadata.uid":
          return meta.uid ?? "";
        case "spec.nodeName":
          return specOf(pod).nodeName ?? "";
        case "spec.serviceAccountName":
          return specOf(pod).serviceAccountName ?? "";
        case "status.hostIP":
          return this.o.hostIP;
        case "status.podIP":
        case "status.podIPs":
          return specOf(pod).hostNetwork ? this.o.hostIP : sandbox.ip;
        default:
          throw new ContainerConfigError(`unsupported fieldPath: ${path}`);
      }
    }
    return "";
  }

  private securityOptions(): SecurityContextOptions {
    return this.o.security ?? { seccompProfileRoot: "/var/lib/nodeagent/seccomp" };
  }

  /**
   * The CRI container config of `c` (command/args with `$(VAR)` expanded from its env; the security
   * context from `security-context.ts`, with `imageUser` as the default user). With `pidTargetId`
   * (an ephemeral container's target) and a per-container PID namespace, the PID namespace is
   * `TARGET` with that container ID, as 1.23's `generateLinuxContainerConfig`. `dev`: what the
   * container's devices add (device manager). `mounts`: the container's mounts from the `mounts`
   * hook, after the devices'.
   */
  containerConfig(pod: Pod, c: Container, restartCount: number, sandbox: RuntimeSandbox, imageUser?: ImageUser, pidTargetId?: string, dev?: DeviceContainerOptions, mounts: readonly Mount[] = []): ContainerConfig {
    // GenerateRunContainerOptions: the devices' envs first, then the container's; `$(VAR)` sees
    // both, the container's own winning (EnvVarsToMap keeps the last).
    const envs = [...(dev?.envs ?? []), ...this.buildEnv(pod, c, sandbox)];
    const lookup = (name: string) => envs.findLast((e) => e.key === name)?.value;
    const meta = pod.metadata ?? {};
    const config: ContainerConfig = {
      metadata: { name: c.name, attempt: restartCount },
      image: { image: c.image ?? "" },
      command: (c.command ?? []).map((s) => expandVars(s, lookup)),
      args: (c.args ?? []).map((s) => expandVars(s, lookup)),
      envs,
      labels: { [criLabels.podName]: meta.name ?? "", [criLabels.podNamespace]: meta.namespace ?? "", [criLabels.podUID]: meta.uid ?? "", [criLabels.containerName]: c.name, ...this.nodeLabel() },
      annotations: { [criLabels.restartCount]: String(restartCount), [criLabels.terminationGracePeriod]: String(specOf(pod).terminationGracePeriodSeconds ?? 30) },
      logPath: buildContainerLogPath(c.name, restartCount),
      stdin: c.stdin === true,
      stdinOnce: c.stdinOnce === true,
      tty: c.tty === true,
      linux: {
        securityContext: containerSecurityContext(pod, c, imageUser, this.securityOptions()),
      },
    };
    // generateLinuxContainerConfig: an ephemeral container's target replaces a container PID namespace.
    const nsOptions = config.linux?.securityContext?.namespaceOptions;
    if (pidTargetId !== undefined && nsOptions?.pid === "CONTAINER") {
      nsOptions.pid = "TARGET";
      nsOptions.targetId = pidTargetId;
    }
    if (c.workingDir) config.workingDir = c.workingDir;
    if (c.lifecycle?.preStop && config.annotations) {
      config.annotations[criLabels.preStopHandler] = JSON.stringify(c.lifecycle.preStop);
      if (c.ports && c.ports.length > 0) config.annotations[criLabels.ports] = JSON.stringify(c.ports);
    }
    const resources = this.o.containerResources?.(pod, c);
    if (resources && config.linux) config.linux.resources = resources;
    // The devices' mounts come before the volumes', their annotations under the agent's.
    const all = [...(dev?.mounts ?? []), ...mounts];
    if (all.length > 0) config.mounts = all;
    if (dev && dev.devices.length > 0) config.devices = [...dev.devices];
    if (dev) config.annotations = { ...dev.annotations, ...(config.annotations ?? {}) };
    return config;
  }

  private nodeLabel(): Record<string, string> {
    return this.o.nodeName !== undefined ? { [criLabels.nodeName]: this.o.nodeName } : {};
  }

  private async stopContainer(uid: string, id: string, timeoutSeconds: number): Promise<void> {
    await this.o.clients.forPod(uid).stopContainer({ containerId: id, timeout: timeoutSeconds });
  }

  /**
   * Kills the pod with `uid`: kills its running containers in parallel within the grace period (in
   * seconds), each with a `Killing` event and its recorded preStop hook as {@link killContainer};
   * stops and (with `remove`) removes every sandbox, and removes the log directory on removal.
   * @throws CRIError when the runtime cannot be reached.
   */
  async killPod(uid: string, gracePeriodSecondsValue: number, remove: boolean, logDir?: string): Promise<void> {
    const status = await this.getPodStatus(uid);
    const rt = this.o.clients.forPod(uid);
    const podIP = status.sandboxes.find((s) => s.ready)?.ip || this.o.hostIP;
    await Promise.all(
      status.containers
        .filter((c) => c.state === "running")
        .map((c) => {
          // The pod as the container's labels name it (its spec may be gone), for the events; the
          // container's preStop hook as recorded on it.
          const pod: Pod = { metadata: { name: c.labels?.[criLabels.podName] ?? "", namespace: c.labels?.[criLabels.podNamespace] ?? "", uid }, spec: { containers: [] } };
          const spec = c.preStop ? { name: c.name, ports: c.preStop.ports, lifecycle: { preStop: c.preStop.handler } } : { name: c.name };
          return this.killContainer(pod, spec, c.id, podIP, `Stopping container ${c.name}`, gracePeriodSecondsValue);
        }),
    );
    for (const s of status.sandboxes) await rt.stopPodSandbox({ podSandboxId: s.id });
    if (!remove) return;
    for (const k of [...this.#lastEvent.keys()]) if (k.startsWith(`${uid}/`)) this.#lastEvent.delete(k);
    for (const c of status.containers) await rt.removeContainer({ containerId: c.id }).catch(() => undefined);
    for (const s of status.sandboxes) await rt.removePodSandbox({ podSandboxId: s.id });
    if (logDir) await rm(logDir, { recursive: true, force: true });
  }

  /**
   * The grace period of killing one container of a running pod, in seconds: the deletion's, else
   * the pod's `terminationGracePeriodSeconds` (for a failed liveness or startup probe with
   * ProbeTerminationGracePeriod: the probe's own when set), at least 2. `reason` absent: another
   * cause (a failed postStart hook).
   * @see pkg/kubelet/kuberuntime/kuberuntime_container.go (killContainer) in kubernetes/kubernetes v1.23
   */
  containerKillGracePeriod(pod: Pod, c: Container, reason?: "liveness" | "startup"): number {
    let g: number;
    const del = pod.metadata?.deletionGracePeriodSeconds;
    if (del !== undefined) g = del;
    else {
      g = specOf(pod).terminationGracePeriodSeconds ?? 30;
      const probe = reason === "liveness" ? c.livenessProbe : reason === "startup" ? c.startupProbe : undefined;
      if (this.o.probeTerminationGracePeriod === true && probe?.terminationGracePeriodSeconds !== undefined) g = probe.terminationGracePeriodSeconds;
    }
    return Math.max(g, 2);
  }

  /** The grace period the kubelet would use for `pod`, in seconds. */
  gracePeriodOf(pod: Pod): number {
    return gracePeriodSeconds(pod);
  }

  /**
   * Keeps, per container name, the newest instance and one dead instance before it (the one
   * `lastState` and `--previous` logs refer to); removes older ones and their log files.
   */
  private async removeDeadContainers(uid: string, status: RuntimePodStatus): Promise<void> {
    const seen = new Map<string, number>();
    for (const c of status.containers) {
      const count = (seen.get(c.name) ?? 0) + 1;
      seen.set(c.name, count);
      if (count <= 2 || c.state === "running") continue;
      await this.o.clients.forPod(uid).removeContainer({ containerId: c.id }).catch(() => undefined);
      if (c.logPath && isAbsolute(c.logPath)) await removeLogFiles(c.logPath);
    }
  }

  /**
   * The v1 PodStatus of `pod` from its runtime state and the last sync's waiting reasons: phase,
   * conditions, init/container/ephemeral container statuses (ephemeral ones never ready, not
   * counted for phase or conditions), podIP(s), hostIP, startTime (kept from `previous`).
   * @see pkg/kubelet/kubelet_pods.go (generateAPIPodStatus, convertToAPIContainerStatuses)
   */
  buildPodStatus(pod: Pod, rs: RuntimePodStatus, waiting: ReadonlyMap<string, ContainerWaitReason>, runtimeName: string, previous: PodStatus | undefined): PodStatus {
    const initNames = new Set((specOf(pod).initContainers ?? []).map((c) => c.name));
    const initDone = (specOf(pod).initContainers ?? []).every((c) => {
      const l = rs.containers.find((x) => x.name === c.name);
      return l?.state === "exited" && l.exitCode === 0;
    });
    const hasInit = (specOf(pod).initContainers ?? []).length > 0;
    const toStatus = (c: Container, isInit: boolean, isEphemeral = false): ContainerStatus => {
      const instances = rs.containers.filter((x) => x.name === c.name);
      const latest = instances[0];
      const prev = instances[1];
      const wait = waiting.get(c.name);
      const id = (x: RuntimeContainer) => `${runtimeName || "cri"}://${x.id}`;
      const terminated = (x: RuntimeContainer): ContainerState => {
        const t: NonNullable<ContainerState["terminated"]> = { exitCode: x.exitCode, containerID: id(x) };
        if (x.reason) t.reason = x.reason;
        const written = terminationMessage(c, x);
        const message = written === "" ? x.message : x.message ? `${x.message}: ${written}` : written;
        if (message) t.message = message;
        if (x.startedAtMs) t.startedAt = formatTime(x.startedAtMs);
        if (x.finishedAtMs) t.finishedAt = formatTime(x.finishedAtMs);
        return { terminated: t };
      };
      const s: ContainerStatus = { name: c.name, ready: false, restartCount: latest?.restartCount ?? 0, image: c.image ?? "", imageID: latest?.imageRef ?? "", started: false };
      if (!latest) {
        // convertToAPIContainerStatuses: ephemeral containers default to PodInitializing whenever the pod has init containers.
        const initializing = isEphemeral ? hasInit : !isInit && !initDone;
        s.state = { waiting: wait ?? { reason: initializing ? "PodInitializing" : "ContainerCreating" } };
        s.lastState = {};
        return s;
      }
      s.containerID = id(latest);
      if (latest.state === "running" && !wait) {
        s.state = { running: latest.startedAtMs ? { startedAt: formatTime(latest.startedAtMs) } : {} };
        s.ready = !isInit && !isEphemeral;
        s.started = true;
        s.lastState = prev && prev.state === "exited" ? terminated(prev) : {};
      } else if (wait) {
        s.state = { waiting: wait };
        s.lastState = latest.state === "exited" ? terminated(latest) : prev && prev.state === "exited" ? terminated(prev) : {};
      } else if (latest.state === "exited") {
        s.state = terminated(latest);
        s.lastState = prev && prev.state === "exited" ? terminated(prev) : {};
      } else {
        s.state = { waiting: { reason: "ContainerCreating" } };
        s.lastState = {};
      }
      return s;
    };
    const initStatuses = (specOf(pod).initContainers ?? []).map((c) => toStatus(c, true));
    const statuses = specOf(pod).containers.filter((c) => !initNames.has(c.name)).map((c) => toStatus(c, false));
    this.o.updateContainerReadiness?.(pod, { containerStatuses: statuses, initContainerStatuses: initStatuses });
    const phase = computePodPhase(specOf(pod), initStatuses, statuses);
    const status: PodStatus = { phase, conditions: computePodConditions(specOf(pod), phase, initStatuses, statuses, pod.status?.conditions), hostIP: this.o.hostIP };
    const sandbox = rs.sandboxes[0];
    const ip = specOf(pod).hostNetwork ? this.o.hostIP : (rs.sandboxes.find((s) => s.ready)?.ip ?? sandbox?.ip ?? previous?.podIP ?? "");
    if (ip) {
      status.podIP = ip;
      status.podIPs = [{ ip }];
    }
    status.startTime = previous?.startTime ?? formatTime(Date.now());
    if (initStatuses.length > 0) status.initContainerStatuses = initStatuses;
    status.containerStatuses = statuses;
    // Ephemeral containers count for neither phase nor readiness (generateAPIPodStatus).
    const ephemeral = (specOf(pod).ephemeralContainers ?? []).map(({ targetContainerName: _t, ...c }) => toStatus(c, false, true));
    if (ephemeral.length > 0) status.ephemeralContainerStatuses = ephemeral;
    status.qosClass = podQOSClass(pod);
    return status;
  }
}

/** Removes a container log file and its rotated siblings (`<path>.*`). Never throws for missing files. */
export async function removeLogFiles(logPath: string): Promise<void> {
  await rm(logPath, { force: true });
  const dir = dirname(logPath);
  const prefix = `${basename(logPath)}.`;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const n of names) if (n.startsWith(prefix)) await rm(join(dir, n), { force: true });
}

function specOf(pod: Pod): PodSpec {
  return pod.spec ?? emptySpec;
}

const emptySpec: PodSpec = { containers: [] };

// Go's time.Duration text for a pull time, to the millisecond (`1.234s`, `850ms`).
function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(3).replace(/\.?0+$/, "")}s`;
}
