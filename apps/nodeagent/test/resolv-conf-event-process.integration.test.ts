// The resolver file's limits end to end: the REAL apiserver process, the node agent in-process in
// API-server mode on the process CRI server, with `--resolv-conf` naming a file whose search line
// has more domains than a pod with a cluster domain can take. 1.23's kubelet checks it once as its
// sync loop starts and records a Warning event `CheckLimitsForResolvConf` on the Node.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";
import { startProcessNode, type ProcessNode } from "./process-node.js";

const nodeName = "resolv-node";

interface EventList {
  items: { type?: string; reason?: string; message?: string; count?: number; involvedObject?: { kind?: string; name?: string; uid?: string }; source?: { component?: string; host?: string } }[];
}

describe("CheckLimitsForResolvConf (a --resolv-conf search line over the limit)", () => {
  let node: ProcessNode;
  let resolvConf: string;

  beforeAll(async () => {
    node = await startProcessNode({
      prefix: "skiff-resolv-",
      nodeName,
      args: (dir) => {
        resolvConf = join(dir, "resolv.conf");
        writeFileSync(resolvConf, "nameserver 10.0.0.1\nsearch a.example b.example c.example d.example\n");
        return [`--resolv-conf=${resolvConf}`, "--cluster-domain=cluster.local", "--cluster-dns=10.96.0.10"];
      },
    });
  }, 120_000);

  afterAll(() => node?.stop(), 60_000);

  it("is a Warning event on the Node, recorded once", async () => {
    const events = await waitFor("the CheckLimitsForResolvConf event", async () => {
      const r = await apiCall(node.api, "GET", "/api/v1/namespaces/default/events");
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
