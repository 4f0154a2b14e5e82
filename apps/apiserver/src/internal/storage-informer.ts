/**
 * An in-process informer over the apiserver's own storage: list a key prefix, then watch it from
 * the list's revision and hand each event to the caller's handlers; relist when the watch ends
 * with an error. The apiserver's plugins that 1.23 backs with shared-informer listers (the RBAC
 * authorizer, the Priority admission plugin) read such a copy instead of storage per request.
 *
 * @see staging/src/k8s.io/client-go/tools/cache/reflector.go (ListAndWatch, relist on watch errors)
 */
import type { Storage, StoredObject, Watcher } from "@skiff/storage";

/** What a storage informer calls: `reset` before each (re)list, then `apply` per object and event, `remove` per deletion. */
export interface StorageInformerHandlers {
  reset(): void;
  /** An object listed, added or modified, under its storage key (`<prefix><ns>/<name>` or `<prefix><name>`). */
  apply(key: string, obj: StoredObject): void;
  /** The object under `key` was deleted. */
  remove(key: string): void;
}

/** A started storage informer. */
export interface StorageInformer {
  /** Ends the watch; no handler is called after. */
  stop(): void;
}

/**
 * Lists `prefix` (ending in `/`) and keeps applying its watch events through `handlers`; relists
 * (after `reset`) when the watch ends with an error, retrying a failed relist every second.
 * Resolves after the first list. `name` labels the log lines (`<name>: <prefix> watch ended ...`).
 * @throws StorageError when the first list or watch fails.
 */
export async function startStorageInformer(storage: Storage, prefix: string, handlers: StorageInformerHandlers, log: (line: string) => void, name: string): Promise<StorageInformer> {
  let stopped = false;
  let watcher: Watcher | undefined;
  const listAndWatch = async (): Promise<void> => {
    const page = await storage.list(prefix);
    handlers.reset();
    for (const item of page.items) handlers.apply(storageKeyOf(prefix, item), item);
    watcher = await storage.watch(prefix, { recursive: true, resourceVersion: page.revision, sharedObjects: true });
  };
  const consume = async (): Promise<void> => {
    while (!stopped) {
      const w = watcher!;
      for await (const e of w) {
        if (e.type === "BOOKMARK") continue;
        if (e.type === "ERROR") {
          log(`${name}: ${prefix} watch ended (${e.error.message}); relisting`);
          break;
        }
        if (e.type === "DELETED") handlers.remove(e.key);
        else handlers.apply(e.key, e.object);
      }
      if (stopped) return;
      for (;;) {
        try {
          await listAndWatch();
          break;
        } catch (err) {
          log(`${name}: relisting ${prefix} failed: ${err instanceof Error ? err.message : String(err)}`);
          await new Promise((r) => setTimeout(r, 1000));
          if (stopped) return;
        }
      }
    }
  };
  await listAndWatch();
  void consume();
  return {
    stop() {
      stopped = true;
      watcher?.stop();
    },
  };
}

/** The storage key of a listed object under `prefix`: `<prefix><ns>/<name>`, or `<prefix><name>` when cluster-scoped. */
export function storageKeyOf(prefix: string, obj: StoredObject): string {
  const m = (obj as { metadata?: { namespace?: string; name?: string } }).metadata;
  return m?.namespace ? `${prefix}${m.namespace}/${m.name ?? ""}` : `${prefix}${m?.name ?? ""}`;
}
