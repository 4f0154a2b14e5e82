import { readNodeDockerConfig, type DockerConfig } from "./docker-config.js";
import { ProvidersDockerKeyring, type DockerConfigProvider, type DockerKeyring } from "./keyring.js";
import type { PluginProvider } from "./plugin.js";

/** How long the node's docker config files are cached (1.23's `CachingDockerConfigProvider` lifetime). */
export const nodeDockerConfigLifetimeMs = 5 * 60_000;

/**
 * The kubelet's default `.dockercfg` provider: the node's `config.json`/`.dockercfg` (see
 * {@link readNodeDockerConfig}), re-read at most every {@link nodeDockerConfigLifetimeMs}.
 * @see pkg/credentialprovider/provider.go (defaultDockerConfigProvider, CachingDockerConfigProvider) in kubernetes/kubernetes v1.23
 */
export class NodeDockerConfigProvider implements DockerConfigProvider {
  #cached: { config: DockerConfig; expiresAtMs: number } | undefined;

  constructor(
    private readonly rootDir: string,
    private readonly log?: (line: string) => void,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async provide(): Promise<DockerConfig> {
    if (this.#cached && this.nowMs() < this.#cached.expiresAtMs) return this.#cached.config;
    const config = await readNodeDockerConfig(this.rootDir, this.log);
    this.#cached = { config, expiresAtMs: this.nowMs() + nodeDockerConfigLifetimeMs };
    return config;
  }
}

/**
 * The node's keyring (the kubelet's `credentialprovider.NewDockerKeyring()`): the node's docker
 * config files (provider `.dockercfg`) and the registered exec plugins, ordered by provider name.
 * @see pkg/credentialprovider/plugins.go (NewDockerKeyring) in kubernetes/kubernetes v1.23
 */
export function createNodeKeyring(rootDir: string, plugins: readonly PluginProvider[], log?: (line: string) => void): DockerKeyring {
  const named: Array<[string, DockerConfigProvider]> = [[".dockercfg", new NodeDockerConfigProvider(rootDir, log)], ...plugins.map((p): [string, DockerConfigProvider] => [p.provider.name, p])];
  named.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return new ProvidersDockerKeyring(
    named.map(([, p]) => p),
    log,
  );
}
