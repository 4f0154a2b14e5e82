import { describe, expect, it } from "vitest";
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isEnvVarName,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
  isValidPortNum,
} from "./names.js";

// Messages as Kubernetes 1.23 words them (k8s.io/apimachinery/pkg/util/validation/validation.go),
// including the double space RegexError puts before each " or ".
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const dns1035Msg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const namePartMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe("isDNS1123Label", () => {
  it("accepts valid labels", () => {
    for (const v of ["a", "pi", "my-name", "123-abc", "a".repeat(63)]) expect(isDNS1123Label(v)).toEqual([]);
  });
  it("rejects bad syntax with the regex message", () => {
    for (const v of ["", "A", "-a", "a-", "a.b", "a_b"]) expect(isDNS1123Label(v)).toEqual([labelMsg]);
  });
  it("reports length and syntax separately", () => {
    expect(isDNS1123Label("a".repeat(64))).toEqual(["must be no more than 63 characters"]);
    expect(isDNS1123Label("A".repeat(64))).toEqual(["must be no more than 63 characters", labelMsg]);
  });
});

describe("isDNS1123Subdomain", () => {
  it("accepts dotted labels up to 253 characters", () => {
    expect(isDNS1123Subdomain("example.com")).toEqual([]);
    expect(isDNS1123Subdomain(`${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`)).toEqual([]);
  });
  it("rejects bad subdomains", () => {
    expect(isDNS1123Subdomain("Example.com")).toEqual([subdomainMsg]);
    expect(isDNS1123Subdomain("a..b")).toEqual([subdomainMsg]);
    expect(isDNS1123Subdomain("a".repeat(254))).toEqual(["must be no more than 253 characters"]);
  });
});

describe("isDNS1035Label", () => {
  it("requires a leading letter", () => {
    expect(isDNS1035Label("abc-123")).toEqual([]);
    expect(isDNS1035Label("1abc")).toEqual([dns1035Msg]);
    expect(isDNS1035Label(`a${"b".repeat(63)}`)).toEqual(["must be no more than 63 characters"]);
  });
});

describe("isQualifiedName", () => {
  it("accepts names with and without prefix", () => {
    for (const v of ["app", "MyName", "my.name", "123-abc", "example.com/MyName", "batch.example.io/job-completion-index"]) {
      expect(isQualifiedName(v)).toEqual([]);
    }
  });
  it("rejects a bad name part", () => {
    expect(isQualifiedName("app:monolith")).toEqual([namePartMsg]);
    expect(isQualifiedName("a".repeat(64))).toEqual(["name part must be no more than 63 characters"]);
  });
  it("reports an empty name part twice, as Kubernetes does", () => {
    expect(isQualifiedName("")).toEqual(["name part must be non-empty", namePartMsg]);
    expect(isQualifiedName("example.com/")).toEqual(["name part must be non-empty", namePartMsg]);
  });
  it("checks the prefix", () => {
    expect(isQualifiedName("/a")).toEqual(["prefix part must be non-empty"]);
    expect(isQualifiedName("Example.com/a")).toEqual([`prefix part ${subdomainMsg}`]);
  });
  it("rejects more than one slash", () => {
    expect(isQualifiedName("a/b/c")).toEqual([
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });
});

describe("isValidLabelValue", () => {
  it("accepts empty and valid values", () => {
    for (const v of ["", "a", "MyValue", "my_value", "12345", "a".repeat(63)]) expect(isValidLabelValue(v)).toEqual([]);
  });
  it("rejects bad values", () => {
    expect(isValidLabelValue("-a")).toEqual([labelValueMsg]);
    expect(isValidLabelValue("a b")).toEqual([labelValueMsg]);
    expect(isValidLabelValue("a".repeat(64))).toEqual(["must be no more than 63 characters"]);
  });
});

describe("isEnvVarName", () => {
  const msg =
    "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";
  it("accepts valid names", () => {
    for (const v of ["HOME", "my.env-name", "_x", "a1"]) expect(isEnvVarName(v)).toEqual([]);
  });
  it("rejects bad names", () => {
    expect(isEnvVarName("1A")).toEqual([msg]);
    expect(isEnvVarName("")).toEqual([msg]);
    expect(isEnvVarName("A=B")).toEqual([msg]);
  });
  it("rejects dot names", () => {
    expect(isEnvVarName(".")).toEqual(["must not be '.'"]);
    expect(isEnvVarName("..")).toEqual(["must not be '..'"]);
    expect(isEnvVarName("..a")).toEqual(["must not start with '..'"]);
  });
});

describe("isValidPortNum", () => {
  it("accepts 1..65535 only", () => {
    expect(isValidPortNum(1)).toEqual([]);
    expect(isValidPortNum(65535)).toEqual([]);
    for (const p of [0, 65536, -1, 1.5]) expect(isValidPortNum(p)).toEqual(["must be between 1 and 65535, inclusive"]);
  });
});

describe("isValidPortName", () => {
  it("accepts IANA service names", () => {
    expect(isValidPortName("http")).toEqual([]);
    expect(isValidPortName("h2c-80")).toEqual([]);
  });
  it("reports every broken rule", () => {
    expect(isValidPortName("80")).toEqual(["must contain at least one letter or number (a-z, 0-9)"]);
    expect(isValidPortName("a--b")).toEqual(["must not contain consecutive hyphens"]);
    expect(isValidPortName("-ab")).toEqual(["must not begin or end with a hyphen"]);
    expect(isValidPortName("Http")).toEqual(["must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"]);
    expect(isValidPortName("abcdefghijklmnop")).toEqual(["must be no more than 15 characters"]);
    expect(isValidPortName("")).toEqual([
      "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
      "must contain at least one letter or number (a-z, 0-9)",
    ]);
  });
});

describe("lengths", () => {
  it("are counted in UTF-8 bytes, as Go's len() counts them", () => {
    expect(isValidLabelValue("é".repeat(32))).toContain("must be no more than 63 characters");
    expect(isDNS1123Label("é".repeat(32))).toContain("must be no more than 63 characters");
    expect(isQualifiedName("é".repeat(32))).toContain("name part must be no more than 63 characters");
    expect(isValidPortName("é".repeat(8))).toContain("must be no more than 15 characters");
  });
});
