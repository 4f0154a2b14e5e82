export type { WatchCacheOptions } from "./watch-cache.js";
export { WatchCache } from "./watch-cache.js";
