/**
 * The Priority admission plugin of 1.23 and the PriorityClass lister it reads.
 *
 * Pods (mutating, CREATE and UPDATE of the main resource, not its subresources):
 * - on create, `spec.priorityClassName` is resolved through the PriorityClasses: empty → the
 *   global default class (its name is written into `priorityClassName`; among several defaults,
 *   as after a race, the one with the lowest value), else priority 0 and `PreemptLowerPriority`; a
 *   name no class has is refused with 403 `no PriorityClass with name <name> was found`.
 *   `spec.priority` and `spec.preemptionPolicy` are set from the class. A pod that gives a
 *   different `priority` or `preemptionPolicy` itself is refused with 403 and 1.23's message.
 * - on update, a `priority` / `preemptionPolicy` the new object lacks is kept from the old one
 *   (1.23 set them at create; validation then forbids changing them).
 *
 * PriorityClasses (validating, CREATE and UPDATE): a class that would become a second
 * `globalDefault` is refused with 403 `PriorityClass <other> is already marked as default. Only
 * one default can exist`. DELETE of a built-in class (`system-node-critical`,
 * `system-cluster-critical`) is refused with 403 `this is a system priority class and cannot be
 * deleted` (1.23 refuses it in the PriorityClass REST storage; here the plugin does it, before
 * anything is changed).
 *
 * @see plugin/pkg/admission/priority/admission.go in kubernetes/kubernetes v1.23
 * @see pkg/registry/scheduling/priorityclass/storage/storage.go (Delete refuses the system classes)
 */
import type { Pod, PriorityClass } from "@skiff/api-types";
import { SystemPriorityClasses } from "@skiff/api-types";
import { newForbidden } from "@skiff/apimachinery";
import type { AdmissionPlugin } from "@skiff/apiserver-core";
import type { Storage } from "@skiff/storage";
import { startStorageInformer } from "../internal/storage-informer.js";

/** The plugin's name, as 1.23's `--enable-admission-plugins` spells it. */
export const PriorityPluginName = "Priority";

/** The preemption policy of pods without a class, and of a class without one (1.23's default). */
export const defaultPreemptionPolicy = "PreemptLowerPriority";

/** The storage prefix of PriorityClasses. */
export const priorityClassesPrefix = "/registry/scheduling.k8s.io/priorityclasses/";

const priorityClassesResource = { group: "scheduling.k8s.io", resource: "priorityclasses" } as const;

/** Where the plugin reads PriorityClasses (1.23: a shared-informer lister). */
export interface PriorityClassLister {
  /** The class named `name`; `undefined` when there is none. */
  get(name: string): Promise<PriorityClass | undefined>;
  /** Every class (to find the global default). */
  list(): Iterable<PriorityClass>;
}

/** A {@link PriorityClassLister} over a fixed set of classes (tests, tools). */
export function staticPriorityClasses(classes: readonly PriorityClass[]): PriorityClassLister {
  const byName = new Map(classes.map((c) => [c.metadata?.name ?? "", c]));
  return { get: (name) => Promise.resolve(byName.get(name)), list: () => byName.values() };
}

/** A started {@link PriorityClassLister} over storage. */
export interface PriorityClassCache extends PriorityClassLister {
  /** Stops the watch. */
  stop(): void;
}

/**
 * Starts the lister: lists the PriorityClasses in `storage` and watches them. `get` answers from
 * the copy and, on a miss, reads storage (so a class created a moment ago is found even before
 * its watch event arrives). Resolves after the first list.
 * @throws StorageError when the first list fails.
 */
export async function startPriorityClassCache(storage: Storage, log: (line: string) => void = () => {}): Promise<PriorityClassCache> {
  const classes = new Map<string, PriorityClass>();
  const informer = await startStorageInformer(
    storage,
    priorityClassesPrefix,
    {
      reset: () => classes.clear(),
      apply: (key, obj) => classes.set(key.slice(priorityClassesPrefix.length), obj as PriorityClass),
      remove: (key) => classes.delete(key.slice(priorityClassesPrefix.length)),
    },
    log,
    "priority admission",
  );
  return {
    async get(name) {
      const cached = classes.get(name);
      if (cached !== undefined) return cached;
      const stored = await storage.get(priorityClassesPrefix + name, { ignoreNotFound: true });
      return (stored as PriorityClass | null) ?? undefined;
    },
    list: () => classes.values(),
    stop: () => informer.stop(),
  };
}

/**
 * The global default class: among the classes with `globalDefault`, the one with the lowest
 * value (1.23's `getDefaultPriorityClass`); `undefined` when none is.
 */
export function defaultPriorityClass(classes: Iterable<PriorityClass>): PriorityClass | undefined {
  let found: PriorityClass | undefined;
  for (const pc of classes) {
    if (pc.globalDefault === true && (found === undefined || (found.value ?? 0) > (pc.value ?? 0))) found = pc;
  }
  return found;
}

/**
 * Resolves a new pod's priority as the module comment says. Mutates `pod.spec` (sets
 * `priority`, `preemptionPolicy`, and `priorityClassName` from a global default); a pod without
 * `spec` is left alone (validation refuses it).
 * @returns the refusal message when the pod must be refused (the caller turns it into a 403), else undefined.
 */
export async function admitNewPodPriority(pod: Pod, classes: PriorityClassLister): Promise<string | undefined> {
  const spec = pod.spec;
  if (spec === undefined || spec === null || typeof spec !== "object") return undefined;
  const className = spec.priorityClassName ?? "";
  let priority = 0;
  let policy: string = defaultPreemptionPolicy;
  if (className === "") {
    const dpc = defaultPriorityClass(classes.list());
    if (dpc !== undefined) {
      spec.priorityClassName = dpc.metadata?.name ?? "";
      priority = dpc.value ?? 0;
      policy = dpc.preemptionPolicy ?? defaultPreemptionPolicy;
    }
  } else {
    const pc = await classes.get(className);
    if (pc === undefined) return `no PriorityClass with name ${className} was found`;
    priority = pc.value ?? 0;
    policy = pc.preemptionPolicy ?? defaultPreemptionPolicy;
  }
  if (spec.priority !== undefined && spec.priority !== null && spec.priority !== priority) {
    return `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`;
  }
  spec.priority = priority;
  if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && spec.preemptionPolicy !== policy) {
    return `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`;
  }
  spec.preemptionPolicy = policy as NonNullable<typeof spec.preemptionPolicy>;
  return undefined;
}

/**
 * The plugin; see the module comment. `mutate` for pods and for DELETE of PriorityClasses,
 * `validate` for PriorityClass creates and updates.
 * @example admission: [namespaceLifecycle(storage), serviceAccountAdmission(...), taintNodesByConditionAdmission(), priorityAdmission(cache), defaultTolerationSecondsAdmission()]
 */
export function priorityAdmission(classes: PriorityClassLister): AdmissionPlugin {
  return {
    name: PriorityPluginName,
    async mutate(attrs) {
      if (attrs.info.subresource !== "") return;
      if (attrs.info.apiGroup === priorityClassesResource.group && attrs.info.resource === priorityClassesResource.resource) {
        if (attrs.operation !== "DELETE") return;
        const name = attrs.oldObject?.metadata?.name ?? attrs.info.name;
        if (SystemPriorityClasses.some((c) => c.name === name)) {
          throw newForbidden(priorityClassesResource, name, new Error("this is a system priority class and cannot be deleted"));
        }
        return;
      }
      if (attrs.operation === "DELETE" || attrs.object === undefined) return;
      if (attrs.info.apiGroup !== "" || attrs.info.resource !== "pods") return;
      const pod = attrs.object as Pod;
      if (attrs.operation === "UPDATE") {
        const old = attrs.oldObject as Pod | undefined;
        if (pod.spec && old?.spec) {
          if (pod.spec.priority === undefined && old.spec.priority !== undefined) pod.spec.priority = old.spec.priority;
          if (pod.spec.preemptionPolicy === undefined && old.spec.preemptionPolicy !== undefined) pod.spec.preemptionPolicy = old.spec.preemptionPolicy;
        }
        return;
      }
      const refused = await admitNewPodPriority(pod, classes);
      if (refused !== undefined) {
        const name = attrs.info.name || pod.metadata?.name || pod.metadata?.generateName || "Unknown";
        throw newForbidden({ group: "", resource: "pods" }, name, new Error(refused));
      }
    },
    validate(attrs) {
      if (attrs.info.subresource !== "" || attrs.operation === "DELETE" || attrs.object === undefined) return;
      if (attrs.info.apiGroup !== priorityClassesResource.group || attrs.info.resource !== priorityClassesResource.resource) return;
      const pc = attrs.object as PriorityClass;
      if (pc.globalDefault !== true) return;
      const dpc = defaultPriorityClass(classes.list());
      if (dpc === undefined) return;
      const name = pc.metadata?.name ?? attrs.info.name;
      if (attrs.operation === "CREATE" || dpc.metadata?.name !== name) {
        throw newForbidden(priorityClassesResource, name, new Error(`PriorityClass ${dpc.metadata?.name ?? ""} is already marked as default. Only one default can exist`));
      }
    },
  };
}
