import type { Pod } from "@skiff/api-types";
import { ConfigFirstSeenAnnotation, ConfigSourceAnnotation } from "@skiff/api-types";

/** Source names, as the kubelet's (`file`, `http`, `api`); `manifest` is the agent's own manifest API. */
export type PodSourceName = "file" | "http" | "manifest" | "api";

/**
 * One change the pod workers act on. `RECONCILE`: pods with readiness gates whose status changed
 * in their source while their spec did not (the kubelet's RECONCILE op); their `status` is the new one.
 */
export interface PodConfigUpdate {
  readonly op: "ADD" | "UPDATE" | "REMOVE" | "RECONCILE";
  readonly source: PodSourceName;
  readonly pods: readonly Pod[];
}

/** Consumer of {@link PodConfig} updates. */
export type PodConfigListener = (update: PodConfigUpdate) => void;

/** Whether a pod came from a static source (anything but the API server). */
export function isStaticPod(pod: Pod): boolean {
  const source = pod.metadata?.annotations?.[ConfigSourceAnnotation];
  return source !== undefined && source !== "api";
}

function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;
}

// What an UPDATE is about: spec, labels, annotations but the first-seen time (the source's
// annotation as the merge sets it), and a new deletionTimestamp (graceful deletion in API-server mode).
function semanticKey(p: Pod, source: PodSourceName): string {
  const annotations: Record<string, string> = { ...(p.metadata?.annotations ?? {}), [ConfigSourceAnnotation]: source };
  delete annotations[ConfigFirstSeenAnnotation];
  return JSON.stringify({ spec: p.spec, labels: p.metadata?.labels ?? {}, annotations, deletionTimestamp: p.metadata?.deletionTimestamp ?? null });
}

// A merged pod, with what it was compared by: the incoming object's resourceVersion (API pods; an
// unchanged resourceVersion is an unchanged object), its semantic key, and the incoming object
// itself (a source handing the very same object again, as the file source for an unchanged file,
// is not compared at all).
interface MergedPod {
  readonly pod: Pod;
  readonly incoming: Pod;
  readonly resourceVersion: string;
  readonly key: string;
}

/**
 * Merges the pod sources into one desired set, as the kubelet's pod config: each source sets its
 * complete list ({@link PodConfig.set}); the merge tags each pod with its source and first-seen
 * time, drops a second pod of the same namespace/name within a source ("duplicate pod name"), and
 * tells the listener what was added, updated (spec, labels or annotations changed) or removed.
 * Pods are keyed by UID. Not thread-related: all calls are synchronous.
 *
 * @see pkg/kubelet/config/config.go (podStorage.merge) in kubernetes/kubernetes v1.23
 * @example
 * const config = new PodConfig((u) => workers.handle(u), log);
 * config.set("file", podsFromDirectory);
 */
export class PodConfig {
  private readonly sources = new Map<PodSourceName, Map<string, MergedPod>>();
  private readonly seenSources = new Set<PodSourceName>();
  private readonly listeners: PodConfigListener[] = [];

  constructor(
    listener?: PodConfigListener,
    private readonly log: (message: string) => void = () => {},
    private readonly now: () => Date = () => new Date(),
  ) {
    if (listener) this.listeners.push(listener);
  }

  /** Adds a listener (called synchronously for each update). */
  subscribe(listener: PodConfigListener): void {
    this.listeners.push(listener);
  }

  /**
   * Replaces the complete pod list of `source`; does not mutate `pods` (added and updated ones are
   * copied). A pod whose `resourceVersion` is the one last set is taken as unchanged without
   * comparing it, so a source that sets its whole list on every change (the API source, as 1.23's
   * UndeltaStore) costs one comparison per changed pod; so does the very object set last time
   * (the file source's pods of an unchanged file): a source must not mutate a pod it has set.
   */
  set(source: PodSourceName, pods: readonly Pod[]): void {
    this.seenSources.add(source);
    const old = this.sources.get(source) ?? new Map<string, MergedPod>();
    const next = new Map<string, MergedPod>();
    const names = new Set<string>();
    const added: Pod[] = [];
    const updated: Pod[] = [];
    const reconciled: Pod[] = [];
    for (const incoming of pods) {
      const key = podKey(incoming);
      if (names.has(key)) {
        this.log(`pod ${key} from source ${source}: duplicate pod name, dropped (FailedValidation)`);
        continue;
      }
      names.add(key);
      const uid = incoming.metadata?.uid ?? "";
      const resourceVersion = incoming.metadata?.resourceVersion ?? "";
      const previous = old.get(uid);
      if (previous && (previous.incoming === incoming || (resourceVersion !== "" && previous.resourceVersion === resourceVersion))) {
        next.set(uid, previous);
        continue;
      }
      const semantic = semanticKey(incoming, source);
      if (previous && previous.key === semantic) {
        next.set(uid, { pod: previous.pod, key: previous.key, resourceVersion, incoming });
        // A status change alone is a reconcile (1.23's checkAndUpdatePod); it matters only to a
        // pod with readiness gates (their conditions are set by controllers), so only those
        // keep their source's status.
        if ((incoming.spec?.readinessGates?.length ?? 0) > 0 && JSON.stringify(incoming.status ?? null) !== JSON.stringify(previous.pod.status ?? null)) {
          previous.pod.status = structuredClone(incoming.status ?? {});
          reconciled.push(previous.pod);
        }
        continue;
      }
      const pod = structuredClone(incoming);
      const annotations = { ...(pod.metadata?.annotations ?? {}) };
      annotations[ConfigSourceAnnotation] = source;
      annotations[ConfigFirstSeenAnnotation] = previous?.pod.metadata?.annotations?.[ConfigFirstSeenAnnotation] ?? this.now().toISOString();
      pod.metadata = { ...(pod.metadata ?? {}), annotations };
      next.set(uid, { pod, resourceVersion, key: semantic, incoming });
      (previous ? updated : added).push(pod);
    }
    const removed = [...old.entries()].filter(([uid]) => !next.has(uid)).map(([, p]) => p.pod);
    this.sources.set(source, next);
    if (removed.length > 0) this.emit({ op: "REMOVE", source, pods: removed });
    if (added.length > 0) this.emit({ op: "ADD", source, pods: added });
    if (updated.length > 0) this.emit({ op: "UPDATE", source, pods: updated });
    if (reconciled.length > 0) this.emit({ op: "RECONCILE", source, pods: reconciled });
  }

  /** Whether `source` has delivered at least one list (the kubelet's `SeenAllSources`). */
  hasSeen(source: PodSourceName): boolean {
    return this.seenSources.has(source);
  }

  /** Every desired pod of every source. */
  pods(): Pod[] {
    return [...this.sources.values()].flatMap((m) => [...m.values()].map((p) => p.pod));
  }

  /** The pods of one source. */
  podsOf(source: PodSourceName): Pod[] {
    return [...(this.sources.get(source)?.values() ?? [])].map((p) => p.pod);
  }

  private emit(update: PodConfigUpdate): void {
    for (const l of this.listeners) l(update);
  }
}
