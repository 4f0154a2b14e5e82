/**
 * Why a {@link FeatureGate} operation failed:
 * - `UnrecognizedFeatureGate`: `set`/`setFromMap` named a gate that was never added;
 * - `MissingValue`: a `set` item has no `=` (`Name` instead of `Name=true`);
 * - `InvalidValue`: a value is not a Go `strconv.ParseBool` boolean (`1 t T TRUE true True`,
 *   `0 f F FALSE false False`), or a `setFromMap` value is not a boolean;
 * - `LockedFeatureGate`: a gate locked to its default was set to the other value;
 * - `NotRegistered`: `enabled` was asked about a gate that was never added (Kubernetes panics);
 * - `ConflictingSpec`: `add` re-added a gate with a different spec;
 * - `InvalidSpec`: `add` got a malformed name or spec.
 */
export type FeatureGateErrorReason =
  | "UnrecognizedFeatureGate"
  | "MissingValue"
  | "InvalidValue"
  | "LockedFeatureGate"
  | "NotRegistered"
  | "ConflictingSpec"
  | "InvalidSpec";

/**
 * The one error type of this package: a stable `reason`, the `feature` concerned, and the
 * Kubernetes wording in `message` where Kubernetes has one (e.g.
 * `unrecognized feature gate: Foo`).
 *
 * @see staging/src/k8s.io/component-base/featuregate/feature_gate.go in kubernetes/kubernetes
 */
export class FeatureGateError extends Error {
  /** Stable machine-readable reason. */
  readonly reason: FeatureGateErrorReason;
  /** The gate name concerned, as given (trimmed when parsed from text). */
  readonly feature: string;

  constructor(reason: FeatureGateErrorReason, message: string, feature: string) {
    super(message);
    this.name = "FeatureGateError";
    this.reason = reason;
    this.feature = feature;
  }
}

const reasons: ReadonlySet<string> = new Set<FeatureGateErrorReason>([
  "UnrecognizedFeatureGate",
  "MissingValue",
  "InvalidValue",
  "LockedFeatureGate",
  "NotRegistered",
  "ConflictingSpec",
  "InvalidSpec",
]);

/**
 * Whether `e` is a {@link FeatureGateError}; checks `name` and `reason` so errors from a duplicate
 * copy of the package are recognised too.
 */
export function isFeatureGateError(e: unknown): e is FeatureGateError {
  if (e instanceof FeatureGateError) return true;
  if (typeof e !== "object" || e === null) return false;
  const { name, reason } = e as { name?: unknown; reason?: unknown };
  return name === "FeatureGateError" && typeof reason === "string" && reasons.has(reason);
}
