/**
 * Port-forward dials into a pod's network namespace, as containerd's `portForward` does
 * (`localhost:<port>` inside the namespace). Node cannot `setns` itself, so a connection to a port
 * the pod only listens on at loopback goes through a small relay (`nsenter --net=<ns> node -e`,
 * stdin/stdout piped to the socket); a port it listens on at every address (or at the pod IP) is
 * dialled at the pod IP directly, the same socket without the relay's copies.
 * @see containerd pkg/cri/server/sandbox_portforward_linux.go (portForward), containerd v1.6
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { connectWithLargeReads } from "@skiff/cri-api";
import { Duplex } from "node:stream";

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

const relayScript = [
  'const s=require("net").connect(Number(process.argv[1]),"127.0.0.1");',
  's.setNoDelay(true);',
  's.once("connect",()=>{process.stderr.write("connected\\n");process.stdin.pipe(s);s.pipe(process.stdout);});',
  's.once("error",(e)=>{process.stderr.write(e.message+"\\n");process.exit(1);});',
].join("");

/**
 * Connects to `port` in the network namespace `netnsPath` (whose pod IP is `podIp`; `pid` is a
 * process in it, for the listener check): at the pod IP when something listens there, else at
 * 127.0.0.1 through the relay.
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
  const child = spawn(nsenterPath, [`--net=${netnsPath}`, "--", process.execPath, "-e", relayScript, String(port)], { stdio: ["pipe", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let err = "";
    let settled = false;
    child.once("error", (e) => {
      settled = true;
      reject(e);
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
      if (!settled && err.includes("\n")) {
        settled = true;
        const line = err.split("\n")[0] ?? "";
        if (line !== "connected") {
          child.kill("SIGKILL");
          reject(new Error(line));
          return;
        }
        const duplex = Duplex.from({ readable: child.stdout, writable: child.stdin });
        duplex.once("close", () => child.kill("SIGKILL"));
        child.stdin.on("error", () => undefined);
        resolve(duplex);
      }
    });
    child.once("exit", (code) => {
      if (!settled) {
        settled = true;
        reject(new Error(err.trim() || `port-forward relay exited with ${String(code)}`));
      }
    });
  });
}
