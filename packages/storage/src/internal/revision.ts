import { StorageError } from "../errors.js";

/**
 * Parses a resourceVersion option: `undefined` for unset or `""`, else a non-negative safe integer
 * (`"0"` → 0).
 */
export function parseRevisionOption(value: string | number | undefined, key: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value >= 0) return value;
  } else if (/^[0-9]{1,16}$/.test(value)) {
    const n = Number(value);
    if (Number.isSafeInteger(n)) return n;
  }
  throw new StorageError("InvalidError", { key, detail: `invalid resource version: ${JSON.stringify(String(value))}` });
}
