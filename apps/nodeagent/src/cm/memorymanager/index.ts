export type { MemoryAffinity, MemoryManagerOptions, MemoryReservation } from "./memory-manager.js";
export { hugePageResourceName, MemoryManager, MemoryManagerStateError, systemReservedMemory } from "./memory-manager.js";
export type { NUMAHugePages, NUMANodeMemory } from "./numa.js";
export { discoverNUMAMemory, readHugePages } from "./numa.js";
export type { ContainerMemoryAssignments, MemoryBlock, MemoryManagerState, MemoryTable, NUMANodeMap, NUMANodeState } from "./state.js";
export { decodeMemoryCheckpoint, encodeMemoryCheckpoint, MemoryCheckpointState, memoryCheckpointChecksum, memoryManagerStateFileName } from "./state.js";
