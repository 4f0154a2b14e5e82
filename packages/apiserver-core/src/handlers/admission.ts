/**
 * Admission: the plugin interface and the two phases the REST handlers run it in. Mutating
 * admission runs in the handler after decoding and defaulting (and, for updates, inside the
 * storage's retry loop on the object the request computed); validating admission runs in the
 * generic store after the strategy's own validation, on the object about to be stored.
 * @see staging/src/k8s.io/apiserver/pkg/admission/interfaces.go (MutationInterface, ValidationInterface)
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go (mutating admission before r.Create)
 * @see staging/src/k8s.io/apiserver/pkg/registry/rest/create.go (AdmissionToValidateObjectFunc)
 */
import { StatusError, newForbidden, newNotFound } from "@skiff/apimachinery";
import type { Storage } from "@skiff/storage";
import type { APIObject, RequestContext } from "../registry/strategy.js";
import type { RequestInfo } from "../request/request-info.js";

/** An admission plugin: `mutate` may change the object; `validate` must not. Throw a StatusError to reject. */
export interface AdmissionPlugin {
  readonly name: string;
  /** The mutating phase: after decoding and defaulting, before the strategy's `prepareFor*`. May mutate `attrs.object`. */
  mutate?(attrs: AdmissionAttributes): void | Promise<void>;
  /** The validating phase: after the strategy's validation, just before storage. Must not mutate. */
  validate?(attrs: AdmissionAttributes): void | Promise<void>;
}

/** What admission sees about a write. */
export interface AdmissionAttributes {
  /** `CREATE` also for a PUT or an apply that creates a missing object (1.23's update.go). */
  readonly operation: "CREATE" | "UPDATE" | "DELETE";
  readonly info: RequestInfo;
  readonly object: APIObject | undefined;
  readonly oldObject: APIObject | undefined;
  readonly ctx: RequestContext;
}

/**
 * Runs the mutating phase of every plugin, in order, on `object` (`old` null: a create).
 * @throws whatever a plugin throws (a StatusError rejects the request)
 */
export async function runMutatingAdmission(plugins: readonly AdmissionPlugin[], info: RequestInfo, ctx: RequestContext, object: APIObject, old: APIObject | null): Promise<void> {
  for (const p of plugins) if (p.mutate) await p.mutate(attributes(info, ctx, object, old));
}

/**
 * Runs the validating phase of every plugin, in order, on `object` (`old` null: a create).
 * @throws whatever a plugin throws (a StatusError rejects the request)
 */
export async function runValidatingAdmission(plugins: readonly AdmissionPlugin[], info: RequestInfo, ctx: RequestContext, object: APIObject, old: APIObject | null): Promise<void> {
  for (const p of plugins) if (p.validate) await p.validate(attributes(info, ctx, object, old));
}

/**
 * Runs both phases of every plugin for a DELETE of `old` (the store calls it with the object as
 * stored, inside its retry loop, after the preconditions), as 1.23's
 * `AdmissionToValidateObjectDeleteFunc`: operation `DELETE`, no object, `oldObject` the stored one.
 * @throws whatever a plugin throws (a StatusError refuses the delete; nothing is changed)
 */
export async function runDeleteAdmission(plugins: readonly AdmissionPlugin[], info: RequestInfo, ctx: RequestContext, old: APIObject): Promise<void> {
  const attrs: AdmissionAttributes = { operation: "DELETE", info, object: undefined, oldObject: old, ctx };
  for (const p of plugins) if (p.mutate) await p.mutate(attrs);
  for (const p of plugins) if (p.validate) await p.validate(attrs);
}

function attributes(info: RequestInfo, ctx: RequestContext, object: APIObject, old: APIObject | null): AdmissionAttributes {
  return { operation: old ? "UPDATE" : "CREATE", info, object, oldObject: old ?? undefined, ctx };
}

/** The namespaces 1.23's NamespaceLifecycle never lets be deleted. */
const immortalNamespaces = new Set(["default", "kube-system", "kube-public"]);

/**
 * The NamespaceLifecycle admission plugin (mutating, as 1.23's `Lifecycle.Admit`, so it answers
 * before the strategy validates): creating a namespaced object in a missing
 * namespace answers 404 `namespaces "x" not found`; in a terminating namespace 403 Forbidden with
 * a `NamespaceTerminating` cause. Deleting an immortal namespace (`default`, `kube-system`,
 * `kube-public`) answers 403 `this namespace may not be deleted`. Needs a `namespaces` resource
 * (core/v1) in the same storage; without it (unit tests) it admits every create.
 * @see plugin/pkg/admission/namespace/lifecycle/admission.go
 */
export function namespaceLifecycle(storage: Storage): AdmissionPlugin {
  return {
    name: "NamespaceLifecycle",
    async mutate(attrs) {
      if (attrs.operation === "DELETE" && attrs.info.apiGroup === "" && attrs.info.resource === "namespaces" && !attrs.info.subresource) {
        const name = attrs.oldObject?.metadata?.name ?? attrs.info.name;
        if (immortalNamespaces.has(name)) throw newForbidden({ group: "", resource: "namespaces" }, name, new Error("this namespace may not be deleted"));
        return;
      }
      if (attrs.operation !== "CREATE" || !attrs.ctx.namespace || attrs.info.resource === "namespaces") return;
      const ns = (await storage.get(`/registry/core/namespaces/${attrs.ctx.namespace}`, { ignoreNotFound: true })) as APIObject | null;
      if (!ns) throw newNotFound({ group: "", resource: "namespaces" }, attrs.ctx.namespace);
      if ((ns["status"] as { phase?: string } | undefined)?.phase === "Terminating" || ns.metadata?.deletionTimestamp) {
        const message = `unable to create new content in namespace ${attrs.ctx.namespace} because it is being terminated`;
        const forbidden = newForbidden({ group: attrs.info.apiGroup, resource: attrs.info.resource }, attrs.object?.metadata?.name ?? "", new Error(message));
        // 1.23 adds a NamespaceTerminating cause so controllers can tell this refusal apart.
        throw new StatusError({
          ...forbidden.status,
          details: { ...forbidden.status.details, causes: [{ reason: "NamespaceTerminating", message, field: "metadata.namespace" }] },
        });
      }
    },
  };
}
