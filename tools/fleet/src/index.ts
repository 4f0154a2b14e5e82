/**
 * @skiff/fleet: a simulated fleet of hollow nodes (the real node agent over an in-process
 * simulated CRI) in one process, for scale tests and benchmarks.
 */
export { defaultFleetConnections, fleetTempParent, hollowNodeClientRateLimit, hollowNodeConfiguration, hollowNodeIP, hollowPodIP, startFleet } from "./fleet.js";
export type { Fleet, FleetLogSink, FleetOptions } from "./fleet.js";
export { availableMemoryBytes, checkFleetMemory, fleetBaseMemoryBytes, fleetNodeFlags, FleetMemoryError, hollowNodeMemoryBytes } from "./memory.js";
export { LoopDelayGate } from "./loop-gate.js";
export type { LoopDelayGateOptions, LoopDelayGateStats } from "./loop-gate.js";
export { SimulatedImageCatalog, SimulatedRuntime } from "./sim-cri.js";
export type { SimulatedRuntimeOptions } from "./sim-cri.js";
export { simulateCommand } from "./sim-command.js";
export type { SimulatedRun } from "./sim-command.js";
export { parseFleetArgs, runFleetCli } from "./cli.js";
export type { FleetCliIO, FleetCliOptions, ParseFleetArgsResult } from "./cli.js";
