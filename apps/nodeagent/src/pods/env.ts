import type { Container, EnvVar, Pod } from "@skiff/api-types";
import { isEnvVarName, isNotFound } from "@skiff/apimachinery";
import { expandVars } from "./expand.js";
import type { EnvObjects, FetchResult } from "./pod-objects.js";
import { resolveResourceFieldRef, type NodeAllocatable } from "./volumes-files.js";

/** A container env that cannot be built; the message is 1.23's (`configmap "x" not found`, ...). */
export class ContainerEnvError extends Error {
  override readonly name = "ContainerEnvError";
  readonly reason = "CreateContainerConfigError";
}

/** What {@link makeEnvironmentVariables} reads besides the pod and container. */
export interface EnvContext {
  /** The pod's ConfigMaps and Secrets; `undefined` in standalone mode (no API client). */
  readonly objects: EnvObjects | undefined;
  /** The value of a `fieldRef` (the runtime manager knows the pod IP). @throws for an unsupported path */
  readonly fieldRef: (env: EnvVar) => string;
  /** Node allocatable, the value of a `resourceFieldRef` limit the container does not set. */
  readonly nodeAllocatable: NodeAllocatable;
  /**
   * The service environment (`./service-env.ts`: the `kubernetes` service's variables in API-server
   * mode; none in standalone mode, as a kubelet without an API server): a source of `$(VAR)` after
   * the container's own variables, appended after them unless the container defines the same name.
   */
  readonly serviceEnv?: ReadonlyMap<string, string>;
  /** Receives `InvalidEnvironmentVariableNames` warnings. */
  readonly onEvent?: (type: "Normal" | "Warning", reason: string, message: string) => void;
}

function decodeBase64(v: string): string {
  return Buffer.from(v, "base64").toString("utf8");
}

function lookup<T>(m: ReadonlyMap<string, FetchResult<T>>, name: string): FetchResult<T> {
  return m.get(name) ?? { ok: false, error: new ContainerEnvError(`object ${JSON.stringify(name)} was not fetched`) };
}

function errorOf(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * The environment of `container` as the kubelet builds it: `envFrom` first (ConfigMap `data` /
 * Secret `data` decoded, each key with the source's `prefix`; keys that are not valid env names
 * are skipped and reported once per source with an `InvalidEnvironmentVariableNames` warning), then
 * `env` in order overriding them: `value` with `$(VAR)` expanded from the variables so far,
 * `fieldRef`, `resourceFieldRef` (limits default to node allocatable; divisor; ceiling),
 * `configMapKeyRef`/`secretKeyRef`. An optional reference whose object or key is missing sets
 * nothing. `$(VAR)` also reads `ctx.serviceEnv`, whose variables follow the container's own (a name
 * the container sets keeps the container's value). Returns `[name, value]` pairs in
 * first-definition order. Never logs values.
 * @throws ContainerEnvError or the fetch error, with 1.23's messages: `configmap "x" not found`
 *   (as the manager reported it), `couldn't find key k in ConfigMap ns/x`,
 *   `couldn't find key k in Secret ns/x`, and in standalone mode
 *   `couldn't get configMap ns/x, no kubeClient defined` / `couldn't get secret ns/x, no kubeClient defined`.
 * @see pkg/kubelet/kubelet_pods.go (makeEnvironmentVariables) in kubernetes/kubernetes v1.23
 */
export function makeEnvironmentVariables(pod: Pod, container: Container, ctx: EnvContext): Array<[string, string]> {
  const ns = pod.metadata?.namespace ?? "";
  const tmp = new Map<string, string>();
  const objects = ctx.objects;

  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? "";
    let kind: "configMap" | "secret";
    let name: string;
    let optional: boolean;
    let entries: Array<[string, string]>;
    if (from.configMapRef) {
      kind = "configMap";
      name = from.configMapRef.name ?? "";
      optional = from.configMapRef.optional === true;
      if (!objects) throw new ContainerEnvError(`couldn't get configMap ${ns}/${name}, no kubeClient defined`);
      const r = lookup(objects.configMaps, name);
      if (!r.ok) {
        if (isNotFound(r.error) && optional) continue;
        throw errorOf(r.error);
      }
      entries = Object.entries(r.object.data ?? {});
    } else if (from.secretRef) {
      kind = "secret";
      name = from.secretRef.name ?? "";
      optional = from.secretRef.optional === true;
      if (!objects) throw new ContainerEnvError(`couldn't get secret ${ns}/${name}, no kubeClient defined`);
      const r = lookup(objects.secrets, name);
      if (!r.ok) {
        if (isNotFound(r.error) && optional) continue;
        throw errorOf(r.error);
      }
      entries = Object.entries(r.object.data ?? {}).map(([k, v]) => [k, decodeBase64(v)]);
    } else {
      continue;
    }
    const invalid: string[] = [];
    for (const [key, value] of entries) {
      const k = prefix + key;
      if (isEnvVarName(k).length > 0) {
        invalid.push(k);
        continue;
      }
      tmp.set(k, value);
    }
    if (invalid.length > 0) {
      invalid.sort();
      ctx.onEvent?.("Warning", "InvalidEnvironmentVariableNames", `Keys [${invalid.join(", ")}] from the EnvFrom ${kind} ${ns}/${name} were skipped since they are considered invalid environment variable names.`);
    }
  }

  for (const e of container.env ?? []) {
    let value = e.value ?? "";
    if (value !== "") {
      value = expandVars(value, (n) => tmp.get(n) ?? ctx.serviceEnv?.get(n));
    } else if (e.valueFrom) {
      const from = e.valueFrom;
      if (from.fieldRef) {
        value = ctx.fieldRef(e);
      } else if (from.resourceFieldRef) {
        const ref = from.resourceFieldRef;
        const target = ref.containerName ? [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].find((c) => c.name === ref.containerName) : container;
        if (!target) throw new ContainerEnvError(`container ${JSON.stringify(ref.containerName)} not found in pod ${ns}/${pod.metadata?.name ?? ""}`);
        value = resolveResourceFieldRef(target, ref.resource, ref.divisor, ctx.nodeAllocatable);
      } else if (from.configMapKeyRef) {
        const { name = "", key } = from.configMapKeyRef;
        const optional = from.configMapKeyRef.optional === true;
        if (!objects) throw new ContainerEnvError(`couldn't get configMap ${ns}/${name}, no kubeClient defined`);
        const r = lookup(objects.configMaps, name);
        if (!r.ok) {
          if (isNotFound(r.error) && optional) continue;
          throw errorOf(r.error);
        }
        const v = r.object.data?.[key];
        if (v === undefined) {
          if (optional) continue;
          throw new ContainerEnvError(`couldn't find key ${key} in ConfigMap ${ns}/${name}`);
        }
        value = v;
      } else if (from.secretKeyRef) {
        const { name = "", key } = from.secretKeyRef;
        const optional = from.secretKeyRef.optional === true;
        if (!objects) throw new ContainerEnvError(`couldn't get secret ${ns}/${name}, no kubeClient defined`);
        const r = lookup(objects.secrets, name);
        if (!r.ok) {
          if (isNotFound(r.error) && optional) continue;
          throw errorOf(r.error);
        }
        const v = r.object.data?.[key];
        if (v === undefined) {
          if (optional) continue;
          throw new ContainerEnvError(`couldn't find key ${key} in Secret ${ns}/${name}`);
        }
        value = decodeBase64(v);
      }
    }
    tmp.set(e.name, value);
  }
  const result = [...tmp.entries()];
  for (const [k, v] of ctx.serviceEnv ?? []) if (!tmp.has(k)) result.push([k, v]);
  return result;
}
