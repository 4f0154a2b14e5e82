// The resolver file's limits end to end: the REAL apiserver process, the node agent in-process in
// API-server mode on the process CRI server, with `--resolv-conf` naming a file whose search line
// has more domains than a pod with a cluster domain can take. 1.23's kubelet checks it once as its
// sync loop starts and records a Warning event `CheckLimitsForResolvConf` on the Node.
import { startAPIModeAgent, textSink } from "./api-mode-agent.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { adminToken, startAPIServer, writeKubeconfig, type RunningAPIServer } from "@skiff/test-support";
import { apiCall } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";

const nodeName = "resolv-node";

interface EventList {
  items: { type?: string; reason?: string; message?: string; count?: number; involvedObject?: { kind?: string; name?: string; uid?: string }; source?: { component?: string; host?: string } }[];
}

describe("CheckLimitsForResolvConf (a --resolv-conf search line over the limit)", () => {
  let dir: string;
  let resolvConf: string;
  let api: RunningAPIServer;
  let cri: ProcessRuntime;
  const stop = new AbortController();
  let agentDone: Promise<number>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-resolv-"));
    resolvConf = join(dir, "resolv.conf");
    writeFileSync(resolvConf, "nameserver 10.0.0.1\nsearch a.example b.example c.example d.example\n");
    api = await startAPIServer({ dir: join(dir, "apiserver") });
    const kubeconfig = join(dir, "kubeconfig");
    await writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${String(api.port)}`, token: adminToken, caPEM: api.ca });
    cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state") });
    agentDone = (
      await startAPIModeAgent({
        kubeconfig,
        nodeName,
        rootDir: join(dir, "root"),
        certDir: join(dir, "agent-pki"),
        endpoint: cri.endpoint,
        args: [`--resolv-conf=${resolvConf}`, "--cluster-domain=cluster.local", "--cluster-dns=10.96.0.10"],
        stderr: textSink(),
        stopSignal: stop.signal,
      })
    ).done;
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await agentDone?.catch(() => 1);
    await cri?.stop();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("is a Warning event on the Node, recorded once", async () => {
    const events = await waitFor("the CheckLimitsForResolvConf event", async () => {
      const r = await apiCall(api, "GET", "/api/v1/namespaces/default/events");
      const list = r.status === 200 ? (r.json() as EventList) : undefined;
      const found = list?.items.filter((e) => e.reason === "CheckLimitsForResolvConf") ?? [];
      return found.length > 0 ? found : undefined;
    }, 60_000);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "Warning",
      message: `Resolv.conf file '${resolvConf}' contains search line consisting of more than 3 domains!`,
      count: 1,
      involvedObject: { kind: "Node", name: nodeName, uid: nodeName },
      source: { host: nodeName },
    });
  }, 90_000);
});
