/**
 * Expands `$(VAR)` references in `input` with `lookup`, as the kubelet does for command, args and
 * env values: `$$` → `$`; `$(NAME)` → the value when `lookup` knows NAME, else left as written; a
 * `$` followed by anything else, or an unterminated `$(`, stays as is. Pure.
 * @see third_party/forked/golang/expansion/expand.go in kubernetes/kubernetes v1.23
 */
export function expandVars(input: string, lookup: (name: string) => string | undefined): string {
  let out = "";
  let i = 0;
  while (i < input.length) {
    const ch = input[i];
    if (ch !== "$" || i + 1 >= input.length) {
      out += ch;
      i++;
      continue;
    }
    const next = input[i + 1];
    if (next === "$") {
      out += "$";
      i += 2;
      continue;
    }
    if (next === "(") {
      const close = input.indexOf(")", i + 2);
      if (close < 0) {
        out += input.slice(i);
        break;
      }
      const name = input.slice(i + 2, close);
      const value = name.length > 0 ? lookup(name) : undefined;
      out += value ?? `$(${name})`;
      i = close + 1;
      continue;
    }
    out += "$";
    i++;
  }
  return out;
}
