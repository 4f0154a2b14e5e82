import { parseCPUSet } from "./cpuset.js";

/** The reservations a node's allocatable and the CPU manager use. */
export interface Reservations {
  readonly systemReserved: Readonly<Record<string, string>>;
  readonly clusterReserved: Readonly<Record<string, string>>;
}

/**
 * `--system-reserved` / `--cluster-reserved` as 1.23 uses them once `--reserved-cpus` is given:
 * the CPU count of that set replaces both reservations' `cpu` (system-reserved gets it, the
 * cluster reservation's `cpu` is dropped). Unchanged without `--reserved-cpus`. Pure.
 * @throws Error when `reservedCPUs` does not parse (validation rejects that earlier).
 * @see cmd/kubelet/app/server.go (run: "Option --reserved-cpus is specified...") in kubernetes/kubernetes v1.23
 */
export function reservationsWithReservedCPUs(reservedCPUs: string, r: Reservations): Reservations {
  const set = parseCPUSet(reservedCPUs);
  if (set.length === 0) return r;
  const clusterReserved = { ...r.clusterReserved };
  delete clusterReserved.cpu;
  return { systemReserved: { ...r.systemReserved, cpu: String(set.length) }, clusterReserved };
}
