/**
 * `@skiff/apimachinery/proxy`: the byte-level half of an upgrade-aware proxy, for Node servers
 * (the apiserver's `pods/exec|attach|portforward`, the node agent's streaming proxy, the runtime's
 * port-forward dial). A subpath of its own: its types use `node:net`/`node:tls`, which the main
 * entry's users (e.g. through `@skiff/validation`) need not have.
 */
export { connectWithLargeReads, releaseLargeRead, tlsConnectWithPooledReads } from "./pooled-reads.js";
export { dialUpgradeBackend, goDialError, pipeBoth } from "./upgrade-aware.js";
export type { PipeLimits, UpgradeBackend } from "./upgrade-aware.js";
