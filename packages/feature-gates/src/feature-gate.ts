import { FeatureGateError } from "./errors.js";
import { goQuote, parseGoBool } from "./internal/go-text.js";

/**
 * Maturity of a gated feature. `knownFeatures` prints `alpha`/`beta` as `ALPHA`/`BETA` and omits
 * `ga` and `deprecated` gates; setting a `ga` or `deprecated` gate yields a warning.
 */
export type PreRelease = "alpha" | "beta" | "ga" | "deprecated";

/**
 * How a gate behaves when nobody sets it, and whether it may be set at all.
 *
 * @see staging/src/k8s.io/component-base/featuregate/feature_gate.go `FeatureSpec` in kubernetes/kubernetes
 */
export interface FeatureSpec {
  /** Value of the gate when it is not set (explicitly or through `AllAlpha`/`AllBeta`). */
  readonly default: boolean;
  /** Maturity stage. */
  readonly preRelease: PreRelease;
  /**
   * When true the gate always reports `default`; setting it to the other value is an error.
   * @defaultValue false
   */
  readonly lockToDefault?: boolean;
}

/** Name of the pseudo-gate that sets every alpha gate not explicitly set. */
const ALL_ALPHA = "AllAlpha";
/** Name of the pseudo-gate that sets every beta gate not explicitly set. */
const ALL_BETA = "AllBeta";

const builtInSpecs: ReadonlyArray<readonly [string, FeatureSpec]> = [
  [ALL_ALPHA, Object.freeze({ default: false, preRelease: "alpha" })],
  [ALL_BETA, Object.freeze({ default: false, preRelease: "beta" })],
];

const stages: ReadonlySet<string> = new Set<PreRelease>(["alpha", "beta", "ga", "deprecated"]);

let writeExplicit!: (gate: FeatureGate, name: string, value: boolean | undefined) => void;

/**
 * A set of named boolean feature gates with Kubernetes' semantics: each gate has a
 * {@link FeatureSpec}; `set("A=true,B=false")` (the `--feature-gates` flag) and `setFromMap`
 * (the config file's `featureGates`) record explicit values; `enabled(name)` answers.
 *
 * Every gate knows the pseudo-gates `AllAlpha` and `AllBeta` (both default false). Setting one
 * of them sets every alpha (resp. beta) gate that has no explicit value of its own; explicit
 * values always win, whatever the order of the settings, also across calls (a small, deliberate
 * difference from Kubernetes, where `AllAlpha` only fills gates unset at the moment it is
 * processed). Gates locked to their default always report the default.
 *
 * `set`/`setFromMap` are atomic: on error nothing changes. Warnings (setting a deprecated or GA
 * gate) are returned and also collected in {@link FeatureGate.warnings}; nothing is logged.
 *
 * `N` narrows the names `enabled` accepts (e.g. `FeatureGate<NodeAgentFeature>` from
 * `nodeAgentFeatureGates()`); it defaults to `string`.
 *
 * @see staging/src/k8s.io/component-base/featuregate/feature_gate.go in kubernetes/kubernetes
 * @example
 * ```ts
 * const gates = new FeatureGate("example");
 * gates.add({ MyFeature: { default: false, preRelease: "alpha" } });
 * gates.set("AllAlpha=true, MyFeature=false");
 * gates.enabled("MyFeature"); // false: explicit wins over AllAlpha
 * ```
 */
export class FeatureGate<N extends string = string> {
  /** Name used in error messages (Kubernetes uses the call site), e.g. `nodeagent`. */
  readonly name: string;
  readonly #known = new Map<string, FeatureSpec>();
  readonly #explicit = new Map<string, boolean>();
  readonly #warnings: string[] = [];

  static {
    writeExplicit = (gate, name, value) => {
      if (value === undefined) gate.#explicit.delete(name);
      else gate.#explicit.set(name, value);
    };
  }

  /**
   * A gate set that knows only `AllAlpha` and `AllBeta`.
   * @param name - Shown in the error of `enabled` for an unknown gate. @defaultValue "default"
   */
  constructor(name = "default") {
    this.name = name;
    for (const [gate, spec] of builtInSpecs) this.#known.set(gate, spec);
  }

  /**
   * Registers gates. Re-adding a gate with an equal spec is a no-op (so the spec table may list
   * `AllAlpha`/`AllBeta`). Atomic: on error no gate is added. Copies the specs; does not mutate
   * its argument.
   *
   * @throws {@link FeatureGateError} `ConflictingSpec` (`feature gate "X" with different spec
   *   already exists: {true false BETA}`) or `InvalidSpec` (empty name, a name containing `,`,
   *   `=` or surrounding whitespace, or a spec that is not `{default: boolean, preRelease}`).
   */
  add(specs: Readonly<Record<string, FeatureSpec>>): void {
    const pending: Array<[string, FeatureSpec]> = [];
    for (const [name, spec] of Object.entries(specs)) {
      checkSpec(name, spec);
      const existing = this.#known.get(name);
      if (existing !== undefined) {
        if (sameSpec(existing, spec)) continue;
        throw new FeatureGateError(
          "ConflictingSpec",
          `feature gate ${goQuote(name)} with different spec already exists: ${formatGoSpec(existing)}`,
          name,
        );
      }
      const copy: FeatureSpec = spec.lockToDefault === true
        ? { default: spec.default, preRelease: spec.preRelease, lockToDefault: true }
        : { default: spec.default, preRelease: spec.preRelease };
      pending.push([name, Object.freeze(copy)]);
    }
    for (const [name, spec] of pending) this.#known.set(name, spec);
  }

  /**
   * Parses a `--feature-gates` value, `Name=bool` items separated by commas, and records the
   * values. Empty items are skipped; whitespace around names and values is trimmed (as
   * Kubernetes does); values use Go's `strconv.ParseBool` spellings; a name given twice keeps
   * its last value. Returns the warnings of this call (see {@link FeatureGate.setFromMap}).
   *
   * @throws {@link FeatureGateError} `MissingValue` (`missing bool value for X`), `InvalidValue`
   *   (`invalid value of X=Y, err: strconv.ParseBool: parsing "Y": invalid syntax`),
   *   `UnrecognizedFeatureGate` or `LockedFeatureGate`. Nothing changes on error.
   * @see staging/src/k8s.io/component-base/featuregate/feature_gate.go `Set` in kubernetes/kubernetes
   * @example
   * ```ts
   * nodeAgentFeatureGates().set("JobReadyPods=false, AllAlpha=true");
   * ```
   */
  set(text: string): string[] {
    if (typeof text !== "string") {
      throw new FeatureGateError("InvalidValue", `invalid feature gates value of type ${typeof text}: expected a string`, "");
    }
    const values = new Map<string, boolean>();
    for (const item of text.split(",")) {
      if (item.length === 0) continue;
      const eq = item.indexOf("=");
      const name = (eq === -1 ? item : item.slice(0, eq)).trim();
      if (eq === -1) throw new FeatureGateError("MissingValue", `missing bool value for ${name}`, name);
      const raw = item.slice(eq + 1).trim();
      const value = parseGoBool(raw);
      if (value === undefined) {
        throw new FeatureGateError(
          "InvalidValue",
          `invalid value of ${name}=${raw}, err: strconv.ParseBool: parsing ${goQuote(raw)}: invalid syntax`,
          name,
        );
      }
      values.set(name, value);
    }
    return this.#apply(values);
  }

  /**
   * Records explicit values from a name→boolean record (the config file's `featureGates`).
   * Returns the warnings of this call — `Setting deprecated feature gate X=true. It will be
   * removed in a future release.` and the same for `GA` — which are also appended to
   * {@link FeatureGate.warnings}. Does not mutate its argument.
   *
   * @throws {@link FeatureGateError} `UnrecognizedFeatureGate` (`unrecognized feature gate: X`),
   *   `LockedFeatureGate` (`cannot set feature gate X to false, feature is locked to true`) or
   *   `InvalidValue` (a non-boolean value). Nothing changes on error.
   * @see staging/src/k8s.io/component-base/featuregate/feature_gate.go `SetFromMap` in kubernetes/kubernetes
   */
  setFromMap(values: Readonly<Record<string, boolean>>): string[] {
    const map = new Map<string, boolean>();
    for (const [name, value] of Object.entries(values)) {
      if (typeof value !== "boolean") {
        throw new FeatureGateError("InvalidValue", `invalid value of ${name}=${String(value)}, err: not a boolean`, name);
      }
      map.set(name, value);
    }
    return this.#apply(map);
  }

  #apply(values: ReadonlyMap<string, boolean>): string[] {
    const warnings: string[] = [];
    for (const [name, value] of values) {
      const spec = this.#known.get(name);
      if (spec === undefined) throw new FeatureGateError("UnrecognizedFeatureGate", `unrecognized feature gate: ${name}`, name);
      if (spec.lockToDefault === true && spec.default !== value) {
        throw new FeatureGateError(
          "LockedFeatureGate",
          `cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`,
          name,
        );
      }
      if (spec.preRelease === "deprecated") {
        warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
      } else if (spec.preRelease === "ga") {
        warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
      }
    }
    for (const [name, value] of values) this.#explicit.set(name, value);
    this.#warnings.push(...warnings);
    return warnings;
  }

  /**
   * Whether a gate is on: a locked gate's default; else its explicit value; else, for an alpha
   * (beta) gate, the explicit value of `AllAlpha` (`AllBeta`) if set; else its default.
   *
   * @throws {@link FeatureGateError} `NotRegistered` (`feature "X" is not registered in
   *   FeatureGate "nodeagent"`) for a name never added; Kubernetes panics there.
   * @see staging/src/k8s.io/component-base/featuregate/feature_gate.go `Enabled` in kubernetes/kubernetes
   */
  enabled(name: N): boolean {
    const spec = this.#known.get(name);
    if (spec === undefined) {
      throw new FeatureGateError("NotRegistered", `feature ${goQuote(name)} is not registered in FeatureGate ${goQuote(this.name)}`, name);
    }
    if (spec.lockToDefault === true) return spec.default;
    const own = this.#explicit.get(name);
    if (own !== undefined) return own;
    const all = spec.preRelease === "alpha" ? this.#explicit.get(ALL_ALPHA) : spec.preRelease === "beta" ? this.#explicit.get(ALL_BETA) : undefined;
    return all ?? spec.default;
  }

  /**
   * The names of every gate this FeatureGate knows (including GA, deprecated and locked ones),
   * sorted. Use it to check `--feature-gates` keys; {@link FeatureGate.knownFeatures} is for help text.
   */
  featureNames(): string[] {
    return [...this.#known.keys()].sort();
  }

  /**
   * The help lines Kubernetes prints under `--feature-gates`, one per alpha or beta gate
   * (GA and deprecated gates are hidden), sorted: `Name=true|false (BETA - default=true)`.
   *
   * @see staging/src/k8s.io/component-base/featuregate/feature_gate.go `KnownFeatures` in kubernetes/kubernetes
   */
  knownFeatures(): string[] {
    const lines: string[] = [];
    for (const [name, spec] of this.#known) {
      if (spec.preRelease === "ga" || spec.preRelease === "deprecated") continue;
      lines.push(`${name}=true|false (${spec.preRelease.toUpperCase()} - default=${spec.default})`);
    }
    return lines.sort();
  }

  /**
   * An independent copy (known gates, explicit values and collected warnings), e.g. to try
   * settings from a config file before committing them. Changes to either do not affect the
   * other.
   */
  deepCopy(): FeatureGate<N> {
    const copy = new FeatureGate<N>(this.name);
    for (const [name, spec] of this.#known) copy.#known.set(name, spec);
    for (const [name, value] of this.#explicit) copy.#explicit.set(name, value);
    copy.#warnings.push(...this.#warnings);
    return copy;
  }

  /**
   * The explicitly set values (including `AllAlpha`/`AllBeta` if set), keys sorted; gates only
   * affected through `AllAlpha`/`AllBeta` or left at their default are absent. A fresh object.
   */
  toMap(): Record<string, boolean> {
    return Object.fromEntries([...this.#explicit].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** Every warning produced by `set`/`setFromMap` so far, oldest first. */
  get warnings(): readonly string[] {
    return [...this.#warnings];
  }

  /** The explicit values as `A=true,B=false`, sorted by name (Kubernetes' `String()`). */
  toString(): string {
    return Object.entries(this.toMap())
      .map(([name, value]) => `${name}=${value}`)
      .join(",");
  }
}

/**
 * Sets or clears (`undefined`) one explicit value without checks or warnings; used to restore
 * a previous state exactly.
 */
export function restoreExplicitValue(gate: FeatureGate, name: string, value: boolean | undefined): void {
  writeExplicit(gate, name, value);
}

function checkSpec(name: string, spec: unknown): asserts spec is FeatureSpec {
  if (name.length === 0 || name.trim() !== name || name.includes(",") || name.includes("=")) {
    throw new FeatureGateError("InvalidSpec", `invalid feature gate name ${goQuote(name)}`, name);
  }
  const s = spec as Partial<Record<keyof FeatureSpec, unknown>> | null;
  if (
    typeof s !== "object" ||
    s === null ||
    typeof s.default !== "boolean" ||
    typeof s.preRelease !== "string" ||
    !stages.has(s.preRelease) ||
    (s.lockToDefault !== undefined && typeof s.lockToDefault !== "boolean")
  ) {
    throw new FeatureGateError(
      "InvalidSpec",
      `invalid spec for feature gate ${name}: expected {default: boolean, preRelease: "alpha"|"beta"|"ga"|"deprecated", lockToDefault?: boolean}`,
      name,
    );
  }
}

function sameSpec(a: FeatureSpec, b: FeatureSpec): boolean {
  return a.default === b.default && a.preRelease === b.preRelease && (a.lockToDefault === true) === (b.lockToDefault === true);
}

/** Go's `%v` of a FeatureSpec struct: `{Default LockToDefault PreRelease}`, GA printed as "". */
function formatGoSpec(spec: FeatureSpec): string {
  const stage = spec.preRelease === "ga" ? "" : spec.preRelease.toUpperCase();
  return `{${spec.default} ${spec.lockToDefault === true} ${stage}}`;
}
