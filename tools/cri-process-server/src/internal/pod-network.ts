/**
 * Pod network namespaces for the process runtime, set up with the CNI plugins as containerd's CRI
 * plugin does: a network namespace per (non host-network) sandbox, bind-mounted under
 * `<stateDir>/netns/<id>`; the `loopback` plugin for `lo` and the runtime's conflist
 * (`<stateDir>/cni/net.d/10-skiff-process.conflist`: `bridge` with a gateway, IP masquerade and
 * hairpin veths, `host-local` IPAM over the pod CIDR, `portmap` for host ports) for `eth0`, executed
 * as libcni does (each plugin with `name`, `cniVersion`, the previous plugin's result and the
 * runtime config of the capabilities it declares; DEL in reverse order with the cached result).
 *
 * @see https://github.com/containernetworking/cni/blob/spec-v0.4.0/SPEC.md (the plugin protocol)
 * @see containerd pkg/cri/server/sandbox_run.go (setupPodNetwork), containerd v1.6
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { access, constants, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The CNI plugins the pod network needs, in the plugin directory. */
export const requiredCNIPlugins = ["bridge", "host-local", "loopback", "portmap"] as const;

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
 * Why pod network namespaces are unavailable here, or undefined: they need root and the CNI
 * plugins (Debian package `containernetworking-plugins`) in `binDir`.
 */
export async function podNetworkUnavailable(binDir: string, uid = process.getuid?.()): Promise<string | undefined> {
  if (uid !== 0) return "not running as root";
  const missing: string[] = [];
  for (const p of requiredCNIPlugins) {
    await access(join(binDir, p), constants.X_OK).catch(() => missing.push(p));
  }
  if (missing.length > 0) return `the CNI plugins ${missing.join(", ")} are missing from ${binDir} (Debian/Ubuntu: apt-get install -y containernetworking-plugins)`;
  return undefined;
}

/**
 * The runtime's conflist for `podCidr` (comma-separated for dual stack; empty → a /24 derived from
 * `stateDir`, 10.90.<n>.0/24, the next one while `taken` has it, so two runtimes' bridges on one
 * host do not route the same subnet): a bridge named from `stateDir` (so two runtimes on one host do not
 * share one) with a gateway address, IP masquerade for traffic leaving the pod subnet and hairpin
 * veths, host-local IPAM in `<stateDir>/cni/ipam`, and portmap. Pure.
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
        ipMasq: true,
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

  constructor(
    private readonly stateDir: string,
    private readonly binDir: string,
  ) {
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
  }

  /**
   * Creates the sandbox's network namespace and runs CNI ADD (loopback, then the conflist on
   * `eth0`). On failure everything done so far is undone.
   * @throws CNIError or Error saying which step failed.
   */
  async setUp(args: CNIArgs, portMappings: PortMapping[]): Promise<SandboxNetwork> {
    await this.writeConfList();
    const dir = join(this.stateDir, "netns");
    await mkdir(dir, { recursive: true });
    // Named by the full sandbox id: a later run can then run CNI DEL for a namespace left behind.
    const netnsPath = join(dir, args.containerId);
    await writeFile(netnsPath, "");
    await run("unshare", [`--net=${netnsPath}`, "true"]).catch(async (err: unknown) => {
      await rm(netnsPath, { force: true });
      throw err;
    });
    const conflist = this.conflist;
    for (const p of conflist.plugins) if (p.type === "bridge" && typeof p.bridge === "string") this.usedBridges.add(p.bridge);
    const results: unknown[] = [];
    const network: SandboxNetwork = { netnsPath, ip: "", additionalIps: [], gateway: "", teardown: { conflist, results, args, portMappings } };
    try {
      await runPlugin(this.binDir, "ADD", { cniVersion, name: "cni-loopback", type: "loopback" }, args, netnsPath, "lo");
      let prev: unknown;
      for (const plugin of conflist.plugins) {
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
   * Deletes the runtime's bridges (of every conflist it used), once no sandbox needs them: the
   * runtime's state dir (and so its bridge) is its own, and a bridge left behind would keep its
   * subnet's route on the host. Never throws.
   */
  async removeBridges(): Promise<void> {
    await deleteBridges(this.usedBridges);
  }

  private readonly usedBridges = new Set<string>();

  /** Notes the bridge of a network recovered from a previous run, so that shutdown deletes it too. */
  noteInUse(network: SandboxNetwork): void {
    this.noteBridges(network.teardown.conflist);
  }

  private noteBridges(conflist: CNIConfList): void {
    for (const b of bridgesOf(conflist)) this.usedBridges.add(b);
  }

  /**
   * CNI DEL (the conflist in reverse order with the cached results, then loopback) and removes the
   * namespace. Idempotent; the first failure is thrown after every step ran.
   */
  async tearDown(network: SandboxNetwork): Promise<void> {
    const { conflist, results, args, portMappings } = network.teardown;
    const last = results[results.length - 1];
    let first: unknown;
    for (const plugin of [...conflist.plugins].reverse()) {
      await runPlugin(this.binDir, "DEL", pluginConfig(conflist, plugin, last, portMappings), args, network.netnsPath, "eth0").catch((err: unknown) => (first ??= err));
    }
    await runPlugin(this.binDir, "DEL", { cniVersion, name: "cni-loopback", type: "loopback" }, args, network.netnsPath, "lo").catch(() => undefined);
    await unmountNetns(network.netnsPath);
    if (first !== undefined) throw first;
  }
}
