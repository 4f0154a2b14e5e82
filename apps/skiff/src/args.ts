// The `skiff` command line: `skiff <command> [flags]`, parsed into a typed command or the errors
// to print (no process exit, no I/O: main.ts does both).
import { homedir, hostname } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";

/** The process CRI server's isolation flag values. */
type Isolation = "namespaces" | "none";

/** `skiff up`: start a local cluster in the background (or in this terminal with `--foreground`). */
export interface UpCommand {
  command: "up";
  dataDir: string;
  /** The apiserver's secure port on 127.0.0.1. @defaultValue 6443 */
  port: number;
  /** The node agent's port; its healthz port is `nodeAgentPort - 2`. @defaultValue 10250 */
  nodeAgentPort: number;
  nodeName: string;
  /** @defaultValue "process" */
  runtime: "process" | "containerd";
  /** With runtime containerd: the endpoint of a running containerd. @defaultValue "unix:///run/containerd/containerd.sock" */
  containerdEndpoint: string;
  /** undefined: namespaces when bubblewrap is installed, else none (with a warning). */
  processIsolation: Isolation | undefined;
  foreground: boolean;
}

/** `skiff down`, `skiff status`, `skiff kubeconfig [--output FILE]`, `skiff help`, `skiff version`. */
export type SkiffCommand =
  | UpCommand
  | { command: "down" | "status"; dataDir: string }
  | { command: "kubeconfig"; dataDir: string; output: string | undefined }
  | { command: "help"; topic: string | undefined }
  | { command: "version" };

/** The parse result: the command, or the error lines (each a full sentence). */
export type ParseResult = { ok: true; value: SkiffCommand } | { ok: false; errors: string[] };

/** The default data directory: `$SKIFF_DATA_DIR`, else `~/.skiff`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env["SKIFF_DATA_DIR"] ?? `${homedir()}/.skiff`);
}

/** The node name `skiff up` registers by default: the host name, lower-cased, other characters as `-`. */
export function defaultNodeName(): string {
  return hostname().toLowerCase().replace(/[^a-z0-9.-]/g, "-");
}

/** The help text of `skiff` (no topic) or of one command. Ends with a newline. */
export function formatHelp(topic?: string): string {
  const data = "  --data-dir DIR           the cluster's state: data, certificates, logs, kubeconfig (default $SKIFF_DATA_DIR or ~/.skiff)";
  const byTopic: Record<string, string[]> = {
    up: [
      "Usage: skiff up [flags]",
      "",
      "Starts a local cluster in the background (apiserver, job controller, scheduler, one node agent) and",
      "returns when its node is Ready. The data directory keeps the cluster's data across restarts.",
      "",
      data,
      "  --port N                 the apiserver's port on 127.0.0.1 (default 6443)",
      "  --nodeagent-port N       the node agent's port; its healthz port is N-2 (default 10250)",
      "  --node-name NAME         the node's name (default: this host's name)",
      "  --runtime R              process: containers as processes through the process CRI server (default);",
      "                           containerd: a running containerd at --containerd-endpoint",
      "  --containerd-endpoint E  (default unix:///run/containerd/containerd.sock)",
      "  --process-isolation I    namespaces (bubblewrap) or none (default: namespaces when bwrap is installed)",
      "  --foreground             run in this terminal; Ctrl-C stops the cluster",
    ],
    down: ["Usage: skiff down [--data-dir DIR]", "", "Stops the cluster started from the data directory. The data stays.", "", data],
    status: ["Usage: skiff status [--data-dir DIR]", "", "Says whether the cluster of the data directory runs, and its node's state. Exits 1 when it is not running.", "", data],
    kubeconfig: [
      "Usage: skiff kubeconfig [--data-dir DIR] [--output FILE]",
      "",
      "Prints the cluster's admin kubeconfig (or writes it to FILE), for kubectl:",
      "  skiff kubeconfig --output ~/.kube/skiff && export KUBECONFIG=~/.kube/skiff",
      "",
      data,
      "  --output FILE            write the kubeconfig to FILE (mode 0600) instead of printing it",
    ],
  };
  const lines = topic !== undefined && byTopic[topic] !== undefined
    ? byTopic[topic]
    : [
        "Usage: skiff <command> [flags]",
        "",
        "A local Skiff cluster: a Kubernetes-style control plane for Jobs, driven with kubectl.",
        "",
        "Commands:",
        "  up          start a local cluster in the background",
        "  down        stop it (the data stays)",
        "  status      is it running?",
        "  kubeconfig  print or write its kubeconfig",
        "  version     print skiff's version",
        "",
        "skiff <command> --help tells more.",
      ];
  return `${lines.join("\n")}\n`;
}

function port(text: string, flag: string, errors: string[]): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isInteger(n) || n < 1 || n > 65535) {
    errors.push(`${flag} must be a port number from 1 to 65535, not ${JSON.stringify(text)}`);
    return 0;
  }
  return n;
}

/**
 * Parses `argv` (without node and the script). Unknown commands and flags, flags of another
 * command, missing values and bad values are errors.
 *
 * @example parseSkiffArgs(["up", "--port", "7443"]) // {ok:true, value:{command:"up", port:7443, ...}}
 */
export function parseSkiffArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ParseResult {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    return { ok: true, value: { command: "help", topic: command === "help" ? rest[0] : undefined } };
  }
  if (command === "version" || command === "--version" || command === "-v") return { ok: true, value: { command: "version" } };
  const known = ["up", "down", "status", "kubeconfig"];
  if (!known.includes(command)) return { ok: false, errors: [`unknown command ${JSON.stringify(command)}; the commands are ${known.join(", ")} (skiff --help)`] };

  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    "data-dir": { type: "string" },
    help: { type: "boolean", short: "h" },
    ...(command === "up"
      ? {
          port: { type: "string" as const },
          "nodeagent-port": { type: "string" },
          "node-name": { type: "string" },
          runtime: { type: "string" },
          "containerd-endpoint": { type: "string" },
          "process-isolation": { type: "string" },
          foreground: { type: "boolean" },
        }
      : {}),
    ...(command === "kubeconfig" ? { output: { type: "string", short: "o" } } : {}),
  };
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: [...rest], options, allowPositionals: false, strict: true }).values as Record<string, string | boolean | undefined>;
  } catch (e) {
    // node:util's messages name the flag ("Unknown option '--x'", "Option '--port <value>' argument missing").
    const message = e instanceof Error ? e.message.replace(/\. To specify a positional argument.*$/s, "") : String(e);
    return { ok: false, errors: [`skiff ${command}: ${message} (skiff ${command} --help)`] };
  }
  if (values["help"] === true) return { ok: true, value: { command: "help", topic: command } };
  const errors: string[] = [];
  const dataDirText = values["data-dir"];
  if (dataDirText === "") errors.push("--data-dir must not be empty");
  const dataDir = typeof dataDirText === "string" && dataDirText !== "" ? resolve(dataDirText) : defaultDataDir(env);

  if (command === "up") {
    const str = (k: string) => (typeof values[k] === "string" ? (values[k] as string) : undefined);
    const apiPort = str("port") === undefined ? 6443 : port(str("port") as string, "--port", errors);
    const agentPort = str("nodeagent-port") === undefined ? 10250 : port(str("nodeagent-port") as string, "--nodeagent-port", errors);
    if (agentPort !== 0 && agentPort < 3) errors.push("--nodeagent-port must be at least 3 (its healthz port is --nodeagent-port minus 2)");
    if (apiPort !== 0 && agentPort !== 0 && (apiPort === agentPort || apiPort === agentPort - 2)) errors.push(`--port ${apiPort} collides with the node agent's ports ${agentPort} and ${agentPort - 2}`);
    const runtime = str("runtime") ?? "process";
    if (runtime !== "process" && runtime !== "containerd") errors.push(`--runtime must be process or containerd, not ${JSON.stringify(runtime)}`);
    const endpoint = str("containerd-endpoint");
    if (endpoint !== undefined && runtime !== "containerd") errors.push("--containerd-endpoint is used only with --runtime containerd");
    if (endpoint !== undefined && !endpoint.startsWith("unix://")) errors.push(`--containerd-endpoint must be a unix:// endpoint, not ${JSON.stringify(endpoint)}`);
    const isolation = str("process-isolation");
    if (isolation !== undefined && isolation !== "namespaces" && isolation !== "none") errors.push(`--process-isolation must be namespaces or none, not ${JSON.stringify(isolation)}`);
    if (isolation !== undefined && runtime === "containerd") errors.push("--process-isolation is used only with --runtime process");
    const nodeName = str("node-name") ?? defaultNodeName();
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(nodeName) || nodeName.length > 253) {
      errors.push(`--node-name must be a lower-case DNS subdomain (RFC 1123), not ${JSON.stringify(nodeName)}`);
    }
    if (errors.length > 0) return { ok: false, errors };
    return {
      ok: true,
      value: {
        command: "up",
        dataDir,
        port: apiPort,
        nodeAgentPort: agentPort,
        nodeName,
        runtime: runtime as UpCommand["runtime"],
        containerdEndpoint: endpoint ?? "unix:///run/containerd/containerd.sock",
        processIsolation: isolation as Isolation | undefined,
        foreground: values["foreground"] === true,
      },
    };
  }
  if (errors.length > 0) return { ok: false, errors };
  if (command === "kubeconfig") {
    const output = values["output"];
    if (output === "") return { ok: false, errors: ["--output must not be empty"] };
    return { ok: true, value: { command, dataDir, output: typeof output === "string" ? resolve(output) : undefined } };
  }
  return { ok: true, value: { command: command as "down" | "status", dataDir } };
}
