/**
 * The exact texts 1.23's kubelet prints for a bad flag value or config file, one row per flag
 * type, each row naming the upstream source of its text (kubernetes/kubernetes v1.23 unless
 * said otherwise). `Kubelet`/`kubelet` read `Nodeagent`/`nodeagent` as everywhere in the agent.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadNodeAgentConfigFile, newNodeAgentFlagSet } from "./index.js";

function parseError(arg: string): string | undefined {
  const r = newNodeAgentFlagSet().parse([arg]);
  return r.ok ? undefined : r.errors[0]?.message;
}

function parsed(args: string[]) {
  const r = newNodeAgentFlagSet().parse(args);
  if (!r.ok) throw new Error(r.errors[0]?.message);
  return r.value.values;
}

const qualifiedNameError =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

// [argument, exact pflag error, upstream source of the text]
const rows: ReadonlyArray<readonly [string, string, string]> = [
  ["--enable-server=maybe", 'invalid argument "maybe" for "--enable-server" flag: strconv.ParseBool: parsing "maybe": invalid syntax', "pflag bool.go; strconv"],
  ["--port=x", 'invalid argument "x" for "--port" flag: strconv.ParseInt: parsing "x": invalid syntax', "pflag int32.go (Int32Var)"],
  ["--port=2147483648", 'invalid argument "2147483648" for "--port" flag: strconv.ParseInt: parsing "2147483648": value out of range', "pflag int32.go"],
  ["--registry-qps=1.5", 'invalid argument "1.5" for "--registry-qps" flag: strconv.ParseInt: parsing "1.5": invalid syntax', "options.go Int32Var(RegistryPullQPS)"],
  ["--pod-max-pids=x", 'invalid argument "x" for "--pod-max-pids" flag: strconv.ParseInt: parsing "x": invalid syntax', "pflag int64.go"],
  ["--log-file-max-size=-1", 'invalid argument "-1" for "--log-file-max-size" flag: strconv.ParseUint: parsing "-1": invalid syntax', "klog v2.30 (Uint64Var); pflag uint64.go"],
  ["--sync-frequency=5", 'invalid argument "5" for "--sync-frequency" flag: time: missing unit in duration "5"', "pflag duration.go; Go time.ParseDuration"],
  ["--allowed-unsafe-sysctls=\"a", 'invalid argument "\\"a" for "--allowed-unsafe-sysctls" flag: parse error on line 1, column 3: extraneous or missing " in quoted-field', "pflag string_slice.go (encoding/csv)"],
  ["--eviction-hard=memory.available", 'invalid argument "memory.available" for "--eviction-hard" flag: malformed pair, expect string<string', "component-base cli/flag/langle_separated_map_string_string.go"],
  ["--feature-gates=X=maybe", 'invalid argument "X=maybe" for "--feature-gates" flag: invalid value of X: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax', "component-base cli/flag/map_string_bool.go"],
  ["--address=x", 'invalid argument "x" for "--address" flag: "x" is not a valid IP address', "pkg/util/flag/flags.go IPVar"],
  ["--address=fe80::1%eth0", 'invalid argument "fe80::1%eth0" for "--address" flag: "fe80::1%eth0" is not a valid IP address', "IPVar: Go net.ParseIP takes no zone"],
  // -v and --vmodule are component-base's VerbosityLevel and VModuleConfiguration (uint, 31 bits).
  ["-v=-1", 'invalid argument "-1" for "-v, --v" flag: strconv.ParseUint: parsing "-1": invalid syntax', "component-base config/types.go VerbosityLevel.Set"],
  ["-v=abc", 'invalid argument "abc" for "-v, --v" flag: strconv.ParseUint: parsing "abc": invalid syntax', "component-base config/types.go VerbosityLevel.Set"],
  ["-v=2147483648", 'invalid argument "2147483648" for "-v, --v" flag: strconv.ParseUint: parsing "2147483648": value out of range', "VerbosityLevel.Set (bitSize 31)"],
  ["--vmodule=a=b", 'invalid argument "a=b" for "--vmodule" flag: parsing verbosity in "a=b": strconv.ParseUint: parsing "b": invalid syntax', "component-base config/types.go VModuleConfiguration.Set"],
  ["--vmodule=a=-1", 'invalid argument "a=-1" for "--vmodule" flag: parsing verbosity in "a=-1": strconv.ParseUint: parsing "-1": invalid syntax', "VModuleConfiguration.Set"],
  ["--vmodule=a=", 'invalid argument "a=" for "--vmodule" flag: "a=" does not have the pattern=N format', "VModuleConfiguration.Set"],
  ["--vmodule=x,=1", 'invalid argument "x,=1" for "--vmodule" flag: "x" does not have the pattern=N format', "VModuleConfiguration.Set"],
  // --register-with-taints: RegisterWithTaintsVar.Set → taints.ParseTaints → parseTaint.
  ["--register-with-taints=a=b:NoSchedule,a=c:NoSchedule", 'invalid argument "a=b:NoSchedule,a=c:NoSchedule" for "--register-with-taints" flag: duplicated taints with the same key and effect: {a c NoSchedule <nil>}', "pkg/util/taints/taints.go ParseTaints (%v of a v1.Taint value)"],
  ["--register-with-taints=a", 'invalid argument "a" for "--register-with-taints" flag: invalid taint spec: a', "ParseTaints: an added taint needs an effect"],
  ["--register-with-taints=a:Bad", 'invalid argument "a:Bad" for "--register-with-taints" flag: invalid taint effect: Bad, unsupported taint effect', "taints.go validateTaintEffect"],
  ["--register-with-taints=a=b=c:NoSchedule", 'invalid argument "a=b=c:NoSchedule" for "--register-with-taints" flag: invalid taint spec: a=b=c:NoSchedule', "taints.go parseTaint"],
  ["--register-with-taints=a:b:c", 'invalid argument "a:b:c" for "--register-with-taints" flag: invalid taint spec: a:b:c', "taints.go parseTaint"],
  ["--register-with-taints=a:NoSchedule,", `invalid argument "a:NoSchedule," for "--register-with-taints" flag: invalid taint spec: , name part must be non-empty; ${qualifiedNameError}`, "parseTaint: IsQualifiedName of an empty key"],
  [
    "--register-with-taints=a=-x:NoSchedule",
    "invalid argument \"a=-x:NoSchedule\" for \"--register-with-taints\" flag: invalid taint spec: a=-x:NoSchedule, a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    "parseTaint: IsValidLabelValue",
  ],
];

describe("flag parse errors are pflag's and 1.23's exact texts", () => {
  it.each(rows)("%s", (arg, message) => {
    expect(parseError(arg)).toBe(message);
  });

  it("accepts what 1.23 accepts", () => {
    // VModuleConfiguration.Set does not check the pattern (no filepath.Match); empty entries are skipped; 0 is kept.
    expect(parsed(["--vmodule=[=1,,b=0"]).vmodule).toEqual([{ pattern: "[", level: 1 }, { pattern: "b", level: 0 }]);
    expect(parsed(["-v=2147483647"]).verbosity).toBe(2147483647);
    // Unknown gates pass the flag (map_string_bool.go); they are refused when the gates are set.
    expect(parsed(["--feature-gates=Unknown=true"]).featureGates).toEqual({ Unknown: true });
    // IPVar: ParseIPSloppy takes leading zeros; an empty value leaves the address unchanged.
    expect(parsed(["--address=010.0.0.1"]).address).toBe("010.0.0.1");
    expect(parsed(["--address=::1", "--address="]).address).toBe("::1");
  });

  it("--register-with-taints: last occurrence wins, removals are parsed and dropped, empty clears", () => {
    // RegisterWithTaintsVar.Set replaces the value; ParseTaints drops `-` suffixed removals.
    expect(parsed(["--register-with-taints=a=b:NoSchedule", "--register-with-taints=c:NoExecute"]).registerWithTaints).toEqual([{ key: "c", effect: "NoExecute" }]);
    expect(parsed(["--register-with-taints=key:NoSchedule-,x=y:NoSchedule,key-"]).registerWithTaints).toEqual([{ key: "x", value: "y", effect: "NoSchedule" }]);
    expect(parsed(["--register-with-taints=a=b:NoSchedule,a=c:NoExecute"]).registerWithTaints).toHaveLength(2);
    expect(parsed(["--register-with-taints=a:NoSchedule", "--register-with-taints="]).registerWithTaints).toEqual([]);
    expect(parseError("--register-with-taints=a:Bad-")).toBe('invalid argument "a:Bad-" for "--register-with-taints" flag: invalid taint effect: Bad, unsupported taint effect');
  });
});

describe("config file errors are 1.23's loadConfigFile/fsLoader texts", () => {
  const dir = mkdtempSync(join(tmpdir(), "na-parse-errors-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // server.go loadConfigFile: "failed to load Kubelet config file %s, error %v" around
  // configfiles.fsLoader.Load on filepath.Abs(name); Go's *fs.PathError texts.
  it("missing file", () => {
    const p = join(dir, "missing.yaml");
    expect(loadNodeAgentConfigFile(p)).toEqual({
      ok: false,
      errors: [`failed to load Nodeagent config file ${p}, error failed to read nodeagent config file "${p}", error: open ${p}: no such file or directory`],
    });
  });

  it("a directory", () => {
    expect(loadNodeAgentConfigFile(dir)).toEqual({
      ok: false,
      errors: [`failed to load Nodeagent config file ${dir}, error failed to read nodeagent config file "${dir}", error: read ${dir}: is a directory`],
    });
  });

  it("a relative path is read (and named inside) as its absolute path", () => {
    const r = loadNodeAgentConfigFile("no-such-nodeagent-config.yaml");
    const abs = join(process.cwd(), "no-such-nodeagent-config.yaml");
    expect(r).toEqual({
      ok: false,
      errors: [`failed to load Nodeagent config file no-such-nodeagent-config.yaml, error failed to read nodeagent config file "${abs}", error: open ${abs}: no such file or directory`],
    });
  });

  it("an empty file (fsLoader.Load)", () => {
    const p = join(dir, "empty.yaml");
    writeFileSync(p, "");
    expect(loadNodeAgentConfigFile(p)).toEqual({ ok: false, errors: [`failed to load Nodeagent config file ${p}, error nodeagent config file "${p}" was empty`] });
  });

  it.skipIf(process.getuid?.() === 0)("an unreadable file (skipped as root: root reads any file)", () => {
    const p = join(dir, "unreadable.yaml");
    writeFileSync(p, "kind: x\n");
    chmodSync(p, 0);
    expect(loadNodeAgentConfigFile(p)).toEqual({
      ok: false,
      errors: [`failed to load Nodeagent config file ${p}, error failed to read nodeagent config file "${p}", error: open ${p}: permission denied`],
    });
  });

  it("an unknown kind (codec.DecodeKubeletConfiguration: errors.Wrap(err, \"failed to decode\"))", () => {
    const p = join(dir, "kind.yaml");
    writeFileSync(p, "apiVersion: v1\nkind: Foo\n");
    expect(loadNodeAgentConfigFile(p)).toEqual({
      ok: false,
      errors: [`failed to load Nodeagent config file ${p}, error failed to decode: no kind "Foo" is registered for version "v1" in scheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme/scheme.go:32"`],
    });
  });
});
