// Pod network namespaces on the process runtime (issue 18): as root with the CNI plugins, each
// sandbox that is not host-network gets its own network namespace (bridge + host-local IPAM over
// the pod CIDR of UpdateRuntimeConfig, loopback, portmap), its IP is the sandbox's, containers and
// ExecSync run inside it, pods reach each other and the host through the bridge, and the namespace
// and its IP are released when the sandbox goes. Needs root and containernetworking-plugins; with
// CI=true (root) it must run.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImageClient, createRuntimeClient, type ImageClient, type PodSandboxConfig, type RuntimeClient } from "@skiff/cri-api";
import { startProcessRuntime, type ProcessRuntime } from "../src/index.js";
import { podConfList } from "../src/internal/pod-network.js";
import { waitFor } from "./runtime-suite.js";

const canRun = process.getuid?.() === 0 && existsSync("/usr/lib/cni/bridge") && existsSync("/usr/lib/cni/host-local");
// A /24 of its own per run, so parallel runs on one host do not share addresses.
const octet = 100 + (process.pid % 150);
const podCidr = `10.251.${octet}.0/24`;

describe.skipIf(!canRun)(canRun ? "process runtime: pod network namespaces" : "process runtime: pod network namespaces (skipped: needs root and containernetworking-plugins)", () => {
  let workDir: string;
  let stateDir: string;
  let runtime: ProcessRuntime;
  let rt: RuntimeClient;
  let images: ImageClient;
  let hostServer: Server;
  const logs: string[] = [];
  let n = 0;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), "skiff-cri-net-"));
    stateDir = join(workDir, "state");
    runtime = await startProcessRuntime({ socketPath: join(workDir, "cri.sock"), stateDir, isolation: "namespaces", log: (m) => logs.push(m) });
    rt = createRuntimeClient({ endpoint: runtime.endpoint, timeoutMs: 60_000 });
    images = createImageClient({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
    await images.pullImage({ image: { image: "busybox" } });
    await rt.updateRuntimeConfig({ runtimeConfig: { networkConfig: { podCidr } } });
    hostServer = createServer((_req, res) => res.end("host-says-hi"));
    await new Promise<void>((resolve) => hostServer.listen(0, "0.0.0.0", resolve));
  }, 60_000);

  afterAll(async () => {
    rt?.close();
    images?.close();
    hostServer?.close();
    await runtime?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }, 60_000);

  async function pod(command: string[], hostNetwork = false): Promise<{ podSandboxId: string; containerId: string; ip: string; config: PodSandboxConfig }> {
    n++;
    const config: PodSandboxConfig = {
      metadata: { name: `net${n}`, namespace: "net", uid: `uid-net-${n}`, attempt: 0 },
      hostname: `net${n}`,
      logDirectory: join(workDir, "logs", `net${n}`),
      ...(hostNetwork ? { linux: { securityContext: { namespaceOptions: { network: "NODE" as const } } } } : {}),
    };
    const { podSandboxId } = await rt.runPodSandbox({ config });
    const { containerId } = await rt.createContainer({ podSandboxId, sandboxConfig: config, config: { metadata: { name: "c" }, image: { image: "busybox" }, command, logPath: "c/0.log" } });
    await rt.startContainer({ containerId });
    const status = await rt.podSandboxStatus({ podSandboxId, verbose: false });
    return { podSandboxId, containerId, ip: status.status?.network?.ip ?? "", config };
  }

  const exec = async (containerId: string, cmd: string[]) => {
    const r = await rt.execSync({ containerId, cmd, timeout: 30 });
    return { code: r.exitCode, out: Buffer.from(r.stdout).toString(), err: Buffer.from(r.stderr).toString() };
  };

  const nodeHttp = (port: number, host: string) => [process.execPath, "-e", `require("http").createServer((q,s)=>s.end("pod-"+require("os").hostname())).listen(${port},${JSON.stringify(host)})`];

  it("gives a sandbox its own namespace with an IP from the pod CIDR; containers and ExecSync run inside it", async () => {
    expect(runtime.podNetwork).toBe(true);
    const a = await pod(nodeHttp(8080, "0.0.0.0"));
    expect(a.ip).toMatch(new RegExp(`^10\\.251\\.${octet}\\.\\d+$`));
    const addr = await exec(a.containerId, ["ip", "-4", "-o", "addr", "show"]);
    expect(addr.code).toBe(0);
    expect(addr.out).toContain(`eth0    inet ${a.ip}/24`);
    expect(addr.out).toMatch(/lo\s+inet 127\.0\.0\.1\/8/);
    // The host's interfaces are not there.
    expect(addr.out.split("\n").filter((l) => l.trim() !== "")).toHaveLength(2);
    // The host reaches the pod at its IP.
    const body = await waitFor("the pod's HTTP server", async () => {
      try {
        return await (await fetch(`http://${a.ip}:8080/`)).text();
      } catch {
        return undefined;
      }
    });
    expect(body).toBe(`pod-net${n}`);
    const conflist = readdirSync(join(stateDir, "cni", "net.d"));
    expect(conflist).toEqual(["10-skiff-process.conflist"]);
  }, 60_000);

  it("pods reach each other by IP and the host through the bridge's gateway", async () => {
    const a = await pod(nodeHttp(8080, "0.0.0.0"));
    const b = await pod(["sleep", "3600"]);
    expect(b.ip).not.toBe(a.ip);
    const fetchIn = (url: string) => exec(b.containerId, [process.execPath, "-e", `fetch(${JSON.stringify(url)}).then(r=>r.text()).then(t=>process.stdout.write(t),e=>{console.error(String(e.cause??e));process.exit(1)})`]);
    const toA = await waitFor("pod b reaching pod a", async () => {
      const r = await fetchIn(`http://${a.ip}:8080/`);
      return r.code === 0 ? r.out : undefined;
    });
    expect(toA).toBe(`pod-net${n - 1}`);
    const gateway = `10.251.${octet}.1`;
    const toHost = await fetchIn(`http://${gateway}:${(hostServer.address() as AddressInfo).port}/`);
    expect(toHost).toMatchObject({ code: 0, out: "host-says-hi" });
    // Its loopback is its own: the host's server is not at 127.0.0.1 in the pod.
    const loop = await fetchIn(`http://127.0.0.1:${(hostServer.address() as AddressInfo).port}/`);
    expect(loop.code).not.toBe(0);
  }, 60_000);

  it("masquerades traffic leaving the pod subnet with one chain for the runtime, not rules per pod: a server in another network namespace sees the host's address", async () => {
    const outside = `skiff-out-${process.pid}`;
    const hostIf = `sko${process.pid % 1_000_000}`;
    const net = `10.254.${octet}`;
    const ip = (...args: string[]) => execFileSync("ip", args, { stdio: "pipe" });
    ip("netns", "add", outside);
    let server: ReturnType<typeof spawn> | undefined;
    try {
      ip("link", "add", hostIf, "type", "veth", "peer", "name", "eth0", "netns", outside);
      ip("addr", "add", `${net}.1/30`, "dev", hostIf);
      ip("link", "set", hostIf, "up");
      ip("-n", outside, "addr", "add", `${net}.2/30`, "dev", "eth0");
      ip("-n", outside, "link", "set", "eth0", "up");
      // No route back to the pod subnet in there: only a masqueraded request gets an answer.
      server = spawn("ip", ["netns", "exec", outside, process.execPath, "-e", `require("http").createServer((q,s)=>s.end(q.socket.remoteAddress)).listen(8081,"${net}.2")`], { stdio: "ignore" });
      const p = await pod(["sleep", "3600"]);
      const rules = execFileSync("iptables", ["-w", "-t", "nat", "-S"], { encoding: "utf8" });
      const chain = /-A POSTROUTING -s (\S+) .*-j (SKP-[0-9A-F]{8})/.exec(rules.split("\n").find((l) => l.includes(podCidr) && l.includes("-j SKP-")) ?? "");
      const seen = await waitFor("the pod reaching the other namespace", async () => {
        const r = await exec(p.containerId, [process.execPath, "-e", `fetch("http://${net}.2:8081/",{signal:AbortSignal.timeout(2000)}).then(r=>r.text()).then(t=>process.stdout.write(t),e=>{console.error(String(e.cause??e));process.exit(1)})`]);
        return r.code === 0 ? r.out : undefined;
      });
      expect(seen).toBe(`${net}.1`);
      expect(chain?.[1]).toBe(podCidr);
      const after = execFileSync("iptables", ["-w", "-t", "nat", "-S"], { encoding: "utf8" });
      expect(after).not.toContain(`-s ${p.ip}/32`);
      expect(after.split("\n").filter((l) => l.startsWith(`-A ${chain?.[2] ?? "?"} `))).toEqual([
        `-A ${chain?.[2] ?? ""} -d ${podCidr} -m comment --comment "skiff process runtime: SNAT for traffic leaving the pod subnet" -j ACCEPT`,
        `-A ${chain?.[2] ?? ""} ! -d 224.0.0.0/4 -m comment --comment "skiff process runtime: SNAT for traffic leaving the pod subnet" -j MASQUERADE`,
      ]);
    } finally {
      server?.kill("SIGKILL");
      ip("netns", "del", outside);
    }
  }, 60_000);

  it("host ports: portmap runs for a sandbox with port mappings (the host's address reaches the pod), and not for one without", async () => {
    const hostIp = execFileSync("ip", ["-4", "-o", "addr", "show", "scope", "global"], { encoding: "utf8" }).match(/inet (\d+\.\d+\.\d+\.\d+)\//)?.[1];
    expect(hostIp).toBeDefined();
    const hostPort = 20000 + (process.pid % 10000);
    n++;
    const config: PodSandboxConfig = { metadata: { name: `hp${n}`, namespace: "net", uid: `uid-hp-${n}`, attempt: 0 }, hostname: `hp${n}`, logDirectory: join(workDir, "logs", `hp${n}`), portMappings: [{ protocol: "TCP", containerPort: 8080, hostPort, hostIp: "" }] };
    const { podSandboxId } = await rt.runPodSandbox({ config });
    const { containerId } = await rt.createContainer({ podSandboxId, sandboxConfig: config, config: { metadata: { name: "c" }, image: { image: "busybox" }, command: nodeHttp(8080, "0.0.0.0"), logPath: "c/0.log" } });
    await rt.startContainer({ containerId });
    const body = await waitFor("the pod through its host port", async () => {
      try {
        return await (await fetch(`http://${hostIp ?? ""}:${hostPort}/`, { signal: AbortSignal.timeout(2000) })).text();
      } catch {
        return undefined;
      }
    });
    expect(body).toBe(`pod-hp${n}`);
    expect(execFileSync("iptables", ["-w", "-t", "nat", "-S"], { encoding: "utf8" })).toContain(`--dport ${hostPort}`);
    await rt.stopPodSandbox({ podSandboxId });
    expect(execFileSync("iptables", ["-w", "-t", "nat", "-S"], { encoding: "utf8" })).not.toContain(`--dport ${hostPort}`);
  }, 60_000);

  it("host-network sandboxes stay in the host's namespace", async () => {
    const h = await pod(["sleep", "3600"], true);
    expect(h.ip).toBe("");
    const hostLinks = execFileSync("ip", ["-o", "link", "show"], { encoding: "utf8" }).split("\n").filter((l) => l !== "").length;
    const r = await exec(h.containerId, ["ip", "-o", "link", "show"]);
    expect(r.out.split("\n").filter((l) => l !== "").length).toBe(hostLinks);
  }, 60_000);

  it("StopPodSandbox removes the namespace and releases the IP; RemovePodSandbox after it is fine", async () => {
    const p = await pod(["sleep", "3600"]);
    const ipamDir = join(stateDir, "cni", "ipam", String(podConfList(stateDir, podCidr).name));
    expect(readdirSync(ipamDir)).toContain(p.ip);
    const netnsFiles = readdirSync(join(stateDir, "netns")).length;
    await rt.stopPodSandbox({ podSandboxId: p.podSandboxId });
    expect(readdirSync(ipamDir)).not.toContain(p.ip);
    expect(readdirSync(join(stateDir, "netns")).length).toBe(netnsFiles - 1);
    // The status keeps the IP, as containerd's.
    expect((await rt.podSandboxStatus({ podSandboxId: p.podSandboxId, verbose: false })).status?.network?.ip).toBe(p.ip);
    await rt.removePodSandbox({ podSandboxId: p.podSandboxId });
  }, 60_000);

  it("stopping the runtime tears every pod network down and deletes its bridge", async () => {
    const p = await pod(["sleep", "3600"]);
    const bridge = String(podConfList(stateDir, podCidr).plugins[0]?.bridge);
    expect(execFileSync("ip", ["-o", "link", "show", bridge], { encoding: "utf8" })).toContain(bridge);
    await runtime.stop();
    expect(readdirSync(join(stateDir, "netns"))).toEqual([]);
    expect(readdirSync(join(stateDir, "cni", "ipam", String(podConfList(stateDir, podCidr).name)))).not.toContain(p.ip);
    expect(() => execFileSync("ip", ["-o", "link", "show", bridge], { stdio: "pipe" })).toThrow();
    const nat = execFileSync("iptables", ["-w", "-t", "nat", "-S"], { encoding: "utf8" });
    expect(nat).not.toContain(p.ip);
    expect(nat).not.toContain(podCidr);
  }, 60_000);
});

describe.skipIf(!canRun)(canRun ? "process runtime: pod network after a kill" : "process runtime: pod network after a kill (skipped: needs root and containernetworking-plugins)", () => {
  it("a runtime started on the state dir of a killed one keeps the namespaces of the sandboxes it recovers, unmounts those without a sandbox; its bridge goes on stop", async () => {
    const workDir = await mkdtemp(join(tmpdir(), "skiff-cri-kill-"));
    const stateDir = join(workDir, "state");
    const socketPath = join(workDir, "cri.sock");
    const mounted = () => readFileSync("/proc/self/mounts", "utf8").split("\n").filter((l) => l.includes(`${stateDir}/netns/`));
    const child = spawn(process.execPath, ["--conditions=@skiff/source", "--import", "tsx", join(import.meta.dirname, "..", "src", "main.ts"), "--listen", socketPath, "--state-dir", stateDir], { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    let orphan = "";
    let kept = "";
    let keptIp = "";
    try {
      await waitFor(`the runtime listening (${err})`, async () => (existsSync(socketPath) ? true : undefined), 60_000);
      const rt = createRuntimeClient({ endpoint: `unix://${socketPath}`, timeoutMs: 60_000 });
      await rt.updateRuntimeConfig({ runtimeConfig: { networkConfig: { podCidr: `10.252.${octet}.0/24` } } });
      orphan = (await rt.runPodSandbox({ config: { metadata: { name: "k", namespace: "net", uid: "uid-k", attempt: 0 } } })).podSandboxId;
      kept = (await rt.runPodSandbox({ config: { metadata: { name: "kk", namespace: "net", uid: "uid-kk", attempt: 0 } } })).podSandboxId;
      keptIp = (await rt.podSandboxStatus({ podSandboxId: kept })).status?.network?.ip ?? "";
      rt.close();
      expect(mounted()).toHaveLength(2);
    } finally {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    }
    const ipamDir = join(stateDir, "cni", "ipam", String(podConfList(stateDir, "").name));
    const leftIps = readdirSync(ipamDir).filter((f) => f.startsWith("10.252."));
    const leftIp = leftIps.find((ip) => ip !== keptIp);
    expect(leftIp).toBeDefined();
    // As if the kill came in the middle of RunPodSandbox: the namespace exists, the record not yet.
    await rm(join(stateDir, "sandboxes", orphan, "sandbox.json"));
    const again = await startProcessRuntime({ socketPath, stateDir, isolation: "namespaces" });
    expect(mounted()).toHaveLength(1);
    expect(readdirSync(join(stateDir, "netns"))).toEqual([kept]);
    // CNI DEL ran for the namespace without a sandbox: its address and IP masquerade rules are gone.
    expect(readdirSync(ipamDir)).not.toContain(leftIp);
    expect(readdirSync(ipamDir)).toContain(keptIp);
    expect(execFileSync("iptables", ["-w", "-t", "nat", "-S"], { encoding: "utf8" })).not.toContain(`${leftIp ?? ""}/32`);
    const rt = createRuntimeClient({ endpoint: again.endpoint, timeoutMs: 60_000 });
    const recovered = (await rt.podSandboxStatus({ podSandboxId: kept })).status;
    expect([recovered?.state, recovered?.network?.ip]).toEqual(["SANDBOX_READY", keptIp]);
    await rt.stopPodSandbox({ podSandboxId: kept });
    expect(mounted()).toEqual([]);
    expect(readdirSync(ipamDir)).not.toContain(keptIp);
    // The killed run's bridge: the new run uses the same one (same state dir) and deletes it on stop.
    await rt.updateRuntimeConfig({ runtimeConfig: { networkConfig: { podCidr: `10.252.${octet}.0/24` } } });
    await rt.runPodSandbox({ config: { metadata: { name: "k2", namespace: "net", uid: "uid-k2", attempt: 0 } } });
    rt.close();
    await again.stop();
    const bridge = String(podConfList(stateDir, "").plugins[0]?.bridge);
    expect(() => execFileSync("ip", ["-o", "link", "show", bridge], { stdio: "pipe" })).toThrow();
    await rm(workDir, { recursive: true, force: true });
  }, 120_000);
});
