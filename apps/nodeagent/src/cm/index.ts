export type { CgroupName, CgroupManagerOptions, ResourceConfig } from "./cgroup-manager.js";
export { CgroupError, CgroupManager, cgroupNameToCgroupfs, cpuSharesToWeight, parseCgroupfsToCgroupName } from "./cgroup-manager.js";
export type { ContainerManagerOptions, NodeCapacity } from "./container-manager.js";
export { ContainerManager, ContainerManagerError, nodeAllocatableCgroupName } from "./container-manager.js";
export type { PodCgroupSettings } from "./helpers.js";
export { cgroupConfigOf, cgroupMilliCPUToQuota, cgroupMilliCPUToShares, resourceConfigForPod } from "./helpers.js";
export { applyOOMScoreAdj, checkSwap, desiredKernelTunables, readMaxOpenFiles, setMaxOpenFiles, setupKernelTunables } from "./node-setup.js";
export type { UnsupportedSettingsInput } from "./unsupported.js";
export { unsupportedSettings } from "./unsupported.js";
