export { ageColumn, defaultTableConvertor, formatLabelSelector, humanDuration, joinOrNone, nameColumn, translateTimestampSince } from "./printers.js";
export type { IncludeObjectPolicy, RenderTableOptions } from "./render.js";
export { parseIncludeObject, renderTable } from "./render.js";
