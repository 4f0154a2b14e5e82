import type { ResourceStrategy } from "@skiff/apiserver-core";
import { createConfigMapStrategy } from "./core/configmap/strategy.js";
import { createEventStrategy } from "./core/event/strategy.js";
import { createNamespaceStrategy } from "./core/namespace/strategy.js";
import { createNodeStrategy } from "./core/node/strategy.js";
import { createPodStrategy, type PodStrategyGates } from "./core/pod/strategy.js";
import { createPodTemplateStrategy } from "./core/podtemplate/strategy.js";
import { podSpecGatesOf } from "../internal/pod-spec-gates.js";
import { createSecretStrategy } from "./core/secret/strategy.js";
import { createServiceAccountStrategy } from "./core/serviceaccount/strategy.js";
import { createJobStrategy } from "./batch/job/strategy.js";
import type { JobStrategyGates } from "./batch/job/strategy.js";
import { createCSIDriverStrategy } from "./storage/csidriver/strategy.js";
import { createCSINodeStrategy } from "./storage/csinode/strategy.js";
import { createLeaseStrategy } from "./coordination/lease/strategy.js";
import { createPriorityClassStrategy } from "./scheduling/priorityclass/strategy.js";
import { createClusterRoleBindingStrategy, createClusterRoleStrategy, createRoleBindingStrategy, createRoleStrategy } from "./rbac/strategies.js";

// Every strategy skiff-apiserver serves; `ephemeralContainers` (the EphemeralContainers gate) and
// the pod-spec gates (IdentifyPodOS, WindowsHostProcessContainers) default to on.
export function createAllStrategies(gates: JobStrategyGates & Partial<PodStrategyGates>): ResourceStrategy[] {
  return [
    createConfigMapStrategy(),
    createEventStrategy(),
    createNamespaceStrategy(),
    createNodeStrategy(),
    createPodStrategy({ ...gates, ephemeralContainers: gates.ephemeralContainers ?? true }),
    createPodTemplateStrategy(podSpecGatesOf(gates)),
    createSecretStrategy(),
    createServiceAccountStrategy(),
    createJobStrategy(gates),
    createCSIDriverStrategy(),
    createCSINodeStrategy(),
    createLeaseStrategy(),
    createPriorityClassStrategy(),
    createRoleStrategy(),
    createClusterRoleStrategy(),
    createRoleBindingStrategy(),
    createClusterRoleBindingStrategy(),
  ] as unknown as ResourceStrategy[];
}
