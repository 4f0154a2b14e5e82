import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jobSyncGates } from "./controllers/job/job-controller.js";
import { nodeLifecycleFlagTable } from "./controllers/nodelifecycle/node-lifecycle-controller.js";
import { controllerInitializers } from "./controllers.js";
import { flagTypes } from "@skiff/flags";
import type { FlagTable } from "@skiff/flags";
import type { ControllerInitializer } from "./controller-manager.js";
import { controllerManagerFlagTable, formatControllerManagerHelp, formatFlagMarkdown, genericFlagTable, parseControllerManagerOptions } from "./options.js";

const parse = (argv: readonly string[]) => parseControllerManagerOptions(argv, controllerInitializers);

describe("controller manager flags", () => {
  it("the README carries the current flag tables: the generic flags and every controller's", () => {
    const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");
    expect(readme).toContain(formatFlagMarkdown(genericFlagTable(controllerInitializers)));
    for (const c of controllerInitializers) if (c.flags) expect(readme).toContain(formatFlagMarkdown(c.flags.table));
    expect(readme).toContain(formatFlagMarkdown(nodeLifecycleFlagTable));
  });

  it("--help lists every flag: the generic ones, then each controller's section in table order", () => {
    const help = formatControllerManagerHelp(controllerInitializers, ["job"]);
    for (const spec of Object.values(genericFlagTable(controllerInitializers))) expect(help).toContain(`--${spec.name}`);
    let at = 0;
    for (const c of controllerInitializers) {
      if (!c.flags) continue;
      const section = help.indexOf(`\n${c.flags.section} flags:\n`);
      expect(section).toBeGreaterThan(at);
      at = section;
      for (const spec of Object.values(c.flags.table) as Array<{ name: string }>) expect(help.indexOf(`--${spec.name}`)).toBeGreaterThan(section);
    }
    expect(help).toContain("All controllers: job, nodelifecycle, ttl-after-finished.");
    expect(help).toContain("Enabled controllers: job (of job, ttl-after-finished, nodelifecycle).");
  });
});

describe("one flag set for every row", () => {
  it("refuses a row whose option key or flag name another row (or the generic flags) already uses", () => {
    const spec = { name: "concurrent-foo-syncs", type: flagTypes.int32, default: 1, usage: "" };
    const row = (table: FlagTable<{ x: number }> | FlagTable<{ concurrentJobSyncs: number }>): ControllerInitializer => ({ name: "foo", clientName: "foo-controller", flags: { section: "Foo", table }, start: () => ({ started: Promise.resolve(), stop: async () => {} }) });
    expect(() => controllerManagerFlagTable([...controllerInitializers, row({ concurrentJobSyncs: spec })])).toThrow(/option concurrentJobSyncs is already defined/);
    expect(() => parseControllerManagerOptions([], [...controllerInitializers, row({ x: { ...spec, name: "node-monitor-period" } })])).toThrow(/flag redefined: node-monitor-period/);
    expect(controllerManagerFlagTable([...controllerInitializers, row({ x: spec })])).toHaveProperty("x");
  });
});

describe("parseControllerManagerOptions: generic and Job controller flags", () => {
  it("-v is component-base's unsigned VerbosityLevel, as in 1.23", () => {
    const r = parse(["--clusterconfig=k", "-v=-1"]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.join("\n")).toContain('invalid argument "-1" for "-v, --v" flag: strconv.ParseUint: parsing "-1": invalid syntax');
  });
  it("parses the flags and gates", () => {
    const r = parse(["--clusterconfig=k", "--concurrent-job-syncs=8", "--feature-gates=JobTrackingWithFinalizers=true,JobReadyPods=false", "-v=3", "--cluster-api-qps=50"]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({ clusterconfig: "k", concurrentJobSyncs: 8, verbosity: 3, clusterAPIQPS: 50, clusterAPIBurst: 30 });
    expect(jobSyncGates(r.gates)).toEqual({ jobReadyPods: false, jobTrackingWithFinalizers: true });
  });
  it("defaults: 5 syncs, JobReadyPods on, JobTrackingWithFinalizers off", () => {
    const r = parse(["--clusterconfig", "k"]);
    expect(r.ok && r.value.concurrentJobSyncs).toBe(5);
    expect(r.ok && jobSyncGates(r.gates)).toEqual({ jobReadyPods: true, jobTrackingWithFinalizers: false });
  });
  it.each([
    [[], "--clusterconfig is required"],
    [["--clusterconfig=k", "--concurrent-job-syncs=0"], "--concurrent-job-syncs must be at least 1"],
    [["--clusterconfig=k", "--cluster-api-qps=0"], "--cluster-api-qps must be positive"],
    [["--clusterconfig=k", "--feature-gates=Nope=true"], "unrecognized feature gate: Nope"],
  ])("rejects %j", (argv, msg) => {
    const r = parse(argv);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.join("\n")).toContain(msg);
  });
  it("rejects malformed flags without throwing", () => {
    const r = parse(["--clusterconfig=k", "--concurrent-job-syncs=many", "--nope"]);
    expect(r.ok).toBe(false);
  });
});
