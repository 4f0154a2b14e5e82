// Starts the REAL apiserver process from source (@skiff/test-support) and a client for it with
// the admin token.
import { createClient, type Client } from "@skiff/client";
import { adminToken, startAPIServer } from "@skiff/test-support";

export interface RunningApiserver {
  readonly client: Client;
  stop(): Promise<void>;
}

export async function startApiserver(): Promise<RunningApiserver> {
  const server = await startAPIServer({ tempPrefix: "skiff-csi-apiserver-" });
  const client = createClient(
    { server: `https://127.0.0.1:${String(server.port)}`, caPEM: server.ca, insecureSkipTLSVerify: false, token: adminToken, tlsServerName: "localhost" },
    { qps: 100, burst: 200 },
  );
  return {
    client,
    async stop() {
      client.close();
      await server.stop();
    },
  };
}
