/**
 * @skiff/client: typed REST client, list-watch informers and rate-limited work queues for the
 * Skiff apiserver (client-go's rest, tools/cache, util/workqueue and util/flowcontrol).
 */
export { ClusterConfigError, isClusterConfigError, loadClusterConfig, parseClusterConfig } from "./cluster-config.js";
export type { ClusterConfig, ClusterConfigErrorReason, ParseClusterConfigOptions, ParseClusterConfigResult } from "./cluster-config.js";
export { FakeClock, realClock } from "./clock.js";
export type { Clock } from "./clock.js";
export { ClientError, isClientError } from "./errors.js";
export type { ClientErrorCode } from "./errors.js";
export { RateLimiterAbortedError, TokenBucketRateLimiter } from "./token-bucket.js";
export type { TokenBucketOptions } from "./token-bucket.js";
export { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter, newDefaultControllerRateLimiter } from "./rate-limiters.js";
export type { WorkRateLimiter } from "./rate-limiters.js";
export { RateLimitingQueue } from "./work-queue.js";
export type { RateLimitingQueueOptions } from "./work-queue.js";
export { createClient, createClientConnections, eventSinkOf } from "./client.js";
export { EventCorrelator, createEventRecorder, makeEvent } from "./events.js";
export type { EventCorrelateResult, EventCorrelatorOptions, EventRecorderOptions, EventSink, EventSource, RecordEventFunc } from "./events.js";
export type { Client, ClientConnections, ClientOptions, EventRecord, TokenRequest, TokenRequestSpec, TokenSource } from "./client.js";
export { resourcePath } from "./resource-client.js";
export type {
  DeleteOptions,
  KubeObject,
  ListOptions,
  NamespaceOption,
  ObjectList,
  PatchOptions,
  PatchType,
  ResourceClient,
  ResourceWatchEvent,
  Watch,
  WatchOptions,
  WriteOptions,
} from "./resource-client.js";
export { Store, keyOf, namespaceIndex, splitKey } from "./store.js";
export type { IndexFunc, ReadonlyStore } from "./store.js";
export { DeletedFinalStateUnknown, createInformer, isDeletedFinalStateUnknown } from "./informer.js";
export type { Informer, InformerEventHandler, InformerOptions } from "./informer.js";
export { createSharedInformerFactory } from "./shared-informer-factory.js";
export type { SharedInformerFactory } from "./shared-informer-factory.js";
