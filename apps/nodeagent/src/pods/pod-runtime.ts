import { diffRelist, type RelistEntry } from "./relist-diff.js";
import { stat } from "node:fs/promises";
import { isIP } from "node:net";
import { networkInterfaces, totalmem } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import type { Container, Pod, PodStatus, Secret } from "@skiff/api-types";
import type { Container__Output, PodSandbox__Output } from "@skiff/cri-api";
import { createNodeKeyring } from "../credentialprovider/index.js";
import { ContainerLogError, type ContainerLogOptions, type HealthCheck, type SubmitManifestResult, type SubmittedManifest } from "../agent-view.js";
import { BackOff } from "./backoff.js";
import { FileSource, readStaticPodPath } from "./file-source.js";
import { HttpSource } from "./http-source.js";
import { ImagePuller, TokenBucket } from "./image-puller.js";
import { buildPodLogsDirectory, readContainerLog, rotateContainerLog } from "./logs.js";
import { isStaticPod, PodConfig, type PodConfigUpdate } from "./pod-config.js";
import { fetchEnvObjects, type EnvObjects } from "./pod-objects.js";
import { PodWorkers } from "./pod-workers.js";
import { agentTracer } from "../internal/trace.js";
import { ProberManager } from "./prober-manager.js";
import { admitPodOnNode, admitPodOS, insufficientResourceResult, insufficientResources, type AdmitResult } from "./admission.js";
import { podsToPreempt, preemptionMessage, PreemptionError, requirementOf } from "./preemption.js";
import { ContainerGC } from "./container-gc.js";
import { containerResources, isCriticalPod, podQOSClass } from "./resources.js";
import { runProbeAttempt } from "./prober.js";
import { plegHealthError, RuntimeClients } from "./runtime-clients.js";
import { createContainerStreaming } from "./streaming.js";
import { DNSConfigurer } from "./dns.js";
import { PodNetworkFiles } from "./pod-network-files.js";
import { removePodContainerDirs, terminationMessageMount } from "./termination-message.js";
import { criLabels, RuntimeManager, type ContainerWaitReason, type RuntimeSandbox } from "./runtime-manager.js";
import { decodeManifest } from "./static-pod.js";
import { StatusManager } from "./status-manager.js";
import { needToReconcilePodReadiness } from "./phase.js";
import type { NodeEventRecorder, PodEventRecorder, PodRuntime, PodRuntimeOptions, RunOnceResult, RunOnceResultItem, RuntimeState } from "./types.js";
import { PodVolumeManager, VolumeSetUpError } from "./volumes.js";
import { machineAllocatable, type NodeAllocatable as NodeAllocatableNumbers } from "./volumes-files.js";
import { admitAppArmor, isAppArmorEnabledOnHost } from "./apparmor.js";
import { SysctlAllowlist } from "./sysctl-allowlist.js";
import { kubernetesServiceEnv } from "./service-env.js";
import { serviceAccountTokenCleanupPeriodMs } from "./token-manager.js";

function defaultHostIP(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return "127.0.0.1";
}

// NewMainKubelet: an entry of --cluster-dns that is not an IP is logged and left out.
function validClusterDNS(entries: readonly string[], log: (m: string) => void): string[] {
  return entries.filter((ip) => {
    if (isIP(ip) !== 0) return true;
    log(`Invalid clusterDNS IP ${JSON.stringify(ip)}`);
    return false;
  });
}

// The pod UID of a listed sandbox and of a listed container (the relist's keys).
const sandboxPodUID = (sb: PodSandbox__Output): string | undefined => sb.metadata?.uid ?? sb.labels[criLabels.podUID];
const containerPodUID = (c: Container__Output): string | undefined => c.labels[criLabels.podUID];

function isTerminal(phase: PodStatus["phase"]): boolean {
  return phase === "Succeeded" || phase === "Failed";
}

/**
 * Builds the node agent's pod machinery (see {@link PodRuntime}): static pod sources (file path,
 * URL, manifest API) merged by a {@link PodConfig}, one serialized worker per pod, the CRI runtime
 * manager, the status manager and the container log manager. Nothing runs until
 * {@link PodRuntime.start} (or {@link PodRuntime.runOnce}); an unreachable runtime is reported via
 * {@link PodRuntime.runtimeState} and retried every `runtimeCheckPeriodMs`.
 *
 * @throws CRIError `InvalidArgument` for a malformed `containerRuntimeEndpoint`.
 * @throws Error `failed to create nodeagent: the sysctl "x" are not known to be namespaced` (and
 *   1.23's other `--allowed-unsafe-sysctls` messages, see {@link SysctlAllowlist.create}).
 * @see pkg/kubelet/kubelet.go (syncLoop, HandlePodAdditions...) in kubernetes/kubernetes v1.23
 * @example
 * ```ts
 * const pods = createPodRuntime({ nodeName: "node-1", rootDir: "/var/lib/nodeagent",
 *   containerRuntimeEndpoint: "unix:///run/containerd/containerd.sock", staticPodPath: "/etc/nodeagent/manifests" });
 * await pods.start();
 * // ... serve pods.listPods() on /pods ...
 * await pods.stop();
 * ```
 */
export function createPodRuntime(opts: PodRuntimeOptions): PodRuntime {
  const log = opts.log ?? (() => {});
  let sysctlAllowlist: SysctlAllowlist;
  try {
    sysctlAllowlist = SysctlAllowlist.create(opts.allowedUnsafeSysctls ?? []);
  } catch (err) {
    throw new Error(`failed to create nodeagent: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const appArmor = { gateEnabled: opts.featureGates?.AppArmor !== false, hostEnabled: opts.hostAppArmorEnabled ?? (() => isAppArmorEnabledOnHost()) };
  const info = (m: string) => log(m, 0);
  const nodeName = opts.nodeName;
  const podLogsDir = opts.podLogsDir ?? "/var/log/pods";
  const syncFrequencyMs = opts.syncFrequencyMs ?? 60_000;
  const maxPods = opts.maxPods ?? 110;
  const hostIP = opts.hostIP ?? defaultHostIP();
  const clients = new RuntimeClients(opts.containerRuntimeEndpoint, opts.runtimeRequestTimeoutMs ?? 120_000, opts.imageServiceEndpoint ?? "", opts.instrumentCRI, opts.criDialer, { log: info });
  const puller = new ImagePuller(opts.serializeImagePulls ?? true, new TokenBucket(opts.registryPullQPS ?? 5, opts.registryBurst ?? 10));
  const backOff = new BackOff(opts.backOffInitialMs ?? 10_000, opts.backOffMaxMs ?? 300_000);
  const imageBackOff = new BackOff(opts.backOffInitialMs ?? 10_000, opts.backOffMaxMs ?? 300_000);
  const recordEvent: PodEventRecorder = (pod, type, reason, message) => {
    log(`event ${type} ${reason} on pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}: ${message}`, type === "Warning" ? 1 : 2);
    try {
      opts.onEvent?.(pod, type, reason, message);
    } catch {
      // A sink's failure must not stop the sync.
    }
  };
  let nodeEventSink: NodeEventRecorder | undefined;
  const recordNodeEvent: NodeEventRecorder = (type, reason, message) => {
    log(`event ${type} ${reason} on node ${nodeName}: ${message}`, 0);
    try {
      nodeEventSink?.(type, reason, message);
    } catch {
      // A sink's failure must not stop the agent.
    }
  };
  const resourceSettings = opts.containerResources ?? { memoryCapacityBytes: BigInt(totalmem()) };
  const podCgroups = opts.podCgroups;
  const resourceManagers = opts.resourceManagers;
  const devices = opts.devices;
  const objects = opts.objects;
  // resourceFieldRef without a limit: the node's allocatable cpu and memory (else the machine's).
  const fieldRefAllocatable = resourceFieldAllocatable(opts.nodeAllocatable);
  const volumes = new PodVolumeManager({ rootDir: opts.rootDir, onEvent: recordEvent, log: info, ...(opts.volumes ? { extra: opts.volumes } : {}), ...(objects ? { objects } : {}), ...(opts.mounterPath ? { mounterPath: opts.mounterPath } : {}), nodeAllocatable: fieldRefAllocatable, sizeMemoryBackedVolumes: opts.featureGates?.SizeMemoryBackedVolumes !== false });
  // The ConfigMaps/Secrets of each pod's env, fetched before its sync (container configs are built synchronously).
  const envObjects = new Map<string, EnvObjects>();
  const dnsConfigurer = new DNSConfigurer({
    clusterDNS: validClusterDNS(opts.clusterDNS ?? [], info),
    clusterDomain: opts.clusterDomain ?? "",
    resolvConf: opts.resolvConf ?? "/etc/resolv.conf",
    nodeIPs: opts.hostIP !== undefined ? [opts.hostIP] : [],
    expandedDNSConfig: opts.featureGates?.ExpandedDNSConfig === true,
    onEvent: recordEvent,
    log: info,
  });
  const podFiles = new PodNetworkFiles({ rootDir: opts.rootDir, dns: dnsConfigurer });
  const statuses = new StatusManager();
  const prober = new ProberManager({
    runProbe: async (kind, probe, pod, container, containerId, status) => {
      const kindName = kind === "liveness" ? "Liveness" : kind === "readiness" ? "Readiness" : "Startup";
      try {
        const r = await runProbeAttempt(probe, { pod, container, containerId, podIP: status.podIP ?? hostIP, runtime: clients.runtime, grpcEnabled: opts.featureGates?.GRPCContainerProbe !== false });
        opts.onProbeResult?.(kindName, r.outcome === "Failure" ? "failed" : r.outcome === "Unknown" ? "unknown" : "successful", pod, container.name);
        return r;
      } catch (err) {
        opts.onProbeResult?.(kindName, "unknown", pod, container.name);
        throw err;
      }
    },
    getStatus: (uid) => statuses.get(uid),
    onResultChange: (pod) => workers.syncUID(pod.metadata?.uid ?? ""),
    onEvent: recordEvent,
  });
  const keyring = opts.keyring ?? createNodeKeyring(opts.rootDir, [], info);
  // getPullSecretsForPod: a pull secret that cannot be read is logged and the pull goes on without it.
  const pullSecrets = async (pod: Pod): Promise<Secret[]> => {
    const ns = pod.metadata?.namespace ?? "";
    const out: Secret[] = [];
    for (const ref of pod.spec?.imagePullSecrets ?? []) {
      if (!ref.name) continue;
      try {
        if (!objects) throw new Error(`cannot get secret ${ns}/${ref.name}, no kubeClient defined`);
        out.push(await objects.secrets.get(ns, ref.name));
      } catch (err) {
        info(`"Unable to retrieve pull secret, the image pull may not succeed." pod="${ns}/${pod.metadata?.name ?? ""}" secret="${ns}/${ref.name}" err="${err instanceof Error ? err.message : String(err)}"`);
      }
    }
    return out;
  };
  const manager = new RuntimeManager({
    nodeName,
    clients,
    puller,
    keyring,
    pullSecrets,
    podLogsDir,
    hostIP,
    backOff,
    imageBackOff,
    log: info,
    pruneDeadContainers: opts.containerGC === undefined,
    mounts: async (p: Pod, c: Container, sandbox: RuntimeSandbox) => {
      const [files, termination] = await Promise.all([podFiles.mounts(p, c, sandbox), terminationMessageMount(opts.rootDir, p, c)]);
      return [...volumes.mounts(p, c), ...files, ...(termination ? [termination] : [])];
    },
    sandboxNetwork: (p: Pod) => podFiles.sandboxNetwork(p),
    probeFailure: (name, id) => prober.probeFailure(name, id),
    updateContainerReadiness: (p, st) => prober.updatePodStatus(p.metadata?.uid ?? "", st),
    onEvent: recordEvent,
    probeTerminationGracePeriod: opts.featureGates?.ProbeTerminationGracePeriod === true,
    security: { seccompProfileRoot: join(opts.rootDir, "seccomp"), seccompDefault: opts.seccompDefault === true, procMountType: opts.featureGates?.ProcMountType === true },
    containerResources: (p, c) => {
      const r = containerResources(p, c, resourceSettings);
      const cpus = resourceManagers?.containerCPUSet(p, c);
      const mems = resourceManagers?.containerMemoryNodes?.(p, c);
      return { ...r, ...(cpus === undefined ? {} : { cpusetCpus: cpus }), ...(mems === undefined ? {} : { cpusetMems: mems }) };
    },
    ...(podCgroups ? { cgroupParent: (p: Pod) => podCgroups.cgroupParent(p) } : {}),
    ...(devices ? { deviceOptions: (p: Pod, c: Container) => devices.runContainerOptions(p, c) } : {}),
    nodeAllocatable: fieldRefAllocatable,
    ...(opts.kubernetesService ? { serviceEnv: kubernetesServiceEnv(opts.kubernetesService) } : {}),
    ...(objects ? { envObjects: (p: Pod) => envObjects.get(p.metadata?.uid ?? "") ?? { configMaps: new Map(), secrets: new Map() } } : {}),
  });
  const desired = new Map<string, Pod>();
  const rejected = new Set<string>();
  const stoppedTerminal = new Set<string>();
  // Terminated pods whose volumes were already torn down (see --keep-terminated-pod-volumes).
  const volumesTornDown = new Set<string>();
  const submitted = new Map<string, Pod>();
  const terminatedListeners = new Set<(pod: Pod) => void>();
  const deleting = new Set<string>();
  const evicted = new Set<string>();
  // Critical pods admitted while the pods preempted for them stop: their first sync waits for it.
  const waitingForPreemption = new Map<string, Promise<void>>();
  // Orphaned runtime pods being stopped (see killOrphanedPods).
  const orphansBeingKilled = new Set<string>();
  let apiPodsSeen = false;
  const notifyTerminated = (pod: Pod): void => {
    for (const l of terminatedListeners) {
      try {
        l(pod);
      } catch {
        // A listener's failure must not stop the workers.
      }
    }
  };
  let lastSyncLoopMs = Date.now();
  const timers: NodeJS.Timeout[] = [];
  let fileSource: FileSource | undefined;
  let httpSource: HttpSource | undefined;
  let started = false;
  let stopped = false;

  const logDirOf = (pod: Pod) => buildPodLogsDirectory(podLogsDir, pod.metadata?.namespace ?? "", pod.metadata?.name ?? "", pod.metadata?.uid ?? "");

  async function syncOne(pod: Pod): Promise<number | undefined> {
    const uid = pod.metadata?.uid ?? "";
    const prev = statuses.get(uid);
    if (prev && isTerminal(prev.phase)) {
      prober.removePod(uid);
      if (!stoppedTerminal.has(uid)) {
        await manager.killPod(uid, manager.gracePeriodOf(pod), false);
        stoppedTerminal.add(uid);
      }
      // Finished: no periodic resync (1.23's pod workers: "Pod is finished processing, no further updates").
      return Infinity;
    }
    // Soft admission (canRunPod): a pod that cannot run here stays Pending, its containers Blocked.
    const blocked = admitAppArmor(pod, appArmor);
    if (blocked) {
      prober.removePod(uid);
      await manager.killPod(uid, manager.gracePeriodOf(pod), false);
      const waiting = new Map([...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => [c.name, { reason: "Blocked", message: "" }]));
      const st = manager.buildPodStatus(pod, await manager.getPodStatus(uid), waiting, clients.current().runtimeName, prev);
      for (const cs of [...(st.initContainerStatuses ?? []), ...(st.containerStatuses ?? [])]) if (cs.state?.waiting) cs.state.waiting = { reason: "Blocked" };
      statuses.set(pod, { ...st, phase: "Pending", reason: blocked.reason, message: blocked.message });
      return undefined;
    }
    // The device plugins' Allocate calls, which 1.23 makes during admission: a failure rejects the pod.
    if (devices?.allocatePending && !pod.metadata?.deletionTimestamp) {
      const refused = await devices.allocatePending(pod);
      if (refused !== undefined) {
        rejected.add(uid);
        recordEvent(pod, "Warning", "UnexpectedAdmissionError", refused);
        statuses.set(pod, { phase: "Failed", reason: "UnexpectedAdmissionError", message: `Pod ${refused}`, hostIP, qosClass: podQOSClass(pod) });
        info(`pod ${pod.metadata?.namespace}/${pod.metadata?.name} rejected: UnexpectedAdmissionError: ${refused}`);
        return undefined;
      }
    }
    if (pod.metadata?.deletionTimestamp) prober.stopLivenessAndStartup(uid);
    // The runtime's network is not ready: only pods on the host network start (1.23's syncPod).
    const networkError = clients.current().networkError;
    if (networkError !== "" && pod.spec?.hostNetwork !== true && !pod.metadata?.deletionTimestamp) {
      recordEvent(pod, "Warning", "NetworkNotReady", `network is not ready: ${networkError}`);
      throw new Error(`network is not ready: ${networkError}`);
    }
    // No RuntimeClass exists (Skiff serves none; the agent knows only the runtime's default
    // handler): a pod naming one never gets a sandbox, as 1.23's RuntimeClass manager answers
    // NotFound in createPodSandbox. The apiserver refuses such pods; static pods get here.
    const runtimeClassName = pod.spec?.runtimeClassName;
    if (runtimeClassName && !pod.metadata?.deletionTimestamp) {
      const message = `runtimeclass.node.k8s.io "${runtimeClassName}" not found`;
      recordEvent(pod, "Warning", "FailedCreatePodSandBox", `Failed to create pod sandbox: ${message}`);
      throw new Error(`failed to "CreatePodSandbox" for "${pod.metadata?.name ?? ""}_${pod.metadata?.namespace ?? ""}(${uid})": ${message}`);
    }
    if (podCgroups && !pod.metadata?.deletionTimestamp) {
      const tc = agentTracer.now();
      try {
        await podCgroups.ensurePod(pod, activePods());
        agentTracer.record("pod-cgroup", tc, agentTracer.now(), { uid });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        recordEvent(pod, "Warning", "FailedToCreatePodContainer", `unable to ensure pod container exists: ${message}`);
        throw new Error(`failed to ensure that the pod: ${uid} cgroups exist and are correctly applied: ${message}`, { cause: err });
      }
    }
    prober.addPod(pod);
    const tv = agentTracer.now();
    try {
      await volumes.setUp(pod);
      agentTracer.record("volumes", tv, agentTracer.now(), { uid });
    } catch (err) {
      // Volumes not ready: containers that have not started wait with the error (as 1.23's
      // "Unable to attach or mount volumes"), and the pod is synced again shortly.
      const rs = await manager.getPodStatus(uid);
      const message = err instanceof Error ? err.message : String(err);
      const reason = err instanceof VolumeSetUpError ? err.waitingReason : "ContainerCreating";
      const waiting = new Map([...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].filter((c) => !rs.containers.some((x) => x.name === c.name)).map((c) => [c.name, { reason, message }]));
      statuses.set(pod, manager.buildPodStatus(pod, rs, waiting, clients.current().runtimeName, prev));
      return Date.now() + 2_000;
    }
    if (objects) envObjects.set(uid, await fetchEnvObjects(pod, objects));
    const result = await manager.syncPod(pod);
    const status = manager.buildPodStatus(pod, result.status, result.waiting, clients.current().runtimeName, prev);
    const stored = statuses.set(pod, status);
    if (isTerminal(stored.phase)) {
      info(`pod ${pod.metadata?.namespace}/${pod.metadata?.name} is ${stored.phase}; stopping its sandbox`);
      await manager.killPod(uid, manager.gracePeriodOf(pod), false);
      stoppedTerminal.add(uid);
      prober.removePod(uid);
      await removePodCgroup(uid);
      resourceManagers?.removePod(uid);
      devices?.removePod(uid);
      // --keep-terminated-pod-volumes=false (the default): a terminated pod's volumes are torn down
      // now, not when the pod is deleted, as 1.23's volume manager drops terminated pods from its
      // desired state of the world.
      if (!opts.keepTerminatedPodVolumes && !volumesTornDown.has(uid)) {
        volumesTornDown.add(uid);
        await volumes.tearDown(pod);
      }
      return Infinity;
    }
    return result.nextSyncAtMs;
  }

  const workers = new PodWorkers(
    {
      syncPod: agentTracer.enabled
        ? async (pod) => {
            const t0 = agentTracer.now();
            try {
              return await syncOne(pod);
            } finally {
              agentTracer.record("pod-sync", t0, agentTracer.now(), { uid: pod.metadata?.uid ?? "" });
            }
          }
        : syncOne,
      terminatePod: async (pod) => {
        prober.removePod(pod.metadata?.uid ?? "");
        await manager.killPod(pod.metadata?.uid ?? "", manager.gracePeriodOf(pod), true, logDirOf(pod));
        removePodContainerDirs(opts.rootDir, pod.metadata?.uid ?? "");
        podFiles.tearDown(pod);
        if (!volumesTornDown.delete(pod.metadata?.uid ?? "")) await volumes.tearDown(pod);
        await removePodCgroup(pod.metadata?.uid ?? "");
        resourceManagers?.removePod(pod.metadata?.uid ?? "");
        devices?.removePod(pod.metadata?.uid ?? "");
        envObjects.delete(pod.metadata?.uid ?? "");
        info(`killed and removed pod ${pod.metadata?.namespace}/${pod.metadata?.name}`);
      },
      onTerminated: (pod) => {
        const uid = pod.metadata?.uid ?? "";
        stoppedTerminal.delete(uid);
        const again = desired.get(uid);
        if (again?.metadata?.deletionTimestamp) notifyTerminated(again);
        else if (again) workers.updatePod(again);
        else statuses.delete(uid);
      },
      onError: (pod, err) => info(`error syncing pod ${pod.metadata?.namespace}/${pod.metadata?.name} (${pod.metadata?.uid ?? ""}): ${err instanceof Error ? err.message : String(err)}`),
    },
    syncFrequencyMs,
    opts.syncAdmission,
  );
  workers.setPaused(true);

  // Pods admitted and not finished: what admission counts and the QoS cgroups are sized for.
  function activePods(): Pod[] {
    return [...desired.values()].filter((p) => {
      const uid = p.metadata?.uid ?? "";
      return !rejected.has(uid) && !isTerminal(statuses.get(uid)?.phase);
    });
  }

  // The kubelet's sourcesReady: every configured pod source has delivered its first list, so a pod
  // missing from the desired pods is really gone (API-server mode is recognised by `objects`).
  function sourcesReady(): boolean {
    if (!config.hasSeen("manifest")) return false;
    if (opts.staticPodPath && !config.hasSeen("file")) return false;
    if (opts.staticPodURL && !config.hasSeen("http")) return false;
    return !objects || config.hasSeen("api");
  }

  // The pods whose resource-manager assignments must stay: every pod some source wants (including
  // those of the current batch not admitted yet, as after a restart), unless rejected or finished.
  function podsHoldingResources(): Pod[] {
    return config.pods().filter((p) => {
      const uid = p.metadata?.uid ?? "";
      return !rejected.has(uid) && !isTerminal(statuses.get(uid)?.phase);
    });
  }

  async function removePodCgroup(uid: string): Promise<void> {
    if (!podCgroups) return;
    await podCgroups.removePod(uid).catch((err: unknown) => log(`failed to remove the cgroup of pod ${uid} (retried later): ${err instanceof Error ? err.message : String(err)}`, 2));
  }

  // rejectPod: the pod is written Failed and never started; a Warning event carries the message,
  // the status message is prefixed "Pod ".
  function reject(pod: Pod, r: { readonly reason: string; readonly message: string }, withQOSClass = true): false {
    rejected.add(pod.metadata?.uid ?? "");
    recordEvent(pod, "Warning", r.reason, r.message);
    statuses.set(pod, { phase: "Failed", reason: r.reason, message: `Pod ${r.message}`, hostIP, ...(withQOSClass ? { qosClass: podQOSClass(pod) } : {}) });
    info(`pod ${pod.metadata?.namespace}/${pod.metadata?.name} rejected: ${r.reason}: ${r.message}`);
    return false;
  }

  // The kubelet's killPodNow for the eviction manager and critical pod preemption: the pod is
  // Failed with `reason` and `message` at once (so admission no longer counts it), then killed
  // (grace `gracePeriodSeconds`, else its own), its cgroup removed and its final container states kept.
  async function terminateAbnormally(pod: Pod, gracePeriodSeconds: number | undefined, reason: string, message: string): Promise<void> {
    const uid = pod.metadata?.uid ?? "";
    const current = desired.get(uid) ?? pod;
    evicted.add(uid);
    statuses.set(current, { ...(statuses.get(uid) ?? {}), phase: "Failed", reason, message });
    prober.removePod(uid);
    await manager.killPod(uid, gracePeriodSeconds ?? manager.gracePeriodOf(current), false);
    stoppedTerminal.add(uid);
    await removePodCgroup(uid);
    // The containers' final states, under the phase, reason and message.
    const rs = await manager.getPodStatus(uid).catch(() => undefined);
    if (rs) {
      const st = manager.buildPodStatus(current, rs, new Map(), clients.current().runtimeName, statuses.get(uid));
      statuses.set(current, { ...st, phase: "Failed", reason, message });
    }
    workers.syncUID(uid);
  }

  // 1.23's generalFilter and CriticalPodAdmissionHandler: the resource fit, then the node checks
  // (a resource failure is reported first); a critical pod short only of resources is admitted
  // once the pods that free them are being preempted, and starts when they are stopped.
  function generalFilter(pod: Pod, others: readonly Pod[], allocatable: Parameters<typeof insufficientResources>[2]): AdmitResult {
    const lacking = insufficientResources(pod, others, allocatable);
    const nodeFit: AdmitResult = opts.node ? admitPodOnNode(pod, opts.node(), others, isStaticPod(pod)) : { admit: true };
    const [first] = lacking;
    if (first === undefined) return nodeFit;
    if (!isCriticalPod(pod)) return insufficientResourceResult(first);
    if (!nodeFit.admit) return nodeFit;
    let victims: Pod[];
    try {
      victims = podsToPreempt(pod, others, lacking.map(requirementOf));
    } catch (err) {
      if (!(err instanceof PreemptionError)) throw err;
      return { admit: false, reason: "UnexpectedAdmissionError", message: `Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: ${err.message}` };
    }
    const uid = pod.metadata?.uid ?? "";
    const kills = victims.map((v) => {
      recordEvent(v, "Warning", "Preempting", preemptionMessage);
      info(`preempting pod ${v.metadata?.namespace}/${v.metadata?.name} to admit critical pod ${pod.metadata?.namespace}/${pod.metadata?.name}`);
      return terminateAbnormally(v, undefined, "Preempting", preemptionMessage);
    });
    waitingForPreemption.set(
      uid,
      Promise.allSettled(kills).then((results) => {
        for (const r of results) if (r.status === "rejected") info(`failed to preempt a pod for ${pod.metadata?.namespace}/${pod.metadata?.name}: ${r.reason instanceof Error ? r.reason.message : String(r.reason)}`);
        waitingForPreemption.delete(uid);
        const current = desired.get(uid);
        if (current && !rejected.has(uid)) workers.updatePod(current);
      }),
    );
    return { admit: true };
  }

  // HandlePodAdditions → canAdmitPod: the other active pods (never the new pod itself) against
  // the node's allocatable.
  function admit(pod: Pod): boolean {
    const uid = pod.metadata?.uid ?? "";
    const sysctlRejection = sysctlAllowlist.admit(pod);
    if (sysctlRejection) return reject(pod, sysctlRejection, false);
    for (const handler of opts.admitHandlers ?? []) {
      const h = handler(pod);
      if (!h.admit) return reject(pod, h);
    }
    // The predicate admit handler's OS checks come before any resource is counted or allocated.
    const osFit = admitPodOS(pod);
    if (!osFit.admit) return reject(pod, osFit);
    const others = activePods().filter((p) => (p.metadata?.uid ?? "") !== uid);
    // The device manager's allocation (1.23's topology manager admit handler) before the resource fit.
    const deviceFit = devices?.admitPod(pod, others, sourcesReady());
    const extendedResources = devices?.admissionAllocatable?.();
    const allocatable = { ...(opts.nodeAllocatable ?? { pods: maxPods }), ...(extendedResources ? { extendedResources } : {}) };
    const fit = deviceFit && !deviceFit.admit ? deviceFit : generalFilter(pod, others, allocatable);
    // The resource managers (topology manager admit handler in 1.23) come after the resource fit.
    if (fit.admit && resourceManagers && sourcesReady()) resourceManagers.removeStaleState(podsHoldingResources());
    const managed = fit.admit ? resourceManagers?.admitPod(pod, others) : undefined;
    const r = managed ? { admit: false as const, ...managed } : fit;
    if (r.admit) return true;
    devices?.removePod(uid);
    return reject(pod, r);
  }

  function handleUpdate(u: PodConfigUpdate): void {
    if (u.op === "RECONCILE") {
      // A controller changed a readiness gate's condition: sync the pod so its Ready condition
      // is written again (1.23's HandlePodReconcile with NeedToReconcilePodReadiness).
      for (const pod of u.pods) {
        const uid = pod.metadata?.uid ?? "";
        if (!desired.has(uid) || rejected.has(uid) || !needToReconcilePodReadiness(pod)) continue;
        workers.updatePod(pod);
      }
      return;
    }
    for (const pod of u.pods) {
      const uid = pod.metadata?.uid ?? "";
      if (u.op === "REMOVE") {
        objects?.configMaps.unregisterPod(pod);
        objects?.secrets.unregisterPod(pod);
        desired.delete(uid);
        evicted.delete(uid);
        if (rejected.delete(uid)) statuses.delete(uid);
        else if (workers.stateOf(uid) === undefined) statuses.delete(uid);
        workers.updatePod(pod, true);
        continue;
      }
      if (pod.metadata?.deletionTimestamp) {
        desired.set(uid, pod);
        if (workers.stateOf(uid) !== undefined) workers.updatePod(pod, true);
        else void stopDeleted(pod);
        continue;
      }
      const isNew = !desired.has(uid);
      desired.set(uid, pod);
      // As the kubelet's pod manager: every added or updated pod (re-)registers its objects; a
      // finished pod unregisters them (its containers never start again).
      if (isTerminal(pod.status?.phase) || isTerminal(statuses.get(uid)?.phase)) {
        objects?.configMaps.unregisterPod(pod);
        objects?.secrets.unregisterPod(pod);
      } else {
        objects?.configMaps.registerPod(pod);
        objects?.secrets.registerPod(pod);
      }
      if (isNew) {
        statuses.set(pod, { phase: "Pending", hostIP, conditions: [{ type: "PodScheduled", status: "True" }] });
        const ta = agentTracer.now();
        const admitted = admit(pod);
        agentTracer.record("admission", ta, agentTracer.now(), { uid, attrs: { admitted } });
        if (!admitted) continue;
      }
      // A critical pod waits for the pods preempted for it to stop.
      if (rejected.has(uid) || waitingForPreemption.has(uid)) continue;
      workers.updatePod(pod);
    }
  }

  // A pod deleted in the API server that has no worker (never started, or already stopped): make
  // sure nothing of it runs, then report it stopped.
  async function stopDeleted(pod: Pod): Promise<void> {
    const uid = pod.metadata?.uid ?? "";
    if (deleting.has(uid)) return;
    deleting.add(uid);
    try {
      for (;;) {
        try {
          await manager.killPod(uid, manager.gracePeriodOf(pod), true, logDirOf(pod));
          break;
        } catch (err) {
          info(`error stopping deleted pod ${pod.metadata?.namespace}/${pod.metadata?.name}: ${err instanceof Error ? err.message : String(err)}`);
          if (stopped) return;
          await new Promise((r) => setTimeout(r, 1_000).unref());
          if (stopped || !desired.has(uid)) return;
        }
      }
      if (desired.has(uid)) notifyTerminated(desired.get(uid) ?? pod);
    } finally {
      deleting.delete(uid);
    }
  }

  const config = new PodConfig(handleUpdate, info);

  // The pod workers' view for garbage collection (1.23's ShouldPodContentBeRemoved / ShouldPodRuntimeBeRemoved).
  const containerGC = opts.containerGC
    ? new ContainerGC({
        runtime: (podUID) => (podUID !== undefined ? clients.forPod(podUID) : clients.runtime),
        policy: opts.containerGC,
        podLogsDir,
        allSourcesReady: () => started && (opts.apiSource !== true || apiPodsSeen),
        pods: {
          shouldPodContentBeRemoved: (uid) => {
            const p = desired.get(uid);
            if (!p) return true;
            return evicted.has(uid) || (p.metadata?.deletionTimestamp !== undefined && isTerminal(statuses.get(uid)?.phase));
          },
          shouldPodRuntimeBeRemoved: (uid) => !desired.has(uid) || isTerminal(statuses.get(uid)?.phase),
        },
        log,
      })
    : undefined;

  // The runtime status check (1.23's updateRuntimeUp, every 5 s): one Status call at a time, which
  // may take up to the runtime request timeout. The state it feeds is read on every tick, so a
  // runtime that stops answering turns "down" after 30 s while that call still waits.
  let reportedReady: boolean | undefined;
  let probing: Promise<void> | undefined;
  // Logs a change of readiness (the first state too: a runtime that is down at start is
  // reported, not silently waited for) and pauses or resumes the pod workers.
  function applyRuntimeState(): RuntimeState {
    const state = clients.current();
    if (state.ready !== reportedReady) info(state.ready ? `container runtime is ready (${state.runtimeName})` : state.message);
    reportedReady = state.ready;
    workers.setPaused(!state.ready);
    return state;
  }
  function probeRuntime(): Promise<void> {
    probing ??= clients.probe().then(() => {
      probing = undefined;
      if (reportedReady !== undefined) applyRuntimeState();
    });
    return probing;
  }

  // 1.23's PLEG health check: the node is not ready while no relist succeeded for 3 minutes.
  let lastRelistMs: number | undefined;
  const plegHealth = (): string | undefined => plegHealthError(lastRelistMs, Date.now());

  // What the last relist saw: each sandbox's and each container's pod and state, by id.
  let seenSandboxes: ReadonlyMap<string, RelistEntry> = new Map();
  let seenContainers: ReadonlyMap<string, RelistEntry> = new Map();
  // The last relist's lists, for the orphan clean-up (1.23's runtime cache: housekeeping reads
  // pods at most two seconds old instead of asking the runtime again).
  let lastRelist: { readonly atMs: number; readonly items: readonly PodSandbox__Output[]; readonly containers: readonly Container__Output[] } | undefined;
  async function relist(): Promise<void> {
    lastSyncLoopMs = Date.now();
    if (!clients.runtimeUp()) return;
    try {
      // As 1.23's PLEG relist (GetPods(all)): the sandboxes and the containers, each compared with
      // the last relist's by id and state; a pod with anything new, changed or gone is synced now.
      const startedMs = Date.now();
      const [{ items }, { containers }] = await Promise.all([clients.runtime.listPodSandbox({}), clients.runtime.listContainers({})]);
      lastRelist = { atMs: startedMs, items, containers };
      lastRelistMs = startedMs;
      if (reportedReady === false) applyRuntimeState();
      const changed = new Set<string>();
      seenSandboxes = diffRelist(items, seenSandboxes, sandboxPodUID, changed);
      seenContainers = diffRelist(containers, seenContainers, containerPodUID, changed);
      if (changed.size > 0) {
        // A pod with nothing left in the runtime: its cached status goes too.
        const present = new Set<string>();
        for (const m of [seenSandboxes, seenContainers]) for (const v of m.values()) present.add(v.uid);
        for (const uid of changed) if (!present.has(uid)) manager.forgetPodStatus(uid);
      }
      // What a pod worker read of a changed pod before this is stale (the pod cache's update, per
      // pod as 1.23's: a container exiting in one pod leaves the others' cached state current).
      for (const uid of changed) clients.invalidatePod(uid);
      for (const uid of changed) workers.syncUID(uid);
    } catch (err) {
      info(`relist failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  // HandlePodCleanups' last step: a pod running in the runtime (a ready sandbox or a running
  // container) under this agent's node label, which no pod source wants and no pod worker handles —
  // orphaned by a restart of the agent while it was deleted — is stopped with a 1 s grace period
  // ("Clean up orphaned pod containers"); the container garbage collector removes it later. Only
  // once every source has delivered its pods, as 1.23's housekeeping.
  async function killOrphanedPods(): Promise<void> {
    if (!sourcesReady() || !clients.current().ready) return;
    const labelSelector = { [criLabels.nodeName]: nodeName };
    try {
      const ours = (labels: Record<string, string>) => labels[criLabels.nodeName] === nodeName;
      const cached = lastRelist !== undefined && Date.now() - lastRelist.atMs < (opts.orphanCleanupPeriodMs ?? 2_000) ? lastRelist : undefined;
      const [{ items }, { containers }] = cached
        ? [{ items: cached.items.filter((sb) => sb.state === "SANDBOX_READY" && ours(sb.labels)) }, { containers: cached.containers.filter((c) => c.state === "CONTAINER_RUNNING" && ours(c.labels)) }]
        : await Promise.all([
            clients.runtime.listPodSandbox({ filter: { state: { state: "SANDBOX_READY" }, labelSelector } }),
            clients.runtime.listContainers({ filter: { state: { state: "CONTAINER_RUNNING" }, labelSelector } }),
          ]);
      const uids = new Set([...items.map((s) => s.labels[criLabels.podUID] ?? ""), ...containers.map((c) => c.labels[criLabels.podUID] ?? "")]);
      for (const uid of uids) {
        if (uid === "" || desired.has(uid) || workers.stateOf(uid) !== undefined || orphansBeingKilled.has(uid)) continue;
        info(`Clean up orphaned pod containers podUID=${uid}`);
        orphansBeingKilled.add(uid);
        void manager
          .killPod(uid, 1, false)
          .catch((err: unknown) => info(`failed to stop orphaned pod ${uid}: ${err instanceof Error ? err.message : String(err)}`))
          .finally(() => orphansBeingKilled.delete(uid));
      }
    } catch (err) {
      info(`orphaned pod clean-up failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  const maxSizeBytes = opts.containerLogMaxSizeBytes ?? 10 * 1024 * 1024;
  const maxFiles = opts.containerLogMaxFiles ?? 5;
  // A container's log path is fixed at its creation: asked once per container (1.23 asks on every
  // pass; with 100 containers that was 10 ContainerStatus calls a second at idle).
  const logPathOf = new Map<string, string>();
  async function rotateLogs(): Promise<void> {
    if (!clients.current().ready) return;
    try {
      const { containers } = await clients.runtime.listContainers({ filter: { state: { state: "CONTAINER_RUNNING" } } });
      const running = new Set(containers.map((c) => c.id));
      for (const id of logPathOf.keys()) if (!running.has(id)) logPathOf.delete(id);
      for (const c of containers) {
        let logPath = logPathOf.get(c.id);
        if (logPath === undefined) {
          const st = await clients.runtime.containerStatus({ containerId: c.id }).catch(() => undefined);
          logPath = st?.status?.logPath;
          if (st?.status && logPath !== undefined) logPathOf.set(c.id, logPath);
        }
        if (!logPath) continue;
        await rotateContainerLog({ logPath, maxSizeBytes, maxFiles, reopen: async () => void (await clients.runtime.reopenContainerLog({ containerId: c.id })) }).catch((err: unknown) =>
          info(`failed to rotate log ${logPath}: ${err instanceof Error ? err.message : String(err)}`),
        );
      }
    } catch (err) {
      info(`log rotation failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  function every(ms: number, fn: () => Promise<unknown>): void {
    let busy = false;
    const t = setInterval(() => {
      if (busy || stopped) return;
      busy = true;
      void fn().finally(() => (busy = false));
    }, ms);
    t.unref();
    timers.push(t);
  }

  function withStatus(pod: Pod): Pod {
    const status = statuses.get(pod.metadata?.uid ?? "");
    return status ? { ...pod, status } : pod;
  }

  function findPod(namespace: string, name: string): Pod | undefined {
    return [...desired.values()].find((p) => p.metadata?.namespace === namespace && p.metadata.name === name);
  }

  async function readStaticSourcesOnce(): Promise<boolean> {
    let any = false;
    if (opts.staticPodPath) {
      const r = await readStaticPodPath({ path: opts.staticPodPath, nodeName, log: info });
      for (const e of r.errors) info(e);
      config.set("file", r.pods);
      any = true;
    }
    if (opts.staticPodURL) {
      const src = new HttpSource({ url: opts.staticPodURL, headers: opts.staticPodURLHeader ?? {}, nodeName, periodMs: opts.httpCheckFrequencyMs ?? 20_000, log: info }, (pods) => config.set("http", pods));
      const r = await src.poll();
      any ||= r.kind === "set";
    }
    return any;
  }

  const runtime: PodRuntime = {
    nodeName,

    async start() {
      if (started) return;
      started = true;
      // The first check is waited for (at most 10 s), and then one relist, so a node that starts
      // beside a working runtime registers Ready.
      clients.addHealthCheck("PLEG", plegHealth);
      await Promise.race([probeRuntime(), new Promise((r) => setTimeout(r, 10_000).unref())]);
      await relist();
      applyRuntimeState();
      every(opts.runtimeCheckPeriodMs ?? 5_000, async () => {
        applyRuntimeState();
        void probeRuntime();
      });
      every(opts.relistPeriodMs ?? 1_000, relist);
      // The kubelet's housekeeping period (2 s).
      every(opts.orphanCleanupPeriodMs ?? 2_000, killOrphanedPods);
      every(opts.logRotatePeriodMs ?? 10_000, rotateLogs);
      if (containerGC) {
        // The kubelet's ContainerGCPeriod.
        every(opts.containerGCPeriodMs ?? 60_000, () =>
          containerGC.garbageCollect().catch((err: unknown) => info(`Container garbage collection failed: ${err instanceof Error ? err.message : String(err)}`)),
        );
      }
      every(60_000, async () => {
        backOff.gc();
        imageBackOff.gc();
      });
      // The token manager forgets expired tokens every minute (1.23's gcPeriod).
      const tokens = objects?.serviceAccountTokens;
      if (tokens) every(serviceAccountTokenCleanupPeriodMs, () => Promise.resolve(tokens.cleanup()));
      // The resolver file's limits are checked once, as the sync loop starts (1.23's syncLoop:
      // "Since this is called in syncLoop, we don't need to call it anywhere else"); a breach is a
      // Warning event on the Node.
      const resolvConfWarning = dnsConfigurer.checkLimitsForResolvConf();
      if (resolvConfWarning !== undefined) recordNodeEvent("Warning", "CheckLimitsForResolvConf", resolvConfWarning);
      if (podCgroups) {
        // Housekeeping: cgroups of pods that are gone or finished are removed; the QoS cgroups
        // follow the active pods (the kubelet's periodic UpdateQOSCgroups).
        every(opts.housekeepingPeriodMs ?? 10_000, async () => {
          const active = activePods();
          await podCgroups.cleanupOrphans(new Set(active.map((p) => p.metadata?.uid ?? "")));
          await podCgroups.updateQOSCgroups(active).catch((err: unknown) => info(`failed to update QoS cgroups: ${err instanceof Error ? err.message : String(err)}`));
        });
      }
      if (resourceManagers) {
        // The CPU manager's reconcile loop: shared-pool containers follow the pool as exclusive
        // allocations come and go (CRI UpdateContainerResources with cpuset_cpus).
        const period = opts.resourceManagerReconcilePeriodMs !== undefined && opts.resourceManagerReconcilePeriodMs > 0 ? opts.resourceManagerReconcilePeriodMs : 10_000;
        every(period, async () => {
          if (!clients.current().ready) return;
          try {
            const { containers } = await clients.runtime.listContainers({ filter: { state: { state: "CONTAINER_RUNNING" } } });
            const running = containers.map((c) => ({ podUID: c.labels[criLabels.podUID] ?? "", containerName: c.labels[criLabels.containerName] ?? c.metadata?.name ?? "", containerId: c.id }));
            await resourceManagers.reconcile(podsHoldingResources(), running, async (containerId, cpusetCpus) => {
              await clients.runtime.updateContainerResources({ containerId, linux: { cpusetCpus } });
            }, sourcesReady());
          } catch (err) {
            info(`cpu manager reconcile failed: ${err instanceof Error ? err.message : String(err)}`);
          }
        });
      }
      config.set("manifest", [...submitted.values()]);
      if (opts.staticPodPath) {
        fileSource = new FileSource({ path: opts.staticPodPath, nodeName, log: info, periodMs: opts.fileCheckFrequencyMs ?? 20_000 }, (pods) => config.set("file", pods));
        await fileSource.start();
      }
      if (opts.staticPodURL) {
        httpSource = new HttpSource({ url: opts.staticPodURL, headers: opts.staticPodURLHeader ?? {}, nodeName, periodMs: opts.httpCheckFrequencyMs ?? 20_000, log: info }, (pods) => config.set("http", pods));
        await httpSource.start();
      }
    },

    async stop() {
      if (stopped) return;
      stopped = true;
      fileSource?.stop();
      httpSource?.stop();
      for (const t of timers) clearInterval(t);
      prober.close();
      workers.close();
      await Promise.all(workers.uids().map((uid) => workers.waitIdle(uid)));
      objects?.configMaps.stop();
      objects?.secrets.stop();
      clients.close();
    },

    async runOnce(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const got = await readStaticSourcesOnce();
      if (!got) return { ok: false, pods: [], error: "no pod manifest update after 1s" };
      // A status check waits at most until the run's deadline (it may take the whole request timeout).
      const probeUntilDeadline = async (): Promise<RuntimeState> => {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([clients.probe(), new Promise((r) => (timer = setTimeout(r, Math.max(0, deadline - Date.now()))))]);
        clearTimeout(timer);
        return clients.current();
      };
      const state = await probeUntilDeadline();
      const pods = [...desired.values()];
      const results: RunOnceResultItem[] = [];
      await Promise.all(
        pods.map(async (pod) => {
          const meta = pod.metadata ?? {};
          const base = { namespace: meta.namespace ?? "", name: meta.name ?? "", uid: meta.uid ?? "" };
          if (rejected.has(base.uid)) {
            results.push({ ...base, phase: "Failed", ok: false, message: statuses.get(base.uid)?.message ?? "rejected" });
            return;
          }
          let delayMs = 1_000;
          let lastError = state.ready ? "" : state.message;
          for (let attempt = 0; attempt < 10 && Date.now() < deadline; attempt++) {
            try {
              if (!clients.current().ready) await probeUntilDeadline();
              // No relist runs here to notice a container exit: every attempt reads the runtime
              // afresh, as 1.23's runPod calls GetPodStatus on each turn.
              clients.invalidatePod(base.uid);
              await syncOne(pod);
              lastError = "";
            } catch (err) {
              lastError = err instanceof Error ? err.message : String(err);
            }
            const phase = statuses.get(base.uid)?.phase ?? "Pending";
            // Running counts once a retry delay has passed since the sync that started the
            // containers (1.23 checks isPodRunning at the top of the next turn, after its sleep): a
            // container that exits at once is then seen Failed, not reported running.
            if ((phase === "Running" && attempt > 0) || phase === "Succeeded") {
              results.push({ ...base, phase, ok: true });
              return;
            }
            if (phase === "Failed") {
              results.push({ ...base, phase, ok: false, message: describeWaiting(statuses.get(base.uid)) || "pod failed" });
              return;
            }
            await new Promise((r) => setTimeout(r, Math.min(delayMs, Math.max(0, deadline - Date.now()))));
            delayMs *= 2;
          }
          const st = statuses.get(base.uid);
          results.push({ ...base, phase: st?.phase ?? "Pending", ok: false, message: lastError || describeWaiting(st) || "timed out waiting for the pod to run" });
        }),
      );
      results.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
      prober.close();
      clients.close();
      return { ok: results.every((r) => r.ok), pods: results } satisfies RunOnceResult;
    },

    runtimeState: () => clients.current(),
    cri: clients,

    onStatusChange: (listener) => statuses.subscribe(listener),

    setNodeEventRecorder(record) {
      nodeEventSink = record;
    },

    setApiPods(pods) {
      apiPodsSeen = true;
      config.set("api", pods);
    },

    activePods,

    evictPod: (pod, gracePeriodSeconds, message) => terminateAbnormally(pod, gracePeriodSeconds, "Evicted", message),

    podCleanedUp(pod) {
      const uid = pod.metadata?.uid ?? "";
      return !desired.has(uid) || stoppedTerminal.has(uid);
    },

    deleteAllUnusedContainers: () => (containerGC ? containerGC.deleteAllUnusedContainers() : Promise.resolve()),

    onPodTerminated(listener) {
      terminatedListeners.add(listener);
      return () => terminatedListeners.delete(listener);
    },

    listPods: () => [...desired.values()].map(withStatus),
    podUIDs: () => [...desired.keys()],
    listStaticPods: () => {
      const out: Pod[] = [];
      for (const pod of desired.values()) if (isStaticPod(pod)) out.push(withStatus(pod));
      return out;
    },

    ...createContainerStreaming({ runtime: () => clients.runtime, findPod }),

    async listRunningPods() {
      const rt = clients.runtime;
      const [{ items }, { containers }] = await Promise.all([
        rt.listPodSandbox({ filter: { state: { state: "SANDBOX_READY" } } }),
        rt.listContainers({ filter: { state: { state: "CONTAINER_RUNNING" } } }),
      ]);
      const pods = new Map<string, Pod>();
      for (const s of items) {
        const uid = s.labels[criLabels.podUID] ?? s.metadata?.uid ?? "";
        if (!pods.has(uid)) pods.set(uid, { metadata: { name: s.metadata?.name ?? "", namespace: s.metadata?.namespace ?? "", uid }, spec: { containers: [] } });
      }
      for (const c of containers) {
        const uid = c.labels[criLabels.podUID] ?? "";
        let pod = pods.get(uid);
        if (!pod) {
          pod = { metadata: { name: c.labels[criLabels.podName] ?? "", namespace: c.labels[criLabels.podNamespace] ?? "", uid }, spec: { containers: [] } };
          pods.set(uid, pod);
        }
        pod.spec?.containers.push({ name: c.metadata?.name ?? c.labels[criLabels.containerName] ?? "", image: c.image?.image ?? "" });
      }
      return [...pods.values()];
    },

    async containerLogs(namespace, podName, containerName, logOpts: ContainerLogOptions): Promise<Readable> {
      const pod = findPod(namespace, podName);
      if (!pod) throw new ContainerLogError("NotFound", `pod "${podName}" does not exist`);
      const spec = pod.spec ?? { containers: [] };
      const known = [...(spec.initContainers ?? []), ...spec.containers, ...(spec.ephemeralContainers ?? [])].some((c) => c.name === containerName);
      if (!known) throw new ContainerLogError("NotFound", `container "${containerName}" not found in pod "${podName}"`);
      const rs = await manager.getPodStatus(pod.metadata?.uid ?? "");
      const podStatus = statuses.get(pod.metadata?.uid ?? "");
      const cs = [...(podStatus?.initContainerStatuses ?? []), ...(podStatus?.containerStatuses ?? []), ...(podStatus?.ephemeralContainerStatuses ?? [])].find((c) => c.name === containerName);
      const idOf = (full: string | undefined) => (full ?? "").replace(/^[^:]*:\/\//, "");
      let wantId = "";
      if (logOpts.previous) {
        wantId = idOf(cs?.lastState?.terminated?.containerID);
        if (!wantId) throw new ContainerLogError("BadRequest", `previous terminated container "${containerName}" in pod "${podName}" not found`);
      } else if (cs?.state?.running || cs?.state?.terminated) {
        wantId = idOf(cs.containerID);
      } else if (cs?.lastState?.terminated) {
        wantId = idOf(cs.lastState.terminated.containerID);
      } else {
        const reason = cs?.state?.waiting?.reason ?? "ContainerCreating";
        const why = reason === "ErrImagePull" ? "image can't be pulled" : reason === "ImagePullBackOff" ? "trying and failing to pull image" : reason;
        throw new ContainerLogError("BadRequest", `container "${containerName}" in pod "${podName}" is waiting to start: ${why}`);
      }
      const target = logTarget(rs.containers, containerName, wantId, logOpts.previous === true);
      if (!target) throw new ContainerLogError("NotFound", `container "${containerName}" (${wantId}) in pod "${podName}" no longer exists`);
      const logPath = target.logPath || join(logDirOf(pod), containerName, `${target.restartCount}.log`);
      if (!(await stat(logPath).catch(() => undefined))) throw new ContainerLogError("NotFound", `log file of container "${containerName}" in pod "${podName}" not found`);
      const isRunning = async () => {
        const st = await clients.runtime.containerStatus({ containerId: target.id }).catch(() => undefined);
        return st?.status?.state === "CONTAINER_RUNNING";
      };
      return readContainerLog(logPath, logOpts, { isRunning });
    },

    healthChecks(): readonly HealthCheck[] {
      return [
        {
          name: "syncloop",
          check: () => {
            const limitMs = Math.max(2 * syncFrequencyMs, 5 * 60_000);
            const ageMs = Date.now() - lastSyncLoopMs;
            if (started && !stopped && ageMs > limitMs) throw new Error(`sync Loop took longer than expected (${Math.round(ageMs / 1000)}s > ${Math.round(limitMs / 1000)}s)`);
          },
        },
      ];
    },

    submitManifest(manifest: SubmittedManifest): SubmitManifestResult {
      const r = decodeManifest(manifest.body, nodeName, { kind: "manifest" });
      if (!r.ok) return { ok: false, errors: r.errors };
      const pod = r.pods[0];
      if (!pod) return { ok: false, errors: ["no pod in manifest"] };
      submitted.set(`${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`, pod);
      if (started) config.set("manifest", [...submitted.values()]);
      return { ok: true, pod };
    },

    removeSubmittedManifest(namespace, name) {
      const key = [`${namespace}/${name}`, `${namespace}/${name}-${nodeName}`].find((k) => submitted.has(k));
      if (!key) return false;
      submitted.delete(key);
      if (started) config.set("manifest", [...submitted.values()]);
      return true;
    },
  };
  return runtime;
}

function describeWaiting(status: PodStatus | undefined): string {
  if (!status) return "";
  if (status.message) return status.message;
  const all = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])];
  const parts: string[] = [];
  for (const c of all) {
    const w: ContainerWaitReason | undefined = c.state?.waiting ? { reason: c.state.waiting.reason ?? "", message: c.state.waiting.message ?? "" } : undefined;
    if (w && w.reason && w.reason !== "ContainerCreating" && w.reason !== "PodInitializing") parts.push(`${c.name}: ${w.reason}${w.message ? ` (${w.message})` : ""}`);
    const t = c.state?.terminated;
    if (t && t.exitCode !== 0) parts.push(`${c.name}: exited ${t.exitCode}`);
  }
  return parts.join("; ");
}

/**
 * The allocatable cpu (milli-cores) and memory (bytes) a `resourceFieldRef` without a limit
 * resolves to, from the admission allocatable; the machine's when absent. Never throws.
 */
function resourceFieldAllocatable(a: PodRuntimeOptions["nodeAllocatable"]): NodeAllocatableNumbers {
  const machine = machineAllocatable();
  if (a === undefined) return machine;
  return {
    cpuMilli: Number(a.cpuMilli),
    memoryBytes: Number(a.memoryBytes),
    ephemeralStorageBytes: a.ephemeralStorageBytes !== undefined ? Number(a.ephemeralStorageBytes) : machine.ephemeralStorageBytes,
  };
}

/**
 * The container whose log a request reads: the one the pod's status names (`wantId`), else, when
 * the runtime no longer has it, the one the next status will name. The status can be a sync behind
 * the runtime: a restart since may have removed the container it names (only the newest instance
 * and one dead one before it are kept). Then the newest dead instance of `containerName` is the
 * previous one and its newest instance the current one. `containers` is sorted newest first, as
 * the runtime manager's pod status is. Undefined when there is none. Pure.
 *
 * @see pkg/kubelet/kubelet_pods.go (validateContainerLogStatus) in kubernetes/kubernetes v1.23
 */
export function logTarget<C extends { readonly id: string; readonly name: string; readonly state: string }>(containers: readonly C[], containerName: string, wantId: string, previous: boolean): C | undefined {
  const named = containers.filter((c) => c.name === containerName);
  return containers.find((c) => c.id === wantId) ?? (previous ? named.find((c) => c.state === "exited") : named[0]);
}
