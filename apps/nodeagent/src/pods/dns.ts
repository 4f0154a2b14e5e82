import { readFileSync } from "node:fs";
import { isIPv6 } from "node:net";
import type { Pod, PodDNSConfig, PodSpec } from "@skiff/api-types";
import type { DNSConfig } from "@skiff/cri-api";

/** The pod spec fields DNS and hosts forming read. */
export type PodNetworkSpec = PodSpec;

/** The pod's spec (an empty one when absent). */
export function networkSpecOf(pod: Pod): PodSpec {
  return pod.spec ?? { containers: [] };
}

/** The legacy search-path limits (validation.MaxDNSSearchPathsLegacy / MaxDNSSearchListCharsLegacy). */
export const maxDNSSearchPathsLegacy = 6;
export const maxDNSSearchListCharsLegacy = 256;
/** The limits with the ExpandedDNSConfig gate (validation.MaxDNSSearchPathsExpanded / ...CharsExpanded). */
export const maxDNSSearchPathsExpanded = 32;
export const maxDNSSearchListCharsExpanded = 2048;
/** validation.MaxDNSNameservers. */
export const maxDNSNameservers = 3;
/** A search path longer than this (utilvalidation.DNS1123SubdomainMaxLength) is dropped. */
const dns1123SubdomainMaxLength = 253;
const maxResolvConfBytes = 10 * 1024 * 1024;
const defaultDNSOptions = ["ndots:5"];

/** The parsed lines of a resolv.conf; `errors` lists malformed lines (`nameserver list is empty `). */
export interface ResolvConf {
  readonly nameservers: string[];
  readonly searches: string[];
  readonly options: string[];
  readonly errors: string[];
}

/**
 * Parses resolv.conf text as the kubelet does: `nameserver` lines accumulate, the last `search` and
 * the last `options` line win, search entries lose one trailing dot, `#` comment lines are skipped.
 * Pure.
 * @see pkg/kubelet/network/dns/dns.go (parseResolvConf) in kubernetes/kubernetes v1.23
 */
export function parseResolvConf(text: string): ResolvConf {
  const nameservers: string[] = [];
  let searches: string[] = [];
  let options: string[] = [];
  const errors: string[] = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("#")) continue;
    const fields = trimmed.split(/\s+/).filter((f) => f !== "");
    if (fields.length === 0) continue;
    if (fields[0] === "nameserver") {
      if (fields[1] !== undefined) nameservers.push(fields[1]);
      else errors.push("nameserver list is empty ");
    }
    if (fields[0] === "search") searches = fields.slice(1).map((s) => (s.endsWith(".") ? s.slice(0, -1) : s));
    if (fields[0] === "options") options = fields.slice(1);
  }
  return { nameservers, searches, options, errors };
}

/**
 * The resolv.conf text a runtime writes for a CRI DNSConfig, as containerd does: a `search` line,
 * one `nameserver` line per server, an `options` line, each only when non-empty; `""` when all are
 * empty (containerd then copies the host's /etc/resolv.conf). Pure.
 * @see containerd pkg/cri/server/sandbox_run_linux.go (parseDNSOptions), containerd v1.6
 */
export function formatResolvConf(dns: { servers?: readonly string[]; searches?: readonly string[]; options?: readonly string[] }): string {
  let out = "";
  if (dns.searches && dns.searches.length > 0) out += `search ${dns.searches.join(" ")}\n`;
  if (dns.servers && dns.servers.length > 0) out += `nameserver ${dns.servers.join("\nnameserver ")}\n`;
  if (dns.options && dns.options.length > 0) out += `options ${dns.options.join(" ")}\n`;
  return out;
}

function omitDuplicates(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/**
 * Merges `dnsConfig.options` into existing `name[:value]` options; a pod option replaces the one of
 * the same name. Order: existing names first, then new ones. Pure.
 * @see pkg/kubelet/network/dns/dns.go (mergeDNSOptions) in kubernetes/kubernetes v1.23
 */
export function mergeDNSOptions(existing: readonly string[], podOptions: PodDNSConfig["options"]): string[] {
  const merged = new Map<string, string>();
  for (const op of existing) {
    const i = op.indexOf(":");
    if (i === -1) merged.set(op, "");
    else merged.set(op.slice(0, i), op.slice(i + 1));
  }
  for (const op of podOptions ?? []) merged.set(op.name ?? "", op.value ?? "");
  return [...merged].map(([name, value]) => (value !== "" ? `${name}:${value}` : name));
}

/** What {@link DNSConfigurer} needs. */
export interface DNSConfigurerOptions {
  /** `--cluster-dns`: IPs of the cluster DNS servers; empty = none configured. */
  readonly clusterDNS: readonly string[];
  /** `--cluster-domain`; `""` = none. */
  readonly clusterDomain: string;
  /** `--resolv-conf`: the base resolver file; `""` disables the host's DNS settings. */
  readonly resolvConf: string;
  /** The node's IPs (`--node-ip`), for the localhost nameserver when `resolvConf` is `""`. */
  readonly nodeIPs?: readonly string[];
  /** The ExpandedDNSConfig gate: 32 search paths / 2048 characters instead of 6 / 256. @defaultValue false */
  readonly expandedDNSConfig?: boolean;
  /** Warning events on the pod (`DNSConfigForming`, `MissingClusterDNS`). @defaultValue discards */
  readonly onEvent?: (pod: Pod, type: "Warning", reason: string, message: string) => void;
  /** Node-level messages (the kubelet's events on the node object). @defaultValue discards */
  readonly log?: (message: string) => void;
  /** Reads the resolver file (tests). @defaultValue fs.readFileSync as UTF-8, at most 10 MiB */
  readonly readFile?: (path: string) => string;
}

function readResolvConfFile(path: string): string {
  const text = readFileSync(path);
  return text.subarray(0, maxResolvConfBytes).toString("utf8");
}

function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push("must be no more than 63 characters");
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(value)) {
    errs.push("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  }
  return errs;
}

/** A pod's host name and DNS domain (`<subdomain>.<namespace>.svc.<cluster domain>`, or `""`). */
export interface PodHostNameAndDomain {
  readonly hostname: string;
  readonly domain: string;
}

/**
 * Forms each pod's DNS configuration and host name from the node agent's `--cluster-dns`,
 * `--cluster-domain` and `--resolv-conf`, as the kubelet's DNS configurer.
 * @see pkg/kubelet/network/dns/dns.go (Configurer) in kubernetes/kubernetes v1.23
 * @example
 * ```ts
 * const dns = new DNSConfigurer({ clusterDNS: ["10.96.0.10"], clusterDomain: "cluster.local", resolvConf: "/etc/resolv.conf" });
 * dns.getPodDNS(pod); // { servers: ["10.96.0.10"], searches: ["default.svc.cluster.local", ...], options: ["ndots:5"] }
 * ```
 */
export class DNSConfigurer {
  constructor(private readonly o: DNSConfigurerOptions) {}

  /** `--cluster-domain`. */
  get clusterDomain(): string {
    return this.o.clusterDomain;
  }

  private limits(): { paths: number; chars: number } {
    return this.o.expandedDNSConfig === true ? { paths: maxDNSSearchPathsExpanded, chars: maxDNSSearchListCharsExpanded } : { paths: maxDNSSearchPathsLegacy, chars: maxDNSSearchListCharsLegacy };
  }

  /**
   * Cuts a search list to the limits: at most 6 paths (32 with ExpandedDNSConfig), none longer than
   * 253 characters, the joined line at most 256 characters (2048), dropping from the end; emits a
   * `DNSConfigForming` warning when anything was cut. Does not mutate `search`.
   * @see pkg/kubelet/network/dns/dns.go (formDNSSearchFitsLimits) in kubernetes/kubernetes v1.23
   */
  formDNSSearchFitsLimits(search: readonly string[], pod: Pod): string[] {
    const { paths, chars } = this.limits();
    let exceeded = false;
    let composed = [...search];
    if (composed.length > paths) {
      composed = composed.slice(0, paths);
      exceeded = true;
    }
    const fitting = composed.filter((s) => s.length <= dns1123SubdomainMaxLength);
    if (fitting.length !== composed.length) exceeded = true;
    composed = fitting;
    const lineLength = composed.join(" ").length;
    if (lineLength > chars) {
      let cutNum = 0;
      let cutLen = 0;
      for (let i = composed.length - 1; i >= 0; i--) {
        cutLen += (composed[i] ?? "").length + 1;
        cutNum++;
        if (lineLength - cutLen <= chars) break;
      }
      composed = composed.slice(0, composed.length - cutNum);
      exceeded = true;
    }
    if (exceeded) {
      this.o.onEvent?.(pod, "Warning", "DNSConfigForming", `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${composed.join(" ")}`);
    }
    return composed;
  }

  /**
   * Keeps the first 3 nameservers; emits a `DNSConfigForming` warning when more were given.
   * @see pkg/kubelet/network/dns/dns.go (formDNSNameserversFitsLimits) in kubernetes/kubernetes v1.23
   */
  formDNSNameserversFitsLimits(nameservers: readonly string[], pod: Pod): string[] {
    if (nameservers.length <= maxDNSNameservers) return [...nameservers];
    const kept = nameservers.slice(0, maxDNSNameservers);
    this.o.onEvent?.(pod, "Warning", "DNSConfigForming", `Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: ${kept.join(" ")}`);
    return kept;
  }

  /**
   * Checks the `--resolv-conf` file against the search limits (3 paths fewer with a cluster domain)
   * and returns the kubelet's `CheckLimitsForResolvConf` warning, or undefined when it fits or no
   * file is configured.
   * @see pkg/kubelet/network/dns/dns.go (CheckLimitsForResolvConf) in kubernetes/kubernetes v1.23
   */
  checkLimitsForResolvConf(): string | undefined {
    const path = this.o.resolvConf;
    if (path === "") return undefined;
    let parsed: ResolvConf;
    try {
      parsed = parseResolvConf((this.o.readFile ?? readResolvConfFile)(path));
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    if (parsed.errors.length > 0) return parsed.errors.join(", ");
    const { paths, chars } = this.limits();
    const domainCountLimit = this.o.clusterDomain !== "" ? paths - 3 : paths;
    if (parsed.searches.length > domainCountLimit) return `Resolv.conf file '${path}' contains search line consisting of more than ${domainCountLimit} domains!`;
    if (parsed.searches.some((s) => s.length > dns1123SubdomainMaxLength)) {
      return `Resolv.conf file ${JSON.stringify(path)} contains a search path which length is more than allowed ${dns1123SubdomainMaxLength} chars!`;
    }
    if (parsed.searches.join(" ").length > chars) return `Resolv.conf file '${path}' contains search line which length is more than allowed ${chars} chars!`;
    return undefined;
  }

  private hostDNSConfig(): { servers: string[]; searches: string[]; options: string[] } {
    if (this.o.resolvConf === "") return { servers: [], searches: [], options: [] };
    const text = (this.o.readFile ?? readResolvConfFile)(this.o.resolvConf);
    const parsed = parseResolvConf(text);
    if (parsed.errors.length > 0) throw new DNSConfigError(parsed.errors.length === 1 ? (parsed.errors[0] ?? "") : `[${parsed.errors.join(", ")}]`);
    return { servers: parsed.nameservers, searches: parsed.searches, options: parsed.options };
  }

  /**
   * The CRI DNS configuration of `pod` by `dnsPolicy`: `ClusterFirst` (not host network) and
   * `ClusterFirstWithHostNet` → the cluster DNS servers only, search
   * `<ns>.svc.<domain> svc.<domain> <domain>` + the base file's searches, `ndots:5`; without
   * `--cluster-dns` they fall back to `Default` with a `MissingClusterDNS` warning. `Default` (and
   * `ClusterFirst` on the host network) → the `--resolv-conf` file; with `--resolv-conf=""`,
   * `127.0.0.1` (`::1` per IPv6 node IP) and search `.`. `None` → empty. `spec.dnsConfig` is then
   * appended (duplicates dropped, options merged by name) and the result cut to the limits.
   * @throws DNSConfigError when the resolver file cannot be read or has an empty `nameserver` line.
   * @see pkg/kubelet/network/dns/dns.go (GetPodDNS) in kubernetes/kubernetes v1.23
   */
  getPodDNS(pod: Pod): DNSConfig & { servers: string[]; searches: string[]; options: string[] } {
    let dns: { servers: string[]; searches: string[]; options: string[] };
    try {
      dns = this.hostDNSConfig();
    } catch (err) {
      if (err instanceof DNSConfigError) throw err;
      throw new DNSConfigError(err instanceof Error ? err.message : String(err), { cause: err });
    }
    const spec = networkSpecOf(pod);
    let type = podDNSType(spec);
    if (type === "invalid") {
      this.o.log?.(`Failed to get DNS type for pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}: invalid DNSPolicy=${spec.dnsPolicy ?? ""}. Falling back to DNSClusterFirst policy.`);
      type = "cluster";
    }
    if (type === "none") dns = { servers: [], searches: [], options: [] };
    if (type === "cluster") {
      if (this.o.clusterDNS.length > 0) {
        dns.servers = [...this.o.clusterDNS];
        dns.searches = this.searchesForClusterFirst(dns.searches, pod);
        dns.options = [...defaultDNSOptions];
      } else {
        const nodeMessage = `kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.`;
        this.o.log?.(nodeMessage);
        this.o.onEvent?.(pod, "Warning", "MissingClusterDNS", `pod: "${pod.metadata?.name ?? ""}_${pod.metadata?.namespace ?? ""}(${pod.metadata?.uid ?? ""})". ${nodeMessage}`);
        type = "host";
      }
    }
    if (type === "host" && this.o.resolvConf === "") {
      for (const ip of this.o.nodeIPs ?? []) dns.servers.push(isIPv6(ip) ? "::1" : "127.0.0.1");
      if (dns.servers.length === 0) dns.servers.push("127.0.0.1");
      dns.searches = ["."];
    }
    if (spec.dnsConfig) {
      dns.servers = omitDuplicates([...dns.servers, ...(spec.dnsConfig.nameservers ?? [])]);
      dns.searches = omitDuplicates([...dns.searches, ...(spec.dnsConfig.searches ?? [])]);
      dns.options = mergeDNSOptions(dns.options, spec.dnsConfig.options);
    }
    dns.servers = this.formDNSNameserversFitsLimits(dns.servers, pod);
    dns.searches = this.formDNSSearchFitsLimits(dns.searches, pod);
    return dns;
  }

  private searchesForClusterFirst(hostSearch: readonly string[], pod: Pod): string[] {
    const domain = this.o.clusterDomain;
    if (domain === "") return [...hostSearch];
    return omitDuplicates([`${pod.metadata?.namespace ?? ""}.svc.${domain}`, `svc.${domain}`, domain, ...hostSearch]);
  }

  /**
   * The pod's host name (`spec.hostname`, else the pod name, cut to 63 characters without a
   * trailing `-` or `.`) and domain (`<subdomain>.<namespace>.svc.<cluster domain>` when
   * `spec.subdomain` is set, else `""`).
   * @throws DNSConfigError when `spec.hostname` or `spec.subdomain` is not a DNS-1123 label.
   * @see pkg/kubelet/kubelet_pods.go (GeneratePodHostNameAndDomain, truncatePodHostnameIfNeeded) in kubernetes/kubernetes v1.23
   */
  generatePodHostNameAndDomain(pod: Pod): PodHostNameAndDomain {
    const spec = networkSpecOf(pod);
    const podName = pod.metadata?.name ?? "";
    let hostname = podName;
    if (spec.hostname !== undefined && spec.hostname !== "") {
      const msgs = isDNS1123Label(spec.hostname);
      if (msgs.length > 0) throw new DNSConfigError(`pod Hostname ${JSON.stringify(spec.hostname)} is not a valid DNS label: ${msgs.join(";")}`);
      hostname = spec.hostname;
    }
    if (hostname.length > 63) {
      const truncated = hostname.slice(0, 63).replace(/[-.]+$/, "");
      if (truncated === "") throw new DNSConfigError(`hostname for pod ${JSON.stringify(podName)} was invalid: ${JSON.stringify(hostname)}`);
      this.o.log?.(`Hostname for pod ${podName} was too long, truncated it to ${truncated}`);
      hostname = truncated;
    }
    let domain = "";
    if (spec.subdomain !== undefined && spec.subdomain !== "") {
      const msgs = isDNS1123Label(spec.subdomain);
      if (msgs.length > 0) throw new DNSConfigError(`pod Subdomain ${JSON.stringify(spec.subdomain)} is not a valid DNS label: ${msgs.join(";")}`);
      domain = `${spec.subdomain}.${pod.metadata?.namespace ?? ""}.svc.${this.o.clusterDomain}`;
    }
    return { hostname, domain };
  }
}

/**
 * The kernel host name (UTS nodename) of a pod: the host name, or `<hostname>.<domain>` with
 * `setHostnameAsFQDN` and a domain. Pure.
 * @throws DNSConfigError when that FQDN is longer than 64 characters.
 * @see pkg/kubelet/util/util.go (GetNodenameForKernel) in kubernetes/kubernetes v1.23
 */
export function nodenameForKernel(hostname: string, domain: string, setHostnameAsFQDN: boolean | undefined): string {
  if (domain === "" || setHostnameAsFQDN !== true) return hostname;
  const fqdn = `${hostname}.${domain}`;
  if (fqdn.length > 64) {
    throw new DNSConfigError(`failed to construct FQDN from pod hostname and cluster domain, FQDN ${fqdn} is too long (64 characters is the max, ${fqdn.length} characters requested)`);
  }
  return fqdn;
}

function podDNSType(spec: PodNetworkSpec): "cluster" | "host" | "none" | "invalid" {
  switch (spec.dnsPolicy ?? "ClusterFirst") {
    case "None":
      return "none";
    case "ClusterFirstWithHostNet":
      return "cluster";
    case "ClusterFirst":
      return spec.hostNetwork === true ? "host" : "cluster";
    case "Default":
      return "host";
    default:
      return "invalid";
  }
}

/** The pod's DNS or host name cannot be formed; the sandbox is not created. `reason` is stable. */
export class DNSConfigError extends Error {
  override readonly name = "DNSConfigError";
  readonly reason = "DNSConfigError";
}
