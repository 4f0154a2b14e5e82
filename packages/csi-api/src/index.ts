export { loadCSIProtos } from "./proto.js";
export type { CSIProtos } from "./proto.js";
