import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatDuration } from "@skiff/flags";
import { configFileDeprecation } from "./flags.js";
import { aggregateErrors, loadNodeAgentOptions, nodeAgentVersion } from "./index.js";

function run(argv: string[]) {
  let out = "";
  let err = "";
  const r = loadNodeAgentOptions(argv, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } });
  return { r, out, err };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function configFile(body: string): string {
  const dir = mkdtempSync(join(tmpdir(), "na-opts-"));
  dirs.push(dir);
  const path = join(dir, "config.yaml");
  writeFileSync(path, `apiVersion: nodeagent.config.example.io/v1beta1\nkind: NodeAgentConfiguration\n${body}`);
  return path;
}

describe("aggregateErrors", () => {
  // apimachinery pkg/util/errors/errors.go aggregate.Error (1.23): duplicates printed once,
  // brackets only for two or more distinct messages.
  it.each([
    [["a"], "a"],
    [["a", "b"], "[a, b]"],
    [["a", "a"], "a"],
    [["a", "b", "a"], "[a, b]"],
  ])("%j → %s", (errors, text) => {
    expect(aggregateErrors(errors)).toBe(text);
  });
});

describe("loadNodeAgentOptions", () => {
  it("uses the flag defaults without a file", () => {
    const { r, out, err } = run([]);
    expect(out + err).toBe("");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect([r.value.config.port, r.value.config.readOnlyPort, r.value.config.authorization.mode, r.value.config.authentication.anonymous.enabled]).toEqual([10250, 10255, "AlwaysAllow", true]);
    expect(r.value.flags.rootDir).toBe("/var/lib/nodeagent");
    expect(r.value.flagLog).toContain('FLAG: --port="10250"');
  });

  it("prints help on stdout and exits 0", () => {
    const { r, out } = run(["--help"]);
    expect(r).toEqual({ ok: false, errors: [], exitCode: 0 });
    expect(out).toContain("Usage:\n  nodeagent [flags]");
    expect(run(["-h"]).out).toBe(out);
  });

  it("prints the version, or the raw build information", () => {
    expect(run(["--version"]).out).toBe(`Kubernetes ${nodeAgentVersion.gitVersion}\n`);
    expect(JSON.parse(run(["--version=raw"]).out)).toEqual(nodeAgentVersion);
    expect(run(["--version=false"]).r.ok).toBe(true);
  });

  it("fails on a bad flag with pflag's error and usage, exit 1", () => {
    const { r, err } = run(["--port=abc"]);
    expect(r.ok || r.exitCode).toBe(1);
    expect(err).toMatch(/^E\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ options\] "Failed to parse nodeagent flag" err="invalid argument \\"abc\\" for \\"--port\\" flag/);
    expect(err).toContain("Usage:\n  nodeagent [flags]");
    expect(!r.ok && r.errors).toEqual(['failed to parse nodeagent flag: invalid argument "abc" for "--port" flag: strconv.ParseInt: parsing "abc": invalid syntax']);
    expect(run(["--nope"]).err).toContain("unknown flag: --nope");
  });

  it("refuses positional arguments", () => {
    const { r, err } = run(["--port=1", "extra"]);
    expect(r.ok || r.exitCode).toBe(1);
    expect(err).toContain('options] "Unknown command" command="extra"\nUsage:');
  });

  it("warns on stderr for every deprecated flag used", () => {
    const { r, err } = run(["--port=10251", "--logtostderr=true"]);
    expect(r.ok).toBe(true);
    expect(err).toContain(`Flag --port has been deprecated, ${configFileDeprecation}\n`);
    expect(err).toContain("Flag --logtostderr has been deprecated, will be removed in a future release");
  });

  it("warns once per use; with --config the node agent's own flags warn again, klog's do not (as 1.23)", () => {
    // pflag flag.go `Set`: one notice per occurrence. server.go `kubeletConfigFlagPrecedence`
    // re-parses argv over the file with AddFlags/AddKubeletConfigFlags (deprecated again) and the
    // global flags as cliflag.NoOp (no deprecation), so config-bound flags warn twice.
    const count = (text: string, needle: string): number => text.split(needle).length - 1;
    const noFile = run(["--port=10251", "--port=10252", "--logtostderr=true"]).err;
    expect(count(noFile, "Flag --port has been deprecated")).toBe(2);
    expect(count(noFile, "Flag --logtostderr has been deprecated")).toBe(1);
    const path = configFile("");
    const withFile = run([`--config=${path}`, "--port=10251", "--logtostderr=true", "--register-schedulable=true"]).err;
    expect(count(withFile, "Flag --port has been deprecated")).toBe(2);
    expect(count(withFile, "Flag --register-schedulable has been deprecated")).toBe(2);
    expect(count(withFile, "Flag --logtostderr has been deprecated")).toBe(1);
  });

  it("layers defaults < file < flags", () => {
    const path = configFile("port: 11250\nhealthzPort: 11248\nmaxPods: 20\nsyncFrequency: 30s\nevictionHard:\n  memory.available: 1Gi\n");
    const { r } = run([`--config=${path}`, "--port=12250", "--eviction-hard=nodefs.available<5%"]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const c = r.value.config;
    expect([c.port, c.healthzPort, c.maxPods, formatDuration(c.syncFrequency)]).toEqual([12250, 11248, 20, "30s"]);
    expect(c.evictionHard).toEqual({ "nodefs.available": "5%" });
    // File defaults (not the legacy flag defaults) apply with a file.
    expect([c.readOnlyPort, c.authorization.mode]).toEqual([0, "Webhook"]);
  });

  it("merges feature gates from the file and the flags", () => {
    const path = configFile("featureGates:\n  SeccompDefault: true\n  NodeSwap: true\n");
    const { r } = run([`--config=${path}`, "--feature-gates=NodeSwap=false"]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.featureGates.enabled("SeccompDefault")).toBe(true);
    expect(r.value.featureGates.enabled("NodeSwap")).toBe(false);
    expect(r.value.config.featureGates).toEqual({ SeccompDefault: true, NodeSwap: false });
  });

  it("refuses unknown feature gates from flags and files", () => {
    expect(run(["--feature-gates=Nope=true"]).err).toContain('"Failed to set feature gates from initial flags-based config" err="unrecognized feature gate: Nope"');
    expect(run([`--config=${configFile("featureGates:\n  Nope: true\n")}`]).err).toContain('"Failed to set feature gates from initial flags-based config" err="unrecognized feature gate: Nope"');
  });

  it("prints every validation error of the merged configuration and exits 1", () => {
    const path = configFile("oomScoreAdj: 2000\nimageGCLowThresholdPercent: 90\n");
    const { r, err } = run([`--config=${path}`, "--iptables-drop-bit=40"]);
    expect(r.ok || r.exitCode).toBe(1);
    expect(!r.ok && r.errors).toHaveLength(3);
    // One klog line; the errors aggregated as Go's utilerrors.NewAggregate prints them: [e1, e2, e3].
    expect(err.split("\n").filter((l) => l.startsWith("E"))).toHaveLength(1);
    expect(err).toContain('"Failed to validate nodeagent configuration" err="[invalid configuration: ');
    expect(err).toContain("invalid configuration: oomScoreAdj (--oom-score-adj) 2000 must be between -1000 and 1000, inclusive");
    expect(err).toContain("invalid configuration: iptablesDropBit (--iptables-drop-bit) 40 must be between 0 and 31, inclusive");
    expect(err).toContain("imageGCLowThresholdPercent (--image-gc-low-threshold) 90 must be less than");
  });

  it("reports config files that cannot be decoded", () => {
    const { r, err } = run([`--config=${configFile("port: x\nmaxPods: y\n")}`]);
    expect(!r.ok && r.errors).toHaveLength(2);
    expect(err).toContain("failed to decode: json: cannot unmarshal string into Go struct field NodeAgentConfiguration.port of type int32");
    expect(err).toMatch(/"Failed to load nodeagent config file" err="\[failed to load Nodeagent config file .*\]" path=".*config\.yaml"\n$/);
  });

  it("checks the per-process flags before loading the file", () => {
    const { err } = run(["--node-labels=example.io/role=x", "--config=/does/not/exist"]);
    expect(err).toContain(`"Failed to validate nodeagent flags" err="unknown 'example.io' labels specified with --node-labels: [example.io/role]\\n--node-labels in the 'example.io' namespace`);
    expect(err).not.toContain("failed to load");
  });

  it("--runonce is exclusive with an explicit --enable-server, in flags or file", () => {
    expect(run(["--runonce"]).r.ok).toBe(true);
    expect(run(["--runonce", "--enable-server=false"]).r.ok).toBe(true);
    expect(run(["--runonce", "--enable-server"]).err).toContain("RunOnce (--runonce) is exclusive with EnableServer (--enable-server)");
    expect(run([`--config=${configFile("runOnce: true\nenableServer: true\n")}`]).err).toContain("is exclusive with EnableServer");
    expect(run([`--config=${configFile("runOnce: true\n")}`]).r.ok).toBe(true);
  });
});
