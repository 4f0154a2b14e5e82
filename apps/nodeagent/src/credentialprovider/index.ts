export { applyDefaultImageTag, parseImageName } from "./image-name.js";
export type { ParsedImageName } from "./image-name.js";
export { DockerConfigError, decodeDockerConfigFieldAuth, parseDockerConfigEntry, parseDockercfg, parseDockerConfigJSON, readNodeDockerConfig } from "./docker-config.js";
export type { DockerConfig, DockerConfigEntry } from "./docker-config.js";
export { BasicDockerKeyring, ProvidersDockerKeyring, UnionDockerKeyring, isDefaultRegistryMatch, makeDockerKeyring } from "./keyring.js";
export type { AuthConfig, DockerConfigProvider, DockerKeyring } from "./keyring.js";
export {
  CredentialProviderError,
  PluginProvider,
  credentialProviderAPIVersions,
  decodeCredentialProviderConfig,
  execCredentialProviderPlugin,
  execPluginTimeoutMs,
  registerCredentialProviderPlugins,
  validateCredentialProviderConfig,
} from "./plugin.js";
export type { CredentialProvider, CredentialProviderConfig, CredentialProviderResponse, ExecPluginFn } from "./plugin.js";
export { NodeDockerConfigProvider, createNodeKeyring, nodeDockerConfigLifetimeMs } from "./node-keyring.js";
export { globMatch, parseSchemelessURL, urlsMatch } from "./url-match.js";
export type { SchemelessURL } from "./url-match.js";
