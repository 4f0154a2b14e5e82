// Kubernetes' duration.HumanDuration (apimachinery/pkg/util/duration) and printers' translateTimestampSince.
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${String(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${String(minutes)}m` : `${String(minutes)}m${String(s)}s`;
  }
  if (minutes < 60 * 3) return `${String(minutes)}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${String(hours)}h` : `${String(hours)}h${String(m)}m`;
  }
  if (hours < 48) return `${String(hours)}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${String(Math.floor(hours / 24))}d` : `${String(Math.floor(hours / 24))}d${String(h)}h`;
  }
  if (hours < 24 * 365 * 2) return `${String(Math.floor(hours / 24))}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365;
    const y = Math.floor(hours / 24 / 365);
    return dy === 0 ? `${String(y)}y` : `${String(y)}y${String(dy)}d`;
  }
  return `${String(Math.floor(hours / 24 / 365))}y`;
}

export function translateTimestampSince(ts: string | undefined, now: Date): string {
  if (ts === undefined || ts === "") return "<unknown>";
  const t = Date.parse(ts);
  if (Number.isNaN(t)) return "<unknown>";
  return humanDuration(now.getTime() - t);
}
