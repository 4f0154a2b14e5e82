import { CRIError } from "@skiff/cri-api";

/**
 * CRI `Exec`, `Attach` and `PortForward` of the process runtime. It has no streaming server yet,
 * so each answers `Unimplemented` with a sentence saying so (the node agent passes it on, and
 * kubectl prints `error: unable to upgrade connection: ...`); containerd is the runtime that
 * streams (tools/containerd/setup.sh).
 */
export function refuseStreaming(method: "Exec" | "Attach" | "PortForward"): never {
  const what = method === "Exec" ? "exec" : method === "Attach" ? "attach" : "port-forward";
  throw new CRIError({ code: "Unimplemented", method, details: `${what} is not supported by the process runtime yet; use containerd (tools/containerd/setup.sh) for kubectl ${what}` });
}
