/**
 * The generic store: REST semantics of one resource over a {@link Storage}.
 * @see k8s.io/apiserver/pkg/registry/generic/registry/store.go
 */
import { randomUUID } from "node:crypto";
import {
  ContinueTokenError,
  GoSyntaxValue,
  StatusError,
  checkDocumentLimits,
  decodeContinue,
  encodeContinue,
  forbidden,
  invalid,
  notSupported,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newInternalError,
  newServerTimeout,
  newInvalid,
  newNotFound,
  newResourceExpired,
  newTimeoutError,
  parseFieldSelector,
  parseLabelSelector,
  deepCopyJSON,
} from "@skiff/apimachinery";
import type { FieldError, FieldSelector, Selector } from "@skiff/apimachinery";
import { isStorageError } from "@skiff/storage";
import type { EncodedListOptions, ListResult, Storage, StoredObject, WatchTrigger } from "@skiff/storage";
import { convertQueryBool, convertQueryInt64 } from "../request/query-params.js";
import type { APIObject, RequestContext, ResourceStrategy } from "./strategy.js";

const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789";

/** Options of a list or watch: parsed selectors and paging. */
export interface ListParams {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: string;
}

/** Options of a delete (the `DeleteOptions` body and query), and the request's delete admission. */
export interface StoreDeleteOptions {
  readonly gracePeriodSeconds?: number;
  readonly propagationPolicy?: string;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  /**
   * Delete admission: called with the object as stored, after the preconditions, before any
   * write (marking or removal), on every retry. Throw a StatusError to refuse; nothing changes.
   * @see k8s.io/apiserver/pkg/registry/rest/delete.go (AdmissionToValidateObjectDeleteFunc)
   */
  readonly validateDeletion?: (obj: APIObject) => Promise<void>;
}

/**
 * A delete's outcome. `deleted`: the object is gone (`false`: only marked, it waits for its
 * grace period or finalizers). `finalized`: answer as a finished delete (the object or a Success
 * `Status`, per the strategy's `returnDeletedObject`); otherwise answer with `object` as it is
 * now stored. Both with status 200, as 1.23.
 */
export interface StoreDeleteResult {
  readonly object: APIObject;
  readonly deleted: boolean;
  readonly finalized: boolean;
}

/**
 * Options of {@link GenericStore.create} and {@link GenericStore.update} from the REST handlers.
 */
export interface StoreWriteOptions {
  /**
   * The object is already defaulted (the REST handlers default while decoding, so defaults run
   * once a request); without it the store applies the strategy's defaults. @defaultValue false
   */
  readonly defaulted?: boolean;
  /**
   * Validating admission: called with the object about to be stored, after the strategy's
   * validation (`old` null: a create). Throw a StatusError to refuse.
   * @see k8s.io/apiserver/pkg/registry/rest/create.go (ValidateObjectFunc)
   */
  readonly validateAdmission?: (obj: APIObject, old: APIObject | null) => Promise<void>;
}

/** Options of {@link GenericStore.update}. */
export interface StoreUpdateOptions extends StoreWriteOptions {
  /** The subresource written (`status`, `finalize`): its hooks replace the main ones; never creates. */
  readonly subresource?: string;
  /** Create a missing object even when the kind does not create on update (server-side apply). @defaultValue false */
  readonly forceAllowCreate?: boolean;
}

/**
 * Reads a DELETE request's options as 1.23's handlers: a non-empty body is the `DeleteOptions`
 * (JSON) and the query is not read; without a body the query's `gracePeriodSeconds` (int64),
 * `orphanDependents` (boolean, converted as `convertQueryBool`) and `propagationPolicy` (first
 * value) are. A body `dryRun: ["All"]` turns on dry run.
 * Does not mutate `ctx`; returns a context copy sharing its `warnings` array.
 * @throws StatusError 400 (undecodable body, bad integers, unknown dryRun value), 422 (both
 *   `orphanDependents` and `propagationPolicy`)
 * @see k8s.io/apiserver/pkg/endpoints/handlers/delete.go
 * @example const { ctx: c, options } = deleteRequest(ctx, { gracePeriodSeconds: "0" }, "");
 */
export function deleteRequest(ctx: RequestContext, query: Readonly<Record<string, string>>, body: string): { ctx: RequestContext; options: StoreDeleteOptions } {
  let opts: Record<string, unknown> = {};
  const hasBody = body.trim() !== "";
  if (hasBody) {
    let v: unknown;
    try {
      v = JSON.parse(body);
    } catch (e) {
      throw newBadRequest(`error decoding DeleteOptions: ${e instanceof Error ? e.message : String(e)}`);
    }
    const problem = checkDocumentLimits(v);
    if (problem) throw newBadRequest(`error decoding DeleteOptions: ${problem.message}`);
    if (!v || typeof v !== "object" || Array.isArray(v)) throw newBadRequest("DeleteOptions must be a JSON object");
    opts = v as Record<string, unknown>;
  }
  const int = (name: string, raw: unknown): number | undefined => {
    if (raw === undefined || raw === null) return undefined;
    const n = typeof raw === "number" ? raw : NaN;
    if (!Number.isSafeInteger(n)) throw newBadRequest(`${name}: Invalid value: ${JSON.stringify(raw)}: must be an integer`);
    return n;
  };
  const grace = hasBody ? int("gracePeriodSeconds", opts["gracePeriodSeconds"]) : convertQueryInt64(query["gracePeriodSeconds"]);
  const rawPolicy = hasBody ? opts["propagationPolicy"] : query["propagationPolicy"];
  if (rawPolicy !== undefined && rawPolicy !== null && typeof rawPolicy !== "string") throw newBadRequest("propagationPolicy must be a string");
  const rawOrphan = hasBody ? opts["orphanDependents"] : convertQueryBool(query["orphanDependents"]);
  const orphan = rawOrphan === undefined || rawOrphan === null ? undefined : rawOrphan === true;
  if (orphan !== undefined && typeof rawPolicy === "string") {
    throw newInvalid({ group: "meta.k8s.io", kind: "DeleteOptions" }, "", [invalid("propagationPolicy", rawPolicy, "orphanDependents and deletionPropagation cannot be both set")]);
  }
  const policy = typeof rawPolicy === "string" ? rawPolicy : orphan === undefined ? undefined : orphan ? "Orphan" : "Background";
  const pre = opts["preconditions"];
  const preconditions: { uid?: string; resourceVersion?: string } = {};
  if (pre && typeof pre === "object") {
    const p = pre as Record<string, unknown>;
    if (typeof p["uid"] === "string") preconditions.uid = p["uid"];
    if (typeof p["resourceVersion"] === "string") preconditions.resourceVersion = p["resourceVersion"];
  }
  const bodyDryRun = Array.isArray(opts["dryRun"]) ? (opts["dryRun"] as unknown[]) : [];
  for (const d of bodyDryRun) if (d !== "All") throw newBadRequest(`Invalid dryRun value: ${String(d)}. Valid values: All`);
  return {
    ctx: bodyDryRun.length > 0 && !ctx.dryRun ? { ...ctx, dryRun: true } : ctx,
    options: {
      ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}),
      ...(policy !== undefined ? { propagationPolicy: policy } : {}),
      ...(preconditions.uid !== undefined || preconditions.resourceVersion !== undefined ? { preconditions } : {}),
    },
  };
}

/** Appends `n` random characters from Kubernetes' name alphabet to `base` (`generateName`). @see k8s.io/apiserver/pkg/storage/names/generate.go */
export function generateName(base: string): string {
  const b = base.length > 58 ? base.slice(0, 58) : base;
  let s = "";
  for (let i = 0; i < 5; i++) s += nameAlphabet[Math.floor(Math.random() * nameAlphabet.length)];
  return b + s;
}

/**
 * Whether anything but `metadata` and `status` differs between `a` and `b` — the generation-bump
 * test — compared as {@link semanticEqual}. Does not mutate.
 */
export function specChanged(a: APIObject, b: APIObject): boolean {
  const { metadata: _am, status: _as, ...ra } = a;
  const { metadata: _bm, status: _bs, ...rb } = b;
  return !semanticEqual(ra, rb);
}

/**
 * Whether two decoded JSON values are equal as 1.23's `apiequality.Semantic.DeepEqual` sees the Go
 * values they decode to: object key order does not matter, and an absent field, `null`, an empty
 * list and an empty object are all the zero value (Go's nil and empty slices and maps are equal;
 * a struct field absent or `{}` is the same zero struct). Pure.
 * @see staging/src/k8s.io/apimachinery/pkg/api/equality/semantic.go, third_party/forked/golang/reflect/deep_equal.go
 * @example semanticEqual({ a: [], b: 1 }, { b: 1 }) // true
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isZero(a) && isZero(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => semanticEqual(x, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!semanticEqual(a[k], b[k])) return false;
    return true;
  }
  return a === b;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isZero(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isPlainObject(v)) return Object.values(v).every(isZero);
  return false;
}

/**
 * REST operations of one resource over a {@link Storage}, following the strategy's hooks in
 * Kubernetes' order (see `strategy.ts`). Used by the REST handlers, the in-process controllers
 * and subresource handlers alike; it knows nothing of HTTP.
 * @see k8s.io/apiserver/pkg/registry/generic/registry/store.go (Store)
 * @example const store = new GenericStore(strategy, storage); await store.get(ctx, "x");
 */
export class GenericStore {
  readonly strategy: ResourceStrategy;
  readonly storage: Storage;

  constructor(strategy: ResourceStrategy, storage: Storage) {
    this.strategy = strategy;
    this.storage = storage;
  }

  private get gr() {
    return { group: this.strategy.resource.group, resource: this.strategy.resource.plural };
  }

  private get gk() {
    return { group: this.strategy.resource.group, kind: this.strategy.resource.kind };
  }

  /**
   * The storage prefix of a namespace's objects, `/registry/<group or "core">/<plural>/<ns>/`
   * (all namespaces, or a cluster-scoped kind, with `undefined`). Never throws.
   * @see k8s.io/apiserver/pkg/registry/generic/registry/store.go (NamespaceKeyRootFunc)
   */
  keyPrefix(namespace: string | undefined): string {
    const r = this.strategy.resource;
    const base = `/registry/${r.group || "core"}/${r.plural}/`;
    return r.namespaced && namespace ? `${base}${namespace}/` : base;
  }

  /** The storage key of one object: {@link keyPrefix} + name. Never throws. @see k8s.io/apiserver/pkg/registry/generic/registry/store.go (NamespaceKeyFunc) */
  key(namespace: string | undefined, name: string): string {
    return this.keyPrefix(namespace) + name;
  }

  /**
   * Maps a storage error to the API error for `name` (KeyExists → 409 AlreadyExists, KeyNotFound →
   * 404, Conflict/InvalidObj → 409 Conflict, ResourceVersionExpired → 410, TooLargeResourceVersion
   * → 504 with a retry, InvalidError → 400, Unreachable with an `operation` → 500 ServerTimeout
   * retrying after 2 s as `Interpret<Operation>Error` (also when a write's outcome is unknown),
   * Internal (the backend applied nothing: disk full, read-only, etcd space quota) and others → 500
   * InternalError with the backend's words). Other errors are returned unchanged.
   * @see k8s.io/apiserver/pkg/storage/errors/storage.go (InterpretCreateError, InterpretGetError & co)
   */
  interpret(err: unknown, name: string, operation?: "create" | "get" | "list" | "update" | "delete"): unknown {
    if (!isStorageError(err)) return err;
    switch (err.code) {
      case "Unreachable":
        return operation === undefined ? newInternalError(err) : newServerTimeout(this.gr, operation, 2);
      case "KeyExists":
        return newAlreadyExists(this.gr, name);
      case "KeyNotFound":
        return newNotFound(this.gr, name);
      case "Conflict":
        return newConflict(this.gr, name, new Error("the object has been modified; please apply your changes to the latest version and try again"));
      case "ResourceVersionExpired":
        return newResourceExpired(err.message);
      case "InvalidObj":
        return newConflict(this.gr, name, new Error(err.detail ?? err.message));
      case "TooLargeResourceVersion": {
        // storage.NewTooLargeResourceVersionError (504 Timeout, retry after 1 s, with its cause).
        const e = newTimeoutError(`Too large resource version: ${String(err.revision ?? 0)}, current: ${String(err.currentRevision ?? 0)}`, 1);
        return new StatusError({ ...e.status, details: { ...e.status.details, causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }] } });
      }
      case "InvalidError":
        return newBadRequest(err.message);
      case "Internal":
        // The backend applied nothing and said why (disk full, read-only, etcd's space quota).
        return newInternalError(err);
      default:
        return newInternalError(err);
    }
  }

  /**
   * Creates `obj` as 1.23's `Store.Create`: defaults (unless `defaulted`), server-owned metadata
   * (name from `generateName`, namespace from the request, uid, creationTimestamp), the strategy's
   * `prepareForCreate`, `validate`, warnings and `canonicalize`, validating admission, then the
   * storage write (with `dryRun`, an existence check instead). Mutates `obj`.
   * @returns the stored object (with its resourceVersion)
   * @throws StatusError 422 (validation), 409 AlreadyExists, whatever admission throws, and the
   *   storage's errors mapped by {@link interpret}
   * @see k8s.io/apiserver/pkg/registry/generic/registry/store.go (Create)
   * @see k8s.io/apiserver/pkg/registry/rest/create.go (BeforeCreate)
   */
  async create(ctx: RequestContext, obj: APIObject, opts: StoreWriteOptions = {}): Promise<APIObject> {
    const name = await this.prepareCreate(ctx, obj, opts);
    if (ctx.dryRun) {
      const existing = await this.storage.get(this.key(ctx.namespace, name), { ignoreNotFound: true }).catch((e: unknown) => { throw this.interpret(e, name, "create"); });
      if (existing) throw newAlreadyExists(this.gr, name);
      return obj;
    }
    try {
      const r = await this.storage.create(this.key(ctx.namespace, name), obj as StoredObject);
      return r.object as APIObject;
    } catch (e) {
      throw this.interpret(e, name, "create");
    }
  }

  // Everything of a create before the storage write; returns the object's name. Mutates `obj`.
  private async prepareCreate(ctx: RequestContext, obj: APIObject, opts: StoreWriteOptions): Promise<string> {
    const s = this.strategy;
    // Defaults first (as decoding does in Kubernetes): a defaulter may replace `metadata`, so
    // `meta` is read after it; a stale reference once lost the uid of Jobs with manualSelector.
    if (opts.defaulted !== true) s.applyDefaults(obj);
    const meta = (obj.metadata ??= {});
    if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
    if (s.resource.namespaced) meta.namespace = ctx.namespace ?? "";
    else delete meta.namespace;
    meta.uid = randomUUID();
    meta.creationTimestamp = ctx.now.toISOString().replace(/\.\d{3}Z$/, "Z");
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    s.prepareForCreate(ctx, obj);
    const errs = s.validate(ctx, obj);
    if (errs.length > 0) throw newInvalid(this.gk, meta.name ?? "", errs);
    ctx.warnings.push(...(s.warningsOnCreate?.(ctx, obj) ?? []));
    s.canonicalize?.(obj);
    await opts.validateAdmission?.(obj, null);
    return meta.name ?? "";
  }

  /**
   * Reads one object; 404 when missing. `resourceVersion` as 1.23's GetOptions: unset/`""` is a
   * consistent read, `"0"` any (the watch cache's copy), `N` not older than N.
   * @throws StatusError 404; 400 for a malformed resourceVersion; 504-class errors from storage
   */
  async get(ctx: RequestContext, name: string, resourceVersion?: string): Promise<APIObject> {
    if (resourceVersion !== undefined && resourceVersion !== "" && !/^[0-9]+$/.test(resourceVersion)) throw newBadRequest(`invalid resource version: ${resourceVersion}`);
    try {
      const key = this.key(ctx.namespace, name);
      if (resourceVersion) return (await this.storage.get(key, { resourceVersion })) as APIObject;
      return (await this.storage.get(key)) as APIObject;
    } catch (e) {
      throw this.interpret(e, name, "get");
    }
  }

  /**
   * {@link get} as JSON text, without building the object: byte for byte `JSON.stringify(get(...))`.
   * @throws StatusError as {@link get}
   */
  async getEncoded(ctx: RequestContext, name: string, resourceVersion?: string): Promise<string> {
    if (resourceVersion !== undefined && resourceVersion !== "" && !/^[0-9]+$/.test(resourceVersion)) throw newBadRequest(`invalid resource version: ${resourceVersion}`);
    const storage = this.storage;
    try {
      const key = this.key(ctx.namespace, name);
      const options = resourceVersion ? { resourceVersion } : {};
      return storage.getEncoded ? await storage.getEncoded(key, options) : JSON.stringify(await storage.get(key, options));
    } catch (e) {
      throw this.interpret(e, name, "get");
    }
  }

  /**
   * The storage predicate of a list's or watch's label and field selectors (`undefined`: every
   * object). Every kind selects on `metadata.name` and `metadata.namespace`, plus the strategy's
   * `fieldSelectorKeys`.
   * @throws StatusError 400 (unparsable selector; unsupported field label, in the kind's 1.23 wording)
   * @see k8s.io/apiserver/pkg/registry/generic/registry/store.go (PredicateFunc)
   */
  predicate(params: ListParams): ((o: StoredObject) => boolean) | undefined {
    let label: Selector | undefined;
    let field: FieldSelector | undefined;
    if (params.labelSelector) {
      const r = parseLabelSelector(params.labelSelector);
      if (!r.ok) throw newBadRequest(`unable to parse requirement: ${r.error}`);
      if (!r.value.empty()) label = r.value;
    }
    if (params.fieldSelector) {
      const r = parseFieldSelector(params.fieldSelector);
      if (!r.ok) throw newBadRequest(r.error);
      // Every kind selects on metadata.name and metadata.namespace (DefaultMetaV1FieldSelectorConversion;
      // empty for cluster-scoped objects); the unsupported-label wording is the kind's conversion func's.
      const keys = this.strategy.fieldSelectorKeys;
      const allowed = new Set(["metadata.name", "metadata.namespace", ...keys]);
      for (const req of r.value.requirements()) {
        if (allowed.has(req.field)) continue;
        const msg = this.strategy.fieldLabelError?.(req.field)
          ?? (keys.length === 0 ? `"${req.field}" is not a known field selector: only "metadata.name", "metadata.namespace"` : `field label not supported: ${req.field}`);
        throw newBadRequest(msg);
      }
      if (!r.value.empty()) field = r.value;
    }
    if (!label && !field) return undefined;
    return (o) => this.matches(o as APIObject, label, field);
  }

  /**
   * The watch trigger of a watch's field selector: the value it requires of the kind's
   * {@link ResourceStrategy.indexedField} (`spec.nodeName=node-a`), else `undefined`. Call after
   * {@link predicate} (which rejects bad selectors).
   * @see k8s.io/apiserver/pkg/storage/cacher/cacher.go (Watch: triggerValue) in kubernetes/kubernetes v1.23
   */
  watchTrigger(params: ListParams): WatchTrigger | undefined {
    const indexed = this.strategy.indexedField;
    if (!indexed || !params.fieldSelector) return undefined;
    const r = parseFieldSelector(params.fieldSelector);
    const value = r.ok ? r.value.requiresExactMatch(indexed.field) : undefined;
    return value === undefined ? undefined : { value, valueOf: indexed.valueOf };
  }

  private matches(o: APIObject, label: Selector | undefined, field: FieldSelector | undefined): boolean {
    const attrs = this.strategy.getAttrs(o);
    const fields: Record<string, string> = { "metadata.name": o.metadata?.name ?? "", ...attrs.fields };
    fields["metadata.namespace"] = this.strategy.resource.namespaced ? (o.metadata?.namespace ?? "") : "";
    return (!label || label.matches(attrs.labels)) && (!field || field.matches(fields));
  }

  /**
   * Lists objects (one page) as 1.23's `Store.List`: the `<Kind>List` with `resourceVersion`,
   * `continue` and `remainingItemCount`.
   * @throws StatusError 400 (selectors; malformed resourceVersion or continue token; continue with a
   *   resourceVersion), 410 (continue token too old), 422 (resourceVersionMatch rules), 504
   *   (resourceVersion too large)
   * @see k8s.io/apiserver/pkg/registry/generic/registry/store.go (List, ListPredicate)
   */
  async list(ctx: RequestContext, params: ListParams): Promise<APIObject> {
    const q = this.listQuery(ctx, params);
    const res = await this.readList(q, () => this.storage.list(q.prefix, { ...q.options, ...(q.predicate ? { predicate: q.predicate } : {}) }));
    return { ...this.listHead(q.prefix, res), items: res.items };
  }

  /**
   * {@link list} as JSON text, without building the objects: `undefined` when the list needs
   * them (a label or field selector). The text is byte for byte `JSON.stringify(list(...))`.
   * @throws StatusError as {@link list}
   */
  async listEncoded(ctx: RequestContext, params: ListParams): Promise<string | undefined> {
    const q = this.listQuery(ctx, params);
    if (q.predicate) return undefined;
    const storage = this.storage;
    const res = await this.readList(q, () => (storage.listEncoded ? storage.listEncoded(q.prefix, q.options) : storage.list(q.prefix, q.options).then((l) => ({ ...l, items: l.items.map((o) => JSON.stringify(o)) }))));
    const head = JSON.stringify(this.listHead(q.prefix, res));
    return `${head.slice(0, -1)},"items":[${res.items.join(",")}]}`;
  }

  // Checks a list's parameters (as 1.23) and turns them into storage options.
  private listQuery(ctx: RequestContext, params: ListParams): { prefix: string; predicate: ((o: StoredObject) => boolean) | undefined; options: EncodedListOptions; continued: boolean } {
    const prefix = this.keyPrefix(ctx.namespace);
    const predicate = this.predicate(params);
    const rv = params.resourceVersion;
    const match = params.resourceVersionMatch;
    if (match !== undefined && match !== "") {
      // metainternalversion ValidateListOptions: 422 Invalid on ListOptions.meta.k8s.io.
      const errs: FieldError[] = [];
      if (!rv) errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"));
      if (params.continue) errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
      if (match !== "Exact" && match !== "NotOlderThan") errs.push(notSupported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]));
      if (match === "Exact" && rv === "0") errs.push(forbidden("resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
      if (errs.length > 0) throw newInvalid({ group: "meta.k8s.io", kind: "ListOptions" }, "", errs);
    }
    if (rv !== undefined && rv !== "" && !/^[0-9]+$/.test(rv)) throw newBadRequest(`invalid resource version: ${rv}`);
    let cont: { startKey: string; revision: number } | undefined;
    if (params.continue) {
      if (rv && rv !== "0") throw newBadRequest(`specifying resource version is not allowed when using continue`);
      try {
        const t = decodeContinue(params.continue);
        cont = { startKey: prefix + t.startKey, revision: Number(t.resourceVersion) };
      } catch (e) {
        if (e instanceof ContinueTokenError) throw newBadRequest(`invalid continue token: ${e.message}`);
        throw e;
      }
    }
    const options: EncodedListOptions = {
      ...(rv !== undefined && rv !== "" ? { resourceVersion: rv } : {}),
      ...(match === "Exact" || match === "NotOlderThan" ? { resourceVersionMatch: match } : {}),
      ...(params.limit ? { limit: params.limit } : {}),
      ...(cont ? { continue: cont } : {}),
    };
    return { prefix, predicate, options, continued: cont !== undefined };
  }

  private async readList<T extends { readonly continue?: unknown }>(q: { continued: boolean }, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (e) {
      if (isStorageError(e, "ResourceVersionExpired") && q.continued) {
        throw newResourceExpired(
          "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
        );
      }
      throw this.interpret(e, "", "list");
    }
  }

  // The list object without its items: kind, apiVersion and ListMeta.
  private listHead(prefix: string, res: Omit<ListResult, "items">): APIObject {
    const r = this.strategy.resource;
    const metadata: Record<string, unknown> = { resourceVersion: String(res.revision) };
    if (res.continue) {
      metadata["continue"] = encodeContinue({ resourceVersion: BigInt(res.continue.revision), startKey: res.continue.startKey.slice(prefix.length) });
      if (res.remainingItemCount !== undefined) metadata["remainingItemCount"] = res.remainingItemCount;
    }
    return { kind: r.listKind, apiVersion: r.group ? `${r.group}/${r.version}` : r.version, metadata };
  }

  /**
   * PUT, and the write half of every PATCH, as 1.23's `Store.Update`: one guaranteed update in
   * which `mutate` receives the current object (`null` when missing) and returns the new one.
   * A missing object is created in the same retry loop when the kind creates on update or
   * `forceAllowCreate` is set (never for a subresource), so two concurrent writes to a missing
   * object give one create and one update. Updates run the strategy's (or the subresource's)
   * `prepareForUpdate`, `validateUpdate`, warnings and `canonicalize`, then validating admission.
   * `mutate` may run several times (once per conflict retry).
   * @returns the stored object and whether it was created
   * @throws StatusError 404 (missing and not creatable), 409 (resourceVersion or uid mismatch),
   *   422 (validation; a missing resourceVersion where the kind needs one), whatever `mutate` or
   *   admission throws, and the storage's errors mapped by {@link interpret}
   * @see k8s.io/apiserver/pkg/registry/generic/registry/store.go (Update)
   * @see k8s.io/apiserver/pkg/registry/rest/update.go (BeforeUpdate)
   */
  async update(
    ctx: RequestContext,
    name: string,
    mutate: (current: APIObject | null) => APIObject | Promise<APIObject>,
    opts: StoreUpdateOptions = {},
  ): Promise<{ object: APIObject; created: boolean }> {
    const s = this.strategy;
    const key = this.key(ctx.namespace, name);
    const allowCreate = (s.allowCreateOnUpdate || opts.forceAllowCreate === true) && !opts.subresource;
    let created = false;
    let result: APIObject | undefined;
    const tryUpdate = async (cur: StoredObject, state: { readonly revision: number }): Promise<StoredObject> => {
      created = state.revision === 0;
      if (created) {
        // Missing (ignoreNotFound): create inside the loop; a racing create makes the storage retry us as an update.
        const obj = await mutate(null);
        await this.prepareCreate(ctx, obj, opts);
        result = obj;
        if (ctx.dryRun) throw new DryRunAbort();
        return obj as StoredObject;
      }
      const old = cur as APIObject;
      const obj = await mutate(deepCopyJSON(old));
      const meta = (obj.metadata ??= {});
      const rv = meta.resourceVersion;
      if (!rv && !s.allowUnconditionalUpdate && !opts.subresource) {
        // 1.23 names the resource (not the kind) here and prints the uint64 zero with %#v.
        throw newInvalid({ group: s.resource.group, kind: s.resource.plural }, name, [invalid("metadata.resourceVersion", new GoSyntaxValue("0x0"), "must be specified for an update")]);
      }
      // An unconditional update takes the stored object's resourceVersion (store.go doUnconditionalUpdate).
      if (!rv && old.metadata?.resourceVersion) meta.resourceVersion = old.metadata.resourceVersion;
      if (rv && rv !== old.metadata?.resourceVersion) {
        throw newConflict(this.gr, name, new Error("the object has been modified; please apply your changes to the latest version and try again"));
      }
      // A uid in the body is a precondition (rest.DefaultUpdatedObjectInfo.Preconditions, 1.23).
      if (meta.uid && meta.uid !== old.metadata?.uid) {
        throw newConflict(this.gr, name, new Error(`Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${old.metadata?.uid ?? ""}`));
      }
      // Server-owned metadata carries over.
      meta.uid = old.metadata?.uid ?? "";
      if (old.metadata?.creationTimestamp) meta.creationTimestamp = old.metadata.creationTimestamp;
      if (old.metadata?.deletionTimestamp) meta.deletionTimestamp = old.metadata.deletionTimestamp;
      else delete meta.deletionTimestamp;
      if (old.metadata?.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
      if (s.resource.namespaced) meta.namespace = ctx.namespace ?? "";
      if (opts.defaulted !== true) s.applyDefaults(obj);
      // rest.BeforeUpdate: "Ensure requests cannot update generation" — only the strategy bumps it.
      if (old.metadata?.generation !== undefined) meta.generation = old.metadata.generation;
      else delete meta.generation;
      const sub = opts.subresource === "status" ? s.status : opts.subresource ? s.subresourceUpdates?.[opts.subresource] : undefined;
      if (opts.subresource && opts.subresource !== "status" && sub === undefined) throw newNotFound(this.gr, name);
      if (sub) {
        sub.prepareForUpdate(ctx, obj, old);
        const errs = sub.validateUpdate(ctx, obj, old);
        if (errs.length > 0) throw newInvalid(this.gk, name, errs);
        ctx.warnings.push(...(sub.warningsOnUpdate?.(ctx, obj, old) ?? []));
      } else {
        s.prepareForUpdate(ctx, obj, old);
        const errs = s.validateUpdate(ctx, obj, old);
        if (errs.length > 0) throw newInvalid(this.gk, name, errs);
        ctx.warnings.push(...(s.warningsOnUpdate?.(ctx, obj, old) ?? []));
      }
      s.canonicalize?.(obj);
      await opts.validateAdmission?.(obj, old);
      result = obj;
      // ShouldDeleteDuringUpdate: the last finalizer leaves an object marked for deletion with
      // no grace period left → delete instead of writing.
      if (this.shouldDeleteDuringUpdate(obj, old)) throw new DeleteInstead(obj);
      if (ctx.dryRun) throw new DryRunAbort();
      return obj as StoredObject;
    };
    try {
      const r = await this.storage.guaranteedUpdate(key, tryUpdate, allowCreate ? { ignoreNotFound: true } : {});
      return { object: r.object as APIObject, created };
    } catch (e) {
      if (e instanceof DryRunAbort && result) return { object: result, created };
      if (e instanceof DeleteInstead) {
        if (ctx.dryRun) return { object: e.object, created: false };
        try {
          const d = await this.storage.delete(key, { preconditions: { uid: e.object.metadata?.uid ?? "" } });
          return { object: d.object as APIObject, created: false };
        } catch (de) {
          // Racing updates may both remove the last finalizer.
          if (isStorageError(de, "KeyNotFound")) return { object: e.object, created: false };
          throw this.interpret(de, name, "delete");
        }
      }
      throw this.interpret(e, name, "update");
    }
  }

  /**
   * DELETE one object as 1.23's `Store.Delete`: preconditions (409), graceful deletion (the
   * strategy's `checkGracefulDelete`; a pending graceful delete may only be shortened), the
   * `orphan`/`foregroundDeletion` finalizers from the propagation policy (or the kind's default,
   * with its warning), and finalizers: an object with pending finalizers (or the strategy's
   * `hasPendingFinalization`) is only marked (`deletionTimestamp`, `deletionGracePeriodSeconds: 0`).
   * `dryRun` computes the same answer and stores nothing.
   * @throws StatusError 404, 409 (preconditions), 422 (DeleteOptions), 400 (bad grace period)
   * @see k8s.io/apiserver/pkg/registry/generic/registry/store.go (Delete, updateForGracefulDeletionAndFinalizers)
   * @see k8s.io/apiserver/pkg/registry/rest/delete.go (BeforeDelete)
   */
  async delete(ctx: RequestContext, name: string, opts: StoreDeleteOptions): Promise<StoreDeleteResult> {
    const key = this.key(ctx.namespace, name);
    const current = await this.get(ctx, name);
    const pre = opts.preconditions;
    const policy = opts.propagationPolicy;
    if (policy !== undefined && policy !== "Orphan" && policy !== "Background" && policy !== "Foreground") {
      throw newInvalid({ group: "meta.k8s.io", kind: "DeleteOptions" }, "", [
        notSupported("propagationPolicy", policy, ["Foreground", "Background", "Orphan", "nil"]),
      ]);
    }
    let grace = opts.gracePeriodSeconds;
    if (grace !== undefined && !Number.isSafeInteger(grace)) throw newBadRequest(`gracePeriodSeconds: Invalid value: must be an integer`);
    // Negative values are treated as 1s on the delete path.
    if (grace !== undefined && grace < 0) grace = 1;
    this.checkDeletePreconditions(current, pre);
    // 1.23's Job REST warns whenever a delete names no policy (DeleteOptions.propagationPolicy nil).
    if (policy === undefined) ctx.warnings.push(...(this.strategy.warningsOnDefaultDelete?.(ctx, current) ?? []));

    const first = this.beforeDelete(ctx, deepCopyJSON(current), grace);
    if (first.pendingGraceful) return { object: current, deleted: false, finalized: true };
    const pendingFinalizers = this.pendingFinalizers(current);
    const gcUpdate = this.finalizersForGC(ctx, current, policy);
    let deleteImmediately = true;
    let out: APIObject | undefined;
    if (first.graceful || pendingFinalizers || gcUpdate.changed) {
      let lastGrace = 0;
      let pending = false;
      let marked: APIObject | undefined;
      const step = async (cur: StoredObject): Promise<StoredObject> => {
        const obj = cur as APIObject;
        this.checkDeletePreconditions(obj, pre);
        await opts.validateDeletion?.(obj);
        const b = this.beforeDelete(ctx, obj, grace);
        if (b.pendingGraceful) throw new AlreadyDeleting(obj);
        const fin = this.finalizersForGC(ctx, obj, policy);
        if (fin.changed) (obj.metadata ??= {}).finalizers = fin.finalizers;
        pending = this.pendingFinalizers(obj);
        if (!b.graceful) {
          if (!pending) throw new DeleteNow();
          markAsDeleting(obj, ctx.now);
          this.strategy.prepareForDeletion?.(obj);
          marked = obj;
          if (ctx.dryRun) throw new DryRunAbort();
          return obj;
        }
        this.strategy.prepareForDeletion?.(obj);
        lastGrace = b.period;
        marked = obj;
        if (ctx.dryRun) throw new DryRunAbort();
        return obj;
      };
      try {
        const r = await this.storage.guaranteedUpdate(key, step, pre?.uid ? { preconditions: { uid: pre.uid } } : {});
        out = r.object as APIObject;
        deleteImmediately = !pending && lastGrace === 0;
      } catch (e) {
        if (e instanceof DryRunAbort && marked) {
          out = marked;
          deleteImmediately = !pending && lastGrace === 0;
        } else if (e instanceof AlreadyDeleting) {
          return { object: e.object, deleted: false, finalized: true };
        } else if (e instanceof DeleteNow) {
          deleteImmediately = true;
        } else throw this.interpret(e, name, "update");
      }
      if (!deleteImmediately && out) return { object: out, deleted: false, finalized: false };
    }
    if (ctx.dryRun) {
      await opts.validateDeletion?.(out ?? current);
      return { object: out ?? current, deleted: true, finalized: true };
    }
    try {
      const validate = opts.validateDeletion;
      const r = await this.storage.delete(key, { preconditions: { uid: current.metadata?.uid ?? "" }, ...(validate ? { validateDeletion: (o: StoredObject) => validate(o as APIObject) } : {}) });
      return { object: r.object as APIObject, deleted: true, finalized: true };
    } catch (e) {
      if (isStorageError(e, "KeyNotFound") && out) return { object: out, deleted: true, finalized: true };
      throw this.interpret(e, name, "delete");
    }
  }

  private shouldDeleteDuringUpdate(obj: APIObject, old: APIObject): boolean {
    if ((obj.metadata?.finalizers ?? []).length > 0 || this.strategy.hasPendingFinalization?.(obj) === true) return false;
    if (!old.metadata?.deletionTimestamp) return false;
    const g = old.metadata.deletionGracePeriodSeconds;
    return g === undefined || g === 0;
  }

  /**
   * DELETE of a collection as 1.23's `DeleteCollection`: lists with `params` (every page unless
   * `limit` is set), deletes each item with `opts` (items already gone are skipped), and returns the
   * list as it was read. Identical warnings are reported once.
   * @throws StatusError as {@link list}, and as {@link delete} for each item (except 404)
   * @see k8s.io/apiserver/pkg/registry/generic/registry/store.go (DeleteCollection)
   */
  async deleteCollection(ctx: RequestContext, params: ListParams, opts: StoreDeleteOptions): Promise<APIObject> {
    const items: APIObject[] = [];
    let page = await this.list(ctx, params);
    const first = page;
    for (;;) {
      items.push(...(page["items"] as APIObject[]));
      const cont = (page.metadata as { continue?: string } | undefined)?.continue;
      if (params.limit || !cont) break;
      page = await this.list(ctx, { ...params, continue: cont, resourceVersion: "", resourceVersionMatch: "" });
    }
    for (const item of items) {
      try {
        await this.delete({ ...ctx, namespace: this.strategy.resource.namespaced ? item.metadata?.namespace : undefined }, item.metadata?.name ?? "", opts);
      } catch (e) {
        if (!(e instanceof StatusError && e.status.code === 404)) throw e;
      }
    }
    const unique = [...new Set(ctx.warnings)];
    ctx.warnings.splice(0, ctx.warnings.length, ...unique);
    return { ...first, metadata: { resourceVersion: first.metadata?.resourceVersion ?? "" }, items };
  }

  private checkDeletePreconditions(obj: APIObject, pre: StoreDeleteOptions["preconditions"]): void {
    if (!pre) return;
    // 1.23's BeforeDelete names the kind (not the resource) in this Conflict.
    const gr = { group: this.strategy.resource.group, resource: this.strategy.resource.kind };
    const name = obj.metadata?.name ?? "";
    if (pre.uid && pre.uid !== obj.metadata?.uid) {
      throw newConflict(gr, name, new Error(`the UID in the precondition (${pre.uid}) does not match the UID in record (${obj.metadata?.uid ?? ""}). The object might have been deleted and then recreated`));
    }
    if (pre.resourceVersion && pre.resourceVersion !== obj.metadata?.resourceVersion) {
      throw newConflict(
        gr,
        name,
        new Error(`the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${obj.metadata?.resourceVersion ?? ""}). The object might have been modified`),
      );
    }
  }

  /** rest.BeforeDelete's graceful part. Mutates `obj` (deletionTimestamp, grace period, generation) when graceful. */
  private beforeDelete(ctx: RequestContext, obj: APIObject, requested: number | undefined): { graceful: boolean; pendingGraceful: boolean; period: number } {
    const s = this.strategy;
    if (!s.checkGracefulDelete) return { graceful: false, pendingGraceful: false, period: 0 };
    const meta = (obj.metadata ??= {});
    if (meta.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds < 0) meta.deletionGracePeriodSeconds = 1;
    if (meta.deletionTimestamp) {
      const cur = meta.deletionGracePeriodSeconds;
      if (cur === undefined || cur === 0) return { graceful: false, pendingGraceful: false, period: 0 };
      if (requested === undefined || requested >= cur) return { graceful: false, pendingGraceful: true, period: cur };
      const ts = Date.parse(meta.deletionTimestamp) - cur * 1000 + requested * 1000;
      meta.deletionTimestamp = formatTime(new Date(ts));
      meta.deletionGracePeriodSeconds = requested;
      return { graceful: true, pendingGraceful: false, period: requested };
    }
    const period = s.checkGracefulDelete(ctx, obj, requested);
    meta.deletionTimestamp = formatTime(new Date(ctx.now.getTime() + period * 1000));
    meta.deletionGracePeriodSeconds = period;
    if ((meta.generation ?? 0) > 0) meta.generation = (meta.generation ?? 0) + 1;
    return { graceful: true, pendingGraceful: false, period };
  }

  private pendingFinalizers(obj: APIObject): boolean {
    return (obj.metadata?.finalizers ?? []).length > 0 || this.strategy.hasPendingFinalization?.(obj) === true;
  }

  /** deletionFinalizersForGarbageCollection: the `orphan`/`foregroundDeletion` finalizers the policy implies. */
  private finalizersForGC(ctx: RequestContext, obj: APIObject, policy: string | undefined): { changed: boolean; finalizers: string[] } {
    const old = obj.metadata?.finalizers ?? [];
    const has = (f: string) => old.includes(f);
    const orphan = policy === "Orphan" ? true : policy !== undefined ? false : has("orphan") ? true : has("foregroundDeletion") ? false : this.strategy.defaultGarbageCollectionPolicy(ctx) === "Orphan";
    const foreground = policy === "Foreground" ? true : policy !== undefined ? false : has("foregroundDeletion");
    const next = old.filter((f) => f !== "orphan" && f !== "foregroundDeletion");
    if (orphan) next.push("orphan");
    if (foreground) next.push("foregroundDeletion");
    const same = new Set(old).size === new Set(next).size && next.every((f) => old.includes(f));
    return { changed: !same, finalizers: same ? [...old] : next };
  }
}

function formatTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** markAsDeleting: deletionTimestamp now (unless earlier), grace 0, generation bumped on first mark. */
function markAsDeleting(obj: APIObject, now: Date): void {
  const meta = (obj.metadata ??= {});
  if (!meta.deletionTimestamp && (meta.generation ?? 0) > 0) meta.generation = (meta.generation ?? 0) + 1;
  if (!meta.deletionTimestamp || Date.parse(meta.deletionTimestamp) > now.getTime()) meta.deletionTimestamp = formatTime(now);
  meta.deletionGracePeriodSeconds = 0;
}

class AlreadyDeleting extends Error {
  override readonly name = "AlreadyDeleting";
  constructor(readonly object: APIObject) {
    super("already deleting");
  }
}

class DeleteInstead extends Error {
  override readonly name = "DeleteInstead";
  constructor(readonly object: APIObject) {
    super("delete instead of update");
  }
}

class DeleteNow extends Error {
  override readonly name = "DeleteNow";
}

class DryRunAbort extends Error {
  override readonly name = "DryRunAbort";
}

