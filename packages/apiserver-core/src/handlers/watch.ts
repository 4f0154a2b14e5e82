/**
 * WATCH of a collection or of one object: the initial state as ADDED events when no
 * resourceVersion is given, then the storage's (watch cache's) events, bookmarks when asked for,
 * until `timeoutSeconds` (or a random time in [min, 2·min)) or the client leaves. JSON or Table
 * events, one per line; an expired resourceVersion answers 200 with one ERROR event (410), as 1.23.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go (serveWatch, WatchServer.ServeHTTP)
 */
import { StatusError, errorToStatus, newResourceExpired } from "@skiff/apimachinery";
import { isStorageError } from "@skiff/storage";
import type { Watcher } from "@skiff/storage";
import { resolveWatchTimeoutSeconds } from "../filters/index.js";
import { objectText } from "../watch-cache/object-text.js";
import type { APIObject } from "../registry/strategy.js";
import { convertQueryBool } from "../request/query-params.js";
import { parseIncludeObject, renderTable } from "../table/index.js";
import type { HandlerResult, WatchSink } from "./response.js";
import { listParams } from "./scope.js";
import type { RequestScope } from "./scope.js";

// One encoding per (event type, shared object): every JSON watcher of an event writes the same line.
const encodedWatchLines = new WeakMap<object, Map<string, string>>();
function encodeWatchLine(type: string, object: object): string {
  let byType = encodedWatchLines.get(object);
  if (byType === undefined) encodedWatchLines.set(object, (byType = new Map()));
  let line = byType.get(type);
  // Exactly `JSON.stringify({ type, object })`, with the object's text taken from the watch cache
  // when it serialised the object already.
  if (line === undefined) byType.set(type, (line = `{"type":${JSON.stringify(type)},"object":${objectText(object)}}\n`));
  return line;
}

/**
 * Opens the watch. Errors found before streaming (bad selectors or resourceVersion) are thrown
 * and answered as a Status; the returned stream writes the events.
 * @throws StatusError 400 (selectors, resourceVersion, timeoutSeconds), 504 (resourceVersion too large)
 */
export async function watchResource(scope: RequestScope): Promise<HandlerResult> {
  const { store, ctx, req } = scope;
  const { info, query: q } = req;
  const params = listParams(q);
  const predicate = store.predicate(params);
  const trigger = store.watchTrigger(params);
  const rv = q["resourceVersion"];
  const prefix = info.name ? store.key(ctx.namespace, info.name) : store.keyPrefix(ctx.namespace);
  const initial: APIObject[] = [];
  let fromRev: string | undefined = rv && rv !== "0" ? rv : undefined;
  if (!fromRev) {
    const l = await store.list(ctx, { ...(q["labelSelector"] ? { labelSelector: q["labelSelector"] } : {}), ...(q["fieldSelector"] ? { fieldSelector: q["fieldSelector"] } : {}) });
    for (const i of l["items"] as APIObject[]) if (!info.name || i.metadata?.name === info.name) initial.push(i);
    fromRev = String(l.metadata?.resourceVersion ?? "");
  }
  const bookmarks = convertQueryBool(q["allowWatchBookmarks"]) === true;
  const timeoutSeconds = resolveWatchTimeoutSeconds(q["timeoutSeconds"], scope.config.minRequestTimeoutSeconds);
  // The watch's deadline: the watch cache sends its last bookmark 2 s before it (1.23's cacher).
  const deadlineMs = Date.now() + timeoutSeconds * 1000;
  let watcher: Watcher;
  try {
    // sharedObjects: this handler only serializes events, so the watch cache may hand every
    // watcher the same object (and the same encoded line, below).
    watcher = await store.storage.watch(prefix, { resourceVersion: fromRev, recursive: !info.name, allowBookmarks: bookmarks, deadlineMs, sharedObjects: true, ...(predicate ? { predicate } : {}), ...(trigger ? { trigger } : {}) });
  } catch (e) {
    if (!isStorageError(e, "ResourceVersionExpired")) throw store.interpret(e, info.name);
    // 1.23 answers 200 and one ERROR event carrying the 410 Status.
    const line = JSON.stringify({ type: "ERROR", object: errorToStatus(newResourceExpired(e.message)) }) + "\n";
    return {
      type: "stream",
      async run(sink) {
        sink.start("application/json");
        await sink.write(line);
        sink.end();
      },
    };
  }
  const table = scope.accept.form === "table";
  const res = store.strategy.resource;
  const apiVersion = res.group ? `${res.group}/${res.version}` : res.version;
  const includeObject = parseIncludeObject(q["includeObject"]);
  return {
    type: "stream",
    async run(sink: WatchSink) {
      sink.start(table ? scope.accept.contentType : "application/json");
      let first = true;
      const write = async (type: string, object: unknown): Promise<void> => {
        if (sink.closed) return;
        const isObjectEvent = type === "ADDED" || type === "MODIFIED" || type === "DELETED";
        if (!table && isObjectEvent && typeof object === "object" && object !== null) return sink.write(encodeWatchLine(type, object));
        let out = object;
        if (table && isObjectEvent) {
          out = renderTable(store.strategy.table, [object as APIObject], new Date(), {
            includeObject: includeObject.ok ? includeObject.value : "Metadata",
            noHeaders: !first,
            version: scope.accept.contentType.includes("v=v1beta1") ? "v1beta1" : "v1",
          });
          first = false;
        }
        return sink.write(JSON.stringify({ type, object: out }) + "\n");
      };
      const stop = () => watcher.stop();
      const unlisten = sink.onClose(stop);
      const timer = setTimeout(stop, Math.max(0, deadlineMs - Date.now()));
      try {
        for (const o of initial) await write("ADDED", o);
        for await (const ev of watcher) {
          if (ev.type === "ERROR") {
            const se = store.interpret(ev.error, "");
            await write("ERROR", errorToStatus(se instanceof StatusError ? se : ev.error));
            break;
          }
          if (ev.type === "BOOKMARK") {
            if (bookmarks) await write("BOOKMARK", { kind: res.kind, apiVersion, metadata: { resourceVersion: String(ev.revision) } });
            continue;
          }
          await write(ev.type, ev.object);
          if (sink.closed) break;
        }
      } finally {
        clearTimeout(timer);
        unlisten();
        sink.end();
      }
    },
  };
}
