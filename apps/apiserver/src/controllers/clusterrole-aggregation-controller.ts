/**
 * The ClusterRole aggregation controller, run INSIDE skiff-apiserver over the same Storage as the
 * REST handlers: the rules of every ClusterRole with an `aggregationRule` become the union (in
 * name order, without duplicates) of the rules of the other ClusterRoles its selectors match;
 * direct changes to them are overwritten. Any ClusterRole change queues a resync of the
 * aggregated roles (one queue key, `""`), as 1.23 enqueues every aggregated role on any event.
 *
 * @see pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go (kubernetes/kubernetes v1.23)
 */
import type { ClusterRole, PolicyRule } from "@skiff/api-types";
import { semanticEqual, trackUpdate } from "@skiff/apiserver-core";
import type { APIObject, GenericStore } from "@skiff/apiserver-core";
import { labelSelectorAsSelector } from "@skiff/apimachinery";
import { RateLimitingQueue } from "@skiff/client";
import type { Storage } from "@skiff/storage";
import { hasStatusCode, startWatchedWorker, systemContext } from "./common.js";
import type { ControllerLog, ControllerStores } from "./common.js";

/** The user the controller acts as (1.23's service account, bound to its controller role). */
export const clusterRoleAggregationUser = "system:serviceaccount:kube-system:clusterrole-aggregation-controller";
/** The field manager of its writes (1.23 applies with this manager). */
export const clusterRoleAggregationFieldManager = "clusterrole-aggregation-controller";

/**
 * The aggregated rules of `role` over `all` ClusterRoles: the rules of every other role matching
 * any selector, by name, first occurrence kept. `undefined` for a role without aggregationRule.
 * @throws Error for a selector that does not convert (1.23 returns that error and retries).
 */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] | undefined {
  if (role.aggregationRule === undefined || role.aggregationRule === null) return undefined;
  const rules: PolicyRule[] = [];
  const sorted = [...all].sort((a, b) => ((a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1));
  for (const sel of role.aggregationRule.clusterRoleSelectors ?? []) {
    const s = labelSelectorAsSelector(sel);
    if (!s.ok) throw new Error(s.error);
    for (const other of sorted) {
      if (other.metadata?.name === role.metadata?.name || !s.value.matches(other.metadata?.labels ?? {})) continue;
      for (const r of other.rules ?? []) if (!rules.some((x) => semanticEqual(x, r))) rules.push(r);
    }
  }
  return rules;
}

/** Options of {@link ClusterRoleAggregationController}. */
export interface ClusterRoleAggregationControllerOptions {
  readonly log?: ControllerLog;
}

/** The aggregation controller; see the module comment. */
export class ClusterRoleAggregationController {
  private readonly queue = new RateLimitingQueue<string>({ name: "ClusterRoleAggregator" });
  private readonly clusterRoles: GenericStore;
  private stop_: (() => void) | undefined;

  /** @throws Error when `stores` does not serve clusterroles */
  constructor(
    stores: ControllerStores,
    private readonly storage: Storage,
    private readonly options: ClusterRoleAggregationControllerOptions = {},
  ) {
    const s = stores.forKind("rbac.authorization.k8s.io/v1", "ClusterRole");
    if (s === undefined) throw new Error("the ClusterRole aggregation controller needs the rbac.authorization.k8s.io clusterroles resource");
    this.clusterRoles = s;
  }

  /** Starts the watch and the worker, and queues a first sync. @throws what the storage's watch throws */
  async start(): Promise<void> {
    this.stop_ = await startWatchedWorker(this.storage, {
      name: "clusterrole-aggregation-controller",
      prefix: this.clusterRoles.keyPrefix(undefined),
      queue: this.queue,
      sync: () => this.syncAll(),
      onChange: () => this.queue.add(""),
      log: this.options.log ?? (() => undefined),
    });
    this.queue.add("");
  }

  /** Stops the watch and the worker. */
  stop(): void {
    this.stop_?.();
  }

  private async syncAll(): Promise<void> {
    const page = await this.storage.list(this.clusterRoles.keyPrefix(undefined));
    const all = page.items as ClusterRole[];
    for (const role of all) {
      const rules = aggregatedRules(role, all);
      if (rules === undefined || semanticEqual(rules, role.rules ?? [])) continue;
      const name = role.metadata?.name ?? "";
      const ctx = systemContext(clusterRoleAggregationUser, undefined);
      try {
        await this.clusterRoles.update(ctx, name, (live) => {
          if (live === null) throw Object.assign(new Error("gone"), { status: { code: 404 } });
          const next = structuredClone(live) as ClusterRole & APIObject;
          next.rules = rules;
          return trackUpdate(live, next, clusterRoleAggregationFieldManager, this.clusterRoles.strategy.resource, "", ctx.now);
        });
      } catch (e) {
        if (!hasStatusCode(e, 404)) throw e;
      }
    }
  }
}
