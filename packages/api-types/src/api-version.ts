/**
 * The thrown error of {@link parseAPIVersion}. `code` is the stable string `"InvalidAPIVersion"`.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/runtime/schema/group_version.go (ParseGroupVersion)
 */
export class InvalidAPIVersionError extends Error {
  readonly code = "InvalidAPIVersion" as const;
  /** The text that failed to parse. */
  readonly apiVersion: string;

  constructor(apiVersion: string) {
    super(`unexpected GroupVersion string: ${JSON.stringify(apiVersion)} (want "version" or "group/version")`);
    this.name = "InvalidAPIVersionError";
    this.apiVersion = apiVersion;
  }
}

/**
 * Whether `value` is an {@link InvalidAPIVersionError}, judged by `name` and `code` so that it also
 * holds across duplicate copies of this package.
 */
export function isInvalidAPIVersionError(value: unknown): value is InvalidAPIVersionError {
  return (
    value instanceof Error &&
    value.name === "InvalidAPIVersionError" &&
    (value as { code?: unknown }).code === "InvalidAPIVersion"
  );
}

/**
 * The `apiVersion` string of a group and version: `"group/version"`, or `"version"` alone for the
 * core group (`""`). Does not validate its input.
 *
 * @example
 * apiVersionOf({ group: "batch", version: "v1" }); // "batch/v1"
 * apiVersionOf({ group: "", version: "v1" });      // "v1"
 * @see staging/src/k8s.io/apimachinery/pkg/runtime/schema/group_version.go (GroupVersion.String)
 */
export function apiVersionOf(gv: { readonly group: string; readonly version: string }): string {
  return gv.group === "" ? gv.version : `${gv.group}/${gv.version}`;
}

/**
 * Splits an `apiVersion` into group and version: `"batch/v1"` → `{group: "batch", version: "v1"}`,
 * `"v1"` → `{group: "", version: "v1"}`. Inverse of {@link apiVersionOf}.
 *
 * Unlike Go's `ParseGroupVersion`, an empty string is rejected too (no object has an empty
 * apiVersion).
 *
 * @throws {@link InvalidAPIVersionError} when the text is empty, has more than one `/`, or has an
 *   empty group or version around the `/`.
 * @example
 * parseAPIVersion("storage.example.io/v1"); // { group: "storage.example.io", version: "v1" }
 * @see staging/src/k8s.io/apimachinery/pkg/runtime/schema/group_version.go (ParseGroupVersion)
 */
export function parseAPIVersion(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split("/");
  if (parts.length === 1 && apiVersion !== "") return { group: "", version: apiVersion };
  if (parts.length === 2 && parts[0] && parts[1]) return { group: parts[0], version: parts[1] };
  throw new InvalidAPIVersionError(apiVersion);
}
