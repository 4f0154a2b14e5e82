// Starts the REAL apiserver process (from source, @skiff/test-support) with two token users and an
// ABAC policy, and talks to it over HTTPS with the admin token.
import { request } from "node:https";
import { join } from "node:path";
import { adminToken, startAPIServer as startServer, writeKubeconfig } from "@skiff/test-support";
import type { RunningAPIServer } from "@skiff/test-support";

/** system:masters. */
export { adminToken };
/** A user with read-only access to pods (ABAC), nothing else. */
export const viewerToken = "viewer-token";

export type APIServerProcess = RunningAPIServer;

/** The apiserver in `<baseDir>/apiserver` (kept after stop). */
export function startAPIServer(baseDir: string): Promise<APIServerProcess> {
  const dir = join(baseDir, "apiserver");
  const policy = { apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Policy", spec: { user: "viewer", namespace: "*", resource: "pods", apiGroup: "*", readonly: true } };
  return startServer({
    dir,
    tokens: [`${viewerToken},viewer,2`],
    files: { "abac.jsonl": `${JSON.stringify(policy)}\n` },
    args: ["--authorization-mode=ABAC", `--authorization-policy-file=${join(dir, "abac.jsonl")}`],
  });
}

export interface APIResponse {
  readonly status: number;
  readonly body: string;
  json(): unknown;
}

export function apiCall(s: APIServerProcess, method: string, path: string, body?: unknown, token = adminToken): Promise<APIResponse> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      // Content-Length always: Node sends the body of a DELETE with neither it nor chunked framing.
      { host: "127.0.0.1", servername: "localhost", port: s.port, path, method, ca: s.ca, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(data !== undefined ? { "content-length": Buffer.byteLength(data) } : {}) } },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, json: () => JSON.parse(text) as unknown }));
      },
    );
    req.on("error", reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

/** A kubeconfig (kubectl's and the agent's `--clusterconfig`) with the admin token. */
export async function writeAdminKubeconfig(s: APIServerProcess): Promise<string> {
  await writeKubeconfig(s.kubeconfig, { server: `https://127.0.0.1:${String(s.port)}`, token: adminToken, caPEM: s.ca });
  return s.kubeconfig;
}
