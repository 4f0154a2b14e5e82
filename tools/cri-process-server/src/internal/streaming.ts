import { CRIError } from "@skiff/cri-api";
import type { AttachRequest__Output, ExecRequest__Output, ExecResponse, PortForwardRequest__Output, PortForwardResponse } from "@skiff/cri-api";
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
 * CRI `Attach` of the process runtime: its containers' stdio goes to their log files only, so
 * attach answers `Unimplemented` with a sentence saying so (kubectl prints `error: unable to
 * upgrade connection: ...`); containerd attaches (tools/containerd/setup.sh).
 */
export function refuseAttach(_req: AttachRequest__Output): never {
  throw new CRIError({ code: "Unimplemented", method: "Attach", details: "attach is not supported by the process runtime yet (its containers' output goes to their log files: use kubectl logs -f); use containerd (tools/containerd/setup.sh) for kubectl attach" });
}
