export { NotEnoughCPUsError, takeByTopology } from "./cpu-assignment.js";
export type { CPUManagerOptions, ResourceAdmitFailure, RunningContainer } from "./cpu-manager.js";
export { CPUManager, guaranteedCPUs, SMTAlignmentError } from "./cpu-manager.js";
export type { CPUSet } from "./cpuset.js";
export { cpuSetOf, difference, equals, formatCPUSet, intersection, parseCPUSet, union } from "./cpuset.js";
export type { ContainerCPUAssignments, CPUManagerCheckpoint, CPUManagerState } from "./state.js";
export { checkpointChecksum, CheckpointState, cpuManagerStateFileName, decodeCheckpoint, encodeCheckpoint } from "./state.js";
export type { CPUInfo } from "./topology.js";
export { CPUTopology, discoverTopology, topologyOf } from "./topology.js";
