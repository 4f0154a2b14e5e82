import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  everythingSelector,
  formatLabelSelector,
  labelSelectorAsSelector,
  newRequirement,
  nothingSelector,
  parseLabelSelector,
  selectorFromRequirements,
  selectorFromSet,
} from "./label-selector.js";
import type { SelectionOperator, Selector } from "./label-selector.js";

function parse(text: string): Selector {
  const r = parseLabelSelector(text);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function parseError(text: string): string {
  const r = parseLabelSelector(text);
  if (r.ok) throw new Error(`expected ${JSON.stringify(text)} to fail, got ${r.value.toString()}`);
  return r.error;
}

const namePart =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValue =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe("parseLabelSelector", () => {
  it("selects everything when empty or blank", () => {
    for (const t of ["", "   ", "\t\n"]) {
      const s = parse(t);
      expect(s.empty()).toBe(true);
      expect(s.matches(undefined)).toBe(true);
      expect(s.matches({ a: "b" })).toBe(true);
      expect(s.toString()).toBe("");
    }
  });

  it("parses every operator into its canonical form", () => {
    const cases: Array<[string, string]> = [
      ["a=b", "a=b"],
      ["a==b", "a==b"],
      ["a!=b", "a!=b"],
      ["a in (x,y)", "a in (x,y)"],
      ["a notin (x)", "a notin (x)"],
      ["a", "a"],
      ["!a", "!a"],
      ["a>1", "a>1"],
      ["a<1", "a<1"],
      ["a=", "a="],
      ["a in ()", "a in ()"],
      ["a in (,)", "a in ()"],
      ["a in (y, x ,x)", "a in (x,y)"],
      ["a in (,x)", "a in (,x)"],
      ["x in (foo,,baz),y,z notin ()", "x in (,baz,foo),y,z notin ()"],
      ["  a  =  b  ,  c  ", "a=b,c"],
      ["in in (in,notin)", "in in (in,notin)"],
      ["example.com/app=web", "example.com/app=web"],
    ];
    for (const [text, canonical] of cases) expect(parse(text).toString(), text).toBe(canonical);
  });

  it("sorts requirements by key, keeping the order of equal keys", () => {
    expect(parse("z=1,a=2,m").toString()).toBe("a=2,m,z=1");
    expect(parse("a!=1,a=2").toString()).toBe("a!=1,a=2");
    expect(parse("!b,a").toString()).toBe("a,!b");
  });

  it("matches label sets as Kubernetes does", () => {
    const labels = { app: "web", tier: "db", n: "5" };
    const m = (t: string, l: Record<string, string> | undefined = labels) => parse(t).matches(l);
    expect(m("app=web")).toBe(true);
    expect(m("app==web")).toBe(true);
    expect(m("app=api")).toBe(false);
    expect(m("app!=api")).toBe(true);
    expect(m("missing!=x")).toBe(true);
    expect(m("missing=")).toBe(false);
    expect(m("tier in (db,cache)")).toBe(true);
    expect(m("tier in (cache)")).toBe(false);
    expect(m("missing in (a)")).toBe(false);
    expect(m("tier notin (db)")).toBe(false);
    expect(m("missing notin (db)")).toBe(true);
    expect(m("app")).toBe(true);
    expect(m("missing")).toBe(false);
    expect(m("!missing")).toBe(true);
    expect(m("!app")).toBe(false);
    expect(m("n>4")).toBe(true);
    expect(m("n>5")).toBe(false);
    expect(m("n<6")).toBe(true);
    expect(m("app>1")).toBe(false);
    expect(m("missing<1")).toBe(false);
    expect(m("app=web,tier=db")).toBe(true);
    expect(m("app=web,tier=cache")).toBe(false);
    expect(m("a=", { a: "" })).toBe(true);
    expect(m("a in ()", { a: "" })).toBe(true);
    expect(parse("app").matches(undefined)).toBe(false);
    expect(parse("!app").matches(undefined)).toBe(true);
  });

  it("does not treat inherited properties as labels", () => {
    expect(parse("constructor").matches({})).toBe(false);
    expect(parse("toString=x").matches({})).toBe(false);
  });

  it("reports syntax errors with Kubernetes' wording", () => {
    expect(parseError("a b")).toBe("unable to parse requirement: found 'b', expected: '=', '!=', '==', 'in', notin'");
    expect(parseError("x=a b")).toBe("found 'b', expected: ',' or 'end of string'");
    expect(parseError("a,")).toBe("found '', expected: identifier after ','");
    expect(parseError("a,,b")).toBe("found ',', expected: identifier after ','");
    expect(parseError(",a")).toBe("found ',', expected: !, identifier, or 'end of string'");
    expect(parseError("=a")).toBe("found '=', expected: !, identifier, or 'end of string'");
    expect(parseError("!")).toBe("unable to parse requirement: found '', expected: identifier");
    expect(parseError("!=a")).toBe("found '!=', expected: !, identifier, or 'end of string'");
    expect(parseError("a in x")).toBe("unable to parse requirement: found 'x' expected: '('");
    expect(parseError("a in (x")).toBe("unable to parse requirement: found '', expected: ',' or ')'");
    expect(parseError("a in (x y)")).toBe("unable to parse requirement: found 'y', expected: ',' or ')'");
    expect(parseError("a in (=)")).toBe("unable to parse requirement: found '=', expected: ',', ')' or identifier");
    expect(parseError("a in (x,=)")).toBe("unable to parse requirement: found '=', expected: ',', or identifier");
    expect(parseError("a=(")).toBe("unable to parse requirement: found '(', expected: identifier");
    expect(parseError("a=!b")).toBe("unable to parse requirement: found '!', expected: identifier");
    expect(parseError("a!b")).toBe("unable to parse requirement: found '!', expected: '=', '!=', '==', 'in', notin'");
    expect(parseError("a=>b")).toBe("unable to parse requirement: found '>', expected: identifier");
    expect(parseError("a===b")).toBe("unable to parse requirement: found '=', expected: identifier");
    expect(parseError("a<>b")).toBe("unable to parse requirement: found '>', expected: identifier");
  });

  it("lexes operator symbols greedily, one known symbol at a time", () => {
    expect(parseError("a )( b")).toBe("unable to parse requirement: found ')', expected: '=', '!=', '==', 'in', notin'");
  });

  it("validates keys with a <nil> field path, as Kubernetes prints it", () => {
    expect(parseError("app:monolith")).toBe(`unable to parse requirement: <nil>: Invalid value: "app:monolith": ${namePart}`);
    expect(parseError("a/b/c=1")).toContain('unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist');
    expect(parseError("-a")).toBe(`unable to parse requirement: <nil>: Invalid value: "-a": ${namePart}`);
  });

  it("validates values under values[i][key]", () => {
    expect(parseError("app=-web")).toBe(`unable to parse requirement: values[0][app]: Invalid value: "-web": ${labelValue}`);
    expect(parseError("app in (ok,-bad)")).toBe(`unable to parse requirement: values[0][app]: Invalid value: "-bad": ${labelValue}`);
  });

  it("requires integers for > and <", () => {
    expect(parseError("a>b")).toBe(`unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer`);
    expect(parseError("a>")).toBe(`unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`);
    expect(parseError("a>99999999999999999999")).toContain("the value must be an integer");
  });

  it("stops at a NUL byte like the Go lexer", () => {
    expect(parse("a \u0000 b=c").toString()).toBe("a");
    expect(parseError("a\u0000b")).toBe("unable to parse requirement: found 'b', expected: '=', '!=', '==', 'in', notin'");
  });

  it("answers requiresExactMatch for =, == and one-value in", () => {
    const s = parse("a=1,b==2,c in (3),d in (4,5),e!=6");
    expect(s.requiresExactMatch("a")).toBe("1");
    expect(s.requiresExactMatch("b")).toBe("2");
    expect(s.requiresExactMatch("c")).toBe("3");
    expect(s.requiresExactMatch("d")).toBeUndefined();
    expect(s.requiresExactMatch("e")).toBeUndefined();
    expect(s.requiresExactMatch("zz")).toBeUndefined();
  });

  it("exposes requirements in key order with sorted, deduplicated set values", () => {
    expect(parse("b in (y,x,y),a").requirements()).toEqual([
      { key: "a", operator: "exists", values: [] },
      { key: "b", operator: "in", values: ["x", "y"] },
    ]);
  });
});

describe("parse ∘ toString", () => {
  const keyChar = fc.constantFrom(..."abcxyzAB019-_.".split(""));
  const alnum = fc.constantFrom(..."abcxyzAB019".split(""));
  const name = fc
    .tuple(alnum, fc.array(keyChar, { maxLength: 6 }), alnum)
    .map(([a, mid, b]) => a + mid.join("") + b)
    .filter((s) => s.length <= 63);
  const prefix = fc.constantFrom("", "example.com/", "batch.example.io/");
  const key = fc.tuple(prefix, name).map(([p, n]) => p + n);
  const value = fc.oneof(fc.constant(""), name);
  const int = fc.integer({ min: 0, max: 1_000_000 }).map(String);
  const requirement = fc.oneof(
    fc.tuple(key, fc.constantFrom<SelectionOperator>("=", "==", "!="), value).map(([k, op, v]) => ({ key: k, operator: op, values: [v] })),
    fc.tuple(key, fc.constantFrom<SelectionOperator>("in", "notin"), fc.uniqueArray(value, { minLength: 1, maxLength: 4 })).map(([k, op, vs]) => ({
      key: k,
      operator: op,
      values: vs,
    })),
    fc.tuple(key, fc.constantFrom<SelectionOperator>("exists", "!")).map(([k, op]) => ({ key: k, operator: op, values: [] as string[] })),
    fc.tuple(key, fc.constantFrom<SelectionOperator>("gt", "lt"), int).map(([k, op, v]) => ({ key: k, operator: op, values: [v] })),
  );

  it("round-trips the canonical form and keeps the meaning", () => {
    fc.assert(
      fc.property(fc.array(requirement, { maxLength: 5 }), fc.dictionary(key, fc.oneof(value, int), { maxKeys: 5 }), (reqs, labels) => {
        const s = selectorFromRequirements(reqs);
        const text = s.toString();
        const again = parse(text);
        expect(again.toString()).toBe(text);
        expect(again.matches(labels)).toBe(s.matches(labels));
      }),
    );
  });
});

describe("newRequirement", () => {
  it("validates operator arity", () => {
    expect(newRequirement("a", "in", [])).toMatchObject({
      ok: false,
      error: "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
    });
    expect(newRequirement("a", "=", ["x", "y"])).toMatchObject({
      ok: false,
      error: 'values: Invalid value: []string{"x", "y"}: exact-match compatibility requires one single value',
    });
    expect(newRequirement("a", "exists", ["x"])).toMatchObject({
      ok: false,
      error: 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    });
    expect(newRequirement("a", "gt", ["1", "2"])).toMatchObject({
      ok: false,
      error: `values: Invalid value: []string{"1", "2"}: for 'Gt', 'Lt' operators, exactly one value is required`,
    });
  });

  it("rejects unknown operators and aggregates several errors", () => {
    const r = newRequirement("-k", "like" as SelectionOperator, ["-v"]);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.fieldErrors.map((e) => e.field)).toEqual(["key", "operator", "values[0][-k]"]);
      expect(r.error).toMatch(/^\[key: Invalid value: "-k": name part .*, operator: Unsupported value: "like": supported values: "in", "notin", "=", "==", "!=", "exists", "!", "gt", "lt", values\[0\]\[-k\]: Invalid value: "-v": a valid label/);
    }
  });

  it("prefixes paths with the given root", () => {
    const r = newRequirement("a", "in", [], "spec.selector.matchExpressions[0]");
    expect(r.ok ? "" : r.error).toBe("spec.selector.matchExpressions[0].values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty");
  });

  it("returns a copy of the values", () => {
    const vals = ["b", "a"];
    const r = newRequirement("k", "in", vals);
    vals.push("c");
    expect(r.ok && r.value.values).toEqual(["b", "a"]);
  });
});

describe("labelSelectorAsSelector", () => {
  it("converts nil to nothing and empty to everything", () => {
    const none = labelSelectorAsSelector(undefined);
    expect(none.ok && none.value.matches({})).toBe(false);
    expect(none.ok && none.value.empty()).toBe(false);
    const nul = labelSelectorAsSelector(null);
    expect(nul.ok && nul.value.matches({ a: "b" })).toBe(false);
    const all = labelSelectorAsSelector({});
    expect(all.ok && all.value.matches({})).toBe(true);
    const all2 = labelSelectorAsSelector({ matchLabels: {}, matchExpressions: [] });
    expect(all2.ok && all2.value.empty()).toBe(true);
  });

  it("combines matchLabels and matchExpressions", () => {
    const r = labelSelectorAsSelector({
      matchLabels: { "controller-uid": "abc", app: "pi" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["b", "a"] },
        { key: "canary", operator: "DoesNotExist" },
        { key: "env", operator: "NotIn", values: ["prod"] },
        { key: "team", operator: "Exists", values: null },
      ],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.toString()).toBe("app=pi,!canary,controller-uid=abc,env notin (prod),team,tier in (a,b)");
    expect(r.value.matches({ app: "pi", "controller-uid": "abc", tier: "a", team: "x" })).toBe(true);
    expect(r.value.matches({ app: "pi", "controller-uid": "abc", tier: "a", team: "x", canary: "1" })).toBe(false);
  });

  it("rejects bad operators, keys and values", () => {
    expect(labelSelectorAsSelector({ matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] })).toEqual({
      ok: false,
      error: '"Gt" is not a valid pod selector operator',
    });
    expect(labelSelectorAsSelector({ matchExpressions: [{ key: "a", operator: "constructor" }] })).toEqual({
      ok: false,
      error: '"constructor" is not a valid pod selector operator',
    });
    expect(labelSelectorAsSelector({ matchLabels: { "a b": "c" } })).toEqual({ ok: false, error: `key: Invalid value: "a b": ${namePart}` });
    expect(labelSelectorAsSelector({ matchLabels: { a: "-c" } })).toEqual({ ok: false, error: `values[0][a]: Invalid value: "-c": ${labelValue}` });
    expect(labelSelectorAsSelector({ matchExpressions: [{ key: "a", operator: "In", values: [] }] })).toEqual({
      ok: false,
      error: "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
    });
  });
});

describe("formatLabelSelector", () => {
  it("prints the canonical form, <none> and <error>", () => {
    expect(formatLabelSelector({ matchLabels: { "controller-uid": "abc" } })).toBe("controller-uid=abc");
    expect(formatLabelSelector({})).toBe("<none>");
    expect(formatLabelSelector(undefined)).toBe("<none>");
    expect(formatLabelSelector({ matchExpressions: [{ key: "a", operator: "Bad" }] })).toBe("<error>");
  });
});

describe("selector constructors", () => {
  it("everything, nothing and selectorFromSet", () => {
    expect(everythingSelector().matches({ a: "b" })).toBe(true);
    expect(nothingSelector().matches({})).toBe(false);
    expect(nothingSelector().toString()).toBe("");
    expect(nothingSelector().requirements()).toEqual([]);
    expect(nothingSelector().requiresExactMatch("a")).toBeUndefined();
    const s = selectorFromSet({ b: "2", a: "1" });
    expect(s.toString()).toBe("a=1,b=2");
    expect(s.matches({ a: "1", b: "2", c: "3" })).toBe(true);
    expect(s.matches({ a: "1" })).toBe(false);
    expect(selectorFromSet(undefined).empty()).toBe(true);
  });
});
