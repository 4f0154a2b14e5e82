import type { Secret } from "@skiff/api-types";
import { parseDockercfg, parseDockerConfigJSON, type DockerConfig } from "./docker-config.js";
import { parseSchemelessURL, urlsMatch } from "./url-match.js";

/**
 * Credentials for one pull, the fields of CRI `AuthConfig` (`username`/`password` from docker
 * configs and plugins; the token fields are kept for runtimes that take them).
 */
export interface AuthConfig {
  readonly username: string;
  readonly password: string;
  readonly email?: string;
  readonly auth?: string;
  readonly serverAddress?: string;
  readonly identityToken?: string;
  readonly registryToken?: string;
}

/**
 * Credentials by image: `lookup` answers every credential whose registry location matches the
 * image's repository (`docker.io/library/busybox`), most specific location first; none → `[]`.
 * @see pkg/credentialprovider/keyring.go (DockerKeyring) in kubernetes/kubernetes v1.23
 */
export interface DockerKeyring {
  lookup(repoToPull: string): Promise<AuthConfig[]>;
}

/** A source of docker configs per image (the node's files, an exec plugin). Never throws. */
export interface DockerConfigProvider {
  provide(repoToPull: string): Promise<DockerConfig>;
}

const defaultRegistryHost = "index.docker.io";

/**
 * Whether `image` pulls from Docker Hub by its name: no registry part, or `docker.io` /
 * `index.docker.io`, or a first part without `.` or `:`.
 * @see pkg/credentialprovider/keyring.go (isDefaultRegistryMatch) in kubernetes/kubernetes v1.23
 */
export function isDefaultRegistryMatch(image: string): boolean {
  const slash = image.indexOf("/");
  const first = slash < 0 ? image : image.slice(0, slash);
  if (first.length === 0) return false;
  if (slash < 0) return true;
  if (first === "docker.io" || first === "index.docker.io") return true;
  return !/[.:]/.test(first);
}

/**
 * The kubelet's `BasicDockerKeyring`: docker config locations indexed by `host[/path]` (scheme
 * and a leading `/v1/` or `/v2/` dropped; invalid locations ignored), looked up with globbed host
 * labels and path prefixes, keys in reverse order so longer paths come first; an image of Docker
 * Hub falls back to the `index.docker.io` entry.
 * @see pkg/credentialprovider/keyring.go (BasicDockerKeyring) in kubernetes/kubernetes v1.23
 */
export class BasicDockerKeyring implements DockerKeyring {
  readonly #creds = new Map<string, AuthConfig[]>();
  #index: string[] = [];

  /** Adds every entry of `cfg`; an unparsable location is reported to `log` and skipped. Mutates this keyring. */
  add(cfg: DockerConfig, log?: (line: string) => void): void {
    for (const [loc, ident] of cfg) {
      let parsed: { host: string; path: string };
      try {
        parsed = parseSchemelessURL(loc.replace(/^https?:\/\//, ""));
      } catch (err) {
        log?.(`Entry ${JSON.stringify(loc)} in dockercfg invalid (${(err as Error).message}), ignoring`);
        continue;
      }
      let effectivePath = parsed.path;
      if (effectivePath.startsWith("/v2/") || effectivePath.startsWith("/v1/")) effectivePath = effectivePath.slice(3);
      const key = effectivePath.length > 0 && effectivePath !== "/" ? parsed.host + effectivePath : parsed.host;
      const list = this.#creds.get(key) ?? [];
      list.push({ username: ident.username, password: ident.password, email: ident.email });
      this.#creds.set(key, list);
      this.#index.push(key);
    }
    this.#index = [...new Set(this.#index)].sort().reverse();
  }

  /** Sync form of {@link lookup}. */
  lookupSync(image: string): AuthConfig[] {
    const ret: AuthConfig[] = [];
    for (const k of this.#index) {
      let matched = false;
      try {
        matched = urlsMatch(k, image);
      } catch {
        matched = false;
      }
      if (matched) ret.push(...(this.#creds.get(k) ?? []));
    }
    if (ret.length > 0) return ret;
    if (isDefaultRegistryMatch(image)) return [...(this.#creds.get(defaultRegistryHost) ?? [])];
    return [];
  }

  lookup(image: string): Promise<AuthConfig[]> {
    return Promise.resolve(this.lookupSync(image));
  }
}

/**
 * The kubelet's `providersDockerKeyring`: each lookup asks every provider for the image, in
 * order, and looks the image up in a {@link BasicDockerKeyring} of their answers.
 * @see pkg/credentialprovider/keyring.go (providersDockerKeyring) in kubernetes/kubernetes v1.23
 */
export class ProvidersDockerKeyring implements DockerKeyring {
  constructor(
    private readonly providers: readonly DockerConfigProvider[],
    private readonly log?: (line: string) => void,
  ) {}

  async lookup(image: string): Promise<AuthConfig[]> {
    const keyring = new BasicDockerKeyring();
    for (const p of this.providers) keyring.add(await p.provide(image), this.log);
    return keyring.lookupSync(image);
  }
}

/**
 * The kubelet's `UnionDockerKeyring`: the credentials of every keyring, in order.
 * @see pkg/credentialprovider/keyring.go (UnionDockerKeyring) in kubernetes/kubernetes v1.23
 */
export class UnionDockerKeyring implements DockerKeyring {
  constructor(private readonly keyrings: readonly DockerKeyring[]) {}

  async lookup(image: string): Promise<AuthConfig[]> {
    const out: AuthConfig[] = [];
    for (const k of this.keyrings) out.push(...(await k.lookup(image)));
    return out;
  }
}

function secretValue(secret: Secret, key: string): string | undefined {
  const b64 = secret.data?.[key];
  if (b64 === undefined || b64 === "") return undefined;
  const text = Buffer.from(b64, "base64").toString("utf8");
  return text.length > 0 ? text : undefined;
}

/**
 * The keyring of one pull: the pod's pull secrets (`kubernetes.io/dockerconfigjson` with
 * `.dockerconfigjson`, `kubernetes.io/dockercfg` with `.dockercfg`; secrets of other types or
 * with the key empty are skipped) first, then `defaultKeyring` (node files and plugins); just
 * `defaultKeyring` when no secret contributes.
 * @throws DockerConfigError when a secret's docker config does not parse (the pull fails with it, as 1.23).
 * @see pkg/credentialprovider/secrets/secrets.go (MakeDockerKeyring) in kubernetes/kubernetes v1.23
 */
export function makeDockerKeyring(secrets: readonly Secret[], defaultKeyring: DockerKeyring): DockerKeyring {
  const configs: DockerConfig[] = [];
  for (const s of secrets) {
    const json = s.type === "kubernetes.io/dockerconfigjson" ? secretValue(s, ".dockerconfigjson") : undefined;
    if (json !== undefined) {
      configs.push(parseDockerConfigJSON(json));
      continue;
    }
    const cfg = s.type === "kubernetes.io/dockercfg" ? secretValue(s, ".dockercfg") : undefined;
    if (cfg !== undefined) configs.push(parseDockercfg(cfg));
  }
  if (configs.length === 0) return defaultKeyring;
  const basic = new BasicDockerKeyring();
  for (const c of configs) basic.add(c);
  return new UnionDockerKeyring([basic, defaultKeyring]);
}
