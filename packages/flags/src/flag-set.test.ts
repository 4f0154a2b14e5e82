import { describe, expect, expectTypeOf, it } from "vitest";
import { Duration, mustParseDuration } from "./duration.js";
import { FlagTableError } from "./errors.js";
import type { FlagTable, FlagValues, ParseFlagsResult } from "./flag-set.js";
import { FlagSet, wordSepNormalize } from "./flag-set.js";
import { flagTypes as t } from "./flag-types.js";

interface Options {
  address: string;
  port: number;
  enableServer: boolean;
  runOnce: boolean;
  syncFrequency: Duration;
  verbosity: number;
  help: boolean;
  quiet: boolean;
  labels: Record<string, string>;
  levels: string[];
  logDir: string;
  oldFlag: string;
  staticPodPath: string;
}

const table = {
  address: { name: "address", type: t.string, default: "0.0.0.0", usage: "IP address to serve on." },
  port: { name: "port", shorthand: "p", type: t.int32, default: 10250, usage: "Port to serve on." },
  enableServer: { name: "enable-server", type: t.bool, default: true, usage: "Enable the server." },
  runOnce: { name: "runonce", shorthand: "r", type: t.bool, default: false, usage: "Run once." },
  syncFrequency: { name: "sync-frequency", type: t.duration, default: mustParseDuration("1m"), usage: "Sync period." },
  verbosity: { name: "v", shorthand: "v", type: t.level, default: 0, usage: "Log level." },
  help: { name: "help", shorthand: "h", type: t.bool, default: false, usage: "Print help." },
  quiet: { name: "quiet", shorthand: "q", type: t.bool, default: false, usage: "Quiet.", shorthandDeprecated: "use --quiet" },
  labels: { name: "node-labels", type: t.mapStringString(), default: { zone: "a" }, usage: "Labels." },
  levels: { name: "enforce-node-allocatable", type: t.strings, default: ["pods"], usage: "Levels." },
  logDir: { name: "log_dir", type: t.string, default: "", usage: "Log directory.", deprecated: "will be removed" },
  oldFlag: { name: "old-flag", type: t.string, default: "", usage: "Old.", deprecated: "use the config file", hidden: false },
  staticPodPath: null,
} satisfies FlagTable<Options>;

const flags = new FlagSet(table, { name: "nodeagent", normalize: wordSepNormalize });
type Values = FlagValues<typeof table>;

function ok(args: string[], initial?: Partial<Values>) {
  const r = initial === undefined ? flags.parse(args) : flags.parse(args, { initial });
  if (!r.ok) throw new Error(`unexpected error: ${r.errors[0]?.message}`);
  return r.value;
}

function fail(args: string[]) {
  const r = flags.parse(args);
  if (r.ok) throw new Error(`expected ${JSON.stringify(args)} to fail`);
  return r;
}

describe("long flags", () => {
  it("accepts --name=value and --name value", () => {
    expect(ok(["--address=1.2.3.4"]).values.address).toBe("1.2.3.4");
    expect(ok(["--address", "1.2.3.4"]).values.address).toBe("1.2.3.4");
    expect(ok(["--port", "-1"]).values.port).toBe(-1);
    expect(ok(["--address", "--port"]).values.address).toBe("--port");
  });

  it("sets booleans without consuming the next argument", () => {
    const v = ok(["--runonce", "false", "--enable-server=false"]);
    expect(v.values.runOnce).toBe(true);
    expect(v.values.enableServer).toBe(false);
    expect(v.args).toEqual(["false"]);
  });

  it("keeps defaults for flags not given, and the last value of a repeated scalar", () => {
    const v = ok(["--port=1", "--port=2"]);
    expect(v.values).toEqual({ ...flags.defaults(), port: 2 });
    expect(v.values.syncFrequency).toEqual(Duration.fromSeconds(60));
  });

  it.each([
    [["--foo"], "UnknownFlag", "unknown flag: --foo"],
    [["--foo=bar"], "UnknownFlag", "unknown flag: --foo"],
    [["--Port=1"], "UnknownFlag", "unknown flag: --Port"],
    [["--port"], "MissingArgument", "flag needs an argument: --port"],
    [["--address"], "MissingArgument", "flag needs an argument: --address"],
    [["---port"], "BadSyntax", "bad flag syntax: ---port"],
    [["--=1"], "BadSyntax", "bad flag syntax: --=1"],
    [["--port=x"], "InvalidArgument", 'invalid argument "x" for "-p, --port" flag: strconv.ParseInt: parsing "x": invalid syntax'],
    [["--port", "99999999999"], "InvalidArgument", 'invalid argument "99999999999" for "-p, --port" flag: strconv.ParseInt: parsing "99999999999": value out of range'],
    [["--quiet=x"], "InvalidArgument", 'invalid argument "x" for "--quiet" flag: strconv.ParseBool: parsing "x": invalid syntax'],
    [["--sync-frequency=10"], "InvalidArgument", 'invalid argument "10" for "--sync-frequency" flag: time: missing unit in duration "10"'],
    [["--node-labels=a"], "InvalidArgument", 'invalid argument "a" for "--node-labels" flag: malformed pair, expect string=string'],
  ])("%j fails with %s", (args, code, message) => {
    const r = fail(args);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code, message, arg: args[0] });
  });

  it("stops at the first error", () => {
    expect(fail(["--foo", "--bar"]).errors.map((e) => e.message)).toEqual(["unknown flag: --foo"]);
  });

  it("normalises _ to - with wordSepNormalize", () => {
    const v = ok(["--log_dir=/tmp", "--enforce_node_allocatable=none", "--node_labels=a=b"]);
    expect(v.values.logDir).toBe("/tmp");
    expect(v.values.levels).toEqual(["none"]);
    expect(v.changedFlags).toEqual(["log-dir", "enforce-node-allocatable", "node-labels"]);
    expect(v.changed("log_dir")).toBe(true);
    expect(v.changed("log-dir")).toBe(true);
    expect(flags.lookup("log_dir")?.name).toBe("log_dir");
    expect(flags.lookup("nope")).toBeUndefined();
  });

  it("treats --help as a request for help only when no help flag is defined", () => {
    expect(ok(["--help"]).values.help).toBe(true);
    const bare = new FlagSet({ port: table.port });
    expect(bare.parse(["--help"])).toEqual({
      ok: false,
      errors: [{ code: "HelpRequested", message: "pflag: help requested", arg: "--help" }],
      warnings: [],
    });
    expect(bare.parse(["-h"])).toMatchObject({ ok: false, errors: [{ code: "HelpRequested" }] });
    expect(bare.parse(["--help=false"])).toMatchObject({ ok: false, errors: [{ code: "HelpRequested" }] });
  });
});

describe("shorthands", () => {
  it.each([
    [["-p", "8"], 8],
    [["-p=8"], 8],
    [["-p8"], 8],
    [["-p", "-8"], -8],
    [["-p==8"], undefined],
  ])("%j", (args, port) => {
    if (port === undefined) {
      expect(fail(args).errors[0]?.message).toBe('invalid argument "=8" for "-p, --port" flag: strconv.ParseInt: parsing "=8": invalid syntax');
    } else {
      expect(ok(args).values.port).toBe(port);
    }
  });

  it("takes -p= as the value \"=\" (pflag needs more than one character after =)", () => {
    expect(fail(["-p="]).errors[0]?.message).toBe('invalid argument "=" for "-p, --port" flag: strconv.ParseInt: parsing "=": invalid syntax');
  });

  it("clusters boolean shorthands, the last one may take a value", () => {
    const v = ok(["-rh"]);
    expect(v.values.runOnce).toBe(true);
    expect(v.values.help).toBe(true);
    expect(ok(["-rv5"]).values.verbosity).toBe(5);
    expect(ok(["-rv", "3"]).values.verbosity).toBe(3);
    expect(ok(["-rp=9"]).values.port).toBe(9);
  });

  it("gives a non-boolean shorthand the rest of the cluster as its value", () => {
    expect(fail(["-pr"]).errors[0]?.message).toBe('invalid argument "r" for "-p, --port" flag: strconv.ParseInt: parsing "r": invalid syntax');
  });

  it.each([
    [["-x"], "UnknownShorthand", "unknown shorthand flag: 'x' in -x"],
    [["-rx"], "UnknownShorthand", "unknown shorthand flag: 'x' in -x"],
    [["-rxv"], "UnknownShorthand", "unknown shorthand flag: 'x' in -xv"],
    [["-r="], "UnknownShorthand", "unknown shorthand flag: '=' in -="],
    [["-p"], "MissingArgument", "flag needs an argument: 'p' in -p"],
    [["-rp"], "MissingArgument", "flag needs an argument: 'p' in -p"],
    [["-v", "x"], "InvalidArgument", 'invalid argument "x" for "-v, --v" flag: strconv.ParseInt: parsing "x": invalid syntax'],
  ])("%j fails with %s", (args, code, message) => {
    expect(fail(args).errors[0]).toMatchObject({ code, message });
  });

  it("skips Go test flags (-test.*) as pflag does", () => {
    const v = ok(["-test.v", "-test.run=X"]);
    expect(v.args).toEqual([]);
    expect(v.changedFlags).toEqual([]);
  });
});

describe("positional arguments and --", () => {
  it("collects positional arguments anywhere, - included", () => {
    const v = ok(["a", "--port=1", "-", "b", ""]);
    expect(v.args).toEqual(["a", "-", "b", ""]);
    expect(v.argsLenAtDash).toBe(-1);
  });

  it("stops at --", () => {
    const v = ok(["a", "--", "--port=1", "-p", "--"]);
    expect(v.values.port).toBe(10250);
    expect(v.args).toEqual(["a", "--port=1", "-p", "--"]);
    expect(v.argsLenAtDash).toBe(1);
  });

  it("stops at the first positional argument when not interspersed", () => {
    const strict = new FlagSet(table, { interspersed: false });
    const r = strict.parse(["--port=1", "cmd", "--port=2"]);
    expect(r.ok && r.value.values.port).toBe(1);
    expect(r.ok && r.value.args).toEqual(["cmd", "--port=2"]);
  });
});

describe("list and map flags", () => {
  it("replace the default on first use, then extend", () => {
    const v = ok(["--enforce-node-allocatable=a", "--enforce-node-allocatable", "b,c", "--node-labels=x=1", "--node-labels=y=2"]);
    expect(v.values.levels).toEqual(["a", "b", "c"]);
    expect(v.values.labels).toEqual({ x: "1", y: "2" });
    expect(flags.defaults().levels).toEqual(["pods"]);
    expect(table.levels.default).toEqual(["pods"]);
  });

  it("treat initial values (from a config file) like defaults", () => {
    const v = ok(["--node-labels=b=2"], { labels: { fromFile: "1" }, port: 1234 });
    expect(v.values.labels).toEqual({ b: "2" });
    expect(v.values.port).toBe(1234);
    expect(ok([], { labels: { fromFile: "1" } }).values.labels).toEqual({ fromFile: "1" });
    expect(ok(["--port=1"], { port: 1234 }).values.port).toBe(1);
  });
});

describe("changed", () => {
  it("reports flags set on the command line, in order, by name and key", () => {
    const v = ok(["--port=1", "-v", "2", "--port=3", "--runonce"]);
    expect(v.changedFlags).toEqual(["port", "v", "runonce"]);
    expect([...v.changedKeys]).toEqual(["port", "verbosity", "runOnce"]);
    expect(v.changed("port")).toBe(true);
    expect(v.changed("address")).toBe(false);
    expect(v.changed("unknown")).toBe(false);
  });
});

describe("deprecation warnings", () => {
  it("warns once per use, with pflag's text", () => {
    const v = ok(["--log-dir=/a", "--old-flag=x", "--log_dir=/b", "-q"]);
    expect(v.warnings).toEqual([
      "Flag --log-dir has been deprecated, will be removed",
      "Flag --old-flag has been deprecated, use the config file",
      "Flag --log-dir has been deprecated, will be removed",
      "Flag shorthand -q has been deprecated, use --quiet",
    ]);
    expect(v.values.logDir).toBe("/b");
    expect(v.values.quiet).toBe(true);
    expect(ok(["--quiet"]).warnings).toEqual([]);
  });

  it("keeps the warnings produced before an error", () => {
    expect(fail(["--log-dir=/a", "--port=x"]).warnings).toEqual(["Flag --log-dir has been deprecated, will be removed"]);
  });

  it("does not warn when the value is invalid", () => {
    const withDeprecatedPort = new FlagSet({ port: { ...table.port, deprecated: "gone" } });
    expect(withDeprecatedPort.parse(["--port=x"])).toMatchObject({ ok: false, warnings: [] });
  });

  it("names a deprecated shorthand's flag by its long form only in errors", () => {
    const r = new FlagSet({ quiet: { ...table.quiet, type: t.int32, default: 0 } }).parse(["-q", "x"]);
    expect(r).toMatchObject({
      ok: false,
      errors: [{ message: 'invalid argument "x" for "--quiet" flag: strconv.ParseInt: parsing "x": invalid syntax' }],
      warnings: ["Flag shorthand -q has been deprecated, use --quiet"],
    });
  });
});

describe("table validation (pflag panics at definition time)", () => {
  const port = table.port;
  it.each([
    [{ a: port, b: { ...port, shorthand: "x" } }, "DuplicateFlag", "nodeagent flag redefined: port"],
    [{ a: { ...port, name: "log_dir" }, b: { ...port, name: "log-dir", shorthand: "x" } }, "DuplicateFlag", "nodeagent flag redefined: log-dir"],
    [{ a: port, b: { ...port, name: "other" } }, "DuplicateShorthand", `unable to redefine 'p' shorthand in "nodeagent" flagset: it's already used for "port" flag`],
    [{ a: { ...port, shorthand: "pp" } }, "InvalidShorthand", '"pp" shorthand is more than one ASCII character'],
    [{ a: { ...port, shorthand: "é" } }, "InvalidShorthand", '"é" shorthand is more than one ASCII character'],
    [{ a: { ...port, name: "" } }, "InvalidName", 'invalid flag name ""'],
    [{ a: { ...port, name: "-port" } }, "InvalidName", 'invalid flag name "-port"'],
    [{ a: { ...port, name: "a=b" } }, "InvalidName", 'invalid flag name "a=b"'],
    [{ a: { ...port, deprecated: "" } }, "EmptyDeprecationMessage", 'deprecated message for flag "port" must be set'],
    [{ a: { ...port, shorthandDeprecated: "" } }, "EmptyDeprecationMessage", 'deprecated message for flag "port" must be set'],
  ])("%#: %s", (tbl, code, message) => {
    expect(() => new FlagSet(tbl, { name: "nodeagent", normalize: wordSepNormalize })).toThrow(FlagTableError);
    try {
      new FlagSet(tbl, { name: "nodeagent", normalize: wordSepNormalize });
    } catch (e) {
      expect(e).toMatchObject({ code, message });
    }
  });

  it("accepts an empty shorthand as none", () => {
    expect(new FlagSet({ a: { ...port, shorthand: "" } }).parse(["--port=1"]).ok).toBe(true);
  });
});

describe("typing", () => {
  it("derives value types from the table and omits null entries", () => {
    expectTypeOf<Values["port"]>().toEqualTypeOf<number>();
    expectTypeOf<Values["syncFrequency"]>().toEqualTypeOf<Duration>();
    expectTypeOf<Values["labels"]>().toEqualTypeOf<Record<string, string>>();
    expectTypeOf<Values>().not.toHaveProperty("staticPodPath");
    expectTypeOf(flags.parse([])).toEqualTypeOf<ParseFlagsResult<Values>>();
  });

  it("makes every option declare a flag or null, with a matching value type", () => {
    const { staticPodPath: _omitted, ...withoutStaticPodPath } = table;
    // @ts-expect-error -- `staticPodPath` declares neither a flag nor null.
    const missing = withoutStaticPodPath satisfies FlagTable<Options>;
    // @ts-expect-error -- `port` is a number option, not a string flag.
    const wrongType = { ...table, port: { name: "port", type: t.string, default: "1", usage: "" } } satisfies FlagTable<Options>;
    expect(missing).toBeDefined();
    expect(wrongType).toBeDefined();
  });
});
