/**
 * Name and value syntax checks, with Kubernetes' error messages. Each returns the list of problems
 * (empty when valid) so callers can wrap them in field errors; none throws.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go
 */

const dns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
const qualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const labelValueFmt = `(${qualifiedNameFmt})?`;

const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);
const labelValueRe = new RegExp(`^${labelValueFmt}$`);

/** Maximum length of a DNS-1123 label (63). */
export const DNS1123LabelMaxLength = 63;
/** Maximum length of a DNS-1123 subdomain (253). */
export const DNS1123SubdomainMaxLength = 253;
/** Maximum length of a DNS-1035 label (63). */
export const DNS1035LabelMaxLength = 63;
/** Maximum length of the name part of a qualified name (63). */
export const QualifiedNameMaxLength = 63;
/** Maximum length of a label value (63). */
export const LabelValueMaxLength = 63;

// Go's len(): strings are measured in UTF-8 bytes, as Kubernetes measures them.
function byteLength(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // Kubernetes appends "'<example>', " per example and " or " between them, which yields the
  // double space of "(e.g. 'my-name',  or '123-abc', regex used ...)"; kept verbatim.
  let s = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) s += " or ";
    s += `'${e}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

/**
 * RFC 1123 label: lower-case alphanumerics and '-', starting and ending alphanumeric, at most 63
 * bytes. Used for namespace names and container names.
 * @example
 * isDNS1123Label("pi") // []
 * isDNS1123Label("Pi") // ["a lowercase RFC 1123 label must consist of ... (e.g. 'my-name',  or '123-abc', regex used for validation is '...')"]
 * @see staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go `IsDNS1123Label`
 */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123LabelMaxLength) errs.push(maxLenError(DNS1123LabelMaxLength));
  if (!dns1123LabelRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        dns1123LabelFmt,
        "my-name",
        "123-abc",
      ),
    );
  }
  return errs;
}

/**
 * RFC 1123 subdomain: dot-separated DNS-1123 labels, at most 253 characters.
 * @see staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go `IsDNS1123Subdomain`
 */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123SubdomainMaxLength) errs.push(maxLenError(DNS1123SubdomainMaxLength));
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        dns1123SubdomainFmt,
        "example.com",
      ),
    );
  }
  return errs;
}

/**
 * RFC 1035 label: like a DNS-1123 label but starting with a letter.
 * @see staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go `IsDNS1035Label`
 */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035LabelMaxLength) errs.push(maxLenError(DNS1035LabelMaxLength));
  if (!dns1035LabelRe.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        dns1035LabelFmt,
        "my-name",
        "abc-123",
      ),
    );
  }
  return errs;
}

/**
 * Qualified name: an optional DNS-1123 subdomain prefix and '/', then a name of at most 63
 * characters of alphanumerics, '-', '_' and '.', starting and ending alphanumeric. Used for label
 * keys, annotation keys and finalizers.
 * @example
 * isQualifiedName("batch.example.io/job-completion-index") // []
 * isQualifiedName("a/b/c") // ["a qualified name must consist of ... with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
 * @see staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go `IsQualifiedName`
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? "";
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    name = parts[1] ?? "";
    if (prefix.length === 0) {
      errs.push("prefix part must be non-empty");
    } else {
      for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
    }
  } else {
    return [
      regexError(
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        qualifiedNameFmt,
        "MyName",
        "my.name",
        "123-abc",
      ) + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) {
    errs.push("name part must be non-empty");
  } else if (byteLength(name) > QualifiedNameMaxLength) {
    errs.push(`name part ${maxLenError(QualifiedNameMaxLength)}`);
  }
  if (!qualifiedNameRe.test(name)) {
    errs.push(
      "name part " +
        regexError(
          "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
          qualifiedNameFmt,
          "MyName",
          "my.name",
          "123-abc",
        ),
    );
  }
  return errs;
}

/**
 * Label value: empty, or at most 63 characters of alphanumerics, '-', '_' and '.', starting and
 * ending alphanumeric.
 * @see staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go `IsValidLabelValue`
 */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LabelValueMaxLength) errs.push(maxLenError(LabelValueMaxLength));
  if (!labelValueRe.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        labelValueFmt,
        "MyValue",
        "my_value",
        "12345",
      ),
    );
  }
  return errs;
}

/**
 * Environment variable name check Kubernetes 1.23 applies to `env[].name`: letters, digits, '_',
 * '-' and '.', not starting with a digit, and not '.', '..' or starting with '..'. (The relaxed
 * "printable ASCII" rule is a later Kubernetes feature gate and is not applied.)
 * @see staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go `IsEnvVarName`
 */
export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(value)) {
    errs.push(
      regexError(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
        "[-._a-zA-Z][-._a-zA-Z0-9]*",
        "my.env-name",
        "MY_ENV.NAME",
        "MyEnvName1",
      ),
    );
  }
  if (value === ".") errs.push("must not be '.'");
  else if (value === "..") errs.push("must not be '..'");
  else if (value.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

/**
 * Port number in [1, 65535].
 * @see staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go `IsValidPortNum`
 */
export function isValidPortNum(port: number): string[] {
  if (Number.isInteger(port) && port >= 1 && port <= 65535) return [];
  return ["must be between 1 and 65535, inclusive"];
}

/**
 * IANA service port name (used for named container ports): at most 15 characters, lower-case
 * alphanumerics and '-', at least one letter, no leading/trailing or double '-'. Every broken rule
 * adds its own message.
 * @see staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go `IsValidPortName`
 */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (byteLength(port) > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  // Kubernetes 1.23 checks for a letter but words the message "letter or number" (fixed in 1.24).
  if (!/[a-z]/.test(port)) errs.push("must contain at least one letter or number (a-z, 0-9)");
  if (port.includes("--")) errs.push("must not contain consecutive hyphens");
  if (port.length > 0 && (port.startsWith("-") || port.endsWith("-"))) errs.push("must not begin or end with a hyphen");
  return errs;
}
