import type { Table } from "@skiff/api-types";
import type { APIObject, TableConvertor } from "../registry/strategy.js";

/** What each row's `object` carries: nothing, the full object, or its PartialObjectMetadata (default). */
export type IncludeObjectPolicy = "None" | "Object" | "Metadata";

/** Options of {@link renderTable}. */
export interface RenderTableOptions {
  /** @defaultValue `"Metadata"` */
  readonly includeObject?: IncludeObjectPolicy;
  /** The list's `resourceVersion`, `continue`, `remainingItemCount`. */
  readonly listMeta?: { readonly resourceVersion?: string; readonly continue?: string; readonly remainingItemCount?: number };
  /** `meta.k8s.io` version of the answer. @defaultValue `"v1"` */
  readonly version?: "v1" | "v1beta1";
  /** Omit column definitions (`kubectl get -w` rows after the first). @defaultValue false */
  readonly noHeaders?: boolean;
}

/**
 * Parses the `includeObject` query parameter; absent or empty is `Metadata`, any other value
 * is an error message (the API answers 400).
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (IncludeObjectPolicy)
 */
export function parseIncludeObject(value: string | undefined): { ok: true; value: IncludeObjectPolicy } | { ok: false; errors: string[] } {
  if (value === undefined || value === "") return { ok: true, value: "Metadata" };
  if (value === "None" || value === "Object" || value === "Metadata") return { ok: true, value };
  return { ok: false, errors: [`includeObject: Unsupported value: "${value}": supported values: "Metadata", "None", "Object"`] };
}

/**
 * Renders objects as a `meta.k8s.io` Table with the convertor's columns. Rows keep input order;
 * `now` is the clock for ages. Does not mutate `objects`.
 *
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go (transformObject, asTable)
 * @example renderTable(defaultTableConvertor, [job], new Date(), { listMeta: { resourceVersion: "7" } })
 */
export function renderTable<T extends APIObject>(
  convertor: TableConvertor<T>,
  objects: readonly T[],
  now: Date,
  options: RenderTableOptions = {},
): Table {
  const include = options.includeObject ?? "Metadata";
  const apiVersion = `meta.k8s.io/${options.version ?? "v1"}`;
  const rows = objects.map((obj) => {
    const row: { cells: unknown[]; object?: unknown } = { cells: convertor.cells(obj, now) };
    if (include === "Object") row.object = obj;
    else if (include === "Metadata") row.object = { kind: "PartialObjectMetadata", apiVersion, metadata: obj.metadata ?? {} };
    return row;
  });
  const metadata: Record<string, unknown> = {};
  const lm = options.listMeta;
  if (lm?.resourceVersion !== undefined) metadata["resourceVersion"] = lm.resourceVersion;
  if (lm?.continue !== undefined && lm.continue !== "") metadata["continue"] = lm.continue;
  if (lm?.remainingItemCount !== undefined) metadata["remainingItemCount"] = lm.remainingItemCount;
  const table: Record<string, unknown> = { kind: "Table", apiVersion, metadata };
  table["columnDefinitions"] = options.noHeaders === true ? [] : convertor.columns.map((c) => ({ ...c }));
  table["rows"] = rows;
  return table as unknown as Table;
}
