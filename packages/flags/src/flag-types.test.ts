import { describe, expect, it } from "vitest";
import { Duration, mustParseDuration } from "./duration.js";
import { FlagSet } from "./flag-set.js";
import type { FlagType } from "./flag-types.js";
import { flagTypes as t } from "./flag-types.js";
import { mustParseQuantity } from "./quantity.js";

/** Parses `args` against a one-flag set `--x` of the given type and default. */
function run<T>(type: FlagType<T>, def: T, args: string[]): { ok: true; value: T; rest: readonly string[] } | { ok: false; message: string } {
  const set = new FlagSet({ x: { name: "x", type, default: def, usage: "" } });
  const r = set.parse(args);
  if (!r.ok) return { ok: false, message: r.errors[0]?.message ?? "" };
  return { ok: true, value: r.value.values.x, rest: r.value.args };
}

function value<T>(type: FlagType<T>, def: T, args: string[]): T {
  const r = run(type, def, args);
  if (!r.ok) throw new Error(`unexpected error: ${r.message}`);
  return r.value;
}

function error<T>(type: FlagType<T>, def: T, arg: string): string {
  const r = run(type, def, [arg]);
  if (r.ok) throw new Error(`expected ${arg} to fail`);
  return r.message;
}

describe("bool", () => {
  it.each([
    [["--x"], true],
    [["--x=true"], true],
    [["--x=1"], true],
    [["--x=t"], true],
    [["--x=T"], true],
    [["--x=TRUE"], true],
    [["--x=True"], true],
    [["--x=false"], false],
    [["--x=0"], false],
    [["--x=f"], false],
    [["--x=F"], false],
    [["--x=FALSE"], false],
    [["--x=False"], false],
    [[], true],
  ])("%j → %s (default true)", (args, want) => {
    expect(value(t.bool, true, args)).toBe(want);
  });

  it("does not take the next argument as its value", () => {
    expect(run(t.bool, true, ["--x", "false"])).toEqual({ ok: true, value: true, rest: ["false"] });
  });

  it.each([
    ["--x=maybe", 'invalid argument "maybe" for "--x" flag: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ["--x=", 'invalid argument "" for "--x" flag: strconv.ParseBool: parsing "": invalid syntax'],
    ["--x=yes", 'invalid argument "yes" for "--x" flag: strconv.ParseBool: parsing "yes": invalid syntax'],
  ])("%s fails", (arg, message) => {
    expect(error(t.bool, false, arg)).toBe(message);
  });
});

describe("string", () => {
  it("takes the next argument or the text after =, last one wins", () => {
    expect(value(t.string, "d", [])).toBe("d");
    expect(value(t.string, "d", ["--x", "a"])).toBe("a");
    expect(value(t.string, "d", ["--x=a=b"])).toBe("a=b");
    expect(value(t.string, "d", ["--x="])).toBe("");
    expect(value(t.string, "d", ["--x", "-not-a-flag"])).toBe("-not-a-flag");
    expect(value(t.string, "d", ["--x", "a", "--x", "b"])).toBe("b");
  });
  it("needs an argument", () => {
    expect(error(t.string, "", "--x")).toBe("flag needs an argument: --x");
  });
});

describe("integers", () => {
  it.each([
    ["12", 12],
    ["-12", -12],
    ["+7", 7],
    ["0x10", 16],
    ["010", 8],
    ["0o10", 8],
    ["0b11", 3],
    ["1_000", 1000],
    ["2147483647", 2147483647],
    ["-2147483648", -2147483648],
  ])("int32 %s → %i", (text, want) => {
    expect(value(t.int32, 0, [`--x=${text}`])).toBe(want);
  });

  it.each([
    ["99999999999", 'invalid argument "99999999999" for "--x" flag: strconv.ParseInt: parsing "99999999999": value out of range'],
    ["2147483648", 'invalid argument "2147483648" for "--x" flag: strconv.ParseInt: parsing "2147483648": value out of range'],
    ["abc", 'invalid argument "abc" for "--x" flag: strconv.ParseInt: parsing "abc": invalid syntax'],
    ["1.5", 'invalid argument "1.5" for "--x" flag: strconv.ParseInt: parsing "1.5": invalid syntax'],
    ["", 'invalid argument "" for "--x" flag: strconv.ParseInt: parsing "": invalid syntax'],
  ])("int32 %j fails", (text, message) => {
    expect(error(t.int32, 0, `--x=${text}`)).toBe(message);
  });

  it("int and int64 take the 64-bit range, exact within JavaScript's safe integers", () => {
    expect(value(t.int, 0, ["--x=-1"])).toBe(-1);
    expect(value(t.int64, 0, ["--x=9007199254740991"])).toBe(9007199254740991);
    expect(error(t.int, 0, "--x=9223372036854775808")).toBe(
      'invalid argument "9223372036854775808" for "--x" flag: strconv.ParseInt: parsing "9223372036854775808": value out of range',
    );
    expect(error(t.int64, 0, "--x=9007199254740993")).toMatch(/use the bigint flag type$/);
    expect(value(t.int64Bigint, 0n, ["--x=9223372036854775807"])).toBe(9223372036854775807n);
    expect(value(t.int64Bigint, 0n, ["--x=-9223372036854775808"])).toBe(-9223372036854775808n);
  });

  it("uint and uint64 are unsigned", () => {
    expect(value(t.uint, 1800, ["--x=0"])).toBe(0);
    expect(value(t.uint64, 0, ["--x=0x20"])).toBe(32);
    expect(error(t.uint, 0, "--x=-1")).toBe('invalid argument "-1" for "--x" flag: strconv.ParseUint: parsing "-1": invalid syntax');
    expect(error(t.uint64, 0, "--x=18446744073709551616")).toBe(
      'invalid argument "18446744073709551616" for "--x" flag: strconv.ParseUint: parsing "18446744073709551616": value out of range',
    );
    expect(value(t.uint64Bigint, 0n, ["--x=18446744073709551615"])).toBe(18446744073709551615n);
  });
});

describe("float64", () => {
  it("parses Go float syntax and formats with %g", () => {
    expect(value(t.float64, 0, ["--x=1.5"])).toBe(1.5);
    expect(value(t.float64, 0, ["--x=1e3"])).toBe(1000);
    expect(value(t.float64, 0, ["--x=-Inf"])).toBe(Number.NEGATIVE_INFINITY);
    expect(error(t.float64, 0, "--x=1,5")).toBe('invalid argument "1,5" for "--x" flag: strconv.ParseFloat: parsing "1,5": invalid syntax');
    expect(error(t.float64, 0, "--x=1e999")).toBe(
      'invalid argument "1e999" for "--x" flag: strconv.ParseFloat: parsing "1e999": value out of range',
    );
    expect(t.float64.format(1e6)).toBe("1e+06");
    expect(t.float64.format(0.25)).toBe("0.25");
  });
});

describe("duration", () => {
  it("parses Go durations", () => {
    expect(value(t.duration, Duration.fromSeconds(20), [])).toEqual(Duration.fromSeconds(20));
    expect(value(t.duration, Duration.fromSeconds(20), ["--x", "2h45m"]).seconds).toBe(9900);
    expect(value(t.duration, Duration.fromSeconds(20), ["--x=0"]).nanoseconds).toBe(0n);
    expect(t.duration.format(mustParseDuration("1m"))).toBe("1m0s");
  });
  it.each([
    ["10", 'invalid argument "10" for "--x" flag: time: missing unit in duration "10"'],
    ["1d", 'invalid argument "1d" for "--x" flag: time: unknown unit "d" in duration "1d"'],
    ["x", 'invalid argument "x" for "--x" flag: time: invalid duration "x"'],
  ])("%s fails", (text, message) => {
    expect(error(t.duration, Duration.fromSeconds(0), `--x=${text}`)).toBe(message);
  });
});

describe("strings (stringSlice)", () => {
  const def = ["pods"];
  it.each([
    [[], ["pods"]],
    [["--x=a,b"], ["a", "b"]],
    [["--x=a", "--x=b,c"], ["a", "b", "c"]],
    [["--x="], []],
    [["--x=", "--x=a"], ["a"]],
    [['--x="a,b",c'], ["a,b", "c"]],
    [["--x= a , b"], [" a ", " b"]],
    [["--x=a,,b"], ["a", "", "b"]],
  ])("%j → %j", (args, want) => {
    expect(value(t.strings, def, args)).toEqual(want);
  });
  it("does not mutate the default", () => {
    const d = ["pods"];
    value(t.strings, d, ["--x=a", "--x=b"]);
    expect(d).toEqual(["pods"]);
  });
  it("reports CSV errors", () => {
    expect(error(t.strings, def, '--x=a"b')).toBe(
      'invalid argument "a\\"b" for "--x" flag: parse error on line 1, column 2: bare " in non-quoted-field',
    );
    expect(error(t.strings, def, "--x=\n")).toBe('invalid argument "\\n" for "--x" flag: EOF');
  });
  it("formats as pflag does", () => {
    expect(t.strings.format(["pods"])).toBe("[pods]");
    expect(t.strings.format(["a,b", "c"])).toBe('["a,b",c]');
    expect(t.strings.format([])).toBe("[]");
  });
});

describe("stringArray", () => {
  it("keeps commas and appends after the first occurrence", () => {
    expect(value(t.stringArray, ["d"], [])).toEqual(["d"]);
    expect(value(t.stringArray, ["d"], ["--x=a,b"])).toEqual(["a,b"]);
    expect(value(t.stringArray, ["d"], ["--x=a,b", "--x", "c"])).toEqual(["a,b", "c"]);
    expect(value(t.stringArray, ["d"], ["--x="])).toEqual([""]);
    expect(t.stringArray.format(["a,b", "c"])).toBe('["a,b",c]');
  });
});

describe("mapStringString", () => {
  const eq = t.mapStringString();
  it.each([
    [[], { a: "1" }],
    [["--x=k=v"], { k: "v" }],
    [["--x=k=v,k2=v2"], { k: "v", k2: "v2" }],
    [["--x=k=v", "--x=k2=v2"], { k: "v", k2: "v2" }],
    [["--x=k=v", "--x=k=w"], { k: "w" }],
    [["--x=k=v,k=w"], { k: "w" }],
    [["--x=k="], { k: "" }],
    [["--x= k = v ,"], { k: "v" }],
    [["--x=k=a=b"], { k: "a=b" }],
    [["--x="], {}],
    [["--x=__proto__=x"], { ["__proto__"]: "x" }],
  ])("%j → %j", (args, want) => {
    const got = value(eq, { a: "1" }, args);
    expect(got).toEqual(want);
    expect(Object.keys(got)).toEqual(Object.keys(want));
  });
  it("rejects a pair without =", () => {
    expect(error(eq, {}, "--x=k")).toBe('invalid argument "k" for "--x" flag: malformed pair, expect string=string');
    expect(error(eq, {}, "--x=a=1,b")).toBe('invalid argument "a=1,b" for "--x" flag: malformed pair, expect string=string');
  });
  it("supports < as separator (eviction thresholds)", () => {
    const lt = t.mapStringString({ separator: "<" });
    const def = { "imagefs.available": "15%", "memory.available": "100Mi", "nodefs.available": "10%" };
    expect(value(lt, def, [])).toEqual(def);
    expect(value(lt, def, ["--x=memory.available<1Gi,nodefs.inodesFree<5%"])).toEqual({
      "memory.available": "1Gi",
      "nodefs.inodesFree": "5%",
    });
    expect(error(lt, def, "--x=memory.available=1Gi")).toBe(
      'invalid argument "memory.available=1Gi" for "--x" flag: malformed pair, expect string<string',
    );
    expect(lt.format(def)).toBe("imagefs.available<15%,memory.available<100Mi,nodefs.available<10%");
  });
  it("supports one pair per occurrence (noSplit)", () => {
    const ns = t.mapStringString({ noSplit: true });
    expect(value(ns, {}, ["--x=a=1,2", "--x=b=3"])).toEqual({ a: "1,2", b: "3" });
    expect(error(ns, {}, "--x=")).toBe('invalid argument "" for "--x" flag: malformed pair, expect string=string');
  });
  it("formats sorted k=v pairs", () => {
    expect(eq.format({ memory: "1Gi", cpu: "100m" })).toBe("cpu=100m,memory=1Gi");
    expect(eq.format({})).toBe("");
  });
});

describe("configurationMap", () => {
  it("merges into the default and accepts keys without values", () => {
    expect(value(t.configurationMap, { cpu: "1" }, ["--x=memory=1Gi,pid"])).toEqual({ cpu: "1", memory: "1Gi", pid: "" });
    expect(t.configurationMap.format({ memory: "1Gi", cpu: "100m" })).toBe("cpu=100m,memory=1Gi");
  });
});

describe("mapStringBool", () => {
  it("parses feature-gate style pairs, replacing the default on first use", () => {
    expect(value(t.mapStringBool, { Old: true }, ["--x=A=true,B=false"])).toEqual({ A: true, B: false });
    expect(value(t.mapStringBool, { Old: true }, ["--x=A=true", "--x= B = 0 "])).toEqual({ A: true, B: false });
    expect(value(t.mapStringBool, {}, ["--x==true"])).toEqual({ "": true });
    expect(t.mapStringBool.format({ B: false, A: true })).toBe("A=true,B=false");
  });
  it.each([
    ["A", "malformed pair, expect string=bool"],
    ["A=maybe", 'invalid value of A: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ["A=true, B = yes", 'invalid value of B: yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
  ])("%s fails", (text, why) => {
    expect(error(t.mapStringBool, {}, `--x=${text}`)).toBe(`invalid argument ${JSON.stringify(text)} for "--x" flag: ${why}`);
  });
});

describe("colonSeparatedMultimap", () => {
  it("collects repeated keys in order", () => {
    expect(value(t.colonSeparatedMultimap, { d: ["x"] }, ["--x=a:hello,b:again,c:world,b:beautiful"])).toEqual({
      a: ["hello"],
      b: ["again", "beautiful"],
      c: ["world"],
    });
    expect(value(t.colonSeparatedMultimap, {}, ["--x=a:1", "--x=a:2"])).toEqual({ a: ["1", "2"] });
    expect(error(t.colonSeparatedMultimap, {}, "--x=a")).toBe('invalid argument "a" for "--x" flag: malformed pair, expect string:string');
    expect(t.colonSeparatedMultimap.format({ b: ["2", "1"], a: ["x"] })).toBe("a:x,b:2,b:1");
  });
});

describe("quantity", () => {
  it("parses strict Kubernetes quantities", () => {
    expect(String(value(t.quantity, mustParseQuantity("0"), ["--x=512"]))).toBe("512");
    expect(String(value(t.quantity, mustParseQuantity("0"), ["--x=2Ki"]))).toBe("2Ki");
    expect(String(value(t.quantity, mustParseQuantity("0"), ["--x=1k"]))).toBe("1k");
    expect(error(t.quantity, mustParseQuantity("0"), "--x=1K")).toBe('invalid argument "1K" for "--x" flag: unable to parse quantity\'s suffix');
    expect(t.quantity.isZeroDefault(t.quantity.format(mustParseQuantity("0")))).toBe(true);
  });
});

describe("klog types", () => {
  it("level is a base-10 int32", () => {
    expect(value(t.level, 0, ["--x=4"])).toBe(4);
    expect(value(t.level, 0, ["--x=-1"])).toBe(-1);
    expect(error(t.level, 0, "--x=0x10")).toBe('invalid argument "0x10" for "--x" flag: strconv.ParseInt: parsing "0x10": invalid syntax');
  });
  it("severity accepts names and numbers", () => {
    expect(value(t.severity, 2, ["--x=warning"])).toBe(1);
    expect(value(t.severity, 2, ["--x=FATAL"])).toBe(3);
    expect(value(t.severity, 2, ["--x=0"])).toBe(0);
    expect(error(t.severity, 2, "--x=loud")).toBe('invalid argument "loud" for "--x" flag: strconv.ParseInt: parsing "loud": invalid syntax');
  });
  it("moduleSpec replaces the whole list and drops level 0", () => {
    expect(value(t.moduleSpec, [], ["--x=a=1,b*=2,c=0,"])).toEqual([
      { pattern: "a", level: 1 },
      { pattern: "b*", level: 2 },
    ]);
    expect(value(t.moduleSpec, [], ["--x=a=1", "--x=b=2"])).toEqual([{ pattern: "b", level: 2 }]);
    expect(t.moduleSpec.format([{ pattern: "a", level: 1 }, { pattern: "b", level: 2 }])).toBe("a=1,b=2");
    const syntax = "syntax error: expect comma-separated list of filename=N";
    expect(error(t.moduleSpec, [], "--x=a")).toBe(`invalid argument "a" for "--x" flag: ${syntax}`);
    expect(error(t.moduleSpec, [], "--x=a=b=1")).toBe(`invalid argument "a=b=1" for "--x" flag: ${syntax}`);
    expect(error(t.moduleSpec, [], "--x==1")).toBe(`invalid argument "=1" for "--x" flag: ${syntax}`);
    expect(error(t.moduleSpec, [], "--x=a=x")).toBe(`invalid argument "a=x" for "--x" flag: ${syntax}`);
    expect(error(t.moduleSpec, [], "--x=a=-1")).toBe('invalid argument "a=-1" for "--x" flag: negative value for vmodule level');
  });
  it("traceLocation is file:line", () => {
    const unset = { file: "", line: 0 };
    expect(value(t.traceLocation, unset, ["--x=main.go:12"])).toEqual({ file: "main.go", line: 12 });
    expect(value(t.traceLocation, { file: "a.go", line: 1 }, ["--x="])).toEqual(unset);
    expect(t.traceLocation.format(unset)).toBe(":0");
    const syntax = "syntax error: expect file.go:234";
    expect(error(t.traceLocation, unset, "--x=main:12")).toBe(`invalid argument "main:12" for "--x" flag: ${syntax}`);
    expect(error(t.traceLocation, unset, "--x=a.go:1:2")).toBe(`invalid argument "a.go:1:2" for "--x" flag: ${syntax}`);
    expect(error(t.traceLocation, unset, "--x=a.go:x")).toBe(`invalid argument "a.go:x" for "--x" flag: ${syntax}`);
    expect(error(t.traceLocation, unset, "--x=a.go:0")).toBe('invalid argument "a.go:0" for "--x" flag: negative or zero value for level');
  });
});

describe("version", () => {
  it.each([
    [[], false],
    [["--x"], true],
    [["--x=true"], true],
    [["--x=raw"], "raw"],
    [["--x=false"], false],
    [["--x=0"], false],
  ])("%j → %s", (args, want) => {
    expect(value(t.version, false, args)).toBe(want);
  });
  it("leaves a following word positional and rejects other values", () => {
    expect(run(t.version, false, ["--x", "raw"])).toEqual({ ok: true, value: true, rest: ["raw"] });
    expect(error(t.version, false, "--x=RAW")).toBe('invalid argument "RAW" for "--x" flag: strconv.ParseBool: parsing "RAW": invalid syntax');
  });
});

describe("isZeroDefault (pflag defaultIsZeroValue)", () => {
  it.each([
    [t.bool, "false", true],
    [t.bool, "true", false],
    [t.version, "false", true],
    [t.string, "", true],
    [t.string, "x", false],
    [t.int32, "0", true],
    [t.int32, "-1", false],
    [t.duration, "0s", true],
    [t.duration, "0", true],
    [t.duration, "1m0s", false],
    [t.strings, "[]", true],
    [t.strings, "[pods]", false],
    [t.stringArray, "[]", true],
    [t.mapStringString(), "", true],
    [t.level, "0", true],
    [t.traceLocation, ":0", false],
    [t.quantity, "0", true],
    [t.float64, "0", true],
  ] as Array<[FlagType<unknown>, string, boolean]>)("%#: %s", (type, text, want) => {
    expect(type.isZeroDefault(text)).toBe(want);
  });
});

describe("verbosityLevel and vmoduleConfiguration (component-base config/types.go, 1.23)", () => {
  // VerbosityLevel.Set: strconv.ParseUint(value, 10, 31).
  it.each([
    ["-1", 'strconv.ParseUint: parsing "-1": invalid syntax'],
    ["abc", 'strconv.ParseUint: parsing "abc": invalid syntax'],
    ["2147483648", 'strconv.ParseUint: parsing "2147483648": value out of range'],
    ["0x1", 'strconv.ParseUint: parsing "0x1": invalid syntax'],
  ])("-v=%s → %s", (text, error) => {
    expect(t.verbosityLevel.set(text, 0, true)).toEqual({ ok: false, error });
  });

  it("accepts 0..2^31-1", () => {
    expect(t.verbosityLevel.set("2147483647", 0, true)).toEqual({ ok: true, value: 2147483647 });
    expect(t.verbosityLevel.typeName).toBe("Level");
  });

  // VModuleConfiguration.Set and its upstream test table (config/types_test.go TestVModule).
  it.each([
    ["gopher*", '"gopher*" does not have the pattern=N format'],
    ["=1", '"=1" does not have the pattern=N format'],
    ["a=", '"a=" does not have the pattern=N format'],
    ["a=1=2", '"a=1=2" does not have the pattern=N format'],
    ["foo=-1", 'parsing verbosity in "foo=-1": strconv.ParseUint: parsing "-1": invalid syntax'],
    ["a=b", 'parsing verbosity in "a=b": strconv.ParseUint: parsing "b": invalid syntax'],
    ["invalidint32=2147483648", 'parsing verbosity in "invalidint32=2147483648": strconv.ParseUint: parsing "2147483648": value out of range'],
  ])("--vmodule=%s → %s", (text, error) => {
    expect(t.vmoduleConfiguration.set(text, [], true)).toEqual({ ok: false, error });
  });

  it("skips empty entries, keeps level 0, does not check the pattern, appends to the current value", () => {
    const r = t.vmoduleConfiguration.set("foo=1,bar=0,,[=2,", [{ pattern: "old", level: 3 }], true);
    expect(r).toEqual({ ok: true, value: [{ pattern: "old", level: 3 }, { pattern: "foo", level: 1 }, { pattern: "bar", level: 0 }, { pattern: "[", level: 2 }] });
    if (r.ok) expect(t.vmoduleConfiguration.format(r.value)).toBe("old=3,foo=1,bar=0,[=2");
    expect(t.vmoduleConfiguration.typeName).toBe("pattern=N,...");
  });
});
