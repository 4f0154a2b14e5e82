// The node agent configuration `pnpm start` writes (apps/skiff/src/cluster/nodeagent-config.ts, shared with skiff up), read
// by the node agent's own option loading: container logs go under the state directory, and every
// other setting is what the flags-only command line gave before.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadNodeAgentOptions, podRuntimeOptionsFrom } from "@skiff/nodeagent";
import * as mod from "@skiff/cli";

function load(argv: string[]) {
  const err: string[] = [];
  const r = loadNodeAgentOptions(argv, { stdout: { write: () => 0 }, stderr: { write: (s: string) => err.push(s) } });
  if (!r.ok) throw new Error(`${r.errors.join("; ")}\n${err.join("")}`);
  return r.value;
}

const quietLog = { info: () => {}, v: () => ({ info: () => {} }) } as unknown as Parameters<typeof podRuntimeOptionsFrom>[2];

describe("pnpm start's node agent configuration", () => {
  const state = mkdtempSync(join(tmpdir(), "skiff-state-"));
  afterAll(() => {
    rmSync(state, { recursive: true, force: true });
  });
  const configFile = mod.writeNodeAgentConfig(state);
  const common = { state, clusterconfig: join(state, "nodeagent.clusterconfig"), endpoint: `unix://${join(state, "cri", "cri.sock")}`, nodeName: "node-a", agentPort: 10250 };
  const argv = mod.nodeAgentArgs({ ...common, configFile });

  it("writes <state>/nodeagent/config.yaml and creates <state>/pod-logs", () => {
    expect(configFile).toBe(join(state, "nodeagent", "config.yaml"));
    expect(readFileSync(configFile, "utf8")).toContain(`podLogsDir: ${JSON.stringify(join(state, "pod-logs"))}`);
    expect(statSync(join(state, "pod-logs")).isDirectory()).toBe(true);
    expect(mod.nodeAgentPodLogsDir(state)).toBe(join(state, "pod-logs"));
    expect(argv[0]).toBe(`--config=${configFile}`);
  });

  it("the node agent loads it (valid) and its pod runtime writes container logs under the state directory", () => {
    const o = load(argv);
    expect(o.config.podLogsDir).toBe(join(state, "pod-logs"));
    expect(podRuntimeOptionsFrom(o, "node-a", quietLog).podLogsDir).toBe(join(state, "pod-logs"));
  });

  it("apart from podLogsDir, the configuration equals the flags-only one start.mjs used before", () => {
    const withFile = load(argv).config;
    const flagsOnly = load(argv.slice(1)).config;
    expect(flagsOnly.podLogsDir).toBe("/var/log/pods");
    expect({ ...withFile, podLogsDir: "" }).toEqual({ ...flagsOnly, podLogsDir: "" });
    expect([withFile.authentication.anonymous.enabled, withFile.authentication.webhook.enabled, withFile.authorization.mode, withFile.readOnlyPort]).toEqual([true, false, "AlwaysAllow", 0]);
  });

  it("rewriting is idempotent (start.mjs writes the file on every start)", () => {
    const before = readFileSync(configFile, "utf8");
    expect(mod.writeNodeAgentConfig(state)).toBe(configFile);
    expect(readFileSync(configFile, "utf8")).toBe(before);
  });
});
