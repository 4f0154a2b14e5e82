/**
 * skiff-apiserver's command line: the apiserver flags of DESIGN.md's external contract, parsed
 * with @skiff/flags (pflag grammar) and validated as a whole (every error reported).
 *
 * @see cmd/kube-apiserver/app/options/options.go
 * @see cmd/kube-apiserver/app/options/validation.go
 */
import { Duration, FlagSet, flagTypes as t, formatHelp, mustParseDuration, wordSepNormalize } from "@skiff/flags";
import type { FlagSpec, FlagTable } from "@skiff/flags";

/** Every skiff-apiserver option, as parsed from flags. */
export interface APIServerOptions {
  bindAddress: string;
  securePort: number;
  certDir: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  clientCAFile: string;
  tokenAuthFile: string;
  anonymousAuth: boolean;
  serviceAccountIssuer: string[];
  serviceAccountSigningKeyFile: string;
  serviceAccountKeyFile: string[];
  serviceAccountMaxTokenExpiration: Duration;
  apiAudiences: string[];
  authorizationMode: string[];
  authorizationPolicyFile: string;
  dataDir: string;
  etcdServers: string[];
  etcdPrefix: string;
  etcdCAFile: string;
  etcdCertFile: string;
  etcdKeyFile: string;
  etcdCompactionInterval: Duration;
  migrateSqliteToEtcd: string;
  featureGates: Record<string, boolean>;
  enablePriorityAndFairness: boolean;
  maxRequestsInflight: number;
  defaultNotReadyTolerationSeconds: number;
  defaultUnreachableTolerationSeconds: number;
  maxMutatingRequestsInflight: number;
  requestTimeout: Duration;
  minRequestTimeout: number;
  verbosity: number;
  loggingFormat: string;
  help: boolean;
  version: boolean | "raw";
}

/** Authorization modes skiff-apiserver accepts today. */
export const supportedAuthorizationModes: readonly string[] = Object.freeze(["AlwaysAllow", "AlwaysDeny", "ABAC", "RBAC"]);

/** Modes of kube-apiserver 1.23 that skiff-apiserver refuses as not implemented yet. */
const unimplementedAuthorizationModes: Readonly<Record<string, string>> = Object.freeze({
  Node: "the Node authorizer is not implemented yet; bind the nodes' identities with RBAC instead (e.g. to ClusterRole system:node)",
  Webhook: "the Webhook authorizer is not implemented yet",
});

/**
 * The flag table (the source of `--help` and the README's flag table).
 * @see cmd/kube-apiserver/app/options/options.go (Flags)
 */
export const apiServerFlagTable = {
  bindAddress: {
    name: "bind-address",
    type: t.string,
    default: "0.0.0.0",
    usage: "The IP address on which to listen for the --secure-port port.",
    section: "Secure serving",
  },
  securePort: {
    name: "secure-port",
    type: t.int32,
    default: 6443,
    usage: "The port on which to serve HTTPS with authentication and authorization. 0 picks a free port and prints it.",
    section: "Secure serving",
  },
  certDir: {
    name: "cert-dir",
    type: t.string,
    default: ".skiff/pki",
    usage: "The directory where the generated CA and serving certificate are kept. Ignored when --tls-cert-file and --tls-private-key-file are given.",
    section: "Secure serving",
  },
  tlsCertFile: {
    name: "tls-cert-file",
    type: t.string,
    default: "",
    usage: "File containing the default x509 certificate for HTTPS. If unset, a self-signed one is generated into --cert-dir.",
    section: "Secure serving",
  },
  tlsPrivateKeyFile: {
    name: "tls-private-key-file",
    type: t.string,
    default: "",
    usage: "File containing the default x509 private key matching --tls-cert-file.",
    section: "Secure serving",
  },
  clientCAFile: {
    name: "client-ca-file",
    type: t.string,
    default: "",
    usage: "If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.",
    section: "Authentication",
  },
  tokenAuthFile: {
    name: "token-auth-file",
    type: t.string,
    default: "",
    usage: "If set, the file that will be used to secure the secure port of the API server via token authentication.",
    section: "Authentication",
  },
  anonymousAuth: {
    name: "anonymous-auth",
    type: t.bool,
    default: true,
    usage: "Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests.",
    section: "Authentication",
  },
  serviceAccountIssuer: {
    name: "service-account-issuer",
    type: t.stringArray,
    default: ["https://kubernetes.default.svc.cluster.local"],
    usage:
      "Identifier of the service account token issuer. The issuer will assert this identifier in \"iss\" claim of issued tokens. This value is a string or URI. If this flag is specified multiple times, the first is used to generate tokens and all are used to determine which issuers are accepted.",
    section: "Authentication",
  },
  serviceAccountSigningKeyFile: {
    name: "service-account-signing-key-file",
    type: t.string,
    default: "",
    usage: "Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key. If unset, an RSA key is generated once into --cert-dir (sa.key, sa.pub) and reused.",
    section: "Authentication",
  },
  serviceAccountKeyFile: {
    name: "service-account-key-file",
    type: t.stringArray,
    default: [],
    usage: "File containing PEM-encoded x509 RSA public or private keys (or certificates), used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. If unspecified, the public key of --service-account-signing-key-file is used.",
    section: "Authentication",
  },
  serviceAccountMaxTokenExpiration: {
    name: "service-account-max-token-expiration",
    type: t.duration,
    default: Duration.fromSeconds(0),
    usage: "The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.",
    section: "Authentication",
  },
  apiAudiences: {
    name: "api-audiences",
    type: t.strings,
    default: [],
    usage: "Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If the --service-account-issuer flag is configured and this flag is not, this field defaults to a single element list containing the issuer URL.",
    section: "Authentication",
  },
  authorizationMode: {
    name: "authorization-mode",
    type: t.strings,
    default: ["AlwaysAllow"],
    usage: "Ordered list of plug-ins to do authorization on secure port. Comma-delimited list of: AlwaysAllow,AlwaysDeny,ABAC,RBAC.",
    section: "Authorization",
  },
  authorizationPolicyFile: {
    name: "authorization-policy-file",
    type: t.string,
    default: "",
    usage: "File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port.",
    section: "Authorization",
  },
  dataDir: {
    name: "data-dir",
    type: t.string,
    default: ".skiff/data",
    usage: "Directory of the SQLite storage.",
    section: "Storage",
  },
  etcdServers: {
    name: "etcd-servers",
    type: t.strings,
    default: [],
    usage: "List of etcd servers to connect with (scheme://ip:port), comma separated. When set, objects are stored in etcd instead of SQLite in --data-dir.",
    section: "Storage",
  },
  etcdPrefix: {
    name: "etcd-prefix",
    type: t.string,
    default: "/registry",
    usage: "The prefix to prepend to all resource paths in etcd.",
    section: "Storage",
  },
  etcdCAFile: {
    name: "etcd-cafile",
    type: t.string,
    default: "",
    usage: "CA bundle (PEM) that verifies the certificates of the etcd servers.",
    section: "Storage",
  },
  etcdCertFile: {
    name: "etcd-certfile",
    type: t.string,
    default: "",
    usage: "Client certificate (PEM) the apiserver presents to etcd; needs --etcd-keyfile.",
    section: "Storage",
  },
  etcdKeyFile: {
    name: "etcd-keyfile",
    type: t.string,
    default: "",
    usage: "Private key (PEM) of --etcd-certfile.",
    section: "Storage",
  },
  etcdCompactionInterval: {
    name: "etcd-compaction-interval",
    type: t.duration,
    default: Duration.fromSeconds(300),
    usage: "How often the apiserver asks etcd to compact the history older than one interval. 0 disables compaction requests.",
    section: "Storage",
  },
  migrateSqliteToEtcd: {
    name: "migrate-sqlite-to-etcd",
    type: t.string,
    default: "",
    usage: "Copy every object of the SQLite storage in this data directory into etcd (--etcd-servers, --etcd-prefix), then exit. Objects keep their content; their resourceVersions become etcd revisions. Safe to re-run after an interruption.",
    section: "Storage",
  },
  featureGates: {
    name: "feature-gates",
    type: t.mapStringBool,
    default: {},
    usage: "A set of key=value pairs that describe feature gates for alpha/experimental features.",
    section: "Generic",
  },
  defaultNotReadyTolerationSeconds: {
    name: "default-not-ready-toleration-seconds",
    type: t.int64,
    default: 300,
    usage: "Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default to every pod that does not already have such a toleration.",
    section: "Admission",
  },
  defaultUnreachableTolerationSeconds: {
    name: "default-unreachable-toleration-seconds",
    type: t.int64,
    default: 300,
    usage: "Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by default to every pod that does not already have such a toleration.",
    section: "Admission",
  },
  enablePriorityAndFairness: {
    name: "enable-priority-and-fairness",
    type: t.bool,
    default: true,
    usage: "If true and the APIPriorityAndFairness feature gate is enabled, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness",
    section: "Generic",
  },
  maxRequestsInflight: {
    name: "max-requests-inflight",
    type: t.int32,
    default: 400,
    usage: "This and --max-mutating-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of non-mutating requests in flight, or a zero value disables the limit completely.",
    section: "Generic",
  },
  maxMutatingRequestsInflight: {
    name: "max-mutating-requests-inflight",
    type: t.int32,
    default: 200,
    usage: "This and --max-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of mutating requests in flight, or a zero value disables the limit completely.",
    section: "Generic",
  },
  requestTimeout: {
    name: "request-timeout",
    type: t.duration,
    default: mustParseDuration("1m0s"),
    usage: "An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests.",
    section: "Generic",
  },
  minRequestTimeout: {
    name: "min-request-timeout",
    type: t.int32,
    default: 1800,
    usage: "An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value above this number as the connection timeout, to spread out load.",
    section: "Generic",
  },
  verbosity: { name: "v", shorthand: "v", type: t.verbosityLevel, default: 0, usage: "number for the log level verbosity", section: "Logs" },
  loggingFormat: {
    name: "logging-format",
    type: t.string,
    default: "text",
    usage: 'Sets the log format. Permitted formats: "json", "text".',
    section: "Logs",
  },
  help: { name: "help", shorthand: "h", type: t.bool, default: false, usage: "help for skiff-apiserver", section: "Global" },
  version: { name: "version", type: t.version, default: false, usage: "Print version information and quit", section: "Global" },
} satisfies FlagTable<APIServerOptions>;

/** Help sections in kube-apiserver's order. */
export const apiServerFlagSections: readonly string[] = Object.freeze([
  "Generic",
  "Storage",
  "Secure serving",
  "Authentication",
  "Authorization",
  "Admission",
  "Logs",
  "Global",
]);

/** Result of {@link parseAPIServerOptions}: options, or every error found (flag or semantic). */
export type ParseOptionsResult =
  | { ok: true; value: APIServerOptions; warnings: string[] }
  | { ok: false; errors: string[]; warnings: string[] };

/**
 * Parse argv (without node and script) and validate the merged options. Does not touch the
 * filesystem except to nothing: file existence is checked by the consumers.
 *
 * @param knownGates - feature names the apiserver knows; unknown `--feature-gates` keys are errors.
 * @example
 * ```ts
 * const r = parseAPIServerOptions(process.argv.slice(2), ["JobReadyPods"]);
 * if (!r.ok) { for (const e of r.errors) console.error(e); process.exit(1); }
 * ```
 */
export function parseAPIServerOptions(argv: readonly string[], knownGates: readonly string[] = []): ParseOptionsResult {
  const flags = new FlagSet(apiServerFlagTable, { name: "skiff-apiserver", normalize: wordSepNormalize });
  const r = flags.parse([...argv]);
  if (!r.ok) return { ok: false, errors: r.errors.map((e) => e.message), warnings: [...r.warnings] };
  const value = r.value.values as APIServerOptions;
  const errors = validateAPIServerOptions(value, knownGates);
  if (errors.length > 0) return { ok: false, errors, warnings: [...r.value.warnings] };
  return { ok: true, value, warnings: [...r.value.warnings] };
}

/**
 * Semantic validation of parsed options; returns every error (empty when valid). Does not mutate.
 * @see cmd/kube-apiserver/app/options/validation.go (Validate)
 */
export function validateAPIServerOptions(o: APIServerOptions, knownGates: readonly string[] = []): string[] {
  const errs: string[] = [];
  if (o.securePort < 0 || o.securePort > 65535) {
    errs.push(`--secure-port ${String(o.securePort)} must be between 0 and 65535, inclusive. 0 picks a free port.`);
  }
  if (o.bindAddress === "" || !isIPAddress(o.bindAddress)) {
    errs.push(`--bind-address "${o.bindAddress}" must be an IP address`);
  }
  if ((o.tlsCertFile === "") !== (o.tlsPrivateKeyFile === "")) {
    errs.push("--tls-cert-file and --tls-private-key-file must be given together");
  }
  if (o.authorizationMode.length === 0) errs.push("--authorization-mode: at least one authorization mode must be passed");
  for (const m of o.authorizationMode) {
    const unimplemented = unimplementedAuthorizationModes[m];
    if (unimplemented !== undefined) {
      errs.push(`--authorization-mode: authorization mode "${m}" is not supported by skiff-apiserver: ${unimplemented}`);
    } else if (!supportedAuthorizationModes.includes(m)) {
      errs.push(`--authorization-mode: authorization mode "${m}" is not a valid mode (supported: ${supportedAuthorizationModes.join(", ")})`);
    }
  }
  if (new Set(o.authorizationMode).size !== o.authorizationMode.length) {
    errs.push(`--authorization-mode: has mode specified more than once: ${o.authorizationMode.join(",")}`);
  }
  if (o.authorizationMode.includes("ABAC") && o.authorizationPolicyFile === "") errs.push("--authorization-mode ABAC's authorization policy file not passed (--authorization-policy-file)");
  if (o.maxRequestsInflight < 0) errs.push("--max-requests-inflight can not be negative value");
  if (o.maxMutatingRequestsInflight < 0) errs.push("--max-mutating-requests-inflight can not be negative value");
  if (o.enablePriorityAndFairness && o.maxRequestsInflight + o.maxMutatingRequestsInflight <= 0) {
    errs.push(`--max-requests-inflight=${String(o.maxRequestsInflight)} and --max-mutating-requests-inflight=${String(o.maxMutatingRequestsInflight)} yield a total concurrency limit that is not positive, which --enable-priority-and-fairness needs`);
  }
  if (o.requestTimeout.nanoseconds <= 0n) errs.push("--request-timeout must be a positive duration");
  if (o.minRequestTimeout < 0) errs.push("--min-request-timeout can not be negative value");
  if (o.authorizationPolicyFile !== "" && !o.authorizationMode.includes("ABAC")) {
    errs.push("--authorization-policy-file cannot be used without ABAC authorization mode");
  }
  for (const server of o.etcdServers) {
    if (!/^https?:\/\/[^/\s]+\/?$/.test(server)) errs.push(`--etcd-servers "${server}" must be a URL like http://127.0.0.1:2379 or https://host:port`);
  }
  if (o.migrateSqliteToEtcd !== "" && o.etcdServers.length === 0) errs.push("--migrate-sqlite-to-etcd needs --etcd-servers");
  if ((o.etcdCertFile === "") !== (o.etcdKeyFile === "")) errs.push("--etcd-certfile and --etcd-keyfile must be given together");
  if (o.etcdCompactionInterval.ms < 0) errs.push("--etcd-compaction-interval must not be negative");
  if (!o.etcdPrefix.startsWith("/")) errs.push(`--etcd-prefix "${o.etcdPrefix}" must start with "/"`);
  if (o.dataDir === "") errs.push("--data-dir must not be empty");
  if (o.certDir === "" && o.tlsCertFile === "") errs.push("--cert-dir must not be empty when no --tls-cert-file is given");
  errs.push(...validateServiceAccountOptions(o));
  if (o.loggingFormat !== "text" && o.loggingFormat !== "json") {
    errs.push(`--logging-format "${o.loggingFormat}": unsupported logging format (permitted: "json", "text")`);
  }
  if (knownGates.length > 0) {
    for (const k of Object.keys(o.featureGates)) {
      if (!knownGates.includes(k)) errs.push(`--feature-gates: unrecognized feature gate: ${k}`);
    }
  }
  return errs;
}

/**
 * The service-account token flags, as 1.23's `BuiltInAuthenticationOptions.Validate`: issuers
 * non-empty, unique, parseable as URLs when they contain `:`; a max token expiration of 0 or
 * between 1 hour and 2^32 seconds.
 * @see pkg/kubeapiserver/options/authentication.go
 */
function validateServiceAccountOptions(o: APIServerOptions): string[] {
  const errs: string[] = [];
  if (o.serviceAccountIssuer.length === 0) errs.push("service-account-issuer is a required flag");
  const seen = new Set<string>();
  for (const issuer of o.serviceAccountIssuer) {
    if (issuer === "") {
      errs.push("service-account-issuer should not be an empty string");
      continue;
    }
    if (issuer.includes(":") && !URL.canParse(issuer)) {
      errs.push(`service-account-issuer ${JSON.stringify(issuer)} contained a ':' but was not a valid URL`);
      continue;
    }
    if (seen.has(issuer)) errs.push(`service-account-issuer ${JSON.stringify(issuer)} is already specified`);
    seen.add(issuer);
  }
  const max = o.serviceAccountMaxTokenExpiration.nanoseconds;
  if (max !== 0n && (max < 3_600_000_000_000n || max > 2n ** 32n * 1_000_000_000n)) {
    errs.push("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds");
  }
  if (o.apiAudiences.some((a) => a === "")) errs.push("--api-audiences must not contain an empty audience");
  return errs;
}

/** kube-apiserver-style `--help` text (sections). */
export function formatAPIServerHelp(columns = 80): string {
  return `skiff-apiserver serves the Skiff API over HTTPS.\n\nUsage:\n  skiff-apiserver [flags]\n\n${formatHelp(apiServerFlagTable, {
    sections: apiServerFlagSections,
    columns,
    normalize: wordSepNormalize,
  })}`;
}

/**
 * The README's flag table (markdown), generated from {@link apiServerFlagTable}.
 */
export function formatFlagMarkdownTable(): string {
  const rows = ["| flag | type | default | usage |", "|---|---|---|---|"];
  for (const spec of Object.values(apiServerFlagTable) as FlagSpec<unknown>[]) {
    const name = spec.shorthand !== undefined ? `-${spec.shorthand}, --${spec.name}` : `--${spec.name}`;
    const def = spec.type.isZeroDefault(spec.type.format(spec.default)) ? "" : spec.type.format(spec.default);
    rows.push(`| \`${name}\` | ${spec.type.typeName} | ${def === "" ? "" : `\`${def}\``} | ${spec.usage.replace(/\|/g, "\\|")} |`);
  }
  return rows.join("\n") + "\n";
}

function isIPAddress(s: string): boolean {
  if (/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(s)) return s.split(".").every((p) => Number(p) <= 255);
  return /^[0-9a-fA-F:]+$/.test(s) && s.includes(":");
}
