/**
 * The per-kind strategy: everything the generic store needs to know about one resource, and
 * nothing about HTTP or storage. Per-kind strategies live in the app
 * (`apps/apiserver/src/registry/<group>/<kind>/strategy.ts`); the generic store in this package
 * calls them in Kubernetes' order:
 *
 * - create: decode → `applyDefaults` → managedFields → mutating admission → `prepareForCreate`
 *   → `validate` → `warningsOnCreate` → `canonicalize` → validating admission → storage create.
 * - update (PUT and every PATCH, inside the storage's retry loop): decode/patch →
 *   `applyDefaults` → managedFields → mutating admission → `prepareForUpdate` → `validateUpdate`
 *   → `warningsOnUpdate` → `canonicalize` → validating admission → storage write. A PUT or apply
 *   that finds no object takes the create path in the same loop.
 *
 * The REST handlers (`handlers/`) run decoding, defaulting (once a request), managedFields and
 * mutating admission; the generic store (`store.ts`) runs the rest.
 * - status update: the same with {@link StatusStrategy} in place of the main hooks.
 *
 * Hooks named `prepare*`, `applyDefaults` and `canonicalize` MAY mutate the object passed in;
 * hooks named `validate*` and `warnings*` MUST NOT.
 *
 * @see k8s.io/apiserver/pkg/registry/rest/create.go (RESTCreateStrategy, BeforeCreate)
 * @see k8s.io/apiserver/pkg/registry/rest/update.go (RESTUpdateStrategy, BeforeUpdate)
 * @see k8s.io/apiserver/pkg/registry/rest/delete.go (RESTDeleteStrategy)
 * @see pkg/registry/batch/job/strategy.go (a complete example)
 */
import type { ObjectMeta, ResourceInfo, TableColumnDefinition } from "@skiff/api-types";
import type { FieldError } from "@skiff/apimachinery";
import type { Storage, WatchTrigger } from "@skiff/storage";
import type { StoreDeleteOptions, StoreDeleteResult } from "./store.js";

/** Any API object: `apiVersion`, `kind`, `metadata`, and kind-specific top-level fields. */
export interface APIObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

/** The authenticated user of a request, as Kubernetes' `user.Info`. */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/**
 * What a strategy hook knows about the request it serves. One `now` per request, so every
 * timestamp a request writes is the same instant.
 */
export interface RequestContext {
  /** The namespace from the request path; `undefined` for cluster-scoped resources. */
  readonly namespace: string | undefined;
  readonly user: UserInfo;
  /** The request's clock reading. */
  readonly now: Date;
  /** `dryRun=All`: everything runs but nothing is stored. */
  readonly dryRun: boolean;
  /** Warnings to return as `Warning: 299 - "<text>"` headers; hooks may push to it. */
  readonly warnings: string[];
}

/** Labels and selectable fields of an object, for label and field selectors. */
export interface ObjectAttrs {
  readonly labels: Readonly<Record<string, string>>;
  /** Field-selector values by key, e.g. `metadata.name`, `status.successful`, `spec.nodeName`. */
  readonly fields: Readonly<Record<string, string>>;
}

/** What happens to dependents when an owner is deleted without an explicit propagation policy. */
export type GarbageCollectionPolicy = "Orphan" | "Background" | "Foreground";

/**
 * Server-side `Table` rendering for `kubectl get` (the `as=Table` Accept form).
 * @see pkg/printers/internalversion/printers.go
 */
export interface TableConvertor<T extends APIObject> {
  /** Column definitions, NAME first; `priority: 1` columns show only with `-o wide`. */
  readonly columns: readonly TableColumnDefinition[];
  /** One row's cells for `obj`, in column order; `now` is the request's clock for ages/durations. */
  cells(obj: T, now: Date): unknown[];
}

/** Hooks for the `/status` subresource: it keeps everything but status from the stored object. */
export interface StatusStrategy<T extends APIObject> {
  /** Copy the non-status parts of `old` into `obj` (and anything else status writes may not change). Mutates `obj`. */
  prepareForUpdate(ctx: RequestContext, obj: T, old: T): void;
  /** Status-update validation. Must not mutate. */
  validateUpdate(ctx: RequestContext, obj: T, old: T): FieldError[];
  /** Optional warnings. Must not mutate. */
  warningsOnUpdate?(ctx: RequestContext, obj: T, old: T): string[];
}

/** Everything the generic store needs to serve one resource. See the module comment for the call order. */
export interface ResourceStrategy<T extends APIObject = APIObject> {
  /** REST identity: group, version, kind, plural, scope, short names, categories, subresources. */
  readonly resource: ResourceInfo;
  /** Scheme defaulting (what Kubernetes applies at decode). Mutates `obj`. */
  applyDefaults(obj: T): void;
  /** Clear or set server-owned fields on create (status, generation, generated labels). Mutates `obj`. */
  prepareForCreate(ctx: RequestContext, obj: T): void;
  /** Create validation. Must not mutate. */
  validate(ctx: RequestContext, obj: T): FieldError[];
  warningsOnCreate?(ctx: RequestContext, obj: T): string[];
  /** Normalise the object before it is stored. Mutates `obj`. */
  canonicalize?(obj: T): void;
  /** Whether PUT to a missing object creates it. */
  readonly allowCreateOnUpdate: boolean;
  /** Whether PUT without `metadata.resourceVersion` is accepted (last writer wins). */
  readonly allowUnconditionalUpdate: boolean;
  /** Carry over server-owned fields from `old` (status, generation bump on spec change). Mutates `obj`. */
  prepareForUpdate(ctx: RequestContext, obj: T, old: T): void;
  /** Update validation (immutable fields and the create rules). Must not mutate. */
  validateUpdate(ctx: RequestContext, obj: T, old: T): FieldError[];
  warningsOnUpdate?(ctx: RequestContext, obj: T, old: T): string[];
  /** Present when the resource has a `/status` subresource. */
  readonly status?: StatusStrategy<T>;
  /** Labels and selectable fields of `obj`. */
  getAttrs(obj: T): ObjectAttrs;
  /**
   * Field-selector keys this resource supports beyond `metadata.name` and (namespaced)
   * `metadata.namespace`; others answer 400 `field label not supported: <key>`.
   */
  readonly fieldSelectorKeys: readonly string[];
  /**
   * The 400 message for an unsupported field-selector label, when the kind's 1.23 conversion func
   * words it its own way (Job: `field label "x" not supported for batchv1.Job`). Default: core/v1's
   * `field label not supported: x` for kinds with `fieldSelectorKeys`, else
   * `"x" is not a known field selector: only "metadata.name", "metadata.namespace"`.
   */
  fieldLabelError?(label: string): string;
  /**
   * The field watches of this kind are indexed by, as 1.23's `TriggerFunc` (pods: `spec.nodeName`):
   * a watch whose field selector requires an exact value of it is offered only the events of
   * objects with that value, so a thousand node agents' pod watches do not each filter every pod
   * event. `valueOf` reads the field (the same function every time: it is the index's identity).
   * @see pkg/registry/core/pod/storage/storage.go (TriggerFunc: NodeNameTriggerFunc) in kubernetes/kubernetes v1.23
   */
  readonly indexedField?: { readonly field: string; readonly valueOf: WatchTrigger["valueOf"] };
  /** Propagation policy when a delete names none (`batch/v1` Job: Orphan, with a warning). */
  defaultGarbageCollectionPolicy(ctx: RequestContext): GarbageCollectionPolicy;
  /** Warnings for a delete request that named no propagation policy (the Job warning). */
  warningsOnDefaultDelete?(ctx: RequestContext, obj: T): string[];
  /**
   * Whether DELETE answers with the deleted object (true: CSIDriver, CSINode, PodTemplate, Pod,
   * Node, Namespace) or with a `Status` of `status: Success` (false: Job), as the store's
   * `ReturnDeletedObject` decides in Kubernetes and the spec's endpoint tables show.
   */
  readonly returnDeletedObject: boolean;
  /** `kubectl get` columns. */
  readonly table: TableConvertor<T>;
  /**
   * Graceful deletion (Kubernetes' `RESTGracefulDeleteStrategy.CheckGracefulDelete`): given the
   * request's `gracePeriodSeconds` (`undefined` when absent, never negative), the grace period in
   * seconds to apply; 0 deletes at once. Absent: the kind has no graceful deletion.
   * Must not mutate. @see pkg/registry/core/pod/strategy.go (CheckGracefulDelete)
   */
  checkGracefulDelete?(ctx: RequestContext, obj: T, requestedGracePeriodSeconds: number | undefined): number;
  /**
   * Whether something beyond `metadata.finalizers` still holds a deleting object (Namespace:
   * `spec.finalizers`). Must not mutate.
   * @see pkg/registry/core/namespace/storage/storage.go (ShouldDeleteNamespaceDuringUpdate)
   */
  hasPendingFinalization?(obj: T): boolean;
  /** Called when a delete first marks `obj` as deleting (Namespace: phase `Terminating`). Mutates `obj`. */
  prepareForDeletion?(obj: T): void;
  /**
   * Update hooks of subresources other than `status`, by name (Namespace: `finalize`), with the
   * same contract as {@link StatusStrategy}.
   */
  readonly subresourceUpdates?: Readonly<Record<string, StatusStrategy<T>>>;
  /** POST handlers of subresources, by name (Pod: `binding`). */
  readonly subresourceCreates?: Readonly<Record<string, SubresourceCreateHandler>>;
}

/**
 * The part of the generic store a {@link SubresourceCreateHandler} may use: the storage, the key
 * scheme and storage-error mapping (a handler writes the parent object itself, as 1.23's
 * BindingREST does, without the main update hooks).
 */
export interface SubresourceStoreAccess {
  readonly storage: Storage;
  key(namespace: string | undefined, name: string): string;
  /** Maps a storage error to the API error for `name` (non-storage errors pass through). */
  interpret(err: unknown, name: string): unknown;
  /**
   * The store's own DELETE of `name` (preconditions, graceful deletion, finalizers, propagation),
   * for subresources that delete their parent (Pod: `eviction`).
   * @throws StatusError as the DELETE endpoint does
   */
  delete(ctx: RequestContext, name: string, opts: StoreDeleteOptions): Promise<StoreDeleteResult>;
}

/**
 * Handles `POST .../{name}/{subresource}` with a decoded JSON body; returns the response object
 * (answered with 201). Throw a `StatusError` to reject.
 * @see pkg/registry/core/pod/storage/storage.go (BindingREST.Create)
 */
export type SubresourceCreateHandler = (ctx: RequestContext, name: string, body: APIObject, store: SubresourceStoreAccess) => Promise<APIObject>;
