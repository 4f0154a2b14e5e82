import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { Duration, formatDuration, Quantity } from "@skiff/flags";
import { defaultNodeAgentConfiguration } from "./config.js";
import { formatGoFieldPath, isZeroUnsetField, nestedStructShape, nodeAgentConfigurationSchema } from "./config-schema.js";

type Shape = Readonly<Record<string, z.ZodType>>;
const rootShape = nestedStructShape(nodeAgentConfigurationSchema) as Shape;

function messages(body: unknown): string[] {
  const r = nodeAgentConfigurationSchema.safeParse(body);
  return r.success ? [] : r.error.issues.map((i) => i.message);
}

/** Every struct of the schema beside the matching object of the defaults. */
function walk(shape: Shape, defaults: Record<string, unknown>, prefix: string, visit: (path: string, field: z.ZodType, def: unknown) => void): void {
  for (const [key, field] of Object.entries(shape)) {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    const nested = nestedStructShape(field);
    if (nested) walk(nested, defaults[key] as Record<string, unknown>, path, visit);
    else visit(path, field, defaults[key]);
  }
}

function leafPaths(v: Record<string, unknown>, prefix = ""): string[] {
  const structs = new Set(["authentication", "authorization", "logging", "x509", "webhook", "anonymous", "options", "json"]);
  return Object.entries(v).flatMap(([k, x]) => {
    const path = prefix === "" ? k : `${prefix}.${k}`;
    return structs.has(k) ? leafPaths(x as Record<string, unknown>, path) : [path];
  });
}

describe("nodeAgentConfigurationSchema", () => {
  it("declares exactly the fields of the defaulted configuration, nested structs included", () => {
    const fromSchema: string[] = [];
    walk(rootShape, defaultNodeAgentConfiguration() as unknown as Record<string, unknown>, "", (p) => fromSchema.push(p));
    expect(fromSchema.sort()).toEqual(leafPaths(defaultNodeAgentConfiguration() as unknown as Record<string, unknown>).sort());
  });

  it("marks as zero-is-unset exactly the non-pointer fields SetDefaults_KubeletConfiguration (1.23) tests for zero (and podLogsDir, defaulted likewise by later kubelets)", () => {
    const marked: string[] = [];
    walk(rootShape, defaultNodeAgentConfiguration() as unknown as Record<string, unknown>, "", (p, f) => {
      if (isZeroUnsetField(f)) marked.push(p);
    });
    expect(marked.sort()).toEqual(
      [
        "address", "authentication.webhook.cacheTTL", "authorization.mode", "authorization.webhook.cacheAuthorizedTTL",
        "authorization.webhook.cacheUnauthorizedTTL", "cgroupDriver", "clusterAPIBurst", "clusterAPIQPS",
        "configMapAndSecretChangeDetectionStrategy", "containerLogMaxSize", "contentType", "cpuManagerPolicy",
        "cpuManagerReconcilePeriod", "evictionPressureTransitionPeriod", "fileCheckFrequency", "hairpinMode",
        "healthzBindAddress", "httpCheckFrequency", "imageMinimumGCAge", "logging.flushFrequency", "logging.format",
        "maxOpenFiles", "maxPods", "memoryManagerPolicy", "nodeLeaseDurationSeconds", "nodeStatusReportFrequency",
        "nodeStatusUpdateFrequency", "podLogsDir", "podPidsLimit", "port", "runtimeRequestTimeout", "streamingConnectionIdleTimeout",
        "syncFrequency", "topologyManagerPolicy", "topologyManagerScope", "volumePluginDir", "volumeStatsAggPeriod",
      ].sort(),
    );
  });

  it("parses only what the body gives, converting durations, quantities and vmodule entries", () => {
    const r = nodeAgentConfigurationSchema.safeParse({
      port: 1,
      syncFrequency: "90s",
      logging: { options: { json: { infoBufferSize: 1024 } }, vmodule: [{ filePattern: "a", verbosity: 0 }, { filePattern: "b", verbosity: 3 }] },
    });
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(Object.keys(r.data)).toEqual(["syncFrequency", "port", "logging"]);
    expect(r.data.syncFrequency).toBeInstanceOf(Duration);
    expect(formatDuration(r.data.syncFrequency as Duration)).toBe("1m30s");
    expect(r.data.logging?.options?.json?.infoBufferSize).toBeInstanceOf(Quantity);
    expect(String(r.data.logging?.options?.json?.infoBufferSize)).toBe("1024"); // a JSON number is read as its decimal text
    // 1.23's VModuleConfiguration keeps verbosity 0 entries (component-base config/types.go).
    expect(r.data.logging?.vmodule).toEqual([{ pattern: "a", level: 0 }, { pattern: "b", level: 3 }]);
  });

  it("words type errors as Go's decoder: JSON type, Go path, Go type; the number itself for integer types only", () => {
    expect(messages({ port: true })).toEqual(["json: cannot unmarshal bool into Go struct field NodeAgentConfiguration.port of type int32"]);
    expect(messages({ port: 2 ** 31 })).toEqual(["json: cannot unmarshal number 2147483648 into Go struct field NodeAgentConfiguration.port of type int32"]);
    expect(messages({ podPidsLimit: 2 ** 31 })).toEqual([]);
    expect(messages({ podPidsLimit: 2 ** 60 })).toEqual(["json: cannot unmarshal number 1152921504606847000 into Go struct field NodeAgentConfiguration.podPidsLimit of type int64"]);
    expect(messages({ address: 5 })).toEqual(["json: cannot unmarshal number into Go struct field NodeAgentConfiguration.address of type string"]);
    expect(messages({ memoryThrottlingFactor: "x" })).toEqual(["json: cannot unmarshal string into Go struct field NodeAgentConfiguration.memoryThrottlingFactor of type float64"]);
    expect(messages({ authentication: { webhook: [] } })).toEqual(["json: cannot unmarshal array into Go struct field NodeAgentConfiguration.authentication.webhook of type struct"]);
    expect(messages({ logging: { options: { json: { infoBufferSize: true } } } })).toEqual([
      "json: cannot unmarshal bool into Go struct field NodeAgentConfiguration.logging.options.json.infoBufferSize of type resource.QuantityValue",
    ]);
    expect(messages({ evictionHard: { "memory.available": 1 } })).toEqual(["json: cannot unmarshal number into Go struct field NodeAgentConfiguration.evictionHard.memory.available of type string"]);
    expect(messages({ staticPodURLHeader: { A: ["x", 2] } })).toEqual(["json: cannot unmarshal number into Go struct field NodeAgentConfiguration.staticPodURLHeader.A[1] of type string"]);
    expect(messages({ featureGates: ["A"] })).toEqual(["json: cannot unmarshal array into Go struct field NodeAgentConfiguration.featureGates of type map[string]bool"]);
  });

  it("words a value its parser rejects as `<Go path>: <parser error>`", () => {
    expect(messages({ authentication: { webhook: { cacheTTL: "2 minutes" } } })).toEqual(['NodeAgentConfiguration.authentication.webhook.cacheTTL: time: unknown unit " minutes" in duration "2 minutes"']);
    expect(messages({ logging: { options: { json: { infoBufferSize: "lots" } } } })).toHaveLength(1);
    expect(messages({ logging: { options: { json: { infoBufferSize: "lots" } } } })[0]).toMatch(/^NodeAgentConfiguration\.logging\.options\.json\.infoBufferSize: quantities must match/);
    expect(messages({ registerWithTaints: [{ key: "a", effect: "Sometimes" }] })).toEqual([
      "NodeAgentConfiguration.registerWithTaints[0]: invalid taint effect: Sometimes, unsupported taint effect",
    ]);
  });

  it("checks list entries as a whole: one message per bad entry", () => {
    expect(messages({ registerWithTaints: [{ key: 1, effect: 2 }, "a:NoSchedule"] })).toEqual([
      "NodeAgentConfiguration.registerWithTaints[0]: a taint needs string fields key and effect (and optionally value)",
      "json: cannot unmarshal string into Go struct field NodeAgentConfiguration.registerWithTaints[1] of type v1.Taint",
    ]);
    // v1alpha1 LoggingConfiguration.Verbosity is a uint32: a negative number does not decode.
    expect(messages({ logging: { verbosity: -1 } })).toEqual([
      "json: cannot unmarshal number -1 into Go struct field NodeAgentConfiguration.logging.verbosity of type uint32",
    ]);
    expect(messages({ logging: { vmodule: [{ filePattern: "a", verbosity: -1 }] } })).toEqual([
      "NodeAgentConfiguration.logging.vmodule[0]: a vmodule entry needs a string filePattern and a non-negative integer verbosity",
    ]);
    expect(messages({ reservedMemory: [{ numaNode: "0" }] })).toEqual(["NodeAgentConfiguration.reservedMemory[0]: a memory reservation needs an integer numaNode and a limits map"]);
    expect(messages({ reservedMemory: [{ numaNode: 0, limits: { memory: 1 } }] })).toEqual([
      "json: cannot unmarshal number into Go struct field NodeAgentConfiguration.reservedMemory[0].limits.memory of type string",
    ]);
  });

  it("treats null struct members as absent, null nested lists and limits as empty; unknown members stay, null or not", () => {
    const r = nodeAgentConfigurationSchema.safeParse({ port: null, authentication: { x509: null }, staticPodURLHeader: { A: null }, reservedMemory: [{ numaNode: 1, limits: null }] });
    expect(r.success && r.data).toEqual({ authentication: {}, staticPodURLHeader: { A: [] }, reservedMemory: [{ numaNode: 1, limits: {} }] });
    const u = nodeAgentConfigurationSchema.safeParse({ bogus: null, logging: { colour: "red" } });
    expect(u.success).toBe(false);
    expect(u.error?.issues.map((i) => i.code === "unrecognized_keys" && [i.path, i.keys])).toEqual([
      [["logging"], ["colour"]],
      [[], ["bogus"]],
    ]);
  });
});

describe("formatGoFieldPath", () => {
  it("joins struct members with dots and indexes with brackets under the root struct's name", () => {
    expect(formatGoFieldPath([])).toBe("NodeAgentConfiguration");
    expect(formatGoFieldPath(["registerWithTaints", 2])).toBe("NodeAgentConfiguration.registerWithTaints[2]");
    expect(formatGoFieldPath(["staticPodURLHeader", "X-A", 0])).toBe("NodeAgentConfiguration.staticPodURLHeader.X-A[0]");
  });
});
