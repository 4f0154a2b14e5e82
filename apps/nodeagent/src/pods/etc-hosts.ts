import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Container, HostAlias, Pod } from "@skiff/api-types";
import type { Mount } from "@skiff/cri-api";
import { networkSpecOf } from "./dns.js";

/** The first line of a managed hosts file. */
export const managedHostsHeader = "# Kubernetes-managed hosts file.\n";
/** The first line of a host-network pod's hosts file (the node's file follows). */
export const managedHostsHeaderWithHostNetwork = "# Kubernetes-managed hosts file (host network).\n";
const etcHostsPath = "/etc/hosts";

/**
 * The `# Entries added by HostAliases.` section: a blank line, the comment, one `<ip>\t<names...>`
 * line per alias (names tab-separated); `""` without aliases. Pure.
 * @see pkg/kubelet/kubelet_pods.go (hostsEntriesFromHostAliases) in kubernetes/kubernetes v1.23
 */
export function hostsEntriesFromHostAliases(hostAliases: readonly HostAlias[] | undefined): string {
  if (!hostAliases || hostAliases.length === 0) return "";
  let out = "\n# Entries added by HostAliases.\n";
  for (const a of hostAliases) out += `${a.ip ?? ""}\t${(a.hostnames ?? []).join("\t")}\n`;
  return out;
}

/**
 * A pod's managed /etc/hosts: the header, the localhost and IPv6 lines, one line per pod IP
 * (`<ip>\t<hostname>.<domain>\t<hostname>` with a domain, else `<ip>\t<hostname>`), then the host
 * aliases. Pure.
 * @see pkg/kubelet/kubelet_pods.go (managedHostsFileContent) in kubernetes/kubernetes v1.23
 */
export function managedHostsFileContent(podIPs: readonly string[], hostname: string, domain: string, hostAliases?: readonly HostAlias[]): string {
  let out = managedHostsHeader;
  out += "127.0.0.1\tlocalhost\n";
  out += "::1\tlocalhost ip6-localhost ip6-loopback\n";
  out += "fe00::0\tip6-localnet\n";
  out += "fe00::0\tip6-mcastprefix\n";
  out += "fe00::1\tip6-allnodes\n";
  out += "fe00::2\tip6-allrouters\n";
  for (const ip of podIPs) out += domain !== "" ? `${ip}\t${hostname}.${domain}\t${hostname}\n` : `${ip}\t${hostname}\n`;
  return out + hostsEntriesFromHostAliases(hostAliases);
}

/**
 * A host-network pod's /etc/hosts: the host-network header, the node's file as it is, the host
 * aliases. Pure.
 * @see pkg/kubelet/kubelet_pods.go (nodeHostsFileContent) in kubernetes/kubernetes v1.23
 */
export function nodeHostsFileContent(nodeHosts: string, hostAliases?: readonly HostAlias[]): string {
  return managedHostsHeaderWithHostNetwork + nodeHosts + hostsEntriesFromHostAliases(hostAliases);
}

/** What {@link etcHostsMount} needs about the pod. */
export interface EtcHostsInput {
  /** `<rootDir>/pods/<uid>`: the file is `<podDir>/etc-hosts`. */
  readonly podDir: string;
  /** The sandbox's IPs; none → no mount (the runtime's own file is used). */
  readonly podIPs: readonly string[];
  readonly hostname: string;
  readonly domain: string;
  /** The node's hosts file (host-network pods). @defaultValue /etc/hosts */
  readonly nodeHostsPath?: string;
}

/**
 * The `/etc/hosts` mount of one container, as the kubelet's makeMounts: none when the sandbox has no
 * IP yet (host-network sandboxes report none, so the runtime's copy of the node's file is used, as on
 * containerd) or when the container mounts a volume at /etc/hosts itself; otherwise writes
 * `<podDir>/etc-hosts` (0644; the managed content, or the node's file for host-network pods) and
 * returns its read-write bind mount. The file operations are asynchronous.
 * @throws Error (rejects) when the file cannot be written or the node's file read.
 * @see pkg/kubelet/kubelet_pods.go (makeMounts, makeHostsMount, ensureHostsFile) in kubernetes/kubernetes v1.23
 */
export async function etcHostsMount(pod: Pod, container: Container, input: EtcHostsInput): Promise<Mount | undefined> {
  if (input.podIPs.length === 0) return undefined;
  if ((container.volumeMounts ?? []).some((m) => m.mountPath === etcHostsPath)) return undefined;
  const spec = networkSpecOf(pod);
  const content =
    spec.hostNetwork === true
      ? nodeHostsFileContent(await readFile(input.nodeHostsPath ?? etcHostsPath, "utf8"), spec.hostAliases)
      : managedHostsFileContent(input.podIPs, input.hostname, input.domain, spec.hostAliases);
  await mkdir(input.podDir, { recursive: true });
  const hostPath = join(input.podDir, "etc-hosts");
  await writeFile(hostPath, content, { mode: 0o644 });
  return { containerPath: etcHostsPath, hostPath, readonly: false, selinuxRelabel: true };
}
