export { startProcessRuntime } from "./process-runtime.js";
export type { ProcessRuntime, ProcessRuntimeOptions } from "./process-runtime.js";
