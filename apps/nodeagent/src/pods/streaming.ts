/**
 * The node agent's half of exec, attach, port-forward and run: finds the running container (or
 * the pod's ready sandbox) in the runtime and asks it for a streaming URL (CRI `Exec`, `Attach`,
 * `PortForward`), or runs a command to completion (`ExecSync`). The server proxies the URL.
 * @see pkg/kubelet/kubelet_pods.go (GetExec, GetAttach, GetPortForward, RunInContainer, findContainer) in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/cri/streaming/server.go (WriteError) in kubernetes/kubernetes v1.23
 */
import type { Pod } from "@skiff/api-types";
import { isCRIError, type RuntimeClient } from "@skiff/cri-api";
import { StreamingError, type AgentView, type StreamOptions } from "../agent-view.js";
import { criLabels } from "./runtime-manager.js";

/** What {@link createContainerStreaming} needs from the agent. */
export interface ContainerStreamingDeps {
  /** The current CRI runtime client. */
  runtime(): RuntimeClient;
  /** The pod the agent runs by namespace and name. */
  findPod(namespace: string, name: string): Pod | undefined;
}

// The kubelet's streaming.WriteError: the runtime's NotFound is 404, anything else 500, the
// error's text as the body (gRPC errors read `rpc error: code = ... desc = ...`).
function toStreamingError(err: unknown): StreamingError {
  if (err instanceof StreamingError) return err;
  if (isCRIError(err)) return new StreamingError(err.code === "NotFound" ? 404 : 500, `rpc error: code = ${err.code} desc = ${err.details}`);
  return new StreamingError(500, err instanceof Error ? err.message : String(err));
}

/**
 * The streaming methods of {@link AgentView} over a CRI runtime. Every method throws
 * {@link StreamingError} only.
 */
export function createContainerStreaming(deps: ContainerStreamingDeps): Pick<AgentView, "getExec" | "getAttach" | "getPortForward" | "runInContainer"> {
  const uidOf = (namespace: string, podName: string, podUID: string): string => {
    const pod = deps.findPod(namespace, podName);
    const uid = pod?.metadata?.uid ?? "";
    if (podUID !== "" && uid !== "" && podUID !== uid) return podUID;
    return uid !== "" ? uid : podUID;
  };
  const findContainer = async (namespace: string, podName: string, podUID: string, containerName: string): Promise<string> => {
    const uid = uidOf(namespace, podName, podUID);
    const { containers } = await deps.runtime().listContainers({ filter: { state: { state: "CONTAINER_RUNNING" }, ...(uid !== "" ? { labelSelector: { [criLabels.podUID]: uid } } : {}) } });
    const match = containers.find(
      (c) =>
        (c.metadata?.name ?? c.labels[criLabels.containerName]) === containerName &&
        (uid !== "" || (c.labels[criLabels.podName] === podName && c.labels[criLabels.podNamespace] === namespace)),
    );
    if (!match) throw new StreamingError(500, `container not found (${JSON.stringify(containerName)})`);
    return match.id;
  };
  return {
    async getExec(namespace, podName, podUID, containerName, cmd, opts: StreamOptions) {
      try {
        const containerId = await findContainer(namespace, podName, podUID, containerName);
        const res = await deps.runtime().exec({ containerId, cmd: [...cmd], tty: opts.tty, stdin: opts.stdin, stdout: opts.stdout, stderr: opts.stderr });
        return res.url;
      } catch (err) {
        throw toStreamingError(err);
      }
    },
    async getAttach(namespace, podName, podUID, containerName, opts: StreamOptions) {
      try {
        const containerId = await findContainer(namespace, podName, podUID, containerName);
        const res = await deps.runtime().attach({ containerId, tty: opts.tty, stdin: opts.stdin, stdout: opts.stdout, stderr: opts.stderr });
        return res.url;
      } catch (err) {
        throw toStreamingError(err);
      }
    },
    async getPortForward(namespace, podName, podUID, ports) {
      try {
        const uid = uidOf(namespace, podName, podUID);
        const { items } = await deps.runtime().listPodSandbox({ filter: { state: { state: "SANDBOX_READY" }, ...(uid !== "" ? { labelSelector: { [criLabels.podUID]: uid } } : {}) } });
        const sandbox = items.find((s) => uid !== "" || (s.metadata?.name === podName && s.metadata.namespace === namespace));
        if (!sandbox) throw new StreamingError(500, `pod not found (${JSON.stringify(`${podName}_${namespace}`)})`);
        const res = await deps.runtime().portForward({ podSandboxId: sandbox.id, port: [...ports] });
        return res.url;
      } catch (err) {
        throw toStreamingError(err);
      }
    },
    async runInContainer(namespace, podName, podUID, containerName, cmd) {
      try {
        const containerId = await findContainer(namespace, podName, podUID, containerName);
        const res = await deps.runtime().execSync({ containerId, cmd: [...cmd], timeout: 0 });
        const out = Buffer.concat([Buffer.from(res.stdout), Buffer.from(res.stderr)]);
        if (res.exitCode !== 0) throw new StreamingError(500, `command '${cmd.join(" ")}' exited with ${res.exitCode}: ${Buffer.from(res.stderr).toString("utf8")}`);
        return out;
      } catch (err) {
        throw toStreamingError(err);
      }
    },
  };
}
