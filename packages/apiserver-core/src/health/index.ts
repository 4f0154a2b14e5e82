export type { HealthCheck, HealthResponse } from "./health.js";
export { handleHealth, logCheck, pingCheck } from "./health.js";
