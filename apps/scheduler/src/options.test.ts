import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatSchedulerFlagTable, formatSchedulerHelp, parseSchedulerOptions } from "./options.js";

describe("parseSchedulerOptions", () => {
  it("parses the flags with defaults", () => {
    const r = parseSchedulerOptions(["--clusterconfig", "/k", "-v=4", "--cluster-api-qps=20", "--cluster_api_burst", "40"]);
    expect(r).toEqual({ ok: true, warnings: [], value: { clusterconfig: "/k", verbosity: 4, clusterAPIQPS: 20, clusterAPIBurst: 40, schedulerName: "default-scheduler", help: false } });
  });
  it.each([
    [[], /--clusterconfig is required/],
    [["--clusterconfig=/k", "--cluster-api-qps=0"], /qps must be positive/],
    [["--clusterconfig=/k", "--cluster-api-burst=0"], /burst must be at least 1/],
    [["--clusterconfig=/k", "--nope"], /unknown flag: --nope/],
    [["--clusterconfig=/k", "-v=x"], /invalid argument/],
    // component-base's VerbosityLevel (1.23) is unsigned: ParseUint refuses a sign.
    [["--clusterconfig=/k", "-v=-1"], /^invalid argument "-1" for "-v, --v" flag: strconv.ParseUint: parsing "-1": invalid syntax$/m],
    [["--clusterconfig=/k", "-v=2147483648"], /strconv.ParseUint: parsing "2147483648": value out of range/],
  ])("%j fails", (argv, message) => {
    const r = parseSchedulerOptions(argv);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.join("\n")).toMatch(message);
  });
  it("--help needs no clusterconfig; help lists every flag", () => {
    expect(parseSchedulerOptions(["--help"]).ok).toBe(true);
    for (const f of ["--clusterconfig", "--cluster-api-qps", "--cluster-api-burst", "--scheduler-name", "-v, --v"]) expect(formatSchedulerHelp()).toContain(f);
  });
  it("the README has the current flag table", () => {
    const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");
    const m = /<!-- flag-table:start[^\n]*-->\n([\s\S]*?)<!-- flag-table:end -->/.exec(readme);
    expect(m?.[1]).toBe(formatSchedulerFlagTable());
  });
});
