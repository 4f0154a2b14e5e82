import type { APIObject } from "@skiff/apiserver-core";

// Main-resource update: status comes from the stored object.
export function keepOldStatus<T extends APIObject>(obj: T, old: T): void {
  if (old["status"] === undefined) delete obj["status"];
  else (obj as Record<string, unknown>)["status"] = structuredClone(old["status"]);
}

// Status update: everything but status comes from the stored object (metadata included), except
// metadata.managedFields: the request handler has already recorded the `subresource: status`
// entry there (ResetObjectMetaForStatus keeps managedFields for the same reason).
export function keepAllButStatus<T extends APIObject>(obj: T, old: T): void {
  const status = obj["status"];
  const managedFields = obj.metadata?.managedFields;
  for (const k of Object.keys(obj)) delete (obj as Record<string, unknown>)[k];
  Object.assign(obj, structuredClone(old));
  if (status === undefined) delete (obj as Record<string, unknown>)["status"];
  else (obj as Record<string, unknown>)["status"] = status;
  if (managedFields !== undefined) (obj.metadata ??= {}).managedFields = managedFields;
  else if (obj.metadata !== undefined) delete obj.metadata.managedFields;
}
