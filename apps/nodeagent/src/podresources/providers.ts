/**
 * The providers of the pod resources API over the agent's parts: its pods (the pod runtime's
 * pods, as 1.23's pod manager), and the CPU manager's exclusive assignments and allocatable CPUs.
 *
 * @see pkg/kubelet/cm/cpumanager/cpu_manager.go (GetCPUs, GetAllocatableCPUs) in kubernetes/kubernetes v1.23
 */
import type { DeviceManager } from "../cm/devicemanager/index.js";
import type { Pod } from "@skiff/api-types";
import type { CPUManager } from "../cm/index.js";
import type { PodResourcesProviders } from "./server.js";

/**
 * Providers reading `pods.listPods()` and `cpuManager`: a container's CPUs are its exclusive
 * assignment (none when it runs in the shared pool or the policy is `none`); the allocatable CPUs
 * are every CPU of the topology but the reserved ones under `static`, none under `none`.
 */
export function podResourcesProviders(pods: { listPods(): readonly Pod[] }, cpuManager: CPUManager | undefined, devices?: Pick<DeviceManager, "containerDevices" | "allocatableDevices">): PodResourcesProviders {
  return {
    ...(devices ? { devices: (uid: string, name: string) => devices.containerDevices(uid, name), allocatableDevices: () => devices.allocatableDevices() } : {}),
    pods: () => pods.listPods(),
    cpus: (podUID, containerName) => {
      if (!cpuManager || cpuManager.policy !== "static") return [];
      return [...(cpuManager.assignments.get(podUID)?.get(containerName) ?? [])].sort((a, b) => a - b);
    },
    allocatableCPUs: () => {
      if (!cpuManager || cpuManager.policy !== "static" || !cpuManager.topology) return [];
      const reserved = new Set(cpuManager.reserved);
      return [...cpuManager.topology.details.keys()].filter((id) => !reserved.has(id)).sort((a, b) => a - b);
    },
  };
}
