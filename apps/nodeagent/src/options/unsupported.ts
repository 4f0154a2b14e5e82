/**
 * The accepted flag and configuration values the node agent has no implementation for: start-up
 * refuses them, one clear message each, instead of ignoring them (STYLE.md §8b). Values that
 * 1.23 itself ignores in the same situation (for example `--add-dir-header` with a non-text log
 * format) are not refused. Defaults are never refused.
 *
 * The container manager's own refusals live with it (`cm/`: `--cgroup-driver=systemd` without
 * systemd, the CPU manager's alpha option), `--vendor-container-registry-config`
 * in `validate.ts`, `--bootstrap-clusterconfig` without a cluster config in `cluster/cluster-mode.ts`.
 *
 * @see cmd/kubelet/app/options/options.go, cmd/kubelet/app/server.go, pkg/kubelet/server/server.go in kubernetes/kubernetes v1.23
 */
import type { FeatureGate, NodeAgentFeature } from "@skiff/feature-gates";
import { formatDuration } from "@skiff/flags";
import type { NodeAgentConfiguration } from "./config.js";
import { defaultNodeAgentConfiguration } from "./config.js";
import type { NodeAgentFlags } from "./flags.js";

/** The per-process flags {@link unsupportedOptions} reads. */
export type UnsupportedOptionsFlags = Pick<
  NodeAgentFlags,
  "cloudProvider" | "masterServiceNamespace" | "containerRuntime" | "addDirHeader" | "logBacktraceAt" | "oneOutput"
>;

const notSupported = (what: string, hint: string): string => `${what} is not supported by skiff nodeagent; ${hint}`;

/**
 * The accepted settings the node agent cannot honour, one message each in the agent's words
 * (`--<flag>=<value> is not supported by skiff nodeagent; <what to do>`); empty when every value
 * set has its effect. Config-file fields are named by their flag when they have one.
 * `gates` must hold the merged feature gates. Pure; does not mutate its inputs.
 *
 * @example
 * ```ts
 * unsupportedOptions({ ...flags, masterServiceNamespace: "kube-system" }, config, gates);
 * // ['--master-service-namespace=kube-system is not supported by skiff nodeagent; ...']
 * ```
 */
export function unsupportedOptions(f: UnsupportedOptionsFlags, c: NodeAgentConfiguration, gates: FeatureGate<NodeAgentFeature>): string[] {
  const out: string[] = [];
  const defaults = defaultNodeAgentConfiguration();

  // Serving, identity and registration.
  // 1.23 builds the in-tree providers (aws, azure, gce, openstack, vsphere); "external" and ""
  // run none, and then --cloud-config is unused there too.
  if (f.cloudProvider !== "" && f.cloudProvider !== "external") {
    out.push(notSupported(`--cloud-provider=${f.cloudProvider}`, 'no in-tree cloud provider is built in: use --cloud-provider=external with an external cloud controller manager, or leave it unset'));
  }
  // 1.23 takes the `kubernetes` Service's variables from this namespace (the apiserver keeps that
  // Service in "default"). There is no Service kind here: the agent gives every container the
  // `kubernetes` variables from the apiserver's address, as the Service in "default" would.
  if (f.masterServiceNamespace !== "default") {
    out.push(notSupported(`--master-service-namespace=${f.masterServiceNamespace}`, 'the `kubernetes` service variables (KUBERNETES_SERVICE_HOST, ...) come from the API server\'s address, as from the Service in "default"; there is no Service kind to read from another namespace; leave it unset'));
  }
  if (c.rotateCertificates) {
    out.push(notSupported("--rotate-certificates", "client certificates are not requested from the API server; give a --clusterconfig with a client credential and leave it unset"));
  }
  if (c.serverTLSBootstrap) {
    out.push(notSupported("--rotate-server-certificates", "serving certificates are not requested from the API server; give --tls-cert-file and --tls-private-key-file, or let the agent write a self-signed pair in --cert-dir"));
  }
  if (c.shutdownGracePeriod.nanoseconds > 0n || c.shutdownGracePeriodCriticalPods.nanoseconds > 0n) {
    out.push(
      notSupported(
        `shutdownGracePeriod=${formatDuration(c.shutdownGracePeriod.nanoseconds)} (shutdownGracePeriodCriticalPods=${formatDuration(c.shutdownGracePeriodCriticalPods.nanoseconds)})`,
        "graceful node shutdown is not built in; leave both at 0s",
      ),
    );
  }

  // Container runtime and volumes.
  if (f.containerRuntime !== "remote") {
    out.push(notSupported(`--container-runtime=${f.containerRuntime}`, 'only "remote" (a CRI runtime at --container-runtime-endpoint) is'));
  }
  if (c.volumePluginDir !== defaults.volumePluginDir) {
    out.push(notSupported(`--volume-plugin-dir=${c.volumePluginDir}`, "FlexVolume plugins are not built in (use CSI drivers); leave it unset"));
  }
  if (gates.enabled("MemoryQoS")) {
    out.push(notSupported("feature gate MemoryQoS", `memory.high throttling (memoryThrottlingFactor=${c.memoryThrottlingFactor}) is not built in; leave the gate off`));
  }
  // Node status and API client.
  // The API client sends and accepts JSON only; the protobuf default is served as JSON.
  if (c.contentType !== defaults.contentType && c.contentType !== "application/json") {
    out.push(notSupported(`--cluster-api-content-type=${c.contentType}`, 'the API client speaks "application/json" only'));
  }
  // 1.23 sets the block profile rate only with debugging handlers on (and serves it under
  // /debug/pprof/block); the agent's /debug/pprof serves V8's CPU profile and heap snapshot, and
  // V8 has no lock-contention profile.
  if (c.enableContentionProfiling && c.enableDebuggingHandlers) {
    out.push(notSupported("--contention-profiling", "the agent's runtime has no lock-contention (block) profile; /debug/pprof serves CPU profiles and heap snapshots only; leave it unset"));
  }

  // Logging. klog's own flags only apply to the text format in 1.23.
  const text = c.logging.format === "text";
  if (text && f.addDirHeader) {
    out.push(notSupported("--add-dir-header", "log lines name the logger, not a source file; leave it unset"));
  }
  if (text && f.logBacktraceAt.file !== "") {
    out.push(notSupported(`--log-backtrace-at=${f.logBacktraceAt.file}:${f.logBacktraceAt.line}`, "log lines have no source file:line to match; leave it unset"));
  }
  if (text && f.oneOutput) {
    out.push(notSupported("--one-output", "the agent writes one log file, not one per severity; leave it unset"));
  }
  // 1.23 buffers info messages only for the JSON format with split streams.
  if (c.logging.format === "json" && c.logging.options.json.splitStream && c.logging.options.json.infoBufferSize.coefficient !== 0n) {
    out.push(notSupported("--log-json-info-buffer-size", "info messages are written unbuffered; leave it at 0"));
  }
  return out;
}
