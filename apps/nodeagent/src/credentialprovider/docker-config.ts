import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { jsonSyntaxMessage } from "./json-error.js";

/** One registry's credentials of a docker config (`auth` already split into user and password). */
export interface DockerConfigEntry {
  readonly username: string;
  readonly password: string;
  readonly email: string;
}

/** Registry location (`registry.io`, `https://registry.io/v1/`, `*.gcr.io/ns`) → credentials, in file order. */
export type DockerConfig = ReadonlyMap<string, DockerConfigEntry>;

/** A docker config that is not valid JSON of the expected shape; `reason` is stable. */
export class DockerConfigError extends Error {
  override readonly name = "DockerConfigError";
  constructor(
    message: string,
    readonly reason: "InvalidJSON" | "InvalidAuth",
  ) {
    super(message);
  }
}

function jsonTypeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  return typeof v === "boolean" ? "bool" : typeof v;
}

// encoding/json matches field names case-insensitively, preferring an exact match.
function field(obj: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(obj, name)) return obj[name];
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : obj[key];
}

function stringField(obj: Record<string, unknown>, name: string, goType: string): string {
  const v = field(obj, name);
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw new DockerConfigError(`json: cannot unmarshal ${jsonTypeName(v)} into Go struct field ${goType}.${name} of type string`, "InvalidJSON");
  return v;
}

const base64Padded = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const base64Raw = /^[A-Za-z0-9+/]*$/;

// Go's StdEncoding (padded) and RawStdEncoding (unpadded) are strict; the byte reported is the
// first that is not in the alphabet, else the end of the input.
function decodeBase64(text: string, padded: boolean): Buffer {
  if (!(padded ? base64Padded : base64Raw).test(text) || (!padded && text.length % 4 === 1)) {
    const bad = [...text].findIndex((c) => !/[A-Za-z0-9+/]/.test(c));
    throw new DockerConfigError(`illegal base64 data at input byte ${bad >= 0 ? bad : text.length}`, "InvalidAuth");
  }
  return Buffer.from(text, "base64");
}

/**
 * Splits a docker config `auth` field, base64 of `user:password` (padded or not), into its parts.
 * @throws DockerConfigError `illegal base64 data at input byte N`, or `unable to parse auth field,
 *   must be formatted as base64(username:password)` when there is no `:`.
 * @see pkg/credentialprovider/config.go (decodeDockerConfigFieldAuth) in kubernetes/kubernetes v1.23
 */
export function decodeDockerConfigFieldAuth(auth: string): { username: string; password: string } {
  const decoded = decodeBase64(auth, auth.trim().endsWith("=")).toString("utf8");
  const i = decoded.indexOf(":");
  if (i < 0) throw new DockerConfigError("unable to parse auth field, must be formatted as base64(username:password)", "InvalidAuth");
  return { username: decoded.slice(0, i), password: decoded.slice(i + 1) };
}

/**
 * One entry of a docker config (`{"username","password","email","auth"}`, names matched without
 * case as encoding/json does); a non-empty `auth` overrides `username`/`password`.
 * @throws DockerConfigError for a field of the wrong JSON type or a bad `auth`.
 * @see pkg/credentialprovider/config.go (DockerConfigEntry.UnmarshalJSON) in kubernetes/kubernetes v1.23
 */
export function parseDockerConfigEntry(value: unknown): DockerConfigEntry {
  if (value === null) return { username: "", password: "", email: "" };
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new DockerConfigError(`json: cannot unmarshal ${jsonTypeName(value)} into Go value of type credentialprovider.dockerConfigEntryWithAuth`, "InvalidJSON");
  }
  const obj = value as Record<string, unknown>;
  const t = "dockerConfigEntryWithAuth";
  const entry = { username: stringField(obj, "username", t), password: stringField(obj, "password", t), email: stringField(obj, "email", t) };
  const auth = stringField(obj, "auth", t);
  if (auth === "") return entry;
  return { ...entry, ...decodeDockerConfigFieldAuth(auth) };
}

function parseJSON(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new DockerConfigError(jsonSyntaxMessage(err, text), "InvalidJSON");
  }
}

function entriesOf(value: unknown, goType: string): Map<string, DockerConfigEntry> {
  const out = new Map<string, DockerConfigEntry>();
  if (value === null || value === undefined) return out;
  if (typeof value !== "object" || Array.isArray(value)) throw new DockerConfigError(`json: cannot unmarshal ${jsonTypeName(value)} into Go value of type ${goType}`, "InvalidJSON");
  for (const [k, v] of Object.entries(value)) out.set(k, parseDockerConfigEntry(v));
  return out;
}

/**
 * Parses a legacy `.dockercfg` (the `kubernetes.io/dockercfg` Secret's `.dockercfg` key): a JSON
 * object of registry → entry.
 * @throws DockerConfigError for JSON that does not parse or has the wrong shape (see {@link parseDockerConfigEntry}).
 * @see pkg/credentialprovider/config.go (DockerConfig) in kubernetes/kubernetes v1.23
 */
export function parseDockercfg(text: string): DockerConfig {
  return entriesOf(parseJSON(text), "credentialprovider.DockerConfig");
}

/**
 * Parses a `config.json` (the `kubernetes.io/dockerconfigjson` Secret's `.dockerconfigjson` key):
 * `{"auths": {registry: entry}}`; other fields (`HttpHeaders`, `credsStore`...) are ignored.
 * @throws DockerConfigError as {@link parseDockercfg}.
 * @see pkg/credentialprovider/config.go (DockerConfigJSON) in kubernetes/kubernetes v1.23
 */
export function parseDockerConfigJSON(text: string): DockerConfig {
  const v = parseJSON(text);
  if (v === null) return new Map();
  if (typeof v !== "object" || Array.isArray(v)) throw new DockerConfigError(`json: cannot unmarshal ${jsonTypeName(v)} into Go value of type credentialprovider.DockerConfigJSON`, "InvalidJSON");
  return entriesOf(field(v as Record<string, unknown>, "auths"), "credentialprovider.DockerConfig");
}

/**
 * The node's own docker credentials, searched as the kubelet's default `.dockercfg` provider
 * does: `config.json` in `<rootDir>`, the working directory, `~/.docker`, `/.docker`, then
 * `.dockercfg` in `<rootDir>`, the working directory, `~`, `/`; the first file that parses wins.
 * Never throws: nothing found is an empty config (reported to `log`).
 * @see pkg/credentialprovider/config.go (ReadDockerConfigFile), pkg/credentialprovider/provider.go
 *   (defaultDockerConfigProvider) in kubernetes/kubernetes v1.23
 */
export async function readNodeDockerConfig(rootDir: string, log?: (line: string) => void, home: string = homedir()): Promise<DockerConfig> {
  const tryFiles = async (dirs: string[], file: string, parse: (text: string) => DockerConfig): Promise<DockerConfig | undefined> => {
    for (const dir of dirs) {
      const path = resolve(join(dir, file));
      const text = await readFile(path, "utf8").catch(() => undefined);
      if (text === undefined) continue;
      try {
        return parse(text);
      } catch (err) {
        log?.(`while trying to parse ${path}: ${(err as Error).message}`);
      }
    }
    return undefined;
  };
  const json = await tryFiles([rootDir, "", join(home, ".docker"), "/.docker"], "config.json", parseDockerConfigJSON);
  if (json) return json;
  const cfg = await tryFiles([rootDir, "", home, "/"], ".dockercfg", parseDockercfg);
  return cfg ?? new Map();
}
