/**
 * Pod network namespaces for the process runtime, set up with the CNI plugins as containerd's CRI
 * plugin does: a network namespace per (non host-network) sandbox, bind-mounted under
 * `<stateDir>/netns/<id>` with its `lo` up (what the `loopback` plugin does); the runtime's conflist
 * (`<stateDir>/cni/net.d/10-skiff-process.conflist`: `bridge` with a gateway and hairpin veths,
 * `host-local` IPAM over the pod CIDR, `portmap` for host ports) for `eth0`, executed
 * as libcni does (each plugin with `name`, `cniVersion`, the previous plugin's result and the
 * runtime config of the capabilities it declares; DEL in reverse order with the cached result).
 * Two departures from containerd, each a process start per pod less with the same result: `lo` is
 * brought up by the command `unshare` runs in the new namespace (`ip link set lo up`), not by the
 * `loopback` plugin (whose DEL only sets it down in a namespace about to go); and `portmap` runs
 * only for a sandbox with host ports (with none, its ADD passes the previous result through and
 * its DEL has nothing to remove).
 *
 * IP masquerade for traffic leaving the pod subnets is one rule per subnet, set up once by the
 * runtime, as 1.23's kubenet does (its bridge has `ipMasq: false` and the kubelet keeps one
 * MASQUERADE rule), not the bridge plugin's `ipMasq`: that one adds a chain and three rules per
 * pod, about 13 `iptables` runs per pod under the host-wide xtables lock, which serialised every
 * runtime of a host (a 2,000-pod Job on 20 runtimes waited 18 s per RunPodSandbox, issue 20).
 *
 * @see https://github.com/containernetworking/cni/blob/spec-v0.4.0/SPEC.md (the plugin protocol)
 * @see containerd pkg/cri/server/sandbox_run.go (setupPodNetwork), containerd v1.6
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { access, constants, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { findExecutable } from "./isolation-check.js";

/** The CNI plugins the pod network needs, in the plugin directory. */
export const requiredCNIPlugins = ["bridge", "host-local", "portmap"] as const;

/** A host port of the sandbox (CRI `port_mappings`). */
export interface PortMapping {
  hostPort: number;
  containerPort: number;
  protocol: "tcp" | "udp" | "sctp";
  hostIP: string;
}

/** A sandbox's network: its namespace file, its IPs and what DEL needs. */
export interface SandboxNetwork {
  /** The bind-mounted network namespace (what `nsenter --net=` and `CNI_NETNS` take). */
  netnsPath: string;
  /** The pod IP (first address of the CNI result, without the prefix length). */
  ip: string;
  /** Further IPs (other families). */
  additionalIps: string[];
  /** The bridge's address on the pod's subnet (the pod's default gateway). */
  gateway: string;
  /** The conflist and results ADD used (DEL runs with them). */
  readonly teardown: { conflist: CNIConfList; results: unknown[]; args: CNIArgs; portMappings: PortMapping[] };
}

/** One CNI network configuration list. */
export interface CNIConfList {
  cniVersion: string;
  name: string;
  plugins: Array<Record<string, unknown> & { type: string; capabilities?: Record<string, boolean> }>;
}

/** CNI_ARGS and the container id of one sandbox. */
export interface CNIArgs {
  containerId: string;
  podNamespace: string;
  podName: string;
  podUid: string;
}

/** A plugin failed (its CNI error `msg` and `details`, or its stderr). */
export class CNIError extends Error {
  override readonly name = "CNIError";
}

const cniVersion = "0.4.0";

/**
 * Why pod network namespaces are unavailable here, or undefined: they need root, the CNI
 * plugins (Debian package `containernetworking-plugins`) in `binDir`, `iptables` and `ip` in PATH.
 */
export async function podNetworkUnavailable(binDir: string, uid = process.getuid?.()): Promise<string | undefined> {
  if (uid !== 0) return "not running as root";
  const missing: string[] = [];
  for (const p of requiredCNIPlugins) {
    await access(join(binDir, p), constants.X_OK).catch(() => missing.push(p));
  }
  if (missing.length > 0) return `the CNI plugins ${missing.join(", ")} are missing from ${binDir} (Debian/Ubuntu: apt-get install -y containernetworking-plugins)`;
  if (findExecutable("iptables") === undefined) return "iptables was not found (Debian/Ubuntu: apt-get install -y iptables)";
  if (findExecutable("ip") === undefined) return "ip was not found (Debian/Ubuntu: apt-get install -y iproute2)";
  return undefined;
}

/**
 * The runtime's conflist for `podCidr` (comma-separated for dual stack; empty → a /24 derived from
 * `stateDir`, 10.90.<n>.0/24, the next one while `taken` has it, so two runtimes' bridges on one
 * host do not route the same subnet): a bridge named from `stateDir` (so two runtimes on one host do not
 * share one) with a gateway address and hairpin veths (no `ipMasq`: see {@link PodMasquerade}),
 * host-local IPAM in `<stateDir>/cni/ipam`, and portmap. Pure.
 */
export function podConfList(stateDir: string, podCidr: string, taken: ReadonlySet<string> = new Set()): CNIConfList {
  const hash = createHash("sha256").update(stateDir).digest("hex").slice(0, 8);
  const subnets = podCidr.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (subnets.length === 0) {
    const start = Number.parseInt(hash.slice(0, 2), 16);
    let subnet = `10.90.${start}.0/24`;
    for (let i = 0; i < 256 && taken.has(subnet); i++) subnet = `10.90.${(start + i + 1) % 256}.0/24`;
    subnets.push(subnet);
  }
  return {
    cniVersion,
    name: `skiff-process-${hash}`,
    plugins: [
      {
        type: "bridge",
        bridge: `skp${hash}`,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: "host-local",
          dataDir: join(stateDir, "cni", "ipam"),
          ranges: subnets.map((subnet) => [{ subnet }]),
          routes: subnets.map((s) => ({ dst: s.includes(":") ? "::/0" : "0.0.0.0/0" })),
        },
      },
      { type: "portmap", capabilities: { portMappings: true }, snat: true },
    ],
  };
}

function runPlugin(binDir: string, command: "ADD" | "DEL", config: Record<string, unknown>, args: CNIArgs, netnsPath: string, ifName: string): Promise<unknown> {
  const type = String(config.type);
  return new Promise((resolve, reject) => {
    const child = spawn(join(binDir, type), [], {
      env: {
        CNI_COMMAND: command,
        CNI_CONTAINERID: args.containerId,
        CNI_NETNS: netnsPath,
        CNI_IFNAME: ifName,
        CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${args.podNamespace};K8S_POD_NAME=${args.podName};K8S_POD_INFRA_CONTAINER_ID=${args.containerId};K8S_POD_UID=${args.podUid}`,
        CNI_PATH: binDir,
        PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin",
      },
      stdio: ["pipe", "pipe", "pipe"],
      timeout: 60_000,
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.once("error", (e) => reject(new CNIError(`plugin type=${JSON.stringify(type)} failed (${command.toLowerCase()}): ${e.message}`)));
    child.once("close", (code) => {
      let parsed: unknown;
      try {
        parsed = out.trim() === "" ? undefined : JSON.parse(out);
      } catch {
        parsed = undefined;
      }
      if (code === 0) return resolve(parsed);
      const e = parsed as { msg?: string; details?: string } | undefined;
      const why = e?.msg !== undefined ? `${e.msg}${e.details ? `: ${e.details}` : ""}` : (err.trim() || out.trim() || `exit code ${String(code)}`);
      reject(new CNIError(`plugin type=${JSON.stringify(type)} failed (${command.toLowerCase()}): ${why}`));
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(JSON.stringify(config));
  });
}

// libcni's buildOneConfig: the list's name and version, the previous result, and the runtime
// config of the capabilities the plugin declares.
function pluginConfig(list: CNIConfList, plugin: CNIConfList["plugins"][number], prevResult: unknown, portMappings: PortMapping[]): Record<string, unknown> {
  const config: Record<string, unknown> = { ...plugin, name: list.name, cniVersion: list.cniVersion };
  delete config.capabilities;
  if (prevResult !== undefined) config.prevResult = prevResult;
  if (plugin.capabilities?.portMappings === true) config.runtimeConfig = { portMappings };
  return config;
}

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`${file} ${args.join(" ")}: ${err.trim() || `exit code ${String(code)}`}`))));
  });
}

// The 10.90.x.0/24 subnets routed on the host through a device other than `own` (`ip -4 route`).
function routedSubnets(own: ReadonlySet<string>): Promise<Set<string>> {
  return new Promise((resolve) => {
    const child = spawn("ip", ["-4", "route", "show"], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.once("error", () => resolve(new Set()));
    child.once("close", () => {
      const taken = new Set<string>();
      for (const line of out.split("\n")) {
        const m = /^(10\.90\.\d+\.0\/24)\s.*\bdev (\S+)/.exec(line);
        if (m?.[1] !== undefined && !own.has(m[2] ?? "")) taken.add(m[1]);
      }
      resolve(taken);
    });
  });
}

/** The bridges of `conflist` (the runtime's own, named from its state dir). Pure. */
export function bridgesOf(conflist: CNIConfList): string[] {
  return conflist.plugins.flatMap((p) => (p.type === "bridge" && typeof p.bridge === "string" ? [p.bridge] : []));
}

/** Deletes the given network devices (`ip link del`); missing ones are fine. Never throws. */
export async function deleteBridges(names: Iterable<string>): Promise<void> {
  for (const name of new Set(names)) await run("ip", ["link", "del", name]).catch(() => undefined);
}

/** Unmounts (lazily) and removes a bind-mounted network namespace file; a missing one is fine. */
export async function unmountNetns(netnsPath: string): Promise<void> {
  await run("umount", ["-l", netnsPath]).catch(() => undefined);
  await rm(netnsPath, { force: true });
}

/** Runs one iptables (or ip6tables) command and resolves with its stdout. */
export type IptablesRunner = (binary: "iptables" | "ip6tables", args: string[]) => Promise<string>;

const runIptables: IptablesRunner = (binary, args) =>
  new Promise((resolve, reject) => {
    const child = spawn(binary, ["-w", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`${binary} ${args.join(" ")}: ${err.trim() || `exit code ${String(code)}`}`))));
  });

/** The pod subnets of a conflist (its bridge's host-local ranges). Pure. */
export function subnetsOf(conflist: CNIConfList): string[] {
  const out: string[] = [];
  for (const p of conflist.plugins) {
    const ranges = (p.ipam as { ranges?: Array<Array<{ subnet?: unknown }>> } | undefined)?.ranges ?? [];
    for (const set of ranges) for (const r of set) if (typeof r.subnet === "string") out.push(r.subnet);
  }
  return out;
}

/** Splits one line of `iptables -S` into arguments (double-quoted words kept whole). Pure. */
export function splitRuleSpec(line: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? ""));
  return out;
}

/**
 * IP masquerade for traffic leaving one runtime's pod subnets, as the bridge plugin's `ipMasq`
 * would do it but once per subnet instead of once per pod (1.23's kubenet keeps one MASQUERADE
 * rule the same way): a nat chain `SKP-<hash of the state dir>` holding `-d <subnet> -j ACCEPT` for
 * each subnet and `! -d 224.0.0.0/4 -j MASQUERADE` (the bridge plugin's two rules), and
 * `POSTROUTING -s <subnet> -j SKP-<hash>` for each subnet. IPv6 subnets go to ip6tables
 * (`! -d ff00::/8`). Each {@link sync} rewrites the whole set, so jumps a killed run left for other
 * subnets go too.
 */
export class PodMasquerade {
  /** The nat chain of this runtime. */
  readonly chain: string;
  private queue: Promise<void> = Promise.resolve();
  private readonly families = new Set<"iptables" | "ip6tables">();

  constructor(
    stateDir: string,
    private readonly iptables: IptablesRunner = runIptables,
  ) {
    this.chain = `SKP-${createHash("sha256").update(stateDir).digest("hex").slice(0, 8).toUpperCase()}`;
  }

  /**
   * Makes the rules exactly those for `subnets` (CIDRs, both families), in both families.
   * Calls are serialised. @throws Error naming the iptables command that failed.
   */
  sync(subnets: Iterable<string>): Promise<void> {
    const list = [...new Set(subnets)];
    const run = async (): Promise<void> => {
      for (const binary of ["iptables", "ip6tables"] as const) {
        const mine = list.filter((s) => s.includes(":") === (binary === "ip6tables"));
        if (mine.length === 0 && !this.families.has(binary)) continue;
        await this.rewrite(binary, mine);
      }
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async dropJumps(binary: "iptables" | "ip6tables"): Promise<void> {
    const listed = await this.iptables(binary, ["-t", "nat", "-S", "POSTROUTING"]);
    for (const line of listed.split("\n")) {
      const spec = splitRuleSpec(line);
      if (spec[0] !== "-A" || spec[spec.indexOf("-j") + 1] !== this.chain) continue;
      await this.iptables(binary, ["-t", "nat", "-D", ...spec.slice(1)]);
    }
  }

  private async rewrite(binary: "iptables" | "ip6tables", subnets: string[]): Promise<void> {
    await this.iptables(binary, ["-t", "nat", "-N", this.chain]).catch(() => undefined);
    this.families.add(binary);
    await this.dropJumps(binary);
    await this.iptables(binary, ["-t", "nat", "-F", this.chain]);
    if (subnets.length === 0) return;
    const comment = ["-m", "comment", "--comment", `skiff process runtime: SNAT for traffic leaving the pod subnet`];
    for (const s of subnets) await this.iptables(binary, ["-t", "nat", "-A", this.chain, "-d", s, ...comment, "-j", "ACCEPT"]);
    await this.iptables(binary, ["-t", "nat", "-A", this.chain, "!", "-d", binary === "iptables" ? "224.0.0.0/4" : "ff00::/8", ...comment, "-j", "MASQUERADE"]);
    for (const s of subnets) await this.iptables(binary, ["-t", "nat", "-A", "POSTROUTING", "-s", s, ...comment, "-j", this.chain]);
  }

  /** Removes the chain and its jumps (runtime shutdown). Never throws. */
  async remove(): Promise<void> {
    const run = async (): Promise<void> => {
      for (const binary of this.families) {
        await this.dropJumps(binary).catch(() => undefined);
        await this.iptables(binary, ["-t", "nat", "-F", this.chain]).catch(() => undefined);
        await this.iptables(binary, ["-t", "nat", "-X", this.chain]).catch(() => undefined);
      }
      this.families.clear();
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    await next;
  }
}

/** The conflist's plugins a sandbox runs: `portmap` only when it has host ports. Pure. */
export function pluginsFor(conflist: CNIConfList, portMappings: readonly PortMapping[]): CNIConfList["plugins"] {
  return conflist.plugins.filter((p) => p.type !== "portmap" || portMappings.length > 0);
}

function addressOf(cidr: string): string {
  return cidr.split("/")[0] ?? "";
}

/**
 * The pod networks of one runtime: the conflist (rewritten when the pod CIDR changes), each
 * sandbox's namespace and CNI ADD/DEL.
 */
export class PodNetwork {
  private podCidr = "";
  private conflist: CNIConfList;
  private written: Promise<void> | undefined;
  /** The pod subnets of every conflist a sandbox of this run (or a recovered one) uses. */
  private readonly subnetsInUse = new Set<string>();
  private subnetsSynced = 0;
  private readonly masquerade: PodMasquerade;

  constructor(
    private readonly stateDir: string,
    private readonly binDir: string,
    iptables?: IptablesRunner,
  ) {
    this.masquerade = new PodMasquerade(stateDir, iptables);
    this.conflist = podConfList(stateDir, "");
    // The bridge is named from the state dir alone: one a killed run left is this run's to delete.
    this.noteBridges(this.conflist);
  }

  /**
   * Tears down the network namespaces a previous run of this runtime left under `<stateDir>/netns`
   * that no recovered sandbox uses (`keep`: the ids of those that do): a kill in the middle of
   * RunPodSandbox, or a sandbox whose record is lost. CNI DEL with the current conflist, then
   * unmount and remove. Never throws.
   */
  async removeStale(keep: ReadonlySet<string> = new Set()): Promise<void> {
    const dir = join(this.stateDir, "netns");
    const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => !keep.has(name));
    await Promise.all(
      names.map(async (name) => {
        // CNI DEL while the namespace still exists (the mount keeps it), so the bridge plugin finds
        // the veth and its IP masquerade rules, host-local releases the address, portmap its chains.
        const network: SandboxNetwork = { netnsPath: join(dir, name), ip: "", additionalIps: [], gateway: "", teardown: { conflist: this.conflist, results: [], args: { containerId: name, podNamespace: "", podName: "", podUid: "" }, portMappings: [] } };
        await this.tearDown(network).catch(() => undefined);
      }),
    );
    // The masquerade rules of the recovered sandboxes' subnets (a killed run may have left others).
    if (this.subnetsInUse.size > 0) await this.syncMasquerade().catch(() => undefined);
  }

  private async syncMasquerade(): Promise<void> {
    if (this.subnetsInUse.size === this.subnetsSynced) return;
    const size = this.subnetsInUse.size;
    await this.masquerade.sync(this.subnetsInUse);
    this.subnetsSynced = size;
  }

  /** Where the conflist is written. */
  get confListPath(): string {
    return join(this.stateDir, "cni", "net.d", "10-skiff-process.conflist");
  }

  /** CRI `UpdateRuntimeConfig`'s pod CIDR: new sandboxes get addresses from it. */
  setPodCidr(podCidr: string): void {
    if (podCidr === this.podCidr) return;
    this.podCidr = podCidr;
    this.conflist = podConfList(this.stateDir, podCidr);
    this.written = undefined;
  }

  private async writeConfList(): Promise<void> {
    this.written ??= (async () => {
      if (this.podCidr === "") this.conflist = podConfList(this.stateDir, "", await routedSubnets(new Set(this.conflist.plugins.map((p) => String(p.bridge)))));
      await mkdir(join(this.stateDir, "cni", "net.d"), { recursive: true });
      await writeFile(this.confListPath, `${JSON.stringify(this.conflist, null, 2)}\n`);
    })();
    await this.written;
    for (const s of subnetsOf(this.conflist)) this.subnetsInUse.add(s);
    await this.syncMasquerade();
  }

  /**
   * Creates the sandbox's network namespace with `lo` up and runs CNI ADD of the conflist on
   * `eth0` ({@link pluginsFor}). On failure everything done so far is undone.
   * @throws CNIError or Error saying which step failed.
   */
  async setUp(args: CNIArgs, portMappings: PortMapping[]): Promise<SandboxNetwork> {
    await this.writeConfList();
    const dir = join(this.stateDir, "netns");
    await mkdir(dir, { recursive: true });
    // Named by the full sandbox id: a later run can then run CNI DEL for a namespace left behind.
    const netnsPath = join(dir, args.containerId);
    await writeFile(netnsPath, "");
    await run("unshare", [`--net=${netnsPath}`, "ip", "link", "set", "lo", "up"]).catch(async (err: unknown) => {
      await rm(netnsPath, { force: true });
      throw err;
    });
    const conflist = this.conflist;
    for (const p of conflist.plugins) if (p.type === "bridge" && typeof p.bridge === "string") this.usedBridges.add(p.bridge);
    const results: unknown[] = [];
    const network: SandboxNetwork = { netnsPath, ip: "", additionalIps: [], gateway: "", teardown: { conflist, results, args, portMappings } };
    try {
      let prev: unknown;
      for (const plugin of pluginsFor(conflist, portMappings)) {
        prev = await runPlugin(this.binDir, "ADD", pluginConfig(conflist, plugin, prev, portMappings), args, netnsPath, "eth0");
        results.push(prev);
      }
      const ips = ((prev as { ips?: Array<{ address?: string; gateway?: string }> } | undefined)?.ips ?? []).filter((i) => typeof i.address === "string");
      if (ips.length === 0) throw new CNIError(`network ${conflist.name} returned no IP address`);
      network.ip = addressOf(ips[0]?.address ?? "");
      network.additionalIps = ips.slice(1).map((i) => addressOf(i.address ?? ""));
      network.gateway = ips[0]?.gateway ?? "";
      return network;
    } catch (err) {
      await this.tearDown(network).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Deletes the runtime's bridges (of every conflist it used) and its masquerade rules, once no
   * sandbox needs them: the runtime's state dir (and so its bridge) is its own, and a bridge left
   * behind would keep its subnet's route on the host. Never throws.
   */
  async removeBridges(): Promise<void> {
    await deleteBridges(this.usedBridges);
    await this.masquerade.remove();
    this.subnetsInUse.clear();
    this.subnetsSynced = 0;
  }

  private readonly usedBridges = new Set<string>();

  /** Notes the bridge of a network recovered from a previous run, so that shutdown deletes it too. */
  noteInUse(network: SandboxNetwork): void {
    this.noteBridges(network.teardown.conflist);
  }

  private noteBridges(conflist: CNIConfList): void {
    for (const b of bridgesOf(conflist)) this.usedBridges.add(b);
    if (conflist !== this.conflist) for (const s of subnetsOf(conflist)) this.subnetsInUse.add(s);
  }

  /**
   * CNI DEL (the plugins ADD ran, in reverse order, with the cached result) and removes the
   * namespace. Idempotent; the first failure is thrown after every step ran.
   */
  async tearDown(network: SandboxNetwork): Promise<void> {
    const { conflist, results, args, portMappings } = network.teardown;
    const last = results[results.length - 1];
    let first: unknown;
    for (const plugin of [...pluginsFor(conflist, portMappings)].reverse()) {
      await runPlugin(this.binDir, "DEL", pluginConfig(conflist, plugin, last, portMappings), args, network.netnsPath, "eth0").catch((err: unknown) => (first ??= err));
    }
    await unmountNetns(network.netnsPath);
    if (first !== undefined) throw first;
  }
}
