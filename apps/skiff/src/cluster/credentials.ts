// The local cluster's credentials: a static token per component (the apiserver's
// --token-auth-file) and a kubeconfig per user. Each component authenticates as Kubernetes 1.23's
// component identity, which the bootstrap RBAC policy grants exactly what that component needs:
// the controller manager as `system:kube-controller-manager`, the scheduler as
// `system:kube-scheduler`, the node agent as `system:node:<nodeName>` in group `system:nodes`.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

/** The users of a local cluster: the admin (kubectl) and one per component. */
export type ClusterUser = "admin" | "job-controller" | "scheduler" | "nodeagent";

/**
 * User name and groups of each {@link ClusterUser} for node `nodeName`: the admin in
 * `system:masters`; the components as 1.23's component users (the authenticator adds
 * `system:authenticated` to every one).
 * @see staging/src/k8s.io/apiserver/pkg/authentication/user/user.go (KubeControllerManager, KubeScheduler, NodesGroup)
 */
export function clusterUsers(nodeName: string): Record<ClusterUser, { user: string; groups: string }> {
  return {
    admin: { user: "admin", groups: "system:masters" },
    "job-controller": { user: "system:kube-controller-manager", groups: "" },
    scheduler: { user: "system:kube-scheduler", groups: "" },
    nodeagent: { user: `system:node:${nodeName}`, groups: "system:nodes" },
  };
}

// The component users of token files written before the components had 1.23's identities; their
// lines are dropped (they would stay valid users with no role).
const retiredUsers = new Set(["system:skiff-job-controller", "system:skiff-scheduler"]);

/**
 * Reads the token file (CSV `token,user,uid,"groups"`, as the apiserver's `--token-auth-file`),
 * appends a line with a fresh random token for each user it lacks (a file from an older start
 * keeps its tokens; lines of the retired `system:skiff-*` component users are dropped), writes it back (mode 0600) and returns the token of each user.
 *
 * @throws the `node:fs` error when the file cannot be read or written.
 */
export function ensureTokens(tokenFile: string, nodeName: string): Record<ClusterUser, string> {
  const lines = (existsSync(tokenFile) ? readFileSync(tokenFile, "utf8").split("\n") : []).filter((l) => l.trim() !== "" && !retiredUsers.has(l.split(",")[1] ?? ""));
  const byUser = new Map<string, string>();
  for (const line of lines) {
    const [token, user] = line.split(",");
    if (token && user) byUser.set(user, token);
  }
  const out: Partial<Record<ClusterUser, string>> = {};
  for (const [name, u] of Object.entries(clusterUsers(nodeName)) as Array<[ClusterUser, { user: string; groups: string }]>) {
    let token = byUser.get(u.user);
    if (token === undefined) {
      token = randomBytes(24).toString("hex");
      lines.push(`${token},${u.user},${u.user},"${u.groups}"`);
      byUser.set(u.user, token);
    }
    out[name] = token;
  }
  writeFileSync(tokenFile, lines.join("\n") + "\n", { mode: 0o600 });
  return out as Record<ClusterUser, string>;
}

/**
 * The text of a kubeconfig (one cluster `skiff` at `https://127.0.0.1:<port>` trusting the CA in
 * `caFile`, one user with a bearer token, namespace `default`).
 *
 * @throws the `node:fs` error when `caFile` cannot be read.
 */
export function kubeconfigText(o: { port: number; user: string; token: string; caFile: string }): string {
  const ca = readFileSync(o.caFile).toString("base64");
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: skiff\n  cluster:\n    server: https://127.0.0.1:${o.port}\n    certificate-authority-data: ${ca}`,
    "users:",
    `- name: ${o.user}\n  user:\n    token: ${o.token}`,
    "contexts:",
    `- name: skiff\n  context:\n    cluster: skiff\n    user: ${o.user}\n    namespace: default`,
    "current-context: skiff",
    "",
  ].join("\n");
}
