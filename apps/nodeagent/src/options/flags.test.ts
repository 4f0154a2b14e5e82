import { describe, expect, it } from "vitest";
import type { FlagSpec } from "@skiff/flags";
import { applyLegacyFlagDefaults, defaultNodeAgentConfiguration } from "./config.js";
import { configFieldPaths, configFileDeprecation, configFlagKeys, isConfigFlagKey, nodeAgentFlagTable } from "./flags.js";
import { configToFlagValues, formatNodeAgentHelp, newNodeAgentFlagSet, parseFlagsOverConfig } from "./index.js";

// Every option row of spec/nodeagent-cli.md: [name, type, default, Dep], extracted from the spec's tables.
const specRows: ReadonlyArray<readonly [string, string, string, string]> = [
  ["config", "string", "", ""],
  ["address", "string", "0.0.0.0", "C"],
  ["port", "int32", "10250", "C"],
  ["read-only-port", "int32", "10255", "C"],
  ["enable-server", "bool", "true", "C"],
  ["enable-debugging-handlers", "bool", "true", "C"],
  ["healthz-bind-address", "string", "127.0.0.1", "C"],
  ["healthz-port", "int32", "10248", "C"],
  ["hostname-override", "string", "", ""],
  ["node-ip", "string", "", ""],
  ["node-labels", "mapStringString", "", ""],
  ["register-node", "bool", "true", "C"],
  ["register-schedulable", "bool", "true", "R"],
  ["register-with-taints", "mapStringString", "", "C"],
  ["provider-id", "string", "", "C"],
  ["cloud-provider", "string", "", "R (1.24 or later)"],
  ["cloud-config", "string", "", "R (1.24 or later)"],
  ["clusterconfig", "string", "", ""],
  ["bootstrap-clusterconfig", "string", "", ""],
  ["pod-cidr", "string", "", "C"],
  ["master-service-namespace", "string", "default", "R"],
  ["root-dir", "string", "/var/lib/nodeagent", ""],
  ["lock-file", "string", "", ""],
  ["exit-on-lock-contention", "bool", "", ""],
  ["runonce", "bool", "", "C"],
  ["version", "version[=true]", "", ""],
  ["help", "bool", "", ""],
  ["pod-manifest-path", "string", "", "C"],
  ["file-check-frequency", "duration", "20s", "C"],
  ["manifest-url", "string", "", "C"],
  ["manifest-url-header", "string", "", "C"],
  ["http-check-frequency", "duration", "20s", "C"],
  ["sync-frequency", "duration", "1m0s", "C"],
  ["container-runtime", "string", "remote", "R (1.27)"],
  ["container-runtime-endpoint", "string", "", ""],
  ["image-service-endpoint", "string", "", ""],
  ["runtime-cgroups", "string", "", ""],
  ["runtime-request-timeout", "duration", "2m0s", "C"],
  ["pod-infra-container-image", "string", "<pause_image>", ""],
  ["image-credential-provider-bin-dir", "string", "", ""],
  ["image-credential-provider-config", "string", "", ""],
  ["vendor-container-registry-config", "string", "", ""],
  ["serialize-image-pulls", "bool", "true", "C"],
  ["registry-qps", "int32", "5", "C"],
  ["registry-burst", "int32", "10", "C"],
  ["image-gc-high-threshold", "int32", "85", "C"],
  ["image-gc-low-threshold", "int32", "80", "C"],
  ["minimum-image-ttl-duration", "duration", "2m0s", "C"],
  ["minimum-container-ttl-duration", "duration", "", "R"],
  ["maximum-dead-containers", "int32", "-1", "R"],
  ["maximum-dead-containers-per-container", "int32", "1", "R"],
  ["container-log-max-files", "int32", "5", "C"],
  ["container-log-max-size", "string", "10Mi", "C"],
  ["keep-terminated-pod-volumes", "bool", "", "R"],
  ["experimental-mounter-path", "string", "mount", "R (1.24 or later)"],
  ["volume-plugin-dir", "string", "/usr/libexec/example/nodeagent-plugins/volume/exec/", "C"],
  ["volume-stats-agg-period", "duration", "1m0s", "C"],
  ["enable-controller-attach-detach", "bool", "true", "C"],
  ["max-pods", "int32", "110", "C"],
  ["pods-per-core", "int32", "", "C"],
  ["pod-max-pids", "int", "-1", "C"],
  ["max-open-files", "int", "1000000", "C"],
  ["oom-score-adj", "int32", "-999", "C"],
  ["cgroup-driver", "string", "cgroupfs", "C"],
  ["cgroup-root", "string", "''", "C"],
  ["cgroups-per-qos", "bool", "true", "C"],
  ["agent-cgroups", "string", "", "C"],
  ["system-cgroups", "string", "", "C"],
  ["cpu-cfs-quota", "bool", "true", "C"],
  ["cpu-cfs-quota-period", "duration", "100ms", "C"],
  ["cpu-manager-policy", "string", "none", "C"],
  ["cpu-manager-policy-options", "mapStringString", "", "C"],
  ["cpu-manager-reconcile-period", "duration", "10s", "C"],
  ["memory-manager-policy", "string", "None", "C"],
  ["topology-manager-policy", "string", "none", "C"],
  ["topology-manager-scope", "string", "container", "C"],
  ["enforce-node-allocatable", "strings", "pods", "C"],
  ["cluster-reserved", "mapStringString", "none", "C"],
  ["cluster-reserved-cgroup", "string", "''", "C"],
  ["system-reserved", "mapStringString", "none", "C"],
  ["system-reserved-cgroup", "string", "''", "C"],
  ["reserved-cpus", "string", "", "C"],
  ["reserved-memory", "string", "", "C"],
  ["qos-reserved", "mapStringString", "", "C"],
  ["experimental-allocatable-ignore-eviction", "bool", "false", "R (1.24 or later)"],
  ["fail-swap-on", "bool", "true", "C"],
  ["protect-kernel-defaults", "bool", "", "C"],
  ["allowed-unsafe-sysctls", "strings", "", "C"],
  ["seccomp-default", "string", "", ""],
  ["eviction-hard", "mapStringString", "imagefs.available<15%,memory.available<100Mi,nodefs.available<10% (Linux also adds nodefs.inodesFree<5%)", "C"],
  ["eviction-soft", "mapStringString", "", "C"],
  ["eviction-soft-grace-period", "mapStringString", "", "C"],
  ["eviction-minimum-reclaim", "mapStringString", "", "C"],
  ["eviction-max-pod-grace-period", "int32", "", "C"],
  ["eviction-pressure-transition-period", "duration", "5m0s", "C"],
  ["kernel-memcg-notification", "bool", "", "C"],
  ["experimental-kernel-memcg-notification", "bool", "", "C, removal in 1.24 or later"],
  ["cluster-dns", "strings", "", "C"],
  ["cluster-domain", "string", "", "C"],
  ["resolv-conf", "string", "/etc/resolv.conf", "C"],
  ["hairpin-mode", "string", "promiscuous-bridge", "C"],
  ["make-iptables-util-chains", "bool", "true", "C"],
  ["iptables-drop-bit", "int32", "15", "C"],
  ["iptables-masquerade-bit", "int32", "14", "C"],
  ["streaming-connection-idle-timeout", "duration", "4h0m0s", "C"],
  ["node-status-update-frequency", "duration", "10s", "C"],
  ["node-status-max-images", "int32", "50", "C"],
  ["cluster-api-qps", "int32", "5", "C"],
  ["cluster-api-burst", "int32", "10", "C"],
  ["cluster-api-content-type", "string", "application/vnd.example.protobuf", "C"],
  ["event-qps", "int32", "5", "C"],
  ["event-burst", "int32", "10", "C"],
  ["feature-gates", "list of key=true/false", "", "C"],
  ["contention-profiling", "bool", "", "C"],
  ["v", "Level", "", ""],
  ["vmodule", "list of pattern=N", "", ""],
  ["logging-format", "string", "text", "C"],
  ["log-flush-frequency", "duration", "5s", ""],
  ["log-json-info-buffer-size", "string", "'0'", "C"],
  ["log-json-split-stream", "bool", "", "C"],
  ["add-dir-header", "bool", "", "R"],
  ["alsologtostderr", "bool", "", "R"],
  ["logtostderr", "bool", "true", "R"],
  ["log-backtrace-at", "string (file:line)", ":0", "R"],
  ["log-dir", "string", "", "R"],
  ["log-file", "string", "", "R"],
  ["log-file-max-size", "uint", "1800", "R"],
  ["one-output", "bool", "", "R"],
  ["skip-headers", "bool", "", "R"],
  ["skip-log-headers", "bool", "", "R"],
  ["stderrthreshold", "int", "2", "R"],
  ["anonymous-auth", "bool", "true", "C"],
  ["client-ca-file", "string", "", "C"],
  ["authentication-token-webhook", "bool", "", "C"],
  ["authentication-token-webhook-cache-ttl", "duration", "2m0s", "C"],
  ["authorization-mode", "string", "AlwaysAllow", "C"],
  ["authorization-webhook-cache-authorized-ttl", "duration", "5m0s", "C"],
  ["authorization-webhook-cache-unauthorized-ttl", "duration", "30s", "C"],
  ["cert-dir", "string", "/var/lib/nodeagent/pki", ""],
  ["tls-cert-file", "string", "", "C"],
  ["tls-private-key-file", "string", "", "C"],
  ["tls-min-version", "string", "", "C"],
  ["tls-cipher-suites", "strings", "runtime defaults", "C"],
  ["rotate-certificates", "bool", "", "C"],
  ["rotate-server-certificates", "bool", "", "C"],
];

const entries = Object.entries(nodeAgentFlagTable) as Array<[string, FlagSpec<unknown>]>;
const byName = new Map(entries.map(([key, spec]) => [spec.name, { key, spec }]));

// The spec's type column → the flag type's name, with the documented exceptions.
const typeNames: Record<string, string> = {
  bool: "bool",
  string: "string",
  int32: "int32",
  int: "int",
  uint: "uint",
  duration: "duration",
  strings: "stringSlice",
  mapStringString: "mapStringString",
  "list of key=true/false": "mapStringBool",
  Level: "Level",
  "list of pattern=N": "pattern=N,...",
  "version[=true]": "version",
};
const typeExceptions: Record<string, string> = {
  // Strict resource quantities (the spec's "sizes as bytes, multiples of 1000 ...").
  "log-json-info-buffer-size": "quantity",
  // A boolean in Kubernetes 1.23; its help shows `RuntimeDefault`, which the spec reads as a type.
  "seccomp-default": "bool",
  "log-backtrace-at": "traceLocation",
  // klog's severity accepts names (INFO, ERROR) as well as numbers.
  stderrthreshold: "severity",
  // Repeated name:value headers.
  "manifest-url-header": "colonSeparatedMultimapStringString",
};

function zeroText(typeName: string): string {
  switch (typeName) {
    case "bool":
    case "version":
      return "false";
    case "int32":
    case "int":
    case "uint":
    case "Level":
      return "0";
    case "duration":
      return "0s";
    case "stringSlice":
      return "[]";
    default:
      return "";
  }
}

function expectedDefault(name: string, specDefault: string, typeName: string): string {
  if (name === "eviction-hard") return "imagefs.available<15%,memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%";
  if (specDefault === "" || specDefault === "''" || (specDefault === "none" && typeName === "mapStringString")) return zeroText(typeName);
  if (specDefault === "runtime defaults") return "[]";
  if (specDefault === "'0'") return "0";
  if (typeName === "stringSlice") return `[${specDefault}]`;
  return specDefault;
}

describe("flag table vs spec", () => {
  it("has exactly the spec's flags", () => {
    expect([...byName.keys()].sort()).toEqual(specRows.map((r) => r[0]).sort());
  });

  it.each(specRows)("--%s has the spec's type, default and deprecation", (name, type, def, dep) => {
    const e = byName.get(name);
    expect(e, name).toBeDefined();
    const spec = e!.spec;
    expect(spec.type.typeName).toBe(typeExceptions[name] ?? typeNames[type]);
    if (def === "<pause_image>") expect(spec.type.format(spec.default)).toMatch(/pause/);
    else expect(spec.type.format(spec.default)).toBe(expectedDefault(name, def, spec.type.typeName));
    if (dep.startsWith("C")) expect(spec.deprecated).toBe(configFileDeprecation);
    else if (dep.startsWith("R")) {
      expect(spec.deprecated).toBeDefined();
      expect(spec.deprecated).not.toBe(configFileDeprecation);
      if (dep.includes("1.24")) expect(spec.deprecated).toContain("1.24");
      if (dep.includes("1.27")) expect(spec.deprecated).toContain("1.27");
    } else expect(spec.deprecated).toBeUndefined();
    // Deprecated flags stay visible in help, as the kubelet unhides them.
    expect(spec.hidden ?? false).toBe(false);
  });

  it("binds every C row to a config-file field, and no blank/R row", () => {
    for (const [name, , , dep] of specRows) {
      const key = byName.get(name)!.key;
      if (dep.startsWith("C")) expect(isConfigFlagKey(key), name).toBe(true);
      else if (!["v", "vmodule", "log-flush-frequency"].includes(name)) expect(isConfigFlagKey(key), name).toBe(false);
    }
  });

  it("has config-field defaults equal to the flag defaults, except the kubelet's legacy four", () => {
    const config = defaultNodeAgentConfiguration();
    const legacy = new Set(["anonymousAuth", "authenticationTokenWebhook", "authorizationMode", "readOnlyPort"]);
    for (const [key, path] of Object.entries(configFieldPaths)) {
      const spec = (nodeAgentFlagTable as Record<string, FlagSpec<unknown>>)[key]!;
      let v: unknown = config;
      for (const p of path.split(".")) v = (v as Record<string, unknown>)[p];
      if (legacy.has(key)) expect(spec.type.format(v), key).not.toBe(spec.type.format(spec.default));
      else expect(spec.type.format(v), key).toBe(spec.type.format(spec.default));
    }
  });

  it("takes every config-backed flag's default from the config defaults (legacy four applied)", () => {
    const expected = configToFlagValues(applyLegacyFlagDefaults(defaultNodeAgentConfiguration()));
    for (const key of configFlagKeys) {
      const spec = (nodeAgentFlagTable as Record<string, FlagSpec<unknown>>)[key]!;
      expect(spec.default, key).toEqual(expected[key]);
    }
  });
});

// A valid value per flag, and the text the type formats it back to.
function goodSample(key: string, spec: FlagSpec<unknown>): [string, string] {
  if (key === "registerWithTaints") return ["k=v:NoSchedule", "k=v:NoSchedule"];
  if (key === "address") return ["10.0.0.1", "10.0.0.1"];
  if (key === "reservedMemory") return ["0:memory=1Gi", "0:memory=1Gi"];
  if (key === "evictionHard" || key === "evictionSoft") return ["memory.available<1Gi", "memory.available<1Gi"];
  switch (spec.type.typeName) {
    case "bool":
      return ["false", "false"];
    case "string":
      return ["abc", "abc"];
    case "int32":
    case "int":
    case "uint":
    case "Level":
    case "severity":
      return ["7", "7"];
    case "duration":
      return ["90s", "1m30s"];
    case "stringSlice":
      return ["a,b", "[a,b]"];
    case "mapStringString":
      return ["a=1", "a=1"];
    case "mapStringBool":
      return ["A=true", "A=true"];
    case "colonSeparatedMultimapStringString":
      return ["a:1", "a:1"];
    case "pattern=N,...":
      return ["x=2", "x=2"];
    case "traceLocation":
      return ["f.go:3", "f.go:3"];
    case "quantity":
      return ["2Ki", "2Ki"];
    case "version":
      return ["raw", "raw"];
    default:
      throw new Error(`no sample for ${spec.type.typeName}`);
  }
}

const badSamples: Record<string, string> = {
  bool: "maybe",
  int32: "x",
  int: "1.5",
  uint: "-1",
  Level: "x",
  severity: "LOUD",
  duration: "5",
  stringSlice: '"a',
  mapStringString: "novalue",
  mapStringBool: "A=maybe",
  colonSeparatedMultimapStringString: "nocolon",
  "pattern=N,...": "x",
  traceLocation: "nope",
  quantity: "abc",
  version: "maybe",
};

describe("every flag parses", () => {
  const fs = newNodeAgentFlagSet();
  it.each(entries)("%s: value, default, type error, deprecation warning", (key, spec) => {
    const [text, formatted] = goodSample(key, spec);
    const r = fs.parse([`--${spec.name}=${text}`]);
    expect(r.ok, key).toBe(true);
    if (!r.ok) return;
    expect(spec.type.format((r.value.values as Record<string, unknown>)[key])).toBe(formatted);
    expect(r.value.changed(spec.name)).toBe(true);
    if (spec.deprecated !== undefined) expect(r.value.warnings).toEqual([`Flag --${spec.name} has been deprecated, ${spec.deprecated}`]);
    else expect(r.value.warnings).toEqual([]);
    // Without the flag: the default.
    const none = fs.parse([]);
    expect(none.ok && spec.type.format((none.value.values as Record<string, unknown>)[key])).toBe(spec.type.format(spec.default));
    // A value of the wrong type.
    const bad = key === "registerWithTaints" ? "bad" : key === "reservedMemory" ? "x" : key.startsWith("eviction") && spec.type.typeName === "mapStringString" ? "nosep" : badSamples[spec.type.typeName];
    // String flags accept any text; --node-labels (a ConfigurationMap) takes "key" as key="".
    if (bad === undefined || key === "nodeLabels") return;
    const b = fs.parse([`--${spec.name}=${bad}`]);
    expect(b.ok, `${key} accepted ${bad}`).toBe(false);
    if (!b.ok) expect(b.errors[0]?.message).toMatch(new RegExp(`^invalid argument ".*" for ".*--${spec.name}" flag: `));
  });

  it("accepts -v and -h shorthands and _ spellings", () => {
    const r = fs.parse(["-v", "3", "--log_dir=/x", "-h"]);
    expect(r.ok && [r.value.values.verbosity, r.value.values.logDir, r.value.values.help]).toEqual([3, "/x", true]);
  });
});

// Two distinct valid values per config-bound flag type: the file's (first) and the flag's (second).
function twoSamples(key: string, spec: FlagSpec<unknown>): [string, string] {
  if (key === "registerWithTaints") return ["a:NoSchedule", "b=c:NoExecute"];
  if (key === "address") return ["10.0.0.1", "::"];
  if (key === "reservedMemory") return ["0:memory=1Gi", "1:memory=2Gi"];
  if (key === "evictionHard" || key === "evictionSoft") return ["memory.available<1Gi", "nodefs.available<5%"];
  switch (spec.type.typeName) {
    case "bool":
      return ["false", "true"];
    case "string":
      return ["from-file", "from-flag"];
    case "int32":
    case "int":
    case "Level":
      return ["7", "9"];
    case "duration":
      return ["3s", "4s"];
    case "stringSlice":
      return ["a", "b,c"];
    case "mapStringString":
      return ["a=1", "b=2"];
    case "colonSeparatedMultimapStringString":
      return ["a:1", "b:2"];
    case "pattern=N,...":
      return ["x=1", "y=2"];
    case "quantity":
      return ["1Ki", "2Ki"];
    default:
      throw new Error(`no samples for ${spec.type.typeName}`);
  }
}

function setPath(obj: unknown, path: string, value: unknown): void {
  const parts = path.split(".");
  let cur = obj as Record<string, unknown>;
  for (const p of parts.slice(0, -1)) cur = cur[p] as Record<string, unknown>;
  cur[parts.at(-1)!] = value;
}
function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const p of path.split(".")) cur = (cur as Record<string, unknown>)[p];
  return cur;
}

describe("flags override the config file", () => {
  const configEntries = entries.filter(([key]) => isConfigFlagKey(key) && key !== "featureGates");
  it.each(configEntries)("%s", (key, spec) => {
    const [fileText, flagText] = twoSamples(key, spec);
    const fileValue = spec.type.set(fileText, spec.default, true);
    const flagValue = spec.type.set(flagText, spec.default, true);
    expect(fileValue.ok && flagValue.ok).toBe(true);
    if (!fileValue.ok || !flagValue.ok) return;
    const path = configFieldPaths[key as keyof typeof configFieldPaths];
    // File only: the file's value stays.
    const c1 = defaultNodeAgentConfiguration();
    setPath(c1, path, fileValue.value);
    expect(parseFlagsOverConfig(newNodeAgentFlagSet(), [], c1).ok).toBe(true);
    expect(spec.type.format(getPath(c1, path))).toBe(spec.type.format(fileValue.value));
    // File and flag: the flag wins (lists and maps are replaced, not merged) — except --vmodule,
    // whose 1.23 Set appends to the loaded file's entries (component-base config/types.go
    // `VModuleConfiguration.Set`; server.go `kubeletConfigFlagPrecedence` parses flags onto the file).
    const c2 = defaultNodeAgentConfiguration();
    setPath(c2, path, fileValue.value);
    expect(parseFlagsOverConfig(newNodeAgentFlagSet(), [`--${spec.name}=${flagText}`], c2).ok).toBe(true);
    const expected = key === "vmodule" ? `${fileText},${flagText}` : spec.type.format(flagValue.value);
    expect(spec.type.format(getPath(c2, path))).toBe(expected);
  });

  it("featureGates: file and flag gates merge, the flag winning per gate", () => {
    const c = defaultNodeAgentConfiguration();
    c.featureGates = { QOSReserved: true, SeccompDefault: true };
    expect(parseFlagsOverConfig(newNodeAgentFlagSet(), ["--feature-gates=SeccompDefault=false,NodeSwap=true"], c).ok).toBe(true);
    expect(c.featureGates).toEqual({ QOSReserved: true, SeccompDefault: false, NodeSwap: true });
  });

  it("reports a bad flag value on the second parse", () => {
    const r = parseFlagsOverConfig(newNodeAgentFlagSet(), ["--port=x"], defaultNodeAgentConfiguration());
    expect(r).toEqual({ ok: false, error: 'failed to parse nodeagent flag: invalid argument "x" for "--port" flag: strconv.ParseInt: parsing "x": invalid syntax' });
  });
});

describe("--help", () => {
  const help = formatNodeAgentHelp();
  it.each(specRows.map((r) => r[0]))("mentions --%s", (name) => {
    expect(help).toContain(`--${name}`);
  });
  it("groups flags under the spec's headings, in the spec's order", () => {
    const headings = ["Serving, identity and registration flags:", "Pod sources and sync flags:", "Container runtime and images flags:", "Resources, cgroups and scheduling limits flags:", "Eviction flags:", "Networking and DNS flags:", "Node status and API client flags:", "Logging flags:", "Authentication flags:"];
    const at = headings.map((h) => help.indexOf(h));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(help.indexOf("      --eviction-hard ")).toBeGreaterThan(help.indexOf("Eviction flags:"));
  });
  it("lists the known feature gates and marks deprecated flags", () => {
    expect(help).toContain("JobReadyPods=true|false (BETA - default=true)");
    expect(help).toContain(`(DEPRECATED: ${configFileDeprecation})`);
  });
});
