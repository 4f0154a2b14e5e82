import { spawn } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { formatDuration, parseDuration } from "@skiff/flags";
import { parse as parseYaml } from "yaml";
import type { DockerConfig, DockerConfigEntry } from "./docker-config.js";
import { jsonSyntaxMessage } from "./json-error.js";
import type { DockerConfigProvider } from "./keyring.js";
import { parseSchemelessURL, urlsMatch } from "./url-match.js";

// The API group/version of the config file (`kind: CredentialProviderConfig`).
const credentialProviderConfigAPIVersion = "kubelet.config.k8s.io/v1alpha1";
/** The request/response API versions a provider may name (1.23 knows only v1alpha1). */
export const credentialProviderAPIVersions: readonly string[] = Object.freeze(["credentialprovider.kubelet.k8s.io/v1alpha1"]);

// The apimachinery scheme of 1.23's plugin package: kinds registered per group/version.
const schemeName = "pkg/credentialprovider/plugin/plugin.go:50";
const registeredKinds: Readonly<Record<string, readonly string[]>> = {
  [credentialProviderConfigAPIVersion]: ["CredentialProviderConfig"],
  "credentialprovider.kubelet.k8s.io/v1alpha1": ["CredentialProviderRequest", "CredentialProviderResponse"],
};

/** One exec plugin of the config file; durations in ms. */
export interface CredentialProvider {
  /** The executable's name in `--image-credential-provider-bin-dir`. */
  readonly name: string;
  /** Schemeless image globs (`*.registry.io`, `registry.io:5000/team`) the plugin is asked for. */
  readonly matchImages: readonly string[];
  /** How long an answer without `cacheDuration` is kept; 0: not cached. `undefined`: not given (invalid). */
  readonly defaultCacheDurationMs: number | undefined;
  /** The request/response version (`credentialprovider.kubelet.k8s.io/v1alpha1`). */
  readonly apiVersion: string;
  readonly args: readonly string[];
  /** Added to the agent's own environment (these win). */
  readonly env: ReadonlyArray<{ readonly name: string; readonly value: string }>;
}

/** A decoded `CredentialProviderConfig`. */
export interface CredentialProviderConfig {
  readonly providers: readonly CredentialProvider[];
}

/** Why the config file or a plugin was refused; `reason` is stable, the message 1.23's. */
export class CredentialProviderError extends Error {
  override readonly name = "CredentialProviderError";
  constructor(
    message: string,
    readonly reason: "ConfigRead" | "ConfigDecode" | "ConfigInvalid" | "BinDir" | "Binary" | "Exec" | "Response",
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  return typeof v === "boolean" ? "bool" : typeof v;
}

function unmarshalError(v: unknown, fieldPath: string, goType: string): Error {
  return new Error(`json: cannot unmarshal ${typeName(v)} into Go struct field ${fieldPath} of type ${goType}`);
}

function str(v: unknown, fieldPath: string): string {
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw unmarshalError(v, fieldPath, "string");
  return v;
}

function strList(v: unknown, fieldPath: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw unmarshalError(v, fieldPath, "[]string");
  return v.map((x) => str(x, fieldPath));
}

function durationMs(v: unknown, fieldPath: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw unmarshalError(v, fieldPath, "string");
  const r = parseDuration(v);
  if (!r.ok) throw new Error(r.errors[0]?.message ?? `time: invalid duration ${JSON.stringify(v)}`);
  return Number(r.value.nanoseconds) / 1e6;
}

// The universal decoder's checks: kind and apiVersion present and registered.
function decodeTypeMeta(text: string, parsed: unknown): { kind: string; apiVersion: string; obj: Record<string, unknown> } {
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`couldn't get version/kind; json parse error: json: cannot unmarshal ${typeName(parsed)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  const obj = parsed as Record<string, unknown>;
  const kind = typeof obj.kind === "string" ? obj.kind : "";
  const apiVersion = typeof obj.apiVersion === "string" ? obj.apiVersion : "";
  if (kind === "") throw new Error(`Object 'Kind' is missing in '${text}'`);
  if (apiVersion === "" || !apiVersion.includes("/")) throw new Error(`Object 'apiVersion' is missing in '${text}'`);
  if (!(registeredKinds[apiVersion] ?? []).includes(kind)) throw new Error(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme ${JSON.stringify(schemeName)}`);
  return { kind, apiVersion, obj };
}

/**
 * Decodes a `CredentialProviderConfig` (YAML or JSON, `kubelet.config.k8s.io/v1alpha1`); unknown
 * fields are ignored (1.23's decoder is not strict). Does not validate: see
 * {@link validateCredentialProviderConfig}.
 * @throws Error with the decoder's message: `Object 'Kind' is missing in '...'`, `no kind "X" is
 *   registered for version "..." in scheme "..."`, `failed to decode "X" (wrong Kind)`, JSON type
 *   errors, `time: invalid duration "x"`.
 * @see pkg/credentialprovider/plugin/config.go (decode) in kubernetes/kubernetes v1.23
 */
export function decodeCredentialProviderConfig(text: string): CredentialProviderConfig {
  let parsed: unknown;
  try {
    parsed = parseYaml(text) as unknown;
  } catch (err) {
    throw new Error(`error converting YAML to JSON: ${(err as Error).message}`, { cause: err });
  }
  const { kind, apiVersion, obj } = decodeTypeMeta(text, parsed);
  if (kind !== "CredentialProviderConfig") throw new Error(`failed to decode ${JSON.stringify(kind)} (wrong Kind)`);
  if (apiVersion.split("/")[0] !== "kubelet.config.k8s.io") throw new Error(`failed to decode CredentialProviderConfig, unexpected Group: ${apiVersion.split("/")[0] ?? ""}`);
  const list = obj.providers ?? [];
  if (!Array.isArray(list)) throw unmarshalError(list, "CredentialProviderConfig.providers", "[]v1alpha1.CredentialProvider");
  const providers = list.map((p: unknown): CredentialProvider => {
    if (typeof p !== "object" || p === null || Array.isArray(p)) throw unmarshalError(p, "CredentialProviderConfig.providers", "v1alpha1.CredentialProvider");
    const o = p as Record<string, unknown>;
    const f = (n: string) => `CredentialProvider.providers.${n}`;
    const envList = o.env ?? [];
    if (!Array.isArray(envList)) throw unmarshalError(envList, f("env"), "[]v1alpha1.ExecEnvVar");
    return {
      name: str(o.name, f("name")),
      matchImages: strList(o.matchImages, f("matchImages")),
      defaultCacheDurationMs: durationMs(o.defaultCacheDuration, f("defaultCacheDuration")),
      apiVersion: str(o.apiVersion, f("apiVersion")),
      args: strList(o.args, f("args")),
      env: envList.map((e: unknown) => {
        if (typeof e !== "object" || e === null || Array.isArray(e)) throw unmarshalError(e, f("env"), "v1alpha1.ExecEnvVar");
        const r = e as Record<string, unknown>;
        return { name: str(r.name, "ExecEnvVar.providers.env.name"), value: str(r.value, "ExecEnvVar.providers.env.value") };
      }),
    };
  });
  return { providers };
}

/**
 * Validates a decoded config as 1.23: at least one provider; a name without `/` or spaces and not
 * `.`/`..`; `apiVersion` given and supported; at least one `matchImages` entry, each a valid
 * schemeless URL; `defaultCacheDuration` given and not negative.
 * @returns field errors as apimachinery prints them (`providers.name: Invalid value: "a/b":
 *   provider name cannot contain '/'`), in order; empty when valid. Does not mutate.
 * @see pkg/credentialprovider/plugin/config.go (validateCredentialProviderConfig) in kubernetes/kubernetes v1.23
 */
export function validateCredentialProviderConfig(config: CredentialProviderConfig): string[] {
  const errs: string[] = [];
  if (config.providers.length === 0) errs.push("providers: Required value: at least 1 item in plugins is required");
  for (const p of config.providers) {
    const name = JSON.stringify(p.name);
    if (p.name.includes("/")) errs.push(`providers.name: Invalid value: ${name}: provider name cannot contain '/'`);
    if (p.name.includes(" ")) errs.push(`providers.name: Invalid value: ${name}: provider name cannot contain spaces`);
    if (p.name === ".") errs.push(`providers.name: Invalid value: ${name}: provider name cannot be '.'`);
    if (p.name === "..") errs.push(`providers.name: Invalid value: ${name}: provider name cannot be '..'`);
    if (p.apiVersion === "") errs.push("providers.apiVersion: Required value: apiVersion is required");
    else if (!credentialProviderAPIVersions.includes(p.apiVersion)) {
      errs.push(`providers.apiVersion: Unsupported value: ${JSON.stringify(p.apiVersion)}: supported values: ${credentialProviderAPIVersions.map((v) => JSON.stringify(v)).join(", ")}`);
    }
    if (p.matchImages.length === 0) errs.push("providers.matchImages: Required value: at least 1 item in matchImages is required");
    for (const m of p.matchImages) {
      try {
        parseSchemelessURL(m);
      } catch (err) {
        errs.push(`providers.matchImages: Invalid value: ${JSON.stringify(m)}: match image is invalid: ${(err as Error).message}`);
      }
    }
    if (p.defaultCacheDurationMs === undefined) errs.push("providers.defaultCacheDuration: Required value: defaultCacheDuration is required");
    else if (p.defaultCacheDurationMs < 0) {
      errs.push(`providers.defaultCacheDuration: Invalid value: ${formatDuration(BigInt(Math.round(p.defaultCacheDurationMs * 1e6)))}: defaultCacheDuration must be greater than or equal to 0`);
    }
  }
  return [...new Set(errs)];
}

// apimachinery's Aggregate: one error prints alone, several as "[a, b]".
function aggregate(errs: readonly string[]): string {
  return errs.length === 1 ? (errs[0] ?? "") : `[${errs.join(", ")}]`;
}

/** What one plugin answered, validated; durations in ms. */
export interface CredentialProviderResponse {
  readonly cacheKeyType: string;
  /** `undefined`: not given (the provider's default applies). */
  readonly cacheDurationMs: number | undefined;
  readonly auth: ReadonlyMap<string, { readonly username: string; readonly password: string }>;
}

/** Runs one plugin for one image (a seam for tests). @throws CredentialProviderError (`Exec`, `Response`) */
export type ExecPluginFn = (image: string) => Promise<CredentialProviderResponse>;

/** The exec plugin's deadline (1.23's catch-all). */
export const execPluginTimeoutMs = 60_000;

/**
 * Runs `<binDir>/<name> args...` with the config's env over the agent's own, writes the
 * `CredentialProviderRequest` (`{"kind","apiVersion","image"}`) to its stdin and decodes the
 * `CredentialProviderResponse` from its stdout; the process is killed after `timeoutMs`.
 * @throws CredentialProviderError `error execing credential provider plugin <name> for image <image>:
 *   exit status 1` (or `context deadline exceeded`), `apiVersion from credential plugin response
 *   did not match`, `error decoding credential provider plugin response from stdout` (the
 *   response is never quoted: it may hold credentials), `error reading GVK from response: ...`.
 * @see pkg/credentialprovider/plugin/plugin.go (execPlugin.ExecPlugin) in kubernetes/kubernetes v1.23
 */
export async function execCredentialProviderPlugin(binDir: string, provider: CredentialProvider, image: string, timeoutMs = execPluginTimeoutMs, log?: (line: string) => void): Promise<CredentialProviderResponse> {
  const request = `${JSON.stringify({ kind: "CredentialProviderRequest", apiVersion: provider.apiVersion, image })}\n`;
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  for (const e of provider.env) env[e.name] = e.value;
  const execError = (why: string, cause?: unknown) =>
    new CredentialProviderError(`error execing credential provider plugin ${provider.name} for image ${image}: ${why}`, "Exec", cause === undefined ? undefined : { cause });
  const stdout = await new Promise<Buffer>((resolve, reject) => {
    let child;
    try {
      child = spawn(join(binDir, provider.name), [...provider.args], { env, stdio: ["pipe", "pipe", "pipe"] });
    } catch (err) {
      reject(execError((err as Error).message, err));
      return;
    }
    const out: Buffer[] = [];
    const errOut: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => errOut.push(b));
    child.stdin.on("error", () => undefined);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(execError(`fork/exec ${join(binDir, provider.name)}: ${(err as NodeJS.ErrnoException).code === "EACCES" ? "permission denied" : err.message}`, err));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (timedOut) return reject(execError("context deadline exceeded"));
      if (code !== 0) {
        log?.(`Error execing credential provider plugin, stderr: ${Buffer.concat(errOut).toString("utf8")}`);
        return reject(execError(signal ? `signal: ${signalName(signal)}` : `exit status ${String(code)}`));
      }
      resolve(Buffer.concat(out));
    });
    child.stdin.end(request);
  });
  return decodeResponse(stdout.toString("utf8"), provider.apiVersion);
}

function signalName(signal: NodeJS.Signals): string {
  return signal === "SIGKILL" ? "killed" : signal === "SIGTERM" ? "terminated" : signal.toLowerCase().replace(/^sig/, "");
}

function decodeResponse(text: string, expectedAPIVersion: string): CredentialProviderResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (err) {
    throw new CredentialProviderError(`error reading GVK from response: ${jsonSyntaxMessage(err, text)}`, "Response");
  }
  const apiVersion = typeof parsed === "object" && parsed !== null ? (parsed as { apiVersion?: unknown }).apiVersion : undefined;
  if (apiVersion !== expectedAPIVersion) throw new CredentialProviderError("apiVersion from credential plugin response did not match", "Response");
  const bad = () => new CredentialProviderError("error decoding credential provider plugin response from stdout", "Response");
  let obj: Record<string, unknown>;
  try {
    const meta = decodeTypeMeta(text, parsed);
    if (meta.kind !== "CredentialProviderResponse") throw new Error("wrong kind");
    obj = meta.obj;
  } catch {
    throw bad();
  }
  try {
    const cacheKeyType = str(obj.cacheKeyType, "CredentialProviderResponse.cacheKeyType");
    const cacheDurationMs = durationMs(obj.cacheDuration, "CredentialProviderResponse.cacheDuration");
    const auth = new Map<string, { username: string; password: string }>();
    const a = obj.auth ?? {};
    if (typeof a !== "object" || a === null || Array.isArray(a)) throw new Error("auth");
    for (const [k, v] of Object.entries(a)) {
      if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("auth entry");
      const e = v as Record<string, unknown>;
      auth.set(k, { username: str(e.username, "AuthConfig.username"), password: str(e.password, "AuthConfig.password") });
    }
    return { cacheKeyType, cacheDurationMs, auth };
  } catch {
    throw bad();
  }
}

/** The registry host of an image (`registry.io:5000` of `registry.io:5000/app`). */
function parseRegistry(image: string): string {
  return image.split("/")[0] ?? "";
}

const globalCacheKey = "global";

/**
 * One exec plugin as a {@link DockerConfigProvider}: only images matching `matchImages` are asked
 * for; answers are cached by the `cacheKeyType` the plugin returns (`Image`: the image, `Registry`:
 * its host, `Global`: every image) for `cacheDuration`, else the provider's
 * `defaultCacheDuration` (0, explicit or default, means not cached); lookups try image, registry,
 * global. Calls are serialized. A failing plugin, or an unknown `cacheKeyType`, gives no
 * credentials and a log line — never an exception.
 * @see pkg/credentialprovider/plugin/plugin.go (pluginProvider) in kubernetes/kubernetes v1.23
 */
export class PluginProvider implements DockerConfigProvider {
  readonly #cache = new Map<string, { config: DockerConfig; expiresAtMs: number }>();
  #chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly provider: CredentialProvider,
    private readonly exec: ExecPluginFn,
    private readonly log: (line: string) => void = () => {},
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Whether `image` matches one of `matchImages`. */
  isImageAllowed(image: string): boolean {
    return this.provider.matchImages.some((m) => {
      try {
        return urlsMatch(m, image);
      } catch {
        return false;
      }
    });
  }

  provide(image: string): Promise<DockerConfig> {
    if (!this.isImageAllowed(image)) return Promise.resolve(new Map());
    const run = this.#chain.then(() => this.provideLocked(image));
    this.#chain = run.catch(() => undefined);
    return run;
  }

  private cached(key: string): DockerConfig | undefined {
    const e = this.#cache.get(key);
    if (!e) return undefined;
    if (this.nowMs() > e.expiresAtMs) {
      this.#cache.delete(key);
      return undefined;
    }
    return e.config;
  }

  private async provideLocked(image: string): Promise<DockerConfig> {
    const hit = this.cached(image) ?? this.cached(parseRegistry(image)) ?? this.cached(globalCacheKey);
    if (hit) return hit;
    let response: CredentialProviderResponse;
    try {
      response = await this.exec(image);
    } catch (err) {
      this.log(`Failed getting credential from external registry credential provider: ${(err as Error).message}`);
      return new Map();
    }
    let cacheKey: string;
    switch (response.cacheKeyType) {
      case "Image":
        cacheKey = image;
        break;
      case "Registry":
        cacheKey = parseRegistry(image);
        break;
      case "Global":
        cacheKey = globalCacheKey;
        break;
      default:
        this.log(`credential provider plugin did not return a valid cacheKeyType: ${JSON.stringify(response.cacheKeyType)}`);
        return new Map();
    }
    const config = new Map<string, DockerConfigEntry>();
    for (const [match, a] of response.auth) config.set(match, { username: a.username, password: a.password, email: "" });
    const durationMs = response.cacheDurationMs ?? this.provider.defaultCacheDurationMs ?? 0;
    if (durationMs > 0) this.#cache.set(cacheKey, { config, expiresAtMs: this.nowMs() + durationMs });
    return config;
  }
}

/**
 * Reads, validates and registers the plugins of `--image-credential-provider-config` whose
 * binaries are in `--image-credential-provider-bin-dir`, in config order.
 * @throws CredentialProviderError with 1.23's messages: `plugin binary directory <dir> did not
 *   exist`, `unable to read external registry credential provider configuration from "<path>": ...`,
 *   `error decoding config <path>: ...`, `failed to validate credential provider config: ...`,
 *   `plugin binary executable <path> did not exist`. The node agent exits on any of them, as the
 *   kubelet does (`Failed to register CRI auth plugins`). `log` takes a verbosity (2: a failing
 *   plugin's stderr).
 * @see pkg/credentialprovider/plugin/plugin.go (RegisterCredentialProviderPlugins) in kubernetes/kubernetes v1.23
 */
export async function registerCredentialProviderPlugins(configPath: string, binDir: string, log: (line: string, level?: number) => void = () => {}): Promise<PluginProvider[]> {
  const binDirErr = await stat(binDir).then(
    () => undefined,
    (err: NodeJS.ErrnoException) => err,
  );
  if (binDirErr) {
    if (binDirErr.code === "ENOENT") throw new CredentialProviderError(`plugin binary directory ${binDir} did not exist`, "BinDir");
    throw new CredentialProviderError(`error inspecting binary directory ${binDir}: ${binDirErr.message}`, "BinDir", { cause: binDirErr });
  }
  if (configPath === "") throw new CredentialProviderError("credential provider config path is empty", "ConfigRead");
  let text: string;
  try {
    text = await readFile(configPath, "utf8");
  } catch (err) {
    throw new CredentialProviderError(`unable to read external registry credential provider configuration from ${JSON.stringify(configPath)}: ${(err as Error).message}`, "ConfigRead", { cause: err });
  }
  let config: CredentialProviderConfig;
  try {
    config = decodeCredentialProviderConfig(text);
  } catch (err) {
    throw new CredentialProviderError(`error decoding config ${configPath}: ${(err as Error).message}`, "ConfigDecode", { cause: err });
  }
  const errs = validateCredentialProviderConfig(config);
  if (errs.length > 0) throw new CredentialProviderError(`failed to validate credential provider config: ${aggregate(errs)}`, "ConfigInvalid");
  const out: PluginProvider[] = [];
  for (const p of config.providers) {
    const bin = join(binDir, p.name);
    const binErr = await stat(bin).then(
      () => undefined,
      (err: NodeJS.ErrnoException) => err,
    );
    if (binErr) {
      if (binErr.code === "ENOENT") throw new CredentialProviderError(`plugin binary executable ${bin} did not exist`, "Binary");
      throw new CredentialProviderError(`error inspecting binary executable ${bin}: ${binErr.message}`, "Binary", { cause: binErr });
    }
    // A plugin's stderr is logged at verbosity 2, as 1.23 does.
    out.push(new PluginProvider(p, (image) => execCredentialProviderPlugin(binDir, p, image, execPluginTimeoutMs, (line) => log(line, 2)), (line) => log(line)));
  }
  return out;
}
