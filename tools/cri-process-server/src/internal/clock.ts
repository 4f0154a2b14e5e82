// Wall-clock nanoseconds: Date.now() at load plus the monotonic clock since, so timestamps keep
// sub-millisecond order (CRI log lines, created/started/finished) without going backwards.
const wallBaseNs = BigInt(Date.now()) * 1_000_000n;
const monotonicBaseNs = process.hrtime.bigint();

export function nowNs(): bigint {
  return wallBaseNs + (process.hrtime.bigint() - monotonicBaseNs);
}
