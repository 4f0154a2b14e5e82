// Port checks of `skiff up`: every port the cluster listens on must be free before anything starts.
import { createServer } from "node:net";

/** Resolves true when a TCP server can listen on `host:port` now (it is closed again at once). */
export function isPortFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen({ port, host, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/**
 * The messages for the ports of `wanted` (flag name → port) that are in use on 127.0.0.1, in
 * order; empty when all are free.
 */
export async function busyPorts(wanted: ReadonlyArray<{ flag: string; port: number }>): Promise<string[]> {
  const out: string[] = [];
  for (const w of wanted) {
    if (!(await isPortFree(w.port))) out.push(`port ${w.port} on 127.0.0.1 (${w.flag}) is in use: stop what listens there, or choose another port with ${w.flag}`);
  }
  return out;
}
