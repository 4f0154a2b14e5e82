/**
 * The controller manager's frame: what a controller declares (a {@link ControllerInitializer}: its
 * name, its flags and how to start it), what it is given (a {@link ControllerContext}: one client,
 * one shared-informer factory, the feature gates, the parsed options, a log), and which of them run
 * (`--controllers`). The table of controllers itself is in `controllers.ts`.
 *
 * @see cmd/kube-controller-manager/app/controllermanager.go (ControllerContext, InitFunc,
 *   NewControllerInitializers, StartControllers, KnownControllers)
 * @see staging/src/k8s.io/controller-manager/app/helper.go (IsControllerEnabled)
 * @see staging/src/k8s.io/controller-manager/options/generic.go (`--controllers` and its validation)
 */
import type { FeatureGate } from "@skiff/feature-gates";
import type { Client, SharedInformerFactory } from "@skiff/client";
import type { FlagTable } from "@skiff/flags";
import type { ControllerManagerOptionValues } from "./options.js";

/**
 * What every controller is started with. There is one context per process: every controller gets
 * the same client, event client and informer factory, so two controllers asking the factory for the
 * same resource (and namespace and selectors) share one informer, one list and one watch.
 * `options` holds every flag's value (the generic ones and every controller's, flat by option key);
 * `O` types the starting controller's own.
 */
export interface ControllerContext<O extends object = object> {
  /**
   * The controller's client (`--cluster-api-qps`/`--cluster-api-burst`): the controller manager's
   * own credentials, or with `--use-service-account-credentials` the controller's service account.
   */
  readonly client: Client;
  /** A second client for Events (same credentials as `client`), so events do not eat the controllers' request budget. */
  readonly eventClient: Client;
  /**
   * The client informers are asked for with (`informerFactory.informerFor(ctx.informerClient.pods)`):
   * always the controller manager's own credentials, as 1.23's `shared-informers` client, so one
   * informer serves every controller whatever its identity.
   */
  readonly informerClient: Client;
  /** The one shared-informer factory; started by the manager after every enabled controller's `start`. */
  readonly informerFactory: SharedInformerFactory;
  /** The gates set by `--feature-gates`; read, never set, by controllers. */
  readonly featureGates: FeatureGate;
  readonly options: Readonly<ControllerManagerOptionValues & O>;
  /** Timestamped line to stderr. */
  readonly log: (message: string) => void;
}

/** A started controller. */
export interface RunningController {
  /** Resolves once the controller runs (its caches synced, its workers started). */
  readonly started: Promise<void>;
  /** Stops the controller; in-flight work finishes first. Never rejects. */
  stop(): Promise<void>;
}

/**
 * A controller's flags: a flag table typed against its own options, the heading they are listed
 * under in `--help`, and their validation (messages such as `--concurrent-job-syncs must be at
 * least 1`; an empty list when valid; never throws).
 */
export interface ControllerFlags<O extends object> {
  readonly section: string;
  readonly table: FlagTable<O>;
  validate?(values: Readonly<O>): string[];
}

/**
 * One row of the controller table. `name` is kube-controller-manager's (what `--controllers`
 * selects). `start` must not wait for informers to sync (the factory starts only after every
 * enabled controller's `start` returned): it asks `ctx.informerFactory` for its informers, builds
 * the controller and launches it, and reports through {@link RunningController.started}.
 * @see cmd/kube-controller-manager/app/controllermanager.go (InitFunc)
 */
export interface ControllerInitializer<O extends object = object> {
  readonly name: string;
  /**
   * The name of the controller's client: with `--use-service-account-credentials`, its service
   * account `kube-system/<clientName>`, bound to ClusterRole `system:controller:<clientName>` by
   * the bootstrap policy (`job-controller`, `node-controller`...).
   * @see cmd/kube-controller-manager/app/*.go (ClientBuilder.ClientOrDie("<name>"))
   */
  readonly clientName: string;
  readonly flags?: ControllerFlags<O>;
  /** Left out of `*` (kube-controller-manager's ControllersDisabledByDefault). @defaultValue false */
  readonly disabledByDefault?: boolean;
  start(ctx: ControllerContext<O>): RunningController;
}

/**
 * Whether `--controllers` enables `name`: the first entry naming it decides (`name` on, `-name`
 * off); otherwise `*` enables it unless it is disabled by default; with neither it is off. Pure.
 * @see staging/src/k8s.io/controller-manager/app/helper.go (IsControllerEnabled)
 * @example
 * isControllerEnabled("job", false, ["*", "-job"]); // false
 */
export function isControllerEnabled(name: string, disabledByDefault: boolean, controllers: readonly string[]): boolean {
  let hasStar = false;
  for (const c of controllers) {
    if (c === name) return true;
    if (c === `-${name}`) return false;
    if (c === "*") hasStar = true;
  }
  return hasStar && !disabledByDefault;
}

/**
 * The `--controllers` entries that name no controller of `initializers` (`*` and a leading `-`
 * aside), as messages in 1.23's wording: `"foo" is not in the list of known controllers`. Pure.
 * @see staging/src/k8s.io/controller-manager/options/generic.go (Validate)
 */
export function validateControllerSelection(initializers: readonly ControllerInitializer[], controllers: readonly string[]): string[] {
  const known = new Set(initializers.map((c) => c.name));
  const errors: string[] = [];
  for (const c of controllers) {
    if (c === "*") continue;
    const name = c.startsWith("-") ? c.slice(1) : c;
    if (!known.has(name)) errors.push(`${JSON.stringify(name)} is not in the list of known controllers`);
  }
  return errors;
}

/** The rows of `initializers` that `--controllers` enables, in table order. Pure. */
export function enabledControllers(initializers: readonly ControllerInitializer[], controllers: readonly string[]): ControllerInitializer[] {
  return initializers.filter((c) => isControllerEnabled(c.name, c.disabledByDefault ?? false, controllers));
}

/**
 * Starts `initializers` (already filtered to the enabled ones) in table order over the one `ctx`,
 * then starts the shared informers (only those the started controllers asked for exist), and
 * resolves once every controller reports started. Each controller's `options` are `ctx.options`.
 * With `clientsFor` (`--use-service-account-credentials`), each controller gets the clients it
 * gives for the controller's `clientName` instead of `ctx.client` and `ctx.eventClient`; they are
 * added to `owned` so the caller closes them.
 * @throws whatever a controller's `start` or `started` throws, or `clientsFor` (the ones already started are stopped first)
 * @see cmd/kube-controller-manager/app/controllermanager.go (StartControllers, then InformerFactory.Start)
 */
export async function startControllers(
  initializers: readonly ControllerInitializer[],
  ctx: ControllerContext,
  clientsFor?: (clientName: string) => Promise<{ client: Client; eventClient: Client }>,
  owned: Client[] = [],
): Promise<RunningController[]> {
  const running: RunningController[] = [];
  try {
    for (const c of initializers) {
      if (clientsFor === undefined) {
        running.push(c.start(ctx));
        continue;
      }
      const clients = await clientsFor(c.clientName);
      owned.push(clients.client, clients.eventClient);
      running.push(c.start({ ...ctx, ...clients }));
    }
    ctx.informerFactory.start();
    await Promise.all(running.map((r) => r.started));
    return running;
  } catch (e) {
    await stopControllers(running);
    throw e;
  }
}

/** Stops `running` controllers concurrently and waits for all of them. Never rejects. */
export async function stopControllers(running: readonly RunningController[]): Promise<void> {
  await Promise.all(running.map((r) => r.stop().catch(() => {})));
}
