/**
 * JSON Patch (RFC 6902), the `application/json-patch+json` PATCH body, applied through
 * fast-json-patch with Kubernetes' limits and error mapping.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6902
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (`JSONPatchType`)
 */

import jsonpatch from "fast-json-patch";
import { PatchError } from "./patch-error.js";
import { cloneJSON, isObject } from "./internal/json.js";
import { maxJSONPatchCopyBytes } from "./document-limits.js";

/** One RFC 6902 operation. `path`/`from` are JSON Pointers (`/spec/template/metadata/labels/a~1b`). */
export type JSONPatchOperation =
  | { readonly op: "add"; readonly path: string; readonly value: unknown }
  | { readonly op: "remove"; readonly path: string }
  | { readonly op: "replace"; readonly path: string; readonly value: unknown }
  | { readonly op: "move"; readonly from: string; readonly path: string }
  | { readonly op: "copy"; readonly from: string; readonly path: string }
  | { readonly op: "test"; readonly path: string; readonly value: unknown };

/**
 * Most operations one JSON Patch may hold (10000), as in Kubernetes.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go `maxJSONPatchOperations`
 */
export const maxJSONPatchOperations = 10000;

const rfcOps = new Set(["add", "remove", "replace", "move", "copy", "test"]);

function describe(op: unknown, index: number): string {
  if (!isObject(op)) return `operation ${index}`;
  const name = typeof op.op === "string" ? op.op : "?";
  const path = typeof op.path === "string" ? ` ${op.path}` : "";
  return `operation ${index} (${name}${path})`;
}

function failureText(name: string): string {
  switch (name) {
    case "TEST_OPERATION_FAILED":
      return "test failed";
    case "OPERATION_PATH_UNRESOLVABLE":
      return "the path does not exist in the document";
    case "OPERATION_FROM_UNRESOLVABLE":
      return "the from path does not exist in the document";
    case "OPERATION_PATH_CANNOT_ADD":
      return "cannot add at this path (its parent does not exist)";
    case "OPERATION_PATH_ILLEGAL_ARRAY_INDEX":
      return "array index must be an unsigned base-10 integer or '-'";
    case "OPERATION_VALUE_OUT_OF_BOUNDS":
      return "array index is out of bounds";
    case "OPERATION_PATH_INVALID":
      return "path must be a string starting with '/' (or empty for the whole document)";
    case "OPERATION_FROM_REQUIRED":
      return "'from' is required for move and copy";
    case "OPERATION_VALUE_REQUIRED":
    case "OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED":
      return "'value' is required for add, replace and test";
    default:
      return "the operation cannot be applied";
  }
}

/**
 * Applies a JSON Patch to a decoded JSON document and returns the result. Operations apply in
 * order; the first failing one aborts the whole patch.
 *
 * @throws {PatchError} `BadRequest` when `ops` is not an array of objects;
 * `RequestEntityTooLarge` with Kubernetes' message `The allowed maximum operations in a JSON patch
 * is 10000, got N` when it is too long; `Invalid` when an operation is unknown, lacks
 * `path`/`from`/`value`, points at a missing location, or a `test` fails (message names the
 * operation index, op and path), for writes to `__proto__`/`constructor`, and when `copy`
 * operations together add more than {@link maxJSONPatchCopyBytes} (evanphx/json-patch's
 * `AccumulatedCopySizeLimit` message).
 *
 * Never mutates `doc` or `ops`; the result shares no objects with either.
 * @example
 * applyJSONPatch({ spec: { parallelism: 1 } }, [{ op: "replace", path: "/spec/parallelism", value: 2 }])
 * // { spec: { parallelism: 2 } }
 */
export function applyJSONPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw new PatchError("BadRequest", "invalid JSON Patch: the patch must be a JSON array of operations");
  const bad = ops.findIndex((o) => !isObject(o));
  if (bad >= 0) throw new PatchError("BadRequest", `invalid JSON Patch: operation ${bad} is not a JSON object`);
  if (ops.length > maxJSONPatchOperations) {
    throw new PatchError("RequestEntityTooLarge", `The allowed maximum operations in a JSON patch is ${maxJSONPatchOperations}, got ${ops.length}`);
  }
  ops.forEach((o: Record<string, unknown>, i) => {
    if (typeof o.op !== "string" || !rfcOps.has(o.op)) {
      throw new PatchError("Invalid", `${describe(o, i)}: unknown operation ${JSON.stringify(o.op ?? null)}`);
    }
  });
  const work = cloneJSON(doc);
  const operations = cloneJSON(ops) as jsonpatch.Operation[];
  let result: unknown;
  try {
    // Operation by operation, so the bytes `copy` adds are summed before each copy runs (a patch
    // that copies a value into itself over and over grows the document exponentially).
    let copied = 0;
    result = work;
    operations.forEach((op, i) => {
      if (op.op === "copy" && typeof op.from === "string") {
        let from: unknown;
        try {
          from = jsonpatch.getValueByPointer(result, op.from);
        } catch {
          from = undefined;
        }
        copied += from === undefined ? 0 : (JSON.stringify(from) ?? "").length;
        if (copied > maxJSONPatchCopyBytes) {
          throw new PatchError("Invalid", `${describe(ops[i], i)}: Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${maxJSONPatchCopyBytes}`);
        }
      }
      result = jsonpatch.applyOperation(result, op, true, true, true, i).newDocument;
    });
  } catch (e) {
    if (e instanceof PatchError) throw e;
    if (e instanceof jsonpatch.JsonPatchError) {
      const index = e.index ?? 0;
      throw new PatchError("Invalid", `${describe(ops[index], index)}: ${failureText(e.name)}`, { cause: e });
    }
    if (e instanceof TypeError && /banned for security reasons/.test(e.message)) {
      throw new PatchError("Invalid", "JSON Patch may not modify __proto__ or constructor/prototype", { cause: e });
    }
    // fast-json-patch throws plain TypeErrors for some operations on the root path ("")
    // (copy from a missing location, operations after `remove ""`): still bad input, never a 500.
    throw new PatchError("Invalid", `invalid JSON Patch: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (result === undefined || result === null) throw new PatchError("Invalid", "invalid JSON Patch: the patch removes the whole document");
  return result;
}
