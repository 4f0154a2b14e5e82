import { mkdtempSync, rmSync, statSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configzOf, kubernetesServiceOf, nodeKeyringFrom, parseNodeIPs, podRuntimeOptionsFrom, resolveNodeName, rootDirLayout, runNodeAgent, setupDataDirs } from "./app.js";
import { createLogger, defaultLoggingOptions } from "./logging.js";
import { loadNodeAgentOptions } from "./options/index.js";

function optionsOf(argv: string[]) {
  const r = loadNodeAgentOptions(argv, { stdout: { write: () => 0 }, stderr: { write: () => 0 } });
  if (!r.ok) throw new Error(r.errors.join("; "));
  return r.value;
}

describe("configzOf (/configz, v1beta1 JSON encoding)", () => {
  it("leaves out omitempty fields holding their zero value, keeps pointer fields and durations", () => {
    const c = configzOf(optionsOf(["--read-only-port=0", "--fail-swap-on=false", "--enable-server=true"]).config) as Record<string, unknown>;
    for (const gone of ["readOnlyPort", "staticPodPath", "staticPodURLHeader", "providerID", "featureGates", "clusterDNS", "tlsCipherSuites", "registerWithTaints", "runOnce", "podsPerCore", "evictionSoft", "kind", "apiVersion"]) {
      expect(c, gone).not.toHaveProperty(gone);
    }
    expect(c).toMatchObject({ failSwapOn: false, enableServer: true, healthzPort: 10248, podPidsLimit: -1, syncFrequency: "1m0s", cpuCFSQuotaPeriod: "100ms", port: 10250 });
    expect((c.authentication as { x509: object }).x509).toEqual({});
    expect((c.authentication as { anonymous: object }).anonymous).toEqual({ enabled: true });
  });

  it("writes logging.flushFrequency as integer nanoseconds, vmodule only when set", () => {
    const c = configzOf(optionsOf(["--log-flush-frequency=2s"]).config) as { logging: Record<string, unknown> };
    expect(c.logging.flushFrequency).toBe(2_000_000_000);
    expect(c.logging).not.toHaveProperty("vmodule");
    const v = configzOf(optionsOf(["--vmodule=pods*=4"]).config) as { logging: Record<string, unknown> };
    expect(v.logging.vmodule).toEqual([{ filePattern: "pods*", verbosity: 4 }]);
  });

  it("keeps non-zero values of omitempty fields and does not mutate the configuration", () => {
    const o = optionsOf(["--read-only-port=10255", "--max-pods=20", "--feature-gates=NodeSwap=true"]);
    const c = configzOf(o.config) as Record<string, unknown>;
    expect(c).toMatchObject({ readOnlyPort: 10255, maxPods: 20, featureGates: { NodeSwap: true } });
    expect(o.config.logging.flushFrequency.ms).toBe(5000);
  });
});

describe("resolveNodeName", () => {
  it("trims and lower-cases the override or the host name; empty is invalid", () => {
    expect(resolveNodeName(" Node-A ", () => "x")).toBe("node-a");
    expect(resolveNodeName("", () => "HOST")).toBe("host");
    expect(() => resolveNodeName("  ", () => "x")).toThrow("empty hostname is invalid");
  });
});

describe("runNodeAgent start-up lines", () => {
  it("logs the FLAG lines unquoted at -v=1, the permission warning, the version, then fails klog-style with exit 1", async () => {
    const err: string[] = [];
    const root = mkdtempSync(join(tmpdir(), "na-app-"));
    const code = await runNodeAgent(["-v=1", "--hostname-override= ", `--root-dir=${root}`], {
      stdout: { write: () => 0 },
      stderr: { write: (t: string) => err.push(t) },
      getuid: () => 1000,
    }).finally(() => rmSync(root, { recursive: true, force: true }));
    const text = err.join("");
    expect(code).toBe(1);
    expect(text).toMatch(/^I\d{4} [\d:.]+ +\d+ app\] FLAG: --port="10250"$/m);
    expect(text).toContain('"nodeagent running with insufficient permissions" err="nodeagent needs to run as uid `0`. It is being run as 1000"');
    expect(text).toMatch(/app\] "Nodeagent version" nodeagentVersion="v1\.23\.0[^"]*"$/m);
    expect(text).toMatch(/^E\d{4} [\d:.]+ +\d+ app\] "Failed to run nodeagent" err="failed to run Nodeagent: empty hostname is invalid"$/m);
  });

  it("does not print FLAG lines below -v=1 nor the permission line as root", async () => {
    const err: string[] = [];
    const code = await runNodeAgent(["--hostname-override= "], { stdout: { write: () => 0 }, stderr: { write: (t: string) => err.push(t) }, getuid: () => 0 });
    expect(code).toBe(1);
    expect(err.join("")).not.toContain("FLAG:");
    expect(err.join("")).not.toContain("insufficient permissions");
  });
});

describe("runNodeAgent --allowed-unsafe-sysctls", () => {
  it("refuses a sysctl that is not known to be namespaced at start-up, in 1.23's words, exit 1", async () => {
    const err: string[] = [];
    const root = mkdtempSync(join(tmpdir(), "na-sysctl-"));
    const code = await runNodeAgent(["--hostname-override=n1", `--root-dir=${root}`, "--allowed-unsafe-sysctls=kernel.msg*,vm.swappiness"], {
      stdout: { write: () => 0 },
      stderr: { write: (t: string) => err.push(t) },
      getuid: () => 0,
    });
    rmSync(root, { recursive: true, force: true });
    expect(code).toBe(1);
    expect(err.join("")).toContain('err="failed to run Nodeagent: failed to create nodeagent: the sysctl \\"vm.swappiness\\" are not known to be namespaced"');
  });
});

describe("podRuntimeOptionsFrom: security flags and gates", () => {
  it("passes --seccomp-default, --allowed-unsafe-sysctls and the AppArmor and ProcMountType gates to the pod runtime", () => {
    const log = createLogger(defaultLoggingOptions, { stdout: { write: () => 0 }, stderr: { write: () => 0 } });
    const o = podRuntimeOptionsFrom(optionsOf(["--seccomp-default", "--feature-gates=SeccompDefault=true,ProcMountType=true,AppArmor=false", "--allowed-unsafe-sysctls=kernel.msg*,net.core.somaxconn"]), "n", log);
    expect(o).toMatchObject({ seccompDefault: true, allowedUnsafeSysctls: ["kernel.msg*", "net.core.somaxconn"], featureGates: { ProcMountType: true, AppArmor: false } });
    const d = podRuntimeOptionsFrom(optionsOf([]), "n", log);
    expect(d).toMatchObject({ seccompDefault: false, allowedUnsafeSysctls: [], featureGates: { ProcMountType: false, AppArmor: true } });
  });
});

describe("parseNodeIPs (--node-ip)", () => {
  it("takes one address or a dual-stack pair, ignoring entries that do not parse", () => {
    expect(parseNodeIPs("", "")).toEqual({ ips: [], ignored: [] });
    expect(parseNodeIPs("10.0.0.1", "")).toEqual({ ips: ["10.0.0.1"], ignored: [] });
    expect(parseNodeIPs(" 10.0.0.1 , fd00::1", "")).toEqual({ ips: ["10.0.0.1", "fd00::1"], ignored: [] });
    expect(parseNodeIPs("nope,10.0.0.1", "")).toEqual({ ips: ["10.0.0.1"], ignored: ["nope"] });
    expect(parseNodeIPs("0.0.0.0", "")).toEqual({ ips: ["0.0.0.0"], ignored: [] });
  });

  it("refuses three addresses, two of one family, a pair with a cloud provider or with an unspecified address", () => {
    expect(() => parseNodeIPs("10.0.0.1,fd00::1,10.0.0.2", "")).toThrow('bad --node-ip "10.0.0.1,fd00::1,10.0.0.2"; must contain either a single IP or a dual-stack pair of IPs');
    expect(() => parseNodeIPs("10.0.0.1,10.0.0.2", "")).toThrow("must contain either a single IP or a dual-stack pair of IPs");
    expect(() => parseNodeIPs("fd00::1,::ffff:1.2.3.4", "")).not.toThrow();
    expect(() => parseNodeIPs("10.0.0.1,fd00::1", "external")).toThrow('dual-stack --node-ip "10.0.0.1,fd00::1" not supported when using a cloud provider');
    expect(() => parseNodeIPs("0.0.0.0,fd00::1", "")).toThrow(`dual-stack --node-ip "0.0.0.0,fd00::1" cannot include '0.0.0.0' or '::'`);
    expect(() => parseNodeIPs("10.0.0.1,::", "")).toThrow("cannot include");
  });

  it("fails the start-up with the kubelet's words, after logging ignored entries", async () => {
    const err: string[] = [];
    const code = await runNodeAgent(["--node-ip=bad,10.0.0.1,10.0.0.2", "--hostname-override=n1"], { stdout: { write: () => 0 }, stderr: { write: (t: string) => err.push(t) }, getuid: () => 0 });
    expect(code).toBe(1);
    expect(err.join("")).toContain('"Could not parse --node-ip ignoring" IP="bad"');
    expect(err.join("")).toContain('"Failed to run nodeagent" err="failed to run Nodeagent: bad --node-ip \\"bad,10.0.0.1,10.0.0.2\\"; must contain either a single IP or a dual-stack pair of IPs"');
  });
});

describe("setupDataDirs", () => {
  it("creates the root dir and pods/, plugins/, plugins_registry/, pod-resources/ with mode 0750", () => {
    const base = mkdtempSync(join(tmpdir(), "na-root-"));
    try {
      const root = join(base, "var", "lib", "nodeagent");
      setupDataDirs(root);
      setupDataDirs(root);
      expect(rootDirLayout).toEqual(["pods", "plugins", "plugins_registry", "pod-resources"]);
      for (const d of [root, ...rootDirLayout.map((x) => join(root, x))]) expect(statSync(d).mode & 0o777, d).toBe(0o750);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});


describe("image credential provider flags", () => {
  const quietLog = () => {
    const lines: string[] = [];
    const log = createLogger(defaultLoggingOptions, { stdout: { write: (t: string) => (lines.push(t), 0) }, stderr: { write: (t: string) => (lines.push(t), 0) } });
    return { log, lines };
  };

  it("exits 1 with 1.23's 'Failed to register CRI auth plugins' when the plugins cannot be registered", async () => {
    const err: string[] = [];
    const root = mkdtempSync(join(tmpdir(), "na-credprov-"));
    const code = await runNodeAgent(["--hostname-override=n1", `--root-dir=${root}`, `--image-credential-provider-config=${join(root, "c.yaml")}`, `--image-credential-provider-bin-dir=${join(root, "bin")}`], {
      stdout: { write: () => 0 },
      stderr: { write: (t: string) => err.push(t) },
      getuid: () => 0,
    });
    rmSync(root, { recursive: true, force: true });
    expect(code).toBe(1);
    expect(err.join("")).toContain(`"Failed to register CRI auth plugins" err="plugin binary directory ${join(root, "bin")} did not exist"`);
  });

  it("ignores the flags, saying so, when gate NodeAgentCredentialProviders is off (as 1.23 with its gate off)", async () => {
    const { log, lines } = quietLog();
    const keyring = await nodeKeyringFrom(optionsOf(["--feature-gates=NodeAgentCredentialProviders=false", "--image-credential-provider-config=/nonexistent/c.yaml", "--image-credential-provider-bin-dir=/nonexistent"]), log);
    expect(await keyring.lookup("registry.example/app")).toEqual([]);
    expect(lines.join("")).toContain(
      '"Flags --image-credential-provider-config or --image-credential-provider-bin-dir were set but the feature gate was disabled, these flags will be ignored" featureGate="NodeAgentCredentialProviders"',
    );
  });

  it("refuses --vendor-container-registry-config as not supported, unless cloud vendor providers are disabled by gate", () => {
    const r = loadNodeAgentOptions(["--vendor-container-registry-config=/etc/acr.json"], { stdout: { write: () => 0 }, stderr: { write: () => 0 } });
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.errors.join("\n")).toContain("--vendor-container-registry-config is not supported: this node agent has no in-tree cloud vendor credential provider");
    expect(optionsOf(["--vendor-container-registry-config=/etc/acr.json", "--feature-gates=DisableNodeAgentCloudCredentialProviders=true"]).flags.vendorContainerRegistryConfig).toBe("/etc/acr.json");
  });
});

describe("kubernetesServiceOf (where pods reach the API server)", () => {
  it("keeps a non-loopback server's host and port", () => {
    expect(kubernetesServiceOf(optionsOf([]), "https://10.9.8.7:6443")).toEqual({ host: "10.9.8.7", port: 6443 });
  });
  it("replaces a loopback server by the first --node-ip that is not loopback", () => {
    expect(kubernetesServiceOf(optionsOf(["--node-ip=10.1.2.3"]), "https://127.0.0.1:6443")).toEqual({ host: "10.1.2.3", port: 6443 });
  });
  it("replaces a loopback server by the machine's first non-internal IPv4 when --node-ip is loopback or unset", () => {
    const primary = Object.values(networkInterfaces()).flat().find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address ?? "127.0.0.1";
    expect(kubernetesServiceOf(optionsOf(["--node-ip=127.0.0.1"]), "https://localhost:7443")).toEqual({ host: primary, port: 7443 });
    expect(kubernetesServiceOf(optionsOf([]), "https://127.0.0.1:6443")).toEqual({ host: primary, port: 6443 });
  });
});
