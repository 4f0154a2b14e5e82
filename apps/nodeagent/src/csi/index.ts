export { createCsiClient, createRegistrationClient } from "./csi-client.js";
export type { CsiClient, GetPluginInfoResponse, NodeGetInfoResponse, NodePublishVolumeRequest, PluginInfo, RegistrationClient, VolumeCapability } from "./csi-client.js";
export {
  CsiNodeUpdateError,
  MigratedPluginsAnnotation,
  applyDriverToNode,
  applyMigrationAnnotation,
  buildCSINodeDriver,
  csiMigrationPlugins,
  ensureCSINode,
  installCSIDriver,
  mergeCSINodeDriver,
  migratedInTreePlugins,
  newCSINode,
  removeCSINodeDriver,
  removeDriverFromNode,
  uninstallCSIDriver,
} from "./csi-node.js";
export type { CsiDriverNodeInfo } from "./csi-node.js";
export { createCsiSupport } from "./csi-support.js";
export type { CsiSupport, CsiSupportOptions } from "./csi-support.js";
export { pluginsRegistryDir, startCsiPluginManager } from "./plugin-manager.js";
export type { CsiPluginManager, CsiPluginManagerOptions, RegisteredCsiDriver } from "./plugin-manager.js";
export { PluginWatcher, listPluginSockets } from "./plugin-watcher.js";
export type { FoundSocket, PluginWatcherOptions } from "./plugin-watcher.js";
export { formatCsiVersion, parseCsiVersion, registrationErrors, validateCsiPluginVersions } from "./registration.js";
export type { CsiVersion, CsiVersionCheck } from "./registration.js";
export { CSIServiceAccountNameKey, CsiVolumeError, CsiVolumeManager, buildVolumeContext, csiPluginDirName, csiVolumeHandle, csiVolumeTargetPath, podServiceAccountTokenAttrs } from "./volumes.js";
export type { CsiVolumeErrorReason, CsiVolumeManagerOptions, GetServiceAccountToken, PodEventSink } from "./volumes.js";
