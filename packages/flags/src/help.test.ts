import { describe, expect, it } from "vitest";
import { mustParseDuration } from "./duration.js";
import type { FlagTableShape } from "./flag-set.js";
import { FlagSet, wordSepNormalize } from "./flag-set.js";
import type { FlagType } from "./flag-types.js";
import { flagTypes as t } from "./flag-types.js";
import { formatFlagLog, formatHelp } from "./help.js";
import { mustParseQuantity } from "./quantity.js";

const configDeprecation = "This parameter should be set via the config file specified by the Kubelet's --config flag.";

const table = {
  address: {
    name: "address",
    type: t.string,
    default: "0.0.0.0",
    usage: "The IP address for the agent to serve on",
    deprecated: configDeprecation,
    hidden: false,
  },
  port: { name: "port", type: t.int32, default: 10250, usage: "The port for the agent to serve on." },
  enableServer: { name: "enable-server", type: t.bool, default: true, usage: "Enable the agent's server" },
  exitOnLock: { name: "exit-on-lock-contention", type: t.bool, default: false, usage: "Whether the agent should exit upon lock-file contention." },
  syncFrequency: { name: "sync-frequency", type: t.duration, default: mustParseDuration("1m"), usage: "Max period between synchronizing running containers and config" },
  enforce: { name: "enforce-node-allocatable", type: t.strings, default: ["pods"], usage: "A comma separated list of levels." },
  evictionHard: {
    name: "eviction-hard",
    type: t.mapStringString({ separator: "<" }),
    default: { "imagefs.available": "15%", "memory.available": "100Mi" },
    usage: "A set of eviction thresholds (e.g. memory.available<1Gi) that if met would trigger a pod eviction.",
  },
  featureGates: {
    name: "feature-gates",
    type: t.mapStringBool,
    default: {},
    usage: "A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\nAllAlpha=true|false (ALPHA - default=false)\nAllBeta=true|false (BETA - default=false)",
  },
  verbosity: { name: "v", shorthand: "v", type: t.level, default: 0, usage: "number for the log level verbosity" },
  version: { name: "version", type: t.version, default: false, usage: "Print version information and quit" },
  help: { name: "help", shorthand: "h", type: t.bool, default: false, usage: "help for nodeagent" },
  logMaxSize: { name: "container-log-max-size", type: t.string, default: "10Mi", usage: "Set the maximum size (e.g. 10Mi) of container log file before it is rotated." },
  cloudProvider: { name: "cloud-provider", type: t.string, default: "", usage: "The provider for cloud services.", deprecated: "will be removed in 1.24 or later" },
  secret: { name: "secret", type: t.string, default: "", usage: "Not shown.", hidden: true },
  bufferSize: { name: "log-json-info-buffer-size", type: t.quantity, default: mustParseQuantity("0"), usage: "[Experimental] Buffer size." },
  backtrace: { name: "log_backtrace_at", type: t.traceLocation, default: { file: "", line: 0 }, usage: "when logging hits line file:N, emit a stack trace" },
  config: { name: "config", type: t.string, default: "", usage: "Read configuration from `path`." },
  ratio: { name: "ratio", type: t.float64, default: 0.5, usage: "A ratio." },
  maxSize: { name: "log-file-max-size", type: t.uint, default: 1800, usage: "Maximum size in megabytes." },
  header: { name: "manifest-url-header", type: t.colonSeparatedMultimap, default: {}, usage: "HTTP headers." },
  quiet: { name: "quiet", shorthand: "q", type: t.bool, default: false, usage: "Quiet.", shorthandDeprecated: "use --quiet" },
  staticPodPath: null,
} satisfies FlagTableShape;

const { deprecated: _deprecated, hidden: _hidden, ...plainAddress } = table.address;

describe("formatHelp, flat (kubelet style)", () => {
  it("matches pflag's FlagUsagesWrapped(2)", () => {
    expect(formatHelp(table, { columns: 2, normalize: wordSepNormalize })).toMatchInlineSnapshot(`
      "      --address string                                           The IP address for the agent to serve on (default "0.0.0.0") (DEPRECATED: This parameter should be set via the config file specified by the Kubelet's --config flag.)
            --config path                                              Read configuration from path.
            --container-log-max-size string                            Set the maximum size (e.g. 10Mi) of container log file before it is rotated. (default "10Mi")
            --enable-server                                            Enable the agent's server (default true)
            --enforce-node-allocatable strings                         A comma separated list of levels. (default [pods])
            --eviction-hard mapStringString                            A set of eviction thresholds (e.g. memory.available<1Gi) that if met would trigger a pod eviction. (default imagefs.available<15%,memory.available<100Mi)
            --exit-on-lock-contention                                  Whether the agent should exit upon lock-file contention.
            --feature-gates mapStringBool                              A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:
                      AllAlpha=true|false (ALPHA - default=false)
                      AllBeta=true|false (BETA - default=false)
        -h, --help                                                     help for nodeagent
            --log-backtrace-at traceLocation                           when logging hits line file:N, emit a stack trace (default :0)
            --log-file-max-size uint                                   Maximum size in megabytes. (default 1800)
            --log-json-info-buffer-size quantity                       [Experimental] Buffer size.
            --manifest-url-header colonSeparatedMultimapStringString   HTTP headers.
            --port int32                                               The port for the agent to serve on. (default 10250)
            --quiet                                                    Quiet.
            --ratio float                                              A ratio. (default 0.5)
            --sync-frequency duration                                  Max period between synchronizing running containers and config (default 1m0s)
        -v, --v Level                                                  number for the log level verbosity
            --version version[=true]                                   Print version information and quit
      "
    `);
  });

  it("indents continuation lines to the description column without wrapping (columns 0)", () => {
    const out = formatHelp({ featureGates: table.featureGates, v: table.verbosity }, { columns: 0 });
    expect(out).toBe(
      [
        "      --feature-gates mapStringBool   A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:",
        "                                      AllAlpha=true|false (ALPHA - default=false)",
        "                                      AllBeta=true|false (BETA - default=false)",
        "  -v, --v Level                       number for the log level verbosity",
        "",
      ].join("\n"),
    );
  });

  it("wraps descriptions at word boundaries", () => {
    const out = formatHelp({ evictionHard: table.evictionHard, port: table.port }, { columns: 60 });
    expect(out).toMatchInlineSnapshot(`
      "      --eviction-hard mapStringString   
                      A set of eviction thresholds (e.g.
                      memory.available<1Gi) that if met
                      would trigger a pod eviction. (default
                      imagefs.available<15%,memory.available<100Mi)
            --port int32                      
                      The port for the agent to serve on.
                      (default 10250)
      "
    `);
    for (const line of out.split("\n")) expect(line.length).toBeLessThanOrEqual(60 + 5);
  });

  it("moves descriptions below the name when the name column leaves under 24 columns", () => {
    const out = formatHelp({ port: table.port }, { columns: 40 });
    // 19 columns are left after the 21-column names: pflag restarts at column 16 and wraps at 40 - 16 - 5.
    expect(out).toBe("      --port int32   \n                The port for the\n                agent to serve on.\n                (default 10250)\n");
  });

  it("can keep table order", () => {
    const out = formatHelp({ port: table.port, address: plainAddress }, { sort: false });
    expect(out.split("\n").map((l) => l.trim().split(" ")[0])).toEqual(["--port", "--address", ""]);
  });

  it("prints no-option defaults the way pflag does per type", () => {
    const custom = (typeName: string, noOptDefault: string): FlagType<string> => ({ ...t.string, typeName, noOptDefault });
    const out = formatHelp({
      a: { name: "a", type: custom("string", "auto"), default: "", usage: "A." },
      b: { name: "b", type: custom("bool", "false"), default: "", usage: "B." },
      c: { name: "c", type: custom("count", "+1"), default: "", usage: "C." },
      d: { name: "d", type: custom("count", "2"), default: "", usage: "D." },
      e: { name: "e", type: custom("mode", "fast"), default: "", usage: "E." },
    });
    expect(out).toBe(
      [
        '      --a string[="auto"]   A.',
        "      --b[=false]           B.",
        "      --c count             C.",
        "      --d count[=2]         D.",
        "      --e mode[=fast]       E.",
        "",
      ].join("\n"),
    );
  });

  it("is available on a FlagSet with its normaliser", () => {
    const set = new FlagSet({ backtrace: table.backtrace }, { normalize: wordSepNormalize });
    expect(set.formatHelp()).toBe("      --log-backtrace-at traceLocation   when logging hits line file:N, emit a stack trace (default :0)\n");
  });
});

describe("formatHelp, in sections (kube-apiserver style)", () => {
  const sectioned = {
    port: { ...table.port, section: "secure serving" },
    address: { ...plainAddress, section: "secure serving" },
    featureGates: { ...table.featureGates, section: "generic" },
    verbosity: { ...table.verbosity, section: "logs" },
    help: table.help,
    secret: { ...table.secret, section: "empty" },
  } satisfies FlagTableShape;

  it("prints one block per section, in the given order, then unlisted sections", () => {
    expect(formatHelp(sectioned, { sections: ["generic", "secure serving"] })).toMatchInlineSnapshot(`
      "
      Generic flags:

            --feature-gates mapStringBool   A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:
                                            AllAlpha=true|false (ALPHA - default=false)
                                            AllBeta=true|false (BETA - default=false)

      Secure serving flags:

            --address string   The IP address for the agent to serve on (default "0.0.0.0")
            --port int32       The port for the agent to serve on. (default 10250)

      Logs flags:

        -v, --v Level   number for the log level verbosity

      Empty flags:


      Other flags:

        -h, --help   help for nodeagent
      "
    `);
  });

  it("aligns every section to one column when wrapping wider than 24 columns", () => {
    expect(formatHelp(sectioned, { sections: ["generic", "secure serving"], columns: 100, otherSection: "global" })).toMatchInlineSnapshot(`
      "
      Generic flags:

            --feature-gates mapStringBool                                                        
                      A set of key=value pairs that describe feature gates for alpha/experimental
                      features. Options are:
                      AllAlpha=true|false (ALPHA - default=false)
                      AllBeta=true|false (BETA - default=false)

      Secure serving flags:

            --address string                                                                     
                      The IP address for the agent to serve on (default "0.0.0.0")
            --port int32                                                                         
                      The port for the agent to serve on. (default 10250)

      Logs flags:

        -v, --v Level                                                                            
                      number for the log level verbosity

      Empty flags:


      Global flags:

        -h, --help                                                                               
                      help for nodeagent
      "
    `);
  });
});

describe("formatFlagLog", () => {
  it("lists every flag, sorted, with %q-quoted values", () => {
    const set = new FlagSet(table, { normalize: wordSepNormalize });
    const r = set.parse(["--port=1", '--address=a"b', "--manifest-url-header=a:1,a:2"]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(set.formatFlagLog(r.value.values)).toMatchInlineSnapshot(`
      [
        "FLAG: --address="a\\"b"",
        "FLAG: --cloud-provider=""",
        "FLAG: --config=""",
        "FLAG: --container-log-max-size="10Mi"",
        "FLAG: --enable-server="true"",
        "FLAG: --enforce-node-allocatable="[pods]"",
        "FLAG: --eviction-hard="imagefs.available<15%,memory.available<100Mi"",
        "FLAG: --exit-on-lock-contention="false"",
        "FLAG: --feature-gates=""",
        "FLAG: --help="false"",
        "FLAG: --log-backtrace-at=":0"",
        "FLAG: --log-file-max-size="1800"",
        "FLAG: --log-json-info-buffer-size="0"",
        "FLAG: --manifest-url-header="a:1,a:2"",
        "FLAG: --port="1"",
        "FLAG: --quiet="false"",
        "FLAG: --ratio="0.5"",
        "FLAG: --secret=""",
        "FLAG: --sync-frequency="1m0s"",
        "FLAG: --v="0"",
        "FLAG: --version="false"",
      ]
    `);
    expect(formatFlagLog({ port: table.port }, {})).toEqual(['FLAG: --port="10250"']);
  });
});
