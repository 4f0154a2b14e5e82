/**
 * Port-forward dials into a pod's network namespace, as containerd's `portForward` does
 * (`localhost:<port>` inside the namespace). Node cannot `setns` itself, so a connection to a port
 * the pod only listens on at loopback is opened by a short-lived `nsenter --net=<ns> node -e`
 * inside the namespace and passed back over its IPC channel (the socket itself, SCM_RIGHTS: no
 * relay process stays in the path); a port it listens on at every address (or at the pod IP) is
 * dialled at the pod IP directly.
 * @see containerd pkg/cri/server/sandbox_portforward_linux.go (portForward), containerd v1.6
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { connectWithLargeReads } from "@skiff/apimachinery/proxy";

/** Whether a `/proc/<pid>/net/tcp{,6}` text shows a listener on `port` at every address or at `ipHex`. Pure. */
export function listensBeyondLoopback(procNetTcp: string, port: number, ipHex: string): boolean {
  const portHex = port.toString(16).toUpperCase().padStart(4, "0");
  for (const line of procNetTcp.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    if (fields[3] !== "0A" || local === undefined) continue;
    const [addr, p] = local.split(":");
    if (p !== portHex || addr === undefined) continue;
    if (/^0+$/.test(addr) || addr === ipHex) return true;
  }
  return false;
}

/** An IPv4 address as /proc/net/tcp prints it (little-endian hex). Pure. */
export function procIPv4Hex(ip: string): string {
  const parts = ip.split(".").map((p) => Number(p));
  if (parts.length !== 4 || parts.some((p) => !(p >= 0 && p <= 255))) return "";
  return parts.reverse().map((p) => p.toString(16).toUpperCase().padStart(2, "0")).join("");
}

// Run by node inside the namespace: connects to 127.0.0.1:<port> without reading from it (paused
// before connecting: a server that speaks first keeps its bytes in the socket) and sends the
// connected socket to the runtime over the IPC channel (SCM_RIGHTS), then exits.
const dialScript = [
  'const s=new (require("net").Socket)();',
  "s.pause();",
  's.once("connect",()=>process.send("connected",s));',
  's.once("error",(e)=>process.send("error:"+e.message));',
  's.connect(Number(process.argv[1]),"127.0.0.1");',
].join("");

/**
 * Connects to `port` in the network namespace `netnsPath` (whose pod IP is `podIp`; `pid` is a
 * process in it, for the listener check): at the pod IP when something listens there, else at
 * 127.0.0.1 inside the namespace (the socket passed back by a helper under nsenter).
 * @throws Error with the dial's message (e.g. `connect ECONNREFUSED 127.0.0.1:8080`).
 */
export async function dialInNamespace(nsenterPath: string, netnsPath: string, podIp: string, pid: number | undefined, port: number): Promise<Duplex> {
  if (pid !== undefined) {
    const tables = await Promise.all([readFile(`/proc/${pid}/net/tcp`, "utf8").catch(() => ""), readFile(`/proc/${pid}/net/tcp6`, "utf8").catch(() => "")]);
    if (listensBeyondLoopback(tables[0], port, procIPv4Hex(podIp)) || listensBeyondLoopback(tables[1], port, "")) {
      return new Promise((resolve, reject) => {
        const tcp = connectWithLargeReads({ host: podIp, port, noDelay: true });
        tcp.once("connect", () => resolve(tcp));
        tcp.once("error", reject);
      });
    }
  }
  // The socket is opened inside the namespace by a short-lived node under nsenter and handed over:
  // after that the bytes go straight between this process and the pod's server (no relay copies).
  const child = spawn(nsenterPath, [`--net=${netnsPath}`, "--", process.execPath, "-e", dialScript, String(port)], { stdio: ["ignore", "ignore", "pipe", "ipc"] });
  return new Promise((resolve, reject) => {
    let err = "";
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      if (child.connected) child.disconnect();
      fn();
    };
    child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
    child.once("error", (e) => settle(() => reject(e)));
    child.on("message", (message: unknown, handle: unknown) => {
      if (message === "connected" && handle instanceof Socket) {
        handle.setNoDelay(true);
        settle(() => resolve(handle));
      } else {
        if (handle instanceof Socket) handle.destroy();
        settle(() => reject(new Error(typeof message === "string" && message.startsWith("error:") ? message.slice("error:".length) : `port-forward dial: unexpected answer ${JSON.stringify(message)}`)));
      }
    });
    child.once("exit", (code) => settle(() => reject(new Error(err.trim() || `port-forward dial exited with ${String(code)}`))));
  });
}
