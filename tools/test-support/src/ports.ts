import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * The lowest port {@link freePort} hands out. Ports below it are left to well-known services
 * (etcd's 2379/2380, containerd's, the agent's 10250/10255 defaults stay clear: the range starts
 * above them).
 */
const lowestPort = 11_000;

/**
 * The first port of the kernel's ephemeral range (`net.ipv4.ip_local_port_range`, 32768 on Linux
 * by default): `bind(0)` and outgoing connections take their local ports from that range, so a port
 * below it cannot be taken by another process between {@link freePort} and the caller's `listen`
 * unless that process asked for the very number.
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > lowestPort + 1000) return low;
  } catch {
    // not Linux, or no /proc: the IANA dynamic range starts at 49152
  }
  return 32_768;
}

const highestPort = ephemeralLow() - 1;
const span = highestPort - lowestPort + 1;
/** Where this process starts its walk: spread by pid and Vitest worker, so parallel test processes walk apart. */
let next = lowestPort + ((process.pid * 7919 + Number(process.env["VITEST_POOL_ID"] ?? 0) * 104_729) % span);

/** Whether `port` can be listened on at `host` right now. */
function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen({ port, host, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/**
 * A TCP port that nothing listens on at the time of the call, on 127.0.0.1 and on all addresses,
 * for a test to pass to a process it starts (`--port=<n>`).
 *
 * Unlike listening on port 0 and closing (the usual trick), the number comes from below the
 * kernel's ephemeral range and from a walk this process owns: another process's `listen(0)` or
 * outgoing connection cannot take it in the window before the caller listens, which made suites
 * running in parallel fail with `EADDRINUSE` now and then. Successive calls in one process return
 * distinct ports.
 *
 * @returns a port in [11000, ephemeral low - 1]
 * @throws Error when no port in the range can be listened on (after trying the whole range)
 */
export async function freePort(): Promise<number> {
  return freePortRange(1);
}

/**
 * The first of `count` consecutive TCP ports that nothing listens on at the time of the call, none
 * handed out before by this process: for a process that derives ports from one it is given (the
 * `skiff` command's node agent listens on `--nodeagent-port` and, for healthz, that minus 2). Same
 * range and walk as {@link freePort}.
 * @throws RangeError for a `count` outside 1–100; Error when no such run of ports is found
 */
export async function freePortRange(count: number): Promise<number> {
  if (!(Number.isInteger(count) && count >= 1 && count <= 100)) throw new RangeError(`count must be an integer in 1-100, got ${count}`);
  for (let tried = 0; tried < span; tried++) {
    if (next + count - 1 > highestPort) next = lowestPort;
    const first = next;
    let free = true;
    for (let port = first; port < first + count && free; port++) free = (await canListen(port, "127.0.0.1")) && (await canListen(port, "0.0.0.0"));
    next = first + 1;
    if (!free) continue;
    next = first + count > highestPort ? lowestPort : first + count;
    return first;
  }
  throw new Error(`freePort: no ${count} consecutive ports in ${lowestPort}-${highestPort} can be listened on`);
}
