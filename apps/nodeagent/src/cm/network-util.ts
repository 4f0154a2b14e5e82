import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { join } from "node:path";

/** The iptables tables the node agent touches. */
export type IPTablesTable = "nat" | "filter" | "mangle";

/**
 * The few iptables operations the node agent needs (1.23's `utiliptables.Interface` subset),
 * idempotent as upstream's: `ensureChain` creates a chain unless it exists, `ensureRule` adds a rule
 * unless `-C` finds it (appended, or inserted first with `prepend`).
 */
export interface IPTables {
  /** `"IPv4"` (iptables) or `"IPv6"` (ip6tables). */
  readonly protocol: "IPv4" | "IPv6";
  ensureChain(table: IPTablesTable, chain: string): Promise<void>;
  ensureRule(position: "append" | "prepend", table: IPTablesTable, chain: string, args: readonly string[]): Promise<void>;
  chainExists(table: IPTablesTable, chain: string): Promise<boolean>;
  /** Whether MASQUERADE takes `--random-fully` (iptables ≥ 1.6.2). */
  hasRandomFully(): Promise<boolean>;
}

/** The chains of 1.23's `syncNetworkUtil`. @see pkg/kubelet/kubelet_network_linux.go in kubernetes/kubernetes v1.23 */
export const kubeChains = Object.freeze({
  markMasq: "KUBE-MARK-MASQ",
  markDrop: "KUBE-MARK-DROP",
  postrouting: "KUBE-POSTROUTING",
  firewall: "KUBE-FIREWALL",
  hint: "KUBE-IPTABLES-HINT",
  canary: "KUBE-KUBELET-CANARY",
});

/** The fwmark of `bit`, as Go's `%#08x` prints it (`0x008000` for bit 15). */
export function iptablesMark(bit: number): string {
  return `0x${(2 ** bit).toString(16).padStart(6, "0")}`;
}

function run(argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(argv[0] ?? "", argv.slice(1), { timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : 127;
      resolve({ code, stdout, stderr: stderr || (err?.message ?? "") });
    });
  });
}

/**
 * An {@link IPTables} over the `iptables`/`ip6tables` binaries (with `-w`, waiting for the xtables
 * lock), run after `prefix` (e.g. `["ip", "netns", "exec", "<ns>"]` in tests).
 * @throws Error (from its methods) with the command's stderr when a command fails.
 */
export function execIPTables(protocol: "IPv4" | "IPv6", prefix: readonly string[] = []): IPTables {
  const bin = protocol === "IPv4" ? "iptables" : "ip6tables";
  const cmd = (args: readonly string[]) => run([...prefix, bin, "-w", ...args]);
  return {
    protocol,
    async chainExists(table, chain) {
      return (await cmd(["-t", table, "-S", chain])).code === 0;
    },
    async ensureChain(table, chain) {
      const r = await cmd(["-t", table, "-N", chain]);
      if (r.code !== 0 && !/exists/i.test(r.stderr)) throw new Error(`error creating chain "${chain}": ${r.stderr.trim()}`);
    },
    async ensureRule(position, table, chain, args) {
      if ((await cmd(["-t", table, "-C", chain, ...args])).code === 0) return;
      const r = await cmd(["-t", table, position === "append" ? "-A" : "-I", chain, ...args]);
      if (r.code !== 0) throw new Error(`error appending rule: ${r.stderr.trim()}`);
    },
    async hasRandomFully() {
      const m = /v(\d+)\.(\d+)\.(\d+)/.exec((await cmd(["--version"])).stdout);
      if (!m) return false;
      const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
      return major > 1 || (major === 1 && (minor > 6 || (minor === 6 && patch >= 2)));
    },
  };
}

/**
 * Ensures the node's iptables utility chains, as 1.23's `syncNetworkUtil`: KUBE-MARK-DROP (nat,
 * `--or-mark` of `--iptables-drop-bit`), KUBE-FIREWALL (filter: drop packets with that mark; for
 * IPv4 also non-local packets to 127.0.0.0/8 not part of a forwarded connection) jumped to first
 * from INPUT and OUTPUT, KUBE-MARK-MASQ (nat, `--or-mark` of `--iptables-masquerade-bit`),
 * KUBE-POSTROUTING (return unless marked, clear the mark, MASQUERADE, `--random-fully` when
 * supported) jumped to first from POSTROUTING, and the KUBE-IPTABLES-HINT chain in mangle.
 * @returns true when every rule is in place; false after logging the first failure (as upstream).
 * @see pkg/kubelet/kubelet_network_linux.go (syncNetworkUtil) in kubernetes/kubernetes v1.23
 */
export async function syncNetworkUtil(ipt: IPTables, dropBit: number, masqueradeBit: number, log: (message: string) => void): Promise<boolean> {
  const dropMark = iptablesMark(dropBit);
  const masqMark = iptablesMark(masqueradeBit);
  const steps: Array<[string, () => Promise<void>]> = [
    ["Failed to ensure that KUBE-MARK-DROP chain exists", () => ipt.ensureChain("nat", kubeChains.markDrop)],
    ["Failed to ensure that KUBE-MARK-DROP rule exists", () => ipt.ensureRule("append", "nat", kubeChains.markDrop, ["-j", "MARK", "--or-mark", dropMark])],
    ["Failed to ensure that KUBE-FIREWALL chain exists", () => ipt.ensureChain("filter", kubeChains.firewall)],
    [
      "Failed to ensure that KUBE-FIREWALL rule exists",
      () => ipt.ensureRule("append", "filter", kubeChains.firewall, ["-m", "comment", "--comment", "kubernetes firewall for dropping marked packets", "-m", "mark", "--mark", `${dropMark}/${dropMark}`, "-j", "DROP"]),
    ],
  ];
  if (ipt.protocol === "IPv4") {
    steps.push([
      "Failed to ensure rule to drop invalid localhost packets exists",
      () =>
        ipt.ensureRule("append", "filter", kubeChains.firewall, [
          "-m", "comment", "--comment", "block incoming localnet connections",
          "--dst", "127.0.0.0/8", "!", "--src", "127.0.0.0/8",
          "-m", "conntrack", "!", "--ctstate", "RELATED,ESTABLISHED,DNAT",
          "-j", "DROP",
        ]),
    ]);
  }
  steps.push(
    ["Failed to ensure that OUTPUT chain jumps to KUBE-FIREWALL", () => ipt.ensureRule("prepend", "filter", "OUTPUT", ["-j", kubeChains.firewall])],
    ["Failed to ensure that INPUT chain jumps to KUBE-FIREWALL", () => ipt.ensureRule("prepend", "filter", "INPUT", ["-j", kubeChains.firewall])],
    ["Failed to ensure that KUBE-MARK-MASQ chain exists", () => ipt.ensureChain("nat", kubeChains.markMasq)],
    ["Failed to ensure that KUBE-POSTROUTING chain exists", () => ipt.ensureChain("nat", kubeChains.postrouting)],
    ["Failed to ensure that KUBE-MARK-MASQ rule exists", () => ipt.ensureRule("append", "nat", kubeChains.markMasq, ["-j", "MARK", "--or-mark", masqMark])],
    [
      "Failed to ensure that POSTROUTING chain jumps to KUBE-POSTROUTING",
      () => ipt.ensureRule("prepend", "nat", "POSTROUTING", ["-m", "comment", "--comment", "kubernetes postrouting rules", "-j", kubeChains.postrouting]),
    ],
    ["Failed to ensure first masquerading rule exists", () => ipt.ensureRule("append", "nat", kubeChains.postrouting, ["-m", "mark", "!", "--mark", `${masqMark}/${masqMark}`, "-j", "RETURN"])],
    ["Failed to ensure second masquerading rule exists", () => ipt.ensureRule("append", "nat", kubeChains.postrouting, ["-j", "MARK", "--xor-mark", masqMark])],
    [
      "Failed to ensure third masquerading rule exists",
      async () => {
        const rule = ["-m", "comment", "--comment", "kubernetes service traffic requiring SNAT", "-j", "MASQUERADE"];
        if (await ipt.hasRandomFully()) rule.push("--random-fully");
        await ipt.ensureRule("append", "nat", kubeChains.postrouting, rule);
      },
    ],
    ["Failed to ensure that iptables hint chain exists", () => ipt.ensureChain("mangle", kubeChains.hint)],
  );
  for (const [failure, step] of steps) {
    try {
      await step();
    } catch (err) {
      log(`${failure} err=${JSON.stringify(err instanceof Error ? err.message : String(err))}`);
      return false;
    }
  }
  return true;
}

/** The canary tables of 1.23's iptables `Monitor`. */
const canaryTables: readonly IPTablesTable[] = ["mangle", "nat", "filter"];

/**
 * One turn of 1.23's iptables `Monitor`: when a KUBE-KUBELET-CANARY chain is gone from mangle, nat
 * or filter (someone flushed the tables, e.g. a firewall restart), the canaries are made again and
 * the rules re-synced; on the first turn (`first`) the canaries are just made.
 * @returns whether a re-sync ran. Never throws (failures are logged).
 * @see pkg/util/iptables/iptables.go (Monitor) in kubernetes/kubernetes v1.23
 */
export async function monitorTurn(ipt: IPTables, first: boolean, resync: () => Promise<unknown>, log: (message: string) => void): Promise<boolean> {
  try {
    let missing = first;
    if (!first) for (const t of canaryTables) if (!(await ipt.chainExists(t, kubeChains.canary))) missing = true;
    if (!missing) return false;
    for (const t of canaryTables) await ipt.ensureChain(t, kubeChains.canary);
    if (first) return false;
    log(`iptables canary deleted, reloading rules protocol=${JSON.stringify(ipt.protocol)}`);
    await resync();
    return true;
  } catch (err) {
    log(`Could not set up iptables canary err=${JSON.stringify(err instanceof Error ? err.message : String(err))}`);
    return false;
  }
}

/**
 * Why the node agent cannot manage the node's iptables rules here, or undefined when it can: it
 * must run as root (uid 0) and find the `iptables` binary on `path`. The agent then skips
 * `--make-iptables-util-chains` with this reason in its log instead of failing rule by rule.
 * Pure apart from the `PATH` lookup.
 */
export function networkUtilUnavailable(uid: number | undefined, path = process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin"): string | undefined {
  if (uid !== 0) return "the node agent is not running as root, so it does not manage the node's iptables rules";
  const found = path.split(":").some((dir) => {
    if (dir === "") return false;
    try {
      accessSync(join(dir, "iptables"), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  if (!found) return "the iptables binary was not found on PATH (Debian/Ubuntu: apt-get install -y iptables)";
  return undefined;
}

/**
 * 1.23's `initNetworkUtil` with `--make-iptables-util-chains`: syncs the rules for IPv4 and IPv6,
 * logs `Initialized iptables rules.` or `Failed to initialize iptables rules; some functionality may
 * be missing.` per protocol, then watches the canaries every `periodMs` (1 minute) and re-syncs
 * after a flush. Returns a function that stops the watching. Never throws.
 * @see pkg/kubelet/kubelet_network_linux.go (initNetworkUtil) in kubernetes/kubernetes v1.23
 */
export async function initNetworkUtil(
  clients: readonly IPTables[],
  bits: { readonly dropBit: number; readonly masqueradeBit: number },
  log: (message: string) => void,
  periodMs = 60_000,
): Promise<() => void> {
  const timers: NodeJS.Timeout[] = [];
  for (const ipt of clients) {
    const sync = () => syncNetworkUtil(ipt, bits.dropBit, bits.masqueradeBit, log);
    if (await sync()) {
      log(`Initialized iptables rules. protocol=${JSON.stringify(ipt.protocol)}`);
      await monitorTurn(ipt, true, sync, log);
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        void monitorTurn(ipt, false, sync, log).finally(() => (busy = false));
      }, periodMs);
      timer.unref();
      timers.push(timer);
    } else {
      log(`Failed to initialize iptables rules; some functionality may be missing. protocol=${JSON.stringify(ipt.protocol)}`);
    }
  }
  return () => {
    for (const t of timers) clearInterval(t);
  };
}

/**
 * `--hairpin-mode` for a CRI runtime, as 1.23's `effectiveHairpinMode`: `promiscuous-bridge` only
 * works with dockershim's kubenet, so it falls back to `hairpin-veth` (with 1.23's log line); the
 * runtime's CNI configuration decides the veths' hairpin flag, so the mode changes nothing else.
 * @see pkg/kubelet/kubelet.go (effectiveHairpinMode) in kubernetes/kubernetes v1.23
 */
export function effectiveHairpinMode(mode: string, log: (message: string) => void): string {
  if (mode === "promiscuous-bridge") {
    log('Hairpin mode is set but kubenet is not enabled, falling back to HairpinVeth hairpinMode="promiscuous-bridge"');
    return "hairpin-veth";
  }
  return mode;
}
