/**
 * Host ports: the `(hostIP, protocol, hostPort)` triples a pod takes on its node, and whether two
 * of them conflict.
 *
 * @see pkg/scheduler/framework/plugins/nodeports/node_ports.go (`getContainerPorts`, `fitsPorts`) in kubernetes/kubernetes v1.23
 * @see pkg/scheduler/framework/types.go (`HostPortInfo.Add`, `HostPortInfo.CheckConflict`) in kubernetes/kubernetes v1.23
 */
import type { Pod } from "@skiff/api-types";

/** A host port a pod takes: `ip` `0.0.0.0` for every address, `protocol` `TCP`, `UDP` or `SCTP`, `port` 1–65535. */
export interface HostPort {
  readonly ip: string;
  readonly protocol: string;
  readonly port: number;
}

/**
 * The host ports of `pod`'s app containers (init containers take none in 1.23): each container
 * port with a `hostPort` above 0, `hostIP` `""` read as `0.0.0.0` and protocol `""` as `TCP`. Pure.
 * @see pkg/scheduler/framework/plugins/nodeports/node_ports.go (`getContainerPorts`) in kubernetes/kubernetes v1.23
 */
export function podHostPorts(pod: Pod): HostPort[] {
  const out: HostPort[] = [];
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) {
      if (!p.hostPort || p.hostPort <= 0) continue;
      out.push({ ip: p.hostIP || "0.0.0.0", protocol: p.protocol || "TCP", port: p.hostPort });
    }
  }
  return out;
}

/** Whether two host ports conflict: the same port and protocol, and the same IP or either on `0.0.0.0`. Pure. */
export function hostPortsConflict(a: HostPort, b: HostPort): boolean {
  return a.port === b.port && a.protocol === b.protocol && (a.ip === b.ip || a.ip === "0.0.0.0" || b.ip === "0.0.0.0");
}

/**
 * Whether every host port in `wanted` is free among the host ports of `pods` (the pods already on
 * the node), as 1.23's NodePorts `fitsPorts`. Pure.
 * @see pkg/scheduler/framework/plugins/nodeports/node_ports.go (`fitsPorts`) in kubernetes/kubernetes v1.23
 */
export function hostPortsFit(wanted: readonly HostPort[], pods: Iterable<Pod>): boolean {
  if (wanted.length === 0) return true;
  for (const p of pods) {
    for (const used of podHostPorts(p)) if (wanted.some((w) => hostPortsConflict(w, used))) return false;
  }
  return true;
}
