// The node agent's configuration file of a local cluster (`pnpm start`, `skiff up`): a
// NodeAgentConfiguration (nodeagent.config.example.io/v1beta1) under the state directory.
//
// It sets `podLogsDir` to <state>/pod-logs so that a node agent run by a non-root user can write
// container logs (the default, /var/log/pods, is root's). Passing `--config` switches the node
// agent from the legacy flag defaults to the configuration-file defaults (anonymous auth off,
// webhook authentication and authorization, as the kubelet); the file sets those fields back to
// the flag defaults, so the node agent behaves exactly as it did with flags only. Every other
// setting stays a flag (flags win over the file): see nodeAgentArgs.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The configuration file's text (YAML) for state directory `state` (an absolute path). */
export function nodeAgentConfigText(state: string): string {
  return [
    "apiVersion: nodeagent.config.example.io/v1beta1",
    "kind: NodeAgentConfiguration",
    `podLogsDir: ${JSON.stringify(nodeAgentPodLogsDir(state))}`,
    "# The flag defaults the node agent ran with before it had a configuration file.",
    "authentication:",
    "  anonymous:",
    "    enabled: true",
    "  webhook:",
    "    enabled: false",
    "authorization:",
    "  mode: AlwaysAllow",
    "",
  ].join("\n");
}

/** Where the node agent of state directory `state` keeps container logs: `<state>/pod-logs`. */
export function nodeAgentPodLogsDir(state: string): string {
  return join(state, "pod-logs");
}

/**
 * Writes `<state>/nodeagent/config.yaml` (and creates the pod log directory); returns the file's
 * path.
 *
 * @throws the `node:fs` error when the state directory is not writable.
 */
export function writeNodeAgentConfig(state: string): string {
  mkdirSync(join(state, "nodeagent"), { recursive: true });
  mkdirSync(nodeAgentPodLogsDir(state), { recursive: true });
  const path = join(state, "nodeagent", "config.yaml");
  writeFileSync(path, nodeAgentConfigText(state));
  return path;
}

/** What {@link nodeAgentArgs} needs: paths are absolute, `agentPort` a TCP port (healthz on `agentPort - 2`). */
export interface NodeAgentArgsOptions {
  state: string;
  configFile: string;
  clusterconfig: string;
  endpoint: string;
  nodeName: string;
  agentPort: number;
}

/**
 * The node agent's command line in a local cluster (after writing its configuration file with
 * {@link writeNodeAgentConfig}).
 */
export function nodeAgentArgs(o: NodeAgentArgsOptions): string[] {
  return [
    `--config=${o.configFile}`,
    `--clusterconfig=${o.clusterconfig}`,
    `--container-runtime-endpoint=${o.endpoint}`,
    `--root-dir=${join(o.state, "nodeagent")}`,
    `--cert-dir=${join(o.state, "nodeagent", "pki")}`,
    `--hostname-override=${o.nodeName}`,
    "--node-ip=127.0.0.1",
    `--port=${o.agentPort}`,
    `--healthz-port=${o.agentPort - 2}`,
    "--read-only-port=0",
    // A development cluster runs where the user is: with swap on, and (as a normal user) without
    // the right to create cgroups, so no kubepods / pod cgroups then.
    "--fail-swap-on=false",
    ...(process.getuid?.() === 0 ? [] : ["--cgroups-per-qos=false", "--enforce-node-allocatable="]),
  ];
}
