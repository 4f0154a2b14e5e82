import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Container, Pod } from "@skiff/api-types";
import type { DNSConfig, Mount } from "@skiff/cri-api";
import { networkSpecOf, nodenameForKernel, type DNSConfigurer } from "./dns.js";
import { etcHostsMount } from "./etc-hosts.js";
import type { RuntimeSandbox } from "./runtime-manager.js";

/** What {@link PodNetworkFiles} needs. */
export interface PodNetworkFilesOptions {
  /** `--root-dir`: pod files go under `<rootDir>/pods/<uid>/`. */
  readonly rootDir: string;
  readonly dns: DNSConfigurer;
  /** The node's hosts file, copied for host-network pods. @defaultValue /etc/hosts */
  readonly nodeHostsPath?: string;
}

/**
 * A pod's name-resolution files as the kubelet prepares them: the sandbox's host name and CRI DNS
 * configuration (the runtime writes resolv.conf from it), and each container's managed
 * `/etc/hosts` mount.
 * @see pkg/kubelet/kuberuntime/kuberuntime_sandbox.go (generatePodSandboxConfig),
 *   pkg/kubelet/kubelet_pods.go (makeMounts) in kubernetes/kubernetes v1.23
 */
export class PodNetworkFiles {
  constructor(private readonly o: PodNetworkFilesOptions) {}

  /**
   * The sandbox's kernel host name (`setHostnameAsFQDN` → the FQDN) and DNS configuration.
   * @throws DNSConfigError when the host name or DNS configuration cannot be formed.
   */
  sandboxNetwork(pod: Pod): { hostname: string; dnsConfig: DNSConfig } {
    const { hostname, domain } = this.o.dns.generatePodHostNameAndDomain(pod);
    const nodename = nodenameForKernel(hostname, domain, networkSpecOf(pod).setHostnameAsFQDN);
    return { hostname: nodename, dnsConfig: this.o.dns.getPodDNS(pod) };
  }

  /**
   * The kubelet-managed mounts of `container` beyond its volumes: `/etc/hosts` when the sandbox
   * has an IP and the container does not mount that path itself.
   * @throws DNSConfigError, or Error (rejects) when the hosts file cannot be written.
   */
  async mounts(pod: Pod, container: Container, sandbox: RuntimeSandbox): Promise<Mount[]> {
    const { hostname, domain } = this.o.dns.generatePodHostNameAndDomain(pod);
    const podDir = join(this.o.rootDir, "pods", pod.metadata?.uid ?? "");
    const hosts = await etcHostsMount(pod, container, {
      podDir,
      podIPs: sandbox.ip !== "" ? [sandbox.ip] : [],
      hostname,
      domain,
      ...(this.o.nodeHostsPath !== undefined ? { nodeHostsPath: this.o.nodeHostsPath } : {}),
    });
    return hosts ? [hosts] : [];
  }

  /** Removes the pod's managed hosts file. */
  tearDown(pod: Pod): void {
    rmSync(join(this.o.rootDir, "pods", pod.metadata?.uid ?? "", "etc-hosts"), { force: true });
  }
}
