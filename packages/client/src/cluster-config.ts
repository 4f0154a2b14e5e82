/**
 * Loading the cluster configuration from a kubeconfig file (the file kubectl reads).
 *
 * @see staging/src/k8s.io/client-go/tools/clientcmd/api/v1/types.go
 * @see staging/src/k8s.io/client-go/tools/clientcmd/client_config.go
 */

import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { parse as parseYAML } from "yaml";

/**
 * How to reach and authenticate to one apiserver: the current context's cluster and user of a
 * kubeconfig, with every file reference already read. PEM values are strings.
 */
export interface ClusterConfig {
  /** The apiserver's base URL, such as `https://127.0.0.1:6443` (no trailing slash). */
  readonly server: string;
  /** PEM CA bundle to trust instead of the system roots; omitted to use the system roots. */
  readonly caPEM?: string;
  /** Skip verification of the server certificate. @defaultValue false */
  readonly insecureSkipTLSVerify: boolean;
  /** Bearer token sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** PEM client certificate (with `clientKeyPEM`) for TLS client authentication. */
  readonly clientCertificatePEM?: string;
  /** PEM private key of `clientCertificatePEM`. */
  readonly clientKeyPEM?: string;
  /** TLS server name to verify instead of the URL's host (kubeconfig `tls-server-name`). */
  readonly tlsServerName?: string;
}

/** Why a kubeconfig could not be loaded. */
export type ClusterConfigErrorReason = "FileNotFound" | "ReadFailed" | "Malformed" | "Invalid";

/**
 * A kubeconfig is missing, unreadable, not YAML (`Malformed`) or does not describe a usable
 * cluster (`Invalid`: no current context, a context naming an unknown cluster, no server, a
 * referenced file missing...). `errors` lists every problem found.
 */
export class ClusterConfigError extends Error {
  override readonly name = "ClusterConfigError";
  constructor(
    readonly reason: ClusterConfigErrorReason,
    readonly path: string,
    readonly errors: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`${path}: ${errors.join("; ")}`, options);
  }
}

/** Whether `x` is a {@link ClusterConfigError} (also across duplicate package copies). */
export function isClusterConfigError(x: unknown): x is ClusterConfigError {
  return x instanceof ClusterConfigError || (x instanceof Error && x.name === "ClusterConfigError" && "reason" in x);
}

/** Options of {@link parseClusterConfig}. */
export interface ParseClusterConfigOptions {
  /** Directory relative file references resolve against (the kubeconfig's own directory). @defaultValue process.cwd() */
  readonly baseDir?: string;
  /** Context to use instead of `current-context`. */
  readonly context?: string;
  /** Reads a referenced file (certificate-authority, client-certificate, client-key, tokenFile). @defaultValue fs.readFile as UTF-8 */
  readonly readFile?: (path: string) => Promise<string>;
}

/** Result of {@link parseClusterConfig}: the config, or every problem found. */
export type ParseClusterConfigResult = { readonly ok: true; readonly value: ClusterConfig } | { readonly ok: false; readonly reason: ClusterConfigErrorReason; readonly errors: readonly string[] };

type Rec = Record<string, unknown>;
const isRec = (x: unknown): x is Rec => typeof x === "object" && x !== null && !Array.isArray(x);

function findNamed(list: unknown, name: string, field: string): Rec | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const entry of list) {
    if (isRec(entry) && entry.name === name && isRec(entry[field])) return entry[field];
  }
  return undefined;
}

function str(r: Rec, key: string, errors: string[], where: string): string | undefined {
  const v = r[key];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") {
    errors.push(`${where}.${key} must be a string`);
    return undefined;
  }
  return v;
}

function decodeBase64(v: string, errors: string[], where: string): string | undefined {
  const clean = v.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) {
    errors.push(`${where} is not valid base64`);
    return undefined;
  }
  return Buffer.from(clean, "base64").toString("utf8");
}

/**
 * Parses kubeconfig text (YAML or JSON) and resolves the current context (or `options.context`)
 * to a {@link ClusterConfig}, reading the files it references. Understood fields:
 * `current-context`, `contexts[].context.{cluster,user}`, `clusters[].cluster.{server,
 * certificate-authority, certificate-authority-data, insecure-skip-tls-verify, tls-server-name}`,
 * `users[].user.{token, tokenFile, client-certificate, client-certificate-data, client-key,
 * client-key-data}`. `*-data` fields are base64; a `-data` field wins over its file field, and
 * `token` over `tokenFile`, as in client-go. Never throws; does not mutate anything.
 *
 * @see staging/src/k8s.io/client-go/tools/clientcmd/client_config.go (`ClientConfig`)
 * @example
 * const r = await parseClusterConfig(text, { baseDir: "/home/me/.kube" });
 * if (r.ok) console.log(r.value.server);
 */
export async function parseClusterConfig(text: string, options: ParseClusterConfigOptions = {}): Promise<ParseClusterConfigResult> {
  let doc: unknown;
  try {
    doc = parseYAML(text);
  } catch (e) {
    return { ok: false, reason: "Malformed", errors: [`not valid YAML: ${(e as Error).message}`] };
  }
  if (!isRec(doc)) return { ok: false, reason: "Malformed", errors: ["not a kubeconfig: expected a mapping at the top level"] };
  const errors: string[] = [];
  const contextName = options.context ?? (typeof doc["current-context"] === "string" ? doc["current-context"] : "");
  if (contextName === "") return { ok: false, reason: "Invalid", errors: ["no current-context is set"] };
  const context = findNamed(doc.contexts, contextName, "context");
  if (!context) return { ok: false, reason: "Invalid", errors: [`context "${contextName}" not found`] };
  const clusterName = typeof context.cluster === "string" ? context.cluster : "";
  const cluster = findNamed(doc.clusters, clusterName, "cluster");
  if (!cluster) return { ok: false, reason: "Invalid", errors: [`context "${contextName}": cluster "${clusterName}" not found`] };
  const userName = typeof context.user === "string" ? context.user : "";
  const user = userName === "" ? {} : findNamed(doc.users, userName, "user");
  if (!user) return { ok: false, reason: "Invalid", errors: [`context "${contextName}": user "${userName}" not found`] };

  const baseDir = options.baseDir ?? process.cwd();
  const read = options.readFile ?? ((p: string) => readFile(p, "utf8"));
  const readRef = async (p: string, where: string): Promise<string | undefined> => {
    const full = isAbsolute(p) ? p : resolve(baseDir, p);
    try {
      return await read(full);
    } catch (e) {
      errors.push(`${where}: cannot read ${full}: ${(e as Error).message}`);
      return undefined;
    }
  };

  const cw = `clusters[${clusterName}]`;
  const uw = `users[${userName}]`;
  let server = str(cluster, "server", errors, cw);
  if (server === undefined) errors.push(`${cw}.server is required`);
  else {
    server = server.replace(/\/+$/, "");
    try {
      const u = new URL(server);
      if (u.protocol !== "https:" && u.protocol !== "http:") errors.push(`${cw}.server must be an http or https URL, got ${server}`);
    } catch {
      errors.push(`${cw}.server is not a URL: ${server}`);
    }
  }
  const insecure = cluster["insecure-skip-tls-verify"];
  if (insecure !== undefined && typeof insecure !== "boolean") errors.push(`${cw}.insecure-skip-tls-verify must be a boolean`);

  const caData = str(cluster, "certificate-authority-data", errors, cw);
  const caFile = str(cluster, "certificate-authority", errors, cw);
  const caPEM = caData !== undefined ? decodeBase64(caData, errors, `${cw}.certificate-authority-data`) : caFile !== undefined ? await readRef(caFile, `${cw}.certificate-authority`) : undefined;

  let token = str(user, "token", errors, uw);
  const tokenFile = str(user, "tokenFile", errors, uw);
  if (token === undefined && tokenFile !== undefined) token = (await readRef(tokenFile, `${uw}.tokenFile`))?.trim();

  const certData = str(user, "client-certificate-data", errors, uw);
  const certFile = str(user, "client-certificate", errors, uw);
  const cert = certData !== undefined ? decodeBase64(certData, errors, `${uw}.client-certificate-data`) : certFile !== undefined ? await readRef(certFile, `${uw}.client-certificate`) : undefined;
  const keyData = str(user, "client-key-data", errors, uw);
  const keyFile = str(user, "client-key", errors, uw);
  const key = keyData !== undefined ? decodeBase64(keyData, errors, `${uw}.client-key-data`) : keyFile !== undefined ? await readRef(keyFile, `${uw}.client-key`) : undefined;
  if ((cert === undefined) !== (key === undefined) && errors.length === 0) errors.push(`${uw}: client-certificate and client-key must be given together`);
  const tlsServerName = str(cluster, "tls-server-name", errors, cw);

  if (errors.length > 0 || server === undefined) return { ok: false, reason: "Invalid", errors };
  return {
    ok: true,
    value: {
      server,
      insecureSkipTLSVerify: insecure === true,
      ...(caPEM !== undefined ? { caPEM } : {}),
      ...(token !== undefined && token !== "" ? { token } : {}),
      ...(cert !== undefined ? { clientCertificatePEM: cert } : {}),
      ...(key !== undefined ? { clientKeyPEM: key } : {}),
      ...(tlsServerName !== undefined ? { tlsServerName } : {}),
    },
  };
}

/**
 * Reads the kubeconfig at `path` and resolves it as {@link parseClusterConfig} does (relative
 * references resolve against the file's directory).
 *
 * @throws {ClusterConfigError} `FileNotFound` if the file does not exist, `ReadFailed` if it
 *   cannot be read, `Malformed` if it is not YAML, `Invalid` if it names no usable cluster.
 * @see staging/src/k8s.io/client-go/tools/clientcmd/loader.go (`LoadFromFile`)
 * @example
 * const config = await loadClusterConfig(".skiff/kubeconfig");
 * const client = createClient(config);
 */
export async function loadClusterConfig(path: string, options: Omit<ParseClusterConfigOptions, "baseDir"> = {}): Promise<ClusterConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ClusterConfigError("FileNotFound", path, ["no such file"], { cause: e });
    throw new ClusterConfigError("ReadFailed", path, [(e as Error).message], { cause: e });
  }
  const r = await parseClusterConfig(text, { ...options, baseDir: dirname(resolve(path)) });
  if (!r.ok) throw new ClusterConfigError(r.reason, path, r.errors);
  return r.value;
}
