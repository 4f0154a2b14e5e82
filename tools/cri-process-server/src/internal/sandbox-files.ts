import { chmod, copyFile, mkdir, writeFile } from "node:fs/promises";
import { hostname as osHostname } from "node:os";
import { join } from "node:path";
import type { Mount, PodSandboxConfig__Output } from "@skiff/cri-api";

/** The files a sandbox shares with its containers, under its directory. */
export interface SandboxFiles {
  hostname: string;
  hosts: string;
  resolvConf: string;
  /** The pod's /dev/shm (a directory shared by the pod's containers). */
  shm: string;
}

/**
 * The resolv.conf text of a CRI DNSConfig, as containerd writes it: `search`, `nameserver` and
 * `options` lines, each only when non-empty; `""` when all are empty.
 * @see containerd pkg/cri/server/sandbox_run_linux.go (parseDNSOptions), containerd v1.6
 */
export function resolvConfContent(dns: PodSandboxConfig__Output["dnsConfig"]): string {
  if (!dns) return "";
  let out = "";
  if (dns.searches.length > 0) out += `search ${dns.searches.join(" ")}\n`;
  if (dns.servers.length > 0) out += `nameserver ${dns.servers.join("\nnameserver ")}\n`;
  if (dns.options.length > 0) out += `options ${dns.options.join(" ")}\n`;
  return out;
}

/**
 * Writes a sandbox's files as containerd's setupSandboxFiles does: `hostname` (the config's, else
 * the host's, plus a newline), `hosts` (a copy of the host's /etc/hosts), `resolv.conf` (from the
 * DNS config, else a copy of the host's /etc/resolv.conf) and the `shm` directory.
 * @throws Error when a file cannot be written or a host file copied.
 * @see containerd pkg/cri/server/sandbox_run_linux.go (setupSandboxFiles), containerd v1.6
 */
export async function writeSandboxFiles(dir: string, config: PodSandboxConfig__Output, host: { hosts: string; resolvConf: string } = { hosts: "/etc/hosts", resolvConf: "/etc/resolv.conf" }): Promise<SandboxFiles> {
  const files: SandboxFiles = { hostname: join(dir, "hostname"), hosts: join(dir, "hosts"), resolvConf: join(dir, "resolv.conf"), shm: join(dir, "shm") };
  await writeFile(files.hostname, `${config.hostname || osHostname()}\n`, { mode: 0o644 });
  await copyFile(host.hosts, files.hosts);
  const resolv = resolvConfContent(config.dnsConfig);
  if (resolv === "") await copyFile(host.resolvConf, files.resolvConf);
  else await writeFile(files.resolvConf, resolv, { mode: 0o644 });
  await mkdir(files.shm, { recursive: true });
  await chmod(files.shm, 0o1777);
  return files;
}

/**
 * The mounts a runtime adds to a container besides the CRI ones, as containerd's containerMounts:
 * /etc/hostname, /etc/hosts, /etc/resolv.conf from the sandbox and the pod's /dev/shm, each unless
 * the CRI config mounts that path already.
 * @see containerd pkg/cri/server/container_create_linux.go (containerMounts), containerd v1.6
 */
export function sandboxMounts(files: SandboxFiles, criMounts: readonly Mount[], readonlyRootfs: boolean): Array<{ containerPath: string; hostPath: string; readonly: boolean }> {
  const taken = new Set(criMounts.map((m) => m.containerPath));
  const out: Array<{ containerPath: string; hostPath: string; readonly: boolean }> = [];
  for (const [containerPath, hostPath] of [["/etc/hostname", files.hostname], ["/etc/hosts", files.hosts], ["/etc/resolv.conf", files.resolvConf]] as const) {
    if (!taken.has(containerPath)) out.push({ containerPath, hostPath, readonly: readonlyRootfs });
  }
  if (!taken.has("/dev/shm")) out.push({ containerPath: "/dev/shm", hostPath: files.shm, readonly: false });
  return out;
}
