import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, loadClusterConfig } from "@skiff/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startAPIServer } from "@skiff/test-support";
import type { RunningAPIServer } from "@skiff/test-support";

const mainTs = join(dirname(fileURLToPath(import.meta.url)), "../src/main.ts");
let server: RunningAPIServer;
beforeAll(async () => {
  server = await startAPIServer({ tempPrefix: "skiff-scheduler-" });
});
afterAll(async () => {
  await server?.stop();
});

const run = (args: string[]) => spawn(process.execPath, ["--conditions=@skiff/source", "--import", "tsx", mainTs, ...args], { stdio: ["ignore", "pipe", "pipe"] });

it("skiff-scheduler binds a pod, logs at -v 2 and exits 0 on SIGTERM", async () => {
  const client = createClient(await loadClusterConfig(server.kubeconfig));
  const node = await client.nodes.create({ metadata: { name: "bin-node" } });
  const ready = await client.nodes.updateStatus({ ...node, status: { allocatable: { cpu: "2", memory: "2Gi", pods: "10" }, conditions: [{ type: "Ready", status: "True" }] } });
  // No controller manager here: remove the apiserver's TaintNodesByCondition taint
  // (not-ready:NoSchedule) as the node lifecycle controller would once the node is Ready.
  expect(ready.spec?.taints).toEqual([{ key: "node.example.io/not-ready", effect: "NoSchedule" }]);
  await client.nodes.update({ ...ready, spec: { ...ready.spec, taints: [] } });
  const proc = run([`--clusterconfig=${server.kubeconfig}`, "-v=2"]);
  let err = "";
  proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
  await client.pods.create({ metadata: { name: "bin-pod", namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox" }] } });
  let nodeName: string | undefined;
  for (let i = 0; i < 400 && !nodeName; i++) {
    nodeName = (await client.pods.get("bin-pod", { namespace: "default" })).spec?.nodeName || undefined;
    if (!nodeName) await new Promise((r) => setTimeout(r, 25));
  }
  expect(nodeName).toBe("bin-node");
  const code = await new Promise<number | null>((resolve) => {
    proc.once("exit", resolve);
    proc.kill("SIGTERM");
  });
  expect(code).toBe(0);
  expect(err).toContain("bound default/bin-pod to bin-node");
  client.close();
});

it("exits 1 with a clear error for a missing --clusterconfig or kubeconfig file", async () => {
  const exit = (args: string[]) =>
    new Promise<{ code: number | null; err: string }>((resolve) => {
      const p = run(args);
      let err = "";
      p.stderr.on("data", (d: Buffer) => (err += d.toString()));
      p.once("exit", (code) => resolve({ code, err }));
    });
  expect(await exit([])).toMatchObject({ code: 1, err: expect.stringContaining("--clusterconfig is required") });
  expect(await exit(["--clusterconfig=/nonexistent/kubeconfig"])).toMatchObject({ code: 1, err: expect.stringContaining("/nonexistent/kubeconfig: no such file") });
});
