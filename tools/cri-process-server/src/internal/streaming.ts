import type { AttachRequest__Output, AttachResponse, ExecRequest__Output, ExecResponse, PortForwardRequest__Output, PortForwardResponse } from "@skiff/cri-api";
import { invalidArgument } from "./errors.js";
import type { StreamingServer } from "./streaming-server.js";

/**
 * CRI `Exec` of the process runtime: validates the request as the CRI streaming server does
 * (a command; at least one of stdin, stdout, stderr; not stderr with a tty) and answers the
 * single-use URL of its streaming server.
 * @throws CRIError InvalidArgument; NotFound / FailedPrecondition for a container that is unknown or not running.
 * @see pkg/kubelet/cri/streaming/server.go (GetExec, validateExecRequest) in kubernetes/kubernetes v1.23
 */
export function prepareExec(server: StreamingServer, req: ExecRequest__Output): ExecResponse {
  const method = "Exec";
  if (req.containerId === "") throw invalidArgument(method, "missing required container_id");
  if (req.cmd.length === 0) throw invalidArgument(method, "cmd is required");
  if (req.tty && req.stderr) throw invalidArgument(method, "tty and stderr cannot both be true");
  if (!req.stdin && !req.stdout && !req.stderr) throw invalidArgument(method, "one of stdin, stdout, or stderr must be set");
  return { url: server.register({ kind: "exec", containerId: req.containerId, cmd: req.cmd, tty: req.tty, stdin: req.stdin, stdout: req.stdout, stderr: req.stderr }) };
}

/**
 * CRI `PortForward` of the process runtime: the single-use URL of its streaming server.
 * @throws CRIError InvalidArgument; NotFound for an unknown sandbox.
 * @see pkg/kubelet/cri/streaming/server.go (GetPortForward) in kubernetes/kubernetes v1.23
 */
export function preparePortForward(server: StreamingServer, req: PortForwardRequest__Output): PortForwardResponse {
  if (req.podSandboxId === "") throw invalidArgument("PortForward", "missing required pod_sandbox_id");
  return { url: server.register({ kind: "portforward", podSandboxId: req.podSandboxId, ports: req.port }) };
}

/**
 * CRI `Attach` of the process runtime: the output follows the container's log file; stdin, for a
 * container created with `stdin`, is written to its main process's stdin (closed after the first
 * attach when `stdin_once`). stdin asked of a container without one is ignored, as containerd does.
 * @throws CRIError InvalidArgument; NotFound / FailedPrecondition for a container that is unknown or not running.
 */
export function prepareAttach(server: StreamingServer, req: AttachRequest__Output): AttachResponse {
  const method = "Attach";
  if (req.containerId === "") throw invalidArgument(method, "missing required container_id");
  if (req.tty && req.stderr) throw invalidArgument(method, "tty and stderr cannot both be true");
  if (!req.stdin && !req.stdout && !req.stderr) throw invalidArgument(method, "one of stdin, stdout, and stderr must be set");
  return { url: server.register({ kind: "attach", containerId: req.containerId, tty: req.tty, stdin: req.stdin, stdout: req.stdout, stderr: req.stderr }) };
}
