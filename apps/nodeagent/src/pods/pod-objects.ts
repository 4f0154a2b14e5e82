import type { ConfigMap, Pod, Secret } from "@skiff/api-types";
import type { Client, KubeObject } from "@skiff/client";
import {
  CacheObjectManager,
  GetObjectManager,
  podConfigMapNames,
  podSecretNames,
  WatchObjectManager,
  type ChangeDetectionStrategy,
  type ObjectManager,
} from "./object-manager.js";
import { ServiceAccountTokenManager } from "./token-manager.js";

/** A v1 ConfigMap (wire JSON: `binaryData` values are base64). */
export type ConfigMapObject = ConfigMap;

/** A v1 Secret (wire JSON: `data` values are base64). */
export type SecretObject = Secret;

/**
 * The ConfigMap and Secret managers of the node agent (API-server mode); absent in standalone
 * mode, where there is no API to read them from.
 */
export interface PodObjectManagers {
  readonly configMaps: ObjectManager<ConfigMapObject>;
  readonly secrets: ObjectManager<SecretObject>;
  /** Tokens of projected `serviceAccountToken` sources; absent: those sources fail. */
  readonly serviceAccountTokens?: ServiceAccountTokenManager;
}

/** What {@link createPodObjectManagers} needs. */
export interface PodObjectManagersOptions {
  readonly client: Client;
  readonly strategy: ChangeDetectionStrategy;
  /** `--sync-frequency` in ms; a watch unused for five times this long is stopped. @defaultValue 60_000 */
  readonly syncFrequencyMs?: number;
  readonly onError?: (err: unknown, context: string) => void;
  /**
   * The clock of the service-account token manager, ms since the epoch (tests move it forward to
   * reach a token's refresh time without waiting). @defaultValue `Date.now`
   */
  readonly now?: () => number;
}

/**
 * Builds the ConfigMap and Secret managers for `strategy` (`Watch`, `Cache`, `Get`).
 * @throws Error `unknown configmap and secret manager mode: <s>` for another strategy (1.23's wording).
 * @see pkg/kubelet/kubelet.go (NewMainKubelet) in kubernetes/kubernetes v1.23
 * @example
 * ```ts
 * const objects = createPodObjectManagers({ client, strategy: "Watch", syncFrequencyMs: 60_000 });
 * objects.configMaps.registerPod(pod);
 * const cm = await objects.configMaps.get("default", "app-config");
 * ```
 */
export function createPodObjectManagers(o: PodObjectManagersOptions): PodObjectManagers {
  const cms = o.client.configMaps;
  const secrets = o.client.secrets;
  const isImmutable = (obj: KubeObject) => (obj as { immutable?: boolean }).immutable === true;
  const maxIdleMs = 5 * (o.syncFrequencyMs ?? 60_000);
  const onError = o.onError ? { onError: o.onError } : {};
  const serviceAccountTokens = new ServiceAccountTokenManager((target, spec) => o.client.createServiceAccountToken(target, spec), {
    ...(o.onError ? { log: (line: string) => o.onError?.(new Error(line), "service account token") } : {}),
    ...(o.now ? { now: o.now } : {}),
  });
  switch (o.strategy as string) {
    case "Watch":
      return {
        configMaps: new WatchObjectManager(cms, podConfigMapNames, { groupResource: "configmap", isImmutable, maxIdleMs, ...onError }),
        secrets: new WatchObjectManager(secrets, podSecretNames, { groupResource: "secret", isImmutable, maxIdleMs, ...onError }),
        serviceAccountTokens,
      };
    case "Cache":
      return { configMaps: new CacheObjectManager(cms, podConfigMapNames), secrets: new CacheObjectManager(secrets, podSecretNames), serviceAccountTokens };
    case "Get":
      return { configMaps: new GetObjectManager(cms), secrets: new GetObjectManager(secrets), serviceAccountTokens };
    default:
      throw new Error(`unknown configmap and secret manager mode: ${o.strategy}`);
  }
}

/** One fetched object, or why it could not be fetched. */
export type FetchResult<T> = { readonly ok: true; readonly object: T } | { readonly ok: false; readonly error: unknown };

/**
 * The ConfigMaps and Secrets one pod's env needs, fetched before a sync (the CRI container
 * config is built synchronously). `undefined` managers: standalone mode.
 */
export interface EnvObjects {
  readonly configMaps: ReadonlyMap<string, FetchResult<ConfigMapObject>>;
  readonly secrets: ReadonlyMap<string, FetchResult<SecretObject>>;
}

/** The ConfigMap and Secret names the env/envFrom of `pod`'s containers reference. */
export function envReferencedNames(pod: Pod): { configMaps: Set<string>; secrets: Set<string> } {
  const configMaps = new Set<string>();
  const secrets = new Set<string>();
  const spec = pod.spec ?? { containers: [] };
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
    for (const e of c.envFrom ?? []) {
      if (e.configMapRef) configMaps.add(e.configMapRef.name ?? "");
      if (e.secretRef) secrets.add(e.secretRef.name ?? "");
    }
    for (const e of c.env ?? []) {
      if (e.valueFrom?.configMapKeyRef) configMaps.add(e.valueFrom.configMapKeyRef.name ?? "");
      if (e.valueFrom?.secretKeyRef) secrets.add(e.valueFrom.secretKeyRef.name ?? "");
    }
  }
  return { configMaps, secrets };
}

async function settle<T>(p: Promise<T>): Promise<FetchResult<T>> {
  try {
    return { ok: true, object: await p };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * Fetches, through the managers, every ConfigMap and Secret the env of `pod` references. Never
 * throws: each failure is kept with its name and raised when a container's env needs it.
 */
export async function fetchEnvObjects(pod: Pod, managers: PodObjectManagers): Promise<EnvObjects> {
  const ns = pod.metadata?.namespace ?? "";
  const names = envReferencedNames(pod);
  const configMaps = new Map<string, FetchResult<ConfigMapObject>>();
  const secrets = new Map<string, FetchResult<SecretObject>>();
  await Promise.all([
    ...[...names.configMaps].map(async (n) => configMaps.set(n, await settle(managers.configMaps.get(ns, n)))),
    ...[...names.secrets].map(async (n) => secrets.set(n, await settle(managers.secrets.get(ns, n)))),
  ]);
  return { configMaps, secrets };
}
