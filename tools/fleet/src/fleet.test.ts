import { mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadNodeAgentOptions } from "@skiff/nodeagent";
import { afterEach, describe, expect, it } from "vitest";
import { defaultFleetConnections, fleetTempParent, hollowNodeClientRateLimit, hollowNodeConfiguration } from "./fleet.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// The options a hollow node of a fleet with `agentConfig` and extra flags `args` runs with.
function hollowNodeOptions(agentConfig: Record<string, unknown> | undefined, args: readonly string[] = []) {
  const root = mkdtempSync(join(tmpdir(), "fleet-config-"));
  dirs.push(root);
  const file = join(root, "nodeagent-config.json");
  writeFileSync(file, JSON.stringify(hollowNodeConfiguration(root, agentConfig)));
  const sink = { write: () => true };
  const loaded = loadNodeAgentOptions([`--config=${file}`, "--hostname-override=hollow-node-0", `--root-dir=${join(root, "hollow-node-0")}`, ...args], { env: {}, stdout: sink, stderr: sink });
  if (!loaded.ok) throw new Error("the hollow node's options did not load");
  return loaded.value.config;
}

describe("hollowNodeConfiguration", () => {
  it("gives hollow nodes kubemark's client rate limit (QPS 10, burst 20), not the agent's default 5/10", () => {
    expect(hollowNodeClientRateLimit).toEqual({ clusterAPIQPS: 10, clusterAPIBurst: 20 });
    const c = hollowNodeOptions(undefined);
    expect([c.clusterAPIQPS, c.clusterAPIBurst]).toEqual([10, 20]);
    expect(c.clusterDNS).toEqual(["10.96.0.10"]);
  });

  it("lets agentConfig and then the node agent flags override the rate limit", () => {
    const fromConfig = hollowNodeOptions({ clusterAPIQPS: 50, clusterAPIBurst: 100 });
    expect([fromConfig.clusterAPIQPS, fromConfig.clusterAPIBurst]).toEqual([50, 100]);
    const fromFlags = hollowNodeOptions({ clusterAPIQPS: 50 }, ["--cluster-api-qps=7", "--cluster-api-burst=9"]);
    expect([fromFlags.clusterAPIQPS, fromFlags.clusterAPIBurst]).toEqual([7, 9]);
  });
});

describe("fleetTempParent", () => {
  it("is /dev/shm when that is a tmpfs (memory-backed: no disk journal for the hollow nodes' files), else the temporary directory", () => {
    let shmIsTmpfs = false;
    try {
      shmIsTmpfs = statfsSync("/dev/shm").type === 0x01021994;
    } catch {
      // no /dev/shm
    }
    expect(fleetTempParent()).toBe(shmIsTmpfs ? "/dev/shm" : tmpdir());
  });
});

describe("defaultFleetConnections", () => {
  it("gives each hollow node a connection of the shared pool, at least 64", () => {
    expect(defaultFleetConnections(1)).toBe(64);
    expect(defaultFleetConnections(300)).toBe(300);
    expect(defaultFleetConnections(1000)).toBe(1000);
  });
});
