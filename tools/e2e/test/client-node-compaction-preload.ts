// Preloaded into an apiserver process (startAPIServer's `preload`) by client-node.integration.test.ts:
// storage compaction, every 5 minutes by default with no SQLite flag, runs every 500 ms instead, so
// that old resourceVersions expire (410 Gone) within a test. Other intervals are untouched. The
// watch cache's window keeps 1,000 events and does not grow (as it would, like 1.23's, while its
// events are younger than 75 s), so a test's writes push an old revision out of it.
process.env["SKIFF_WATCH_CACHE_EVENT_FRESH_MS"] = "0";
const compactionIntervalMs = 300_000;
const original = globalThis.setInterval;
globalThis.setInterval = ((handler: (...args: unknown[]) => void, timeout?: number, ...args: unknown[]) =>
  original(handler, timeout === compactionIntervalMs ? 500 : timeout, ...args)) as typeof setInterval;
