/**
 * Annotation and label keys core validation and defaulting know about, with Skiff's `example`
 * domains in place of Kubernetes' `kubernetes.io`. Keys that `@skiff/api-types` defines come from it.
 */
import { ConfigMirrorAnnotation } from "@skiff/api-types";

/** Marks a mirror pod (a static pod's API copy); requires `spec.nodeName`, may not change. */
export const mirrorPodAnnotation = ConfigMirrorAnnotation;
/** The cost of deleting a pod relative to its ReplicaSet peers; a 32-bit integer. */
export const podDeletionCostAnnotation = "controller.example.io/pod-deletion-cost";
/** The label every namespace carries with its own name. */
export const namespaceNameLabel = "example.io/metadata.name";
/** The namespace finalizer the namespace lifecycle removes once content is gone. */
export const kubernetesFinalizer = "kubernetes";
