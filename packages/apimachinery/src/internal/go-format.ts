// Renderings of values the way Go's fmt and strconv print them, so messages built here read
// exactly like the ones a Kubernetes apiserver sends.

// strconv.Quote comes from @skiff/flags (one implementation for the workspace).
export { formatGoQuoted as goQuote } from "@skiff/flags";

// fmt's %v for a float64: shortest representation, exponent form below 1e-4 and from 1e21 on,
// with at least two exponent digits (1e-05, 1e+21).
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "+Inf";
  if (n === -Infinity) return "-Inf";
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) {
    const [mantissa, exponent = "0"] = n.toExponential().split("e");
    const sign = exponent.startsWith("-") ? "-" : "+";
    const digits = exponent.replace(/^[-+]/, "").padStart(2, "0");
    return `${mantissa}e${sign}${digits}`;
  }
  return Object.is(n, -0) ? "-0" : String(n);
}

// fmt's %v for a decoded JSON value (map[string]interface{} prints as map[k:v ...] with sorted
// keys, []interface{} as [a b], nil as <nil>).
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return v;
  if (typeof v === "number") return goFloat(v);
  if (typeof v === "boolean" || typeof v === "bigint") return String(v);
  if (Array.isArray(v)) return `[${v.map(goValue).join(" ")}]`;
  if (typeof v === "object") {
    const entries = Object.keys(v)
      .sort()
      .map((k) => `${k}:${goValue((v as Record<string, unknown>)[k])}`);
    return `map[${entries.join(" ")}]`;
  }
  return String(v);
}

// The Go type name a decoded JSON value has (as reflect.TypeOf prints it).
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return "%!s(<nil>)";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "float64";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}

// utilerrors.NewAggregate(...).Error(): duplicates dropped, one message as is, several as
// "[a, b]", none as "".
export function formatAggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  if (unique.length === 1) return unique[0] ?? "";
  if (unique.length === 0) return "";
  return `[${unique.join(", ")}]`;
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
