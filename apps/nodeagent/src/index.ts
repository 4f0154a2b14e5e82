/**
 * What the node agent offers to the tools that run it (`tools/local-cluster`): its option loading
 * (command line + config file + feature gates, as `nodeagent` itself reads them) and the pod
 * runtime options it derives from them. The binary is `src/main.ts`.
 */
export { loadNodeAgentOptions } from "./options/index.js";
export { podRuntimeOptionsFrom, runNodeAgent } from "./app.js";
export { startInProcessNodeAgent } from "./in-process.js";
export type { InProcessNodeAgent, InProcessNodeAgentDeps } from "./in-process.js";
export type { CRIDialer } from "./pods/runtime-clients.js";
