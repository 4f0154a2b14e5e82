/**
 * The generic store: REST semantics of one resource over a {@link Storage}.
 * @see k8s.io/apiserver/pkg/registry/generic/registry/store.go
 */
import { randomUUID } from "node:crypto";
import {
  ContinueTokenError,
  decodeContinue,
  encodeContinue,
  invalid,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newInternalError,
  newInvalid,
  newNotFound,
  newResourceExpired,
  parseFieldSelector,
  parseLabelSelector,
} from "@skiff/apimachinery";
import type { FieldSelector, Selector } from "@skiff/apimachinery";
import { isStorageError } from "@skiff/storage";
import type { Storage, StoredObject } from "@skiff/storage";
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

/** Options of a delete (the `DeleteOptions` body and query). */
export interface StoreDeleteOptions {
  readonly gracePeriodSeconds?: number;
  readonly propagationPolicy?: string;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
}

/** A delete's outcome: the object, and whether it is gone (`true`) or only marked (`false`: 202). */
export interface StoreDeleteResult {
  readonly object: APIObject;
  readonly deleted: boolean;
}

/** Appends `n` random characters from Kubernetes' name alphabet to `base` (`generateName`). @see k8s.io/apiserver/pkg/storage/names/generate.go */
export function generateName(base: string): string {
  const b = base.length > 58 ? base.slice(0, 58) : base;
  let s = "";
  for (let i = 0; i < 5; i++) s += nameAlphabet[Math.floor(Math.random() * nameAlphabet.length)];
  return b + s;
}

/**
 * Whether anything but `metadata` and `status` differs between `a` and `b` — the generation-bump test.
 * Does not mutate.
 */
export function specChanged(a: APIObject, b: APIObject): boolean {
  const strip = (o: APIObject) => {
    const { metadata: _m, status: _s, ...rest } = o;
    return JSON.stringify(sortKeys(rest));
  };
  return strip(a) !== strip(b);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/**
 * REST operations of one resource, following the strategy's hooks in Kubernetes' order.
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

  /** The storage prefix for a namespace (or all namespaces / cluster-scoped with `undefined`). */
  keyPrefix(namespace: string | undefined): string {
    const r = this.strategy.resource;
    const base = `/registry/${r.group || "core"}/${r.plural}/`;
    return r.namespaced && namespace ? `${base}${namespace}/` : base;
  }

  /** The storage key of one object. */
  key(namespace: string | undefined, name: string): string {
    return this.keyPrefix(namespace) + name;
  }

  /** Maps storage errors to API errors (InterpretCreateError & co). */
  interpret(err: unknown, name: string): unknown {
    if (!isStorageError(err)) return err;
    switch (err.code) {
      case "KeyExists":
        return newAlreadyExists(this.gr, name);
      case "KeyNotFound":
        return newNotFound(this.gr, name);
      case "Conflict":
        return newConflict(this.gr, name, new Error("the object has been modified; please apply your changes to the latest version and try again"));
      case "ResourceVersionExpired":
        return newResourceExpired(err.message);
      case "InvalidError":
        return newBadRequest(err.message);
      default:
        return newInternalError(err);
    }
  }

  /** Creates `obj`. Mutates `obj`. */
  async create(ctx: RequestContext, obj: APIObject): Promise<APIObject> {
    const s = this.strategy;
    const meta = (obj.metadata ??= {});
    if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
    if (s.resource.namespaced) meta.namespace = ctx.namespace ?? "";
    else delete meta.namespace;
    s.applyDefaults(obj);
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
    const name = meta.name ?? "";
    if (ctx.dryRun) {
      const existing = await this.storage.get(this.key(ctx.namespace, name), { ignoreNotFound: true }).catch((e: unknown) => { throw this.interpret(e, name); });
      if (existing) throw newAlreadyExists(this.gr, name);
      return obj;
    }
    try {
      const r = await this.storage.create(this.key(ctx.namespace, name), obj as StoredObject);
      return r.object as APIObject;
    } catch (e) {
      throw this.interpret(e, name);
    }
  }

  /** Reads one object; 404 when missing. */
  async get(ctx: RequestContext, name: string): Promise<APIObject> {
    try {
      return (await this.storage.get(this.key(ctx.namespace, name))) as APIObject;
    } catch (e) {
      throw this.interpret(e, name);
    }
  }

  /** Builds the storage predicate for selectors; throws 400 on parse errors or unsupported fields. */
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
      const allowed = new Set(["metadata.name", ...(this.strategy.resource.namespaced ? ["metadata.namespace"] : []), ...this.strategy.fieldSelectorKeys]);
      for (const req of r.value.requirements()) {
        if (!allowed.has(req.field)) throw newBadRequest(`field label not supported: ${req.field}`);
      }
      if (!r.value.empty()) field = r.value;
    }
    if (!label && !field) return undefined;
    return (o) => this.matches(o as APIObject, label, field);
  }

  private matches(o: APIObject, label: Selector | undefined, field: FieldSelector | undefined): boolean {
    const attrs = this.strategy.getAttrs(o);
    const fields: Record<string, string> = { "metadata.name": o.metadata?.name ?? "", ...attrs.fields };
    if (this.strategy.resource.namespaced) fields["metadata.namespace"] = o.metadata?.namespace ?? "";
    return (!label || label.matches(attrs.labels)) && (!field || field.matches(fields));
  }

  /** Lists objects (one page). Returns the `<Kind>List` object. */
  async list(ctx: RequestContext, params: ListParams): Promise<APIObject> {
    const r = this.strategy.resource;
    const prefix = this.keyPrefix(ctx.namespace);
    const predicate = this.predicate(params);
    const rv = params.resourceVersion;
    const match = params.resourceVersionMatch;
    if (match !== undefined && match !== "") {
      if (match !== "Exact" && match !== "NotOlderThan") throw newBadRequest(`resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`);
      if (!rv) throw newBadRequest(`resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`);
      if (params.continue) throw newBadRequest(`resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`);
      if (match === "Exact" && rv === "0") throw newBadRequest(`resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`);
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
    try {
      const res = await this.storage.list(prefix, {
        ...(rv !== undefined && rv !== "" ? { resourceVersion: rv } : {}),
        ...(match === "Exact" || match === "NotOlderThan" ? { resourceVersionMatch: match } : {}),
        ...(params.limit ? { limit: params.limit } : {}),
        ...(cont ? { continue: cont } : {}),
        ...(predicate ? { predicate } : {}),
      });
      const metadata: Record<string, unknown> = { resourceVersion: String(res.revision) };
      if (res.continue) {
        metadata["continue"] = encodeContinue({ resourceVersion: BigInt(res.continue.revision), startKey: res.continue.startKey.slice(prefix.length) });
        if (res.remainingItemCount !== undefined) metadata["remainingItemCount"] = res.remainingItemCount;
      }
      return { kind: r.listKind, apiVersion: r.group ? `${r.group}/${r.version}` : r.version, metadata, items: res.items };
    } catch (e) {
      if (isStorageError(e, "ResourceVersionExpired") && cont) {
        throw newResourceExpired(
          "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
        );
      }
      throw this.interpret(e, "");
    }
  }

  /**
   * PUT (and the write half of PATCH): `mutate` receives the current object (or `null` when
   * missing) and returns the new one. Returns the stored object and whether it was created.
   */
  async update(
    ctx: RequestContext,
    name: string,
    mutate: (current: APIObject | null) => APIObject | Promise<APIObject>,
    opts: { subresource?: string; forceAllowCreate?: boolean } = {},
  ): Promise<{ object: APIObject; created: boolean }> {
    const s = this.strategy;
    const key = this.key(ctx.namespace, name);
    const current = (await this.storage.get(key, { ignoreNotFound: true }).catch((e: unknown) => { throw this.interpret(e, name); })) as APIObject | null;
    if (!current) {
      if (!s.allowCreateOnUpdate || opts.subresource) throw newNotFound(this.gr, name);
      const obj = await mutate(null);
      return { object: await this.create(ctx, obj), created: true };
    }
    let result: APIObject | undefined;
    const tryUpdate = async (cur: StoredObject): Promise<StoredObject> => {
      const old = cur as APIObject;
      const obj = await mutate(structuredClone(old));
      const meta = (obj.metadata ??= {});
      const rv = meta.resourceVersion;
      if (!rv && !s.allowUnconditionalUpdate && !opts.subresource) {
        throw newInvalid(this.gk, name, [invalid("metadata.resourceVersion", "", "must be specified for an update")]);
      }
      if (rv && rv !== old.metadata?.resourceVersion) {
        throw newConflict(this.gr, name, new Error("the object has been modified; please apply your changes to the latest version and try again"));
      }
      // Server-owned metadata carries over.
      meta.uid = old.metadata?.uid ?? "";
      if (old.metadata?.creationTimestamp) meta.creationTimestamp = old.metadata.creationTimestamp;
      if (old.metadata?.deletionTimestamp) meta.deletionTimestamp = old.metadata.deletionTimestamp;
      else delete meta.deletionTimestamp;
      if (old.metadata?.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
      if (s.resource.namespaced) meta.namespace = ctx.namespace ?? "";
      s.applyDefaults(obj);
      if (opts.subresource === "status" && s.status) {
        s.status.prepareForUpdate(ctx, obj, old);
        const errs = s.status.validateUpdate(ctx, obj, old);
        if (errs.length > 0) throw newInvalid(this.gk, name, errs);
        ctx.warnings.push(...(s.status.warningsOnUpdate?.(ctx, obj, old) ?? []));
      } else {
        s.prepareForUpdate(ctx, obj, old);
        const errs = s.validateUpdate(ctx, obj, old);
        if (errs.length > 0) throw newInvalid(this.gk, name, errs);
        ctx.warnings.push(...(s.warningsOnUpdate?.(ctx, obj, old) ?? []));
      }
      s.canonicalize?.(obj);
      result = obj;
      if (ctx.dryRun) throw new DryRunAbort();
      return obj as StoredObject;
    };
    try {
      const r = await this.storage.guaranteedUpdate(key, tryUpdate);
      let obj = r.object as APIObject;
      // The last finalizer removed from a deleting object: delete it now.
      if (obj.metadata?.deletionTimestamp && (obj.metadata.finalizers ?? []).length === 0) {
        const d = await this.storage.delete(key, { preconditions: { uid: obj.metadata.uid ?? "" } });
        obj = d.object as APIObject;
      }
      return { object: obj, created: false };
    } catch (e) {
      if (e instanceof DryRunAbort && result) return { object: result, created: false };
      throw this.interpret(e, name);
    }
  }

  /** DELETE one object, with finalizers, propagation policy and preconditions. */
  async delete(ctx: RequestContext, name: string, opts: StoreDeleteOptions): Promise<StoreDeleteResult> {
    const key = this.key(ctx.namespace, name);
    const current = await this.get(ctx, name);
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== current.metadata?.uid) {
      throw newConflict(this.gr, name, new Error(`Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata?.uid ?? ""}`));
    }
    if (pre?.resourceVersion && pre.resourceVersion !== current.metadata?.resourceVersion) {
      throw newConflict(
        this.gr,
        name,
        new Error(`Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata?.resourceVersion ?? ""}`),
      );
    }
    let policy = opts.propagationPolicy;
    if (policy !== undefined && policy !== "Orphan" && policy !== "Background" && policy !== "Foreground") {
      throw newBadRequest(`propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`);
    }
    if (policy === undefined) {
      policy = this.strategy.defaultGarbageCollectionPolicy(ctx);
      ctx.warnings.push(...(this.strategy.warningsOnDefaultDelete?.(ctx, current) ?? []));
    }
    const finalizers = [...(current.metadata?.finalizers ?? [])];
    const gcFinalizer = policy === "Orphan" ? "orphan" : policy === "Foreground" ? "foregroundDeletion" : undefined;
    const hasOwnFinalizers = finalizers.length > 0;
    if (hasOwnFinalizers || gcFinalizer) {
      let marked: APIObject | undefined;
      const mark = (cur: StoredObject): StoredObject => {
        const obj = cur as APIObject;
        const meta = (obj.metadata ??= {});
        const fs = (meta.finalizers ?? []).filter((f) => f !== "orphan" && f !== "foregroundDeletion");
        if (gcFinalizer) fs.push(gcFinalizer);
        meta.finalizers = fs;
        if (!meta.deletionTimestamp) {
          meta.deletionTimestamp = ctx.now.toISOString().replace(/\.\d{3}Z$/, "Z");
          meta.deletionGracePeriodSeconds = opts.gracePeriodSeconds ?? 0;
        }
        marked = obj;
        if (ctx.dryRun) throw new DryRunAbort();
        return obj;
      };
      try {
        const r = await this.storage.guaranteedUpdate(key, mark, pre?.uid ? { preconditions: { uid: pre.uid } } : {});
        return { object: r.object as APIObject, deleted: false };
      } catch (e) {
        if (e instanceof DryRunAbort && marked) return { object: marked, deleted: false };
        throw this.interpret(e, name);
      }
    }
    if (ctx.dryRun) return { object: current, deleted: true };
    try {
      const r = await this.storage.delete(key, { preconditions: { uid: current.metadata?.uid ?? "" } });
      return { object: r.object as APIObject, deleted: true };
    } catch (e) {
      throw this.interpret(e, name);
    }
  }
}

class DryRunAbort extends Error {
  override readonly name = "DryRunAbort";
}

