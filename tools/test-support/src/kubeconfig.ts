import { writeFile } from "node:fs/promises";

/** What {@link writeKubeconfig} puts in the file: one cluster, one token user, one context. */
export interface KubeconfigOptions {
  /** `https://host:port`. */
  readonly server: string;
  /** Bearer token of the user `admin`. */
  readonly token: string;
  /** CA bundle (PEM), written inline as `certificate-authority-data`. */
  readonly caPEM?: string;
  /** CA file, written as `certificate-authority` (relative paths resolve against the kubeconfig's directory). */
  readonly caFile?: string;
  /** `tls-server-name`: the name the serving certificate is checked against. */
  readonly tlsServerName?: string;
}

/**
 * Writes a kubeconfig file (the format kubectl and `--clusterconfig` read) with cluster `skiff`,
 * user `admin` and current context `skiff`. Overwrites `path`.
 *
 * @example
 * ```ts
 * await writeKubeconfig(join(dir, "kubeconfig"), { server: `https://127.0.0.1:${port}`, token: "admin-token", caPEM: ca });
 * ```
 */
export async function writeKubeconfig(path: string, options: KubeconfigOptions): Promise<void> {
  const cluster = [
    `    server: ${options.server}`,
    ...(options.caPEM !== undefined ? [`    certificate-authority-data: ${Buffer.from(options.caPEM).toString("base64")}`] : []),
    ...(options.caFile !== undefined ? [`    certificate-authority: ${options.caFile}`] : []),
    ...(options.tlsServerName !== undefined ? [`    tls-server-name: ${options.tlsServerName}`] : []),
  ];
  const text = [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: skiff",
    "  cluster:",
    ...cluster,
    "users:",
    "- name: admin",
    "  user:",
    `    token: ${options.token}`,
    "contexts:",
    "- name: skiff",
    "  context:",
    "    cluster: skiff",
    "    user: admin",
    "current-context: skiff",
    "",
  ].join("\n");
  await writeFile(path, text);
}
