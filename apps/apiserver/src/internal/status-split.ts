import { deepCopyJSON } from "@skiff/apimachinery";
import type { APIObject } from "@skiff/apiserver-core";

// Main-resource update: status comes from the stored object.
export function keepOldStatus<T extends APIObject>(obj: T, old: T): void {
  if (old["status"] === undefined) delete obj["status"];
  else (obj as Record<string, unknown>)["status"] = deepCopyJSON(old["status"]);
}

// Status update: everything but status comes from the stored object (metadata included), except
// metadata.managedFields: the request handler has already recorded the `subresource: status`
// entry there (ResetObjectMetaForStatus keeps managedFields for the same reason). The stored
// object's status and managedFields are not copied (they are replaced); the keys keep the stored
// object's order.
export function keepAllButStatus<T extends APIObject>(obj: T, old: T): void {
  const status = obj["status"];
  const managedFields = obj.metadata?.managedFields;
  const out = obj as Record<string, unknown>;
  for (const k of Object.keys(obj)) delete out[k];
  const stored = old as Record<string, unknown>;
  for (const k of Object.keys(stored)) {
    if (k === "status") {
      if (status !== undefined) out[k] = status;
    } else if (k === "metadata" && stored[k] !== null && typeof stored[k] === "object") {
      const meta = stored[k] as Record<string, unknown>;
      const m: Record<string, unknown> = {};
      for (const mk of Object.keys(meta)) {
        if (mk !== "managedFields") m[mk] = deepCopyJSON(meta[mk]);
        else if (managedFields !== undefined) m[mk] = managedFields;
      }
      out[k] = m;
    } else out[k] = deepCopyJSON(stored[k]);
  }
  if (status !== undefined && !("status" in out)) out["status"] = status;
  if (managedFields !== undefined) (obj.metadata ??= {}).managedFields = managedFields;
}
