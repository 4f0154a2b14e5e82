import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { formatDuration } from "@skiff/flags";
import { applyLegacyFlagDefaults, decodeNodeAgentConfiguration, defaultNodeAgentConfiguration, loadNodeAgentConfigFile } from "./config.js";

const head = "apiVersion: nodeagent.config.example.io/v1beta1\nkind: NodeAgentConfiguration\n";

describe("decodeNodeAgentConfiguration", () => {
  it("decodes YAML with nested fields, durations and quantities, defaulting the rest", () => {
    const r = decodeNodeAgentConfiguration(
      `${head}port: 11250\nsyncFrequency: 30s\nauthentication:\n  anonymous:\n    enabled: true\n  webhook:\n    cacheTTL: 1m\nlogging:\n  format: json\n  options:\n    json:\n      infoBufferSize: 2Ki\n  vmodule:\n  - filePattern: pods\n    verbosity: 4\nclusterReserved:\n  cpu: 200m\nregisterWithTaints:\n- key: a\n  value: b\n  effect: NoSchedule\nreservedMemory:\n- numaNode: 0\n  limits:\n    memory: 1Gi\nstaticPodURLHeader:\n  X-A: [one, two]\nfeatureGates:\n  SeccompDefault: true\n`,
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const c = r.value;
    expect(c.port).toBe(11250);
    expect(formatDuration(c.syncFrequency)).toBe("30s");
    expect(c.authentication.anonymous.enabled).toBe(true);
    expect(c.authentication.webhook.enabled).toBe(true); // file default
    expect(formatDuration(c.authentication.webhook.cacheTTL)).toBe("1m0s");
    expect(c.authorization.mode).toBe("Webhook");
    expect(c.readOnlyPort).toBe(0);
    expect(c.logging.format).toBe("json");
    expect(String(c.logging.options.json.infoBufferSize)).toBe("2Ki");
    expect(c.logging.vmodule).toEqual([{ pattern: "pods", level: 4 }]);
    expect(c.clusterReserved).toEqual({ cpu: "200m" });
    expect(c.registerWithTaints).toEqual([{ key: "a", value: "b", effect: "NoSchedule" }]);
    expect(c.reservedMemory).toEqual([{ numaNode: 0, limits: { memory: "1Gi" } }]);
    expect(c.staticPodURLHeader).toEqual({ "X-A": ["one", "two"] });
    expect(c.featureGates).toEqual({ SeccompDefault: true });
    expect(c.maxPods).toBe(110);
    expect(r.unknownFields).toEqual([]);
    expect(r.setFields).toContain("authentication.anonymous.enabled");
  });

  it("podLogsDir: /var/log/pods by default, an empty value keeps the default, a string is required", () => {
    const dflt = decodeNodeAgentConfiguration(head);
    expect(dflt.ok && dflt.value.podLogsDir).toBe("/var/log/pods");
    const set = decodeNodeAgentConfiguration(`${head}podLogsDir: /home/me/.skiff/pod-logs\n`);
    expect(set.ok && [set.value.podLogsDir, set.setFields.includes("podLogsDir")]).toEqual(["/home/me/.skiff/pod-logs", true]);
    const empty = decodeNodeAgentConfiguration(`${head}podLogsDir: ""\n`);
    expect(empty.ok && empty.value.podLogsDir).toBe("/var/log/pods");
    const bad = decodeNodeAgentConfiguration(`${head}podLogsDir: 5\n`);
    expect(!bad.ok && bad.errors).toEqual(["json: cannot unmarshal number into Go struct field NodeAgentConfiguration.podLogsDir of type string"]);
  });

  it("nodeStatusReportFrequency: 5m, or nodeStatusUpdateFrequency's value when only that is set (1.23's v1beta1 defaulting)", () => {
    const report = (text: string) => {
      const r = decodeNodeAgentConfiguration(`${head}${text}`);
      return r.ok ? r.value.nodeStatusReportFrequency.ms : undefined;
    };
    expect(report("")).toBe(300_000);
    expect(report("nodeStatusUpdateFrequency: 20s\n")).toBe(20_000);
    expect(report("nodeStatusUpdateFrequency: 20s\nnodeStatusReportFrequency: 1m\n")).toBe(60_000);
    expect(report("nodeStatusReportFrequency: 1m\n")).toBe(60_000);
  });

  it("decodes JSON", () => {
    const r = decodeNodeAgentConfiguration(JSON.stringify({ apiVersion: "nodeagent.config.example.io/v1beta1", kind: "NodeAgentConfiguration", maxPods: 20, clusterDNS: ["10.0.0.10"] }));
    expect(r.ok && [r.value.maxPods, r.value.clusterDNS]).toEqual([20, ["10.0.0.10"]]);
  });

  it("lists unknown fields by path", () => {
    const r = decodeNodeAgentConfiguration(`${head}kubeAPIQPS: 3\nauthentication:\n  x509:\n    clientCaFile: /x\n`);
    expect(r.ok && r.unknownFields).toEqual(["kubeAPIQPS", "authentication.x509.clientCaFile"]);
  });

  it("reports every type error, in Go's words", () => {
    const r = decodeNodeAgentConfiguration(`${head}port: "10250"\nenableServer: yes please\nsyncFrequency: 5\nmaxPods: 1.5\nfileCheckFrequency: soon\nclusterDNS: 10.0.0.1\n`);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      "json: cannot unmarshal string into Go struct field NodeAgentConfiguration.port of type int32",
      "json: cannot unmarshal string into Go struct field NodeAgentConfiguration.enableServer of type bool",
      "json: cannot unmarshal number into Go struct field NodeAgentConfiguration.syncFrequency of type v1.Duration",
      "json: cannot unmarshal number 1.5 into Go struct field NodeAgentConfiguration.maxPods of type int32",
      'NodeAgentConfiguration.fileCheckFrequency: time: invalid duration "soon"',
      "json: cannot unmarshal string into Go struct field NodeAgentConfiguration.clusterDNS of type []string",
    ]);
  });

  it("requires the apiVersion and kind", () => {
    expect(decodeNodeAgentConfiguration("port: 1\n")).toMatchObject({ ok: false });
    const r = decodeNodeAgentConfiguration("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n");
    expect(!r.ok && r.errors[0]).toContain('no kind "KubeletConfiguration" is registered for version "kubelet.config.k8s.io/v1beta1"');
    expect(decodeNodeAgentConfiguration("[1, 2]")).toMatchObject({ ok: false });
    expect(decodeNodeAgentConfiguration("a: [")).toMatchObject({ ok: false });
  });

  it("treats zero values of non-pointer fields as unset, as SetDefaults does", () => {
    const r = decodeNodeAgentConfiguration(`${head}port: 0\nmaxPods: 0\nreadOnlyPort: 0\neventRecordQPS: 0\nsyncFrequency: 0s\n`);
    expect(r.ok && [r.value.port, r.value.maxPods, r.value.readOnlyPort, r.value.eventRecordQPS, formatDuration(r.value.syncFrequency)]).toEqual([10250, 110, 0, 0, "1m0s"]);
  });

  it("legacy flag defaults differ from the file defaults in four fields", () => {
    const c = applyLegacyFlagDefaults(defaultNodeAgentConfiguration());
    expect([c.authentication.anonymous.enabled, c.authentication.webhook.enabled, c.authorization.mode, c.readOnlyPort]).toEqual([true, false, "AlwaysAllow", 10255]);
  });
});

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("loadNodeAgentConfigFile", () => {
  it("resolves relative paths against the file's directory and warns about unknown fields", () => {
    const dir = mkdtempSync(join(tmpdir(), "na-config-"));
    dirs.push(dir);
    const path = join(dir, "config.yaml");
    writeFileSync(path, `${head}staticPodPath: manifests\ntlsCertFile: /abs/cert.pem\ntlsPrivateKeyFile: key.pem\nresolvConf: ""\nauthentication:\n  x509:\n    clientCAFile: ca/ca.crt\nbogus: 1\n`);
    const r = loadNodeAgentConfigFile(path);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.staticPodPath).toBe(join(dir, "manifests"));
    expect(r.value.tlsCertFile).toBe("/abs/cert.pem");
    expect(r.value.tlsPrivateKeyFile).toBe(join(dir, "key.pem"));
    expect(r.value.authentication.x509.clientCAFile).toBe(join(dir, "ca/ca.crt"));
    expect(r.value.resolvConf).toBe(""); // a pointer field in 1.23: "" (no base resolver file) is kept
    expect(r.warnings).toEqual([`using lenient decoding as strict decoding failed: unknown field "bogus" in ${path}`]);
  });

  it("prefixes errors with the file name", () => {
    const r = loadNodeAgentConfigFile("/nonexistent/na.yaml");
    expect(!r.ok && r.errors[0]).toMatch(/^failed to load Nodeagent config file \/nonexistent\/na.yaml, error failed to read nodeagent config file/);
  });
});

describe("decodeNodeAgentConfiguration (zod schema)", () => {
  it("reports errors in the file's order, nested ones included, and only the first of each list or map field", () => {
    const r = decodeNodeAgentConfiguration(`${head}clusterDNS: [a, 1, 2]\nauthentication:\n  webhook:\n    cacheTTL: never\n  anonymous:\n    enabled: "no"\nport: true\nfeatureGates:\n  A: 1\n  B: 2\n`);
    expect(!r.ok && r.errors).toEqual([
      "json: cannot unmarshal number into Go struct field NodeAgentConfiguration.clusterDNS[1] of type string",
      'NodeAgentConfiguration.authentication.webhook.cacheTTL: time: invalid duration "never"',
      "json: cannot unmarshal string into Go struct field NodeAgentConfiguration.authentication.anonymous.enabled of type bool",
      "json: cannot unmarshal bool into Go struct field NodeAgentConfiguration.port of type int32",
      "json: cannot unmarshal number into Go struct field NodeAgentConfiguration.featureGates.A of type bool",
    ]);
  });

  it("lists unknown fields in the file's order, null ones too, and still decodes the known ones", () => {
    const r = decodeNodeAgentConfiguration(`${head}logging:\n  colour: red\n  format: json\nbogus: null\nport: 11250\nauthentication:\n  x509:\n    clientCaFile: /x\n`);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.unknownFields).toEqual(["logging.colour", "bogus", "authentication.x509.clientCaFile"]);
    expect([r.value.logging.format, r.value.port, r.value.authentication.x509.clientCAFile]).toEqual(["json", 11250, ""]);
    expect(r.setFields).toEqual(["logging.format", "port"]);
  });

  it("reports type errors without unknown fields when both occur", () => {
    const r = decodeNodeAgentConfiguration(`${head}bogus: 1\nport: x\n`);
    expect(r).toEqual({ ok: false, errors: ["json: cannot unmarshal string into Go struct field NodeAgentConfiguration.port of type int32"] });
  });

  it("keeps defaults for null members and zeros of zero-is-unset fields, which are not listed as set", () => {
    const r = decodeNodeAgentConfiguration(`${head}authentication: null\nlogging:\n  format: ""\n  verbosity: 0\nclusterDNS: null\nreadOnlyPort: 0\nevictionHard: {}\n`);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.authentication).toEqual(defaultNodeAgentConfiguration().authentication);
    expect([r.value.logging.format, r.value.logging.verbosity, r.value.clusterDNS, r.value.readOnlyPort, r.value.evictionHard]).toEqual(["text", 0, [], 0, {}]);
    expect(r.setFields).toEqual(["logging.verbosity", "readOnlyPort", "evictionHard"]);
  });

  it("replaces list and map fields whole and merges nested structs member by member", () => {
    const r = decodeNodeAgentConfiguration(`${head}evictionHard:\n  memory.available: 1Gi\nauthorization:\n  webhook:\n    cacheAuthorizedTTL: 1m\n`);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.evictionHard).toEqual({ "memory.available": "1Gi" });
    expect(r.value.authorization.mode).toBe("Webhook");
    expect(formatDuration(r.value.authorization.webhook.cacheAuthorizedTTL)).toBe("1m0s");
    expect(formatDuration(r.value.authorization.webhook.cacheUnauthorizedTTL)).toBe("30s");
  });

  it("never throws on arbitrary JSON bodies", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom("port", "authentication", "logging", "registerWithTaints", "reservedMemory", "staticPodURLHeader", "x"), fc.jsonValue()), (body) => {
        const r = decodeNodeAgentConfiguration(JSON.stringify({ apiVersion: "nodeagent.config.example.io/v1beta1", kind: "NodeAgentConfiguration", ...body }));
        expect(typeof r.ok).toBe("boolean");
      }),
    );
  });
});
