import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadNodeAgentOptions } from "./index.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function configFile(body: string): string {
  const dir = mkdtempSync(join(tmpdir(), "na-unsupported-"));
  dirs.push(dir);
  const path = join(dir, "config.yaml");
  writeFileSync(path, `apiVersion: nodeagent.config.example.io/v1beta1\nkind: NodeAgentConfiguration\n${body}`);
  return path;
}

function load(argv: string[]) {
  let err = "";
  const r = loadNodeAgentOptions(argv, { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) } });
  return { r, err };
}

describe("unsupportedOptions (through loadNodeAgentOptions)", () => {
  it.each([
    [["--cloud-provider=aws"], "--cloud-provider=aws is not supported by skiff nodeagent; no in-tree cloud provider is built in: use --cloud-provider=external with an external cloud controller manager, or leave it unset"],
    [["--master-service-namespace=kube-system"], '--master-service-namespace=kube-system is not supported by skiff nodeagent; the `kubernetes` service variables (KUBERNETES_SERVICE_HOST, ...) come from the API server\'s address, as from the Service in "default"; there is no Service kind to read from another namespace; leave it unset'],
    [["--rotate-certificates"], "--rotate-certificates is not supported by skiff nodeagent; client certificates are not requested from the API server; give a --clusterconfig with a client credential and leave it unset"],
    [
      ["--feature-gates=RotateNodeAgentServerCertificate=true", "--rotate-server-certificates"],
      "--rotate-server-certificates is not supported by skiff nodeagent; serving certificates are not requested from the API server; give --tls-cert-file and --tls-private-key-file, or let the agent write a self-signed pair in --cert-dir",
    ],
    [["--container-runtime=docker"], '--container-runtime=docker is not supported by skiff nodeagent; only "remote" (a CRI runtime at --container-runtime-endpoint) is'],
    [["--volume-plugin-dir=/opt/flex"], "--volume-plugin-dir=/opt/flex is not supported by skiff nodeagent; FlexVolume plugins are not built in (use CSI drivers); leave it unset"],
    [["--feature-gates=MemoryQoS=true"], "feature gate MemoryQoS is not supported by skiff nodeagent; memory.high throttling (memoryThrottlingFactor=0.8) is not built in; leave the gate off"],
    [["--cluster-api-content-type=application/yaml"], '--cluster-api-content-type=application/yaml is not supported by skiff nodeagent; the API client speaks "application/json" only'],
    [["--contention-profiling"], "--contention-profiling is not supported by skiff nodeagent; the agent's runtime has no lock-contention (block) profile; /debug/pprof serves CPU profiles and heap snapshots only; leave it unset"],
    [["--add-dir-header"], "--add-dir-header is not supported by skiff nodeagent; log lines name the logger, not a source file; leave it unset"],
    [["--log-backtrace-at=app.ts:12"], "--log-backtrace-at=app.ts:12 is not supported by skiff nodeagent; log lines have no source file:line to match; leave it unset"],
    [["--one-output"], "--one-output is not supported by skiff nodeagent; the agent writes one log file, not one per severity; leave it unset"],
    [
      ["--logging-format=json", "--log-json-split-stream", "--log-json-info-buffer-size=1Mi"],
      "--log-json-info-buffer-size is not supported by skiff nodeagent; info messages are written unbuffered; leave it at 0",
    ],
  ])("refuses %j at start-up", (argv, message) => {
    const { r, err } = load(argv);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.exitCode).toBe(1);
    expect(r.errors).toEqual([message]);
    expect(err).toContain('"Failed to validate nodeagent configuration"');
  });

  it("refuses a graceful shutdown period from the config file", () => {
    const { r } = load([`--config=${configFile("shutdownGracePeriod: 30s\nshutdownGracePeriodCriticalPods: 10s\n")}`]);
    expect(r.ok ? [] : r.errors).toEqual([
      "shutdownGracePeriod=30s (shutdownGracePeriodCriticalPods=10s) is not supported by skiff nodeagent; graceful node shutdown is not built in; leave both at 0s",
    ]);
  });

  it("refuses a file's volumePluginDir and contentType as their flags", () => {
    const { r } = load([`--config=${configFile("volumePluginDir: /opt/flex\ncontentType: text/plain\n")}`]);
    expect(r.ok ? [] : r.errors).toEqual([
      "--volume-plugin-dir=/opt/flex is not supported by skiff nodeagent; FlexVolume plugins are not built in (use CSI drivers); leave it unset",
      '--cluster-api-content-type=text/plain is not supported by skiff nodeagent; the API client speaks "application/json" only',
    ]);
  });

  it.each([
    // Defaults, and values 1.23 ignores in the same situation.
    [[]],
    [["--cloud-provider=external"]],
    [["--cloud-provider=external", "--cloud-config=/etc/cloud.conf"]],
    [["--cluster-api-content-type=application/json"]],
    [["--contention-profiling", "--enable-debugging-handlers=false"]],
    [["--logging-format=json", "--add-dir-header", "--one-output", "--log-backtrace-at=app.ts:12"]],
    [["--log-json-info-buffer-size=1Mi"]],
    [["--master-service-namespace=default", "--container-runtime=remote"]],
  ])("accepts %j", (argv) => {
    const { r } = load(argv);
    expect(r.ok ? [] : r.errors).toEqual([]);
  });
});
