/** A URL without a scheme, split as Go's `url.Parse("https://" + s)` splits it. */
export interface SchemelessURL {
  /** Host and optional `:port` (no user info). */
  readonly host: string;
  /** The path, starting with `/` when present; `""` when absent. */
  readonly path: string;
}

const hostAllowed = /^[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]$/;

/**
 * Parses a registry location without a scheme (`registry.io:5000/ns`, `*.gcr.io`) as the kubelet
 * does: Go's `url.Parse` of `https://` + the text, scheme cleared.
 * @throws Error with Go's message, e.g. `parse "https://a b": invalid character " " in host name`,
 *   `parse "https://a:x": invalid port ":x" after host`, `parse "https://%zz": invalid URL escape "%zz"`.
 * @see pkg/credentialprovider/keyring.go (ParseSchemelessURL) in kubernetes/kubernetes v1.23
 */
export function parseSchemelessURL(schemeless: string): SchemelessURL {
  const full = `https://${schemeless}`;
  const fail = (why: string): never => {
    throw new Error(`parse ${JSON.stringify(full)}: ${why}`);
  };
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(schemeless)) throw new Error(`parse ${JSON.stringify(full)}: net/url: invalid control character in URL`);
  let rest = schemeless;
  const hash = rest.indexOf("#");
  if (hash >= 0) rest = rest.slice(0, hash);
  const query = rest.indexOf("?");
  if (query >= 0) rest = rest.slice(0, query);
  const slash = rest.indexOf("/");
  let authority = slash >= 0 ? rest.slice(0, slash) : rest;
  const path = slash >= 0 ? rest.slice(slash) : "";
  const at = authority.lastIndexOf("@");
  if (at >= 0) authority = authority.slice(at + 1);
  const bracket = authority.lastIndexOf("]");
  const colon = authority.lastIndexOf(":");
  if (colon > bracket) {
    const port = authority.slice(colon);
    if (!/^:\d*$/.test(port)) fail(`invalid port ${JSON.stringify(port)} after host`);
  }
  for (let i = 0; i < authority.length; i++) {
    const ch = authority[i] ?? "";
    if (ch === "%") {
      const esc = authority.slice(i, i + 3);
      if (!/^%[0-9A-Fa-f]{2}$/.test(esc)) fail(`invalid URL escape ${JSON.stringify(esc)}`);
      i += 2;
      continue;
    }
    if (ch.charCodeAt(0) < 0x80 && !hostAllowed.test(ch)) fail(`invalid character ${JSON.stringify(ch)} in host name`);
  }
  const badEscape = /%(?![0-9A-Fa-f]{2})(.{0,2})/.exec(path);
  if (badEscape) fail(`invalid URL escape ${JSON.stringify(`%${badEscape[1] ?? ""}`)}`);
  return { host: authority, path };
}

function splitHostPort(host: string): { parts: string[]; port: string } {
  // net.SplitHostPort: only "host:port" (or "[v6]:port") has a port; anything else is all host.
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*)):([^:]*)$/.exec(host);
  const name = m ? (m[1] ?? m[2] ?? "") : host;
  return { parts: name.split("."), port: m ? (m[3] ?? "") : "" };
}

/**
 * Go's `filepath.Match` on one host label (which holds no `/`): `*` any run, `?` one character,
 * `[a-z]`/`[^a-z]` classes, `\` escapes.
 * @throws Error `syntax error in pattern` for a malformed class or a trailing `\`.
 */
export function globMatch(pattern: string, name: string): boolean {
  let re = "^";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] ?? "";
    if (ch === "*") re += "[^/]*";
    else if (ch === "?") re += "[^/]";
    else if (ch === "\\") {
      i++;
      if (i >= pattern.length) throw new Error("syntax error in pattern");
      re += escapeRegExp(pattern[i] ?? "");
    } else if (ch === "[") {
      let j = i + 1;
      let cls = "[";
      if (pattern[j] === "^") {
        cls += "^";
        j++;
      }
      // Go's getEsc: an unescaped '-' or ']' cannot start a range.
      const readChar = (): string => {
        let c = pattern[j];
        if (c === undefined || c === "-" || c === "]") throw new Error("syntax error in pattern");
        if (c === "\\") {
          j++;
          c = pattern[j];
          if (c === undefined) throw new Error("syntax error in pattern");
        }
        j++;
        return c;
      };
      for (let n = 0; ; n++) {
        if (j >= pattern.length) throw new Error("syntax error in pattern");
        if (pattern[j] === "]" && n > 0) break;
        const lo = readChar();
        let hi = lo;
        if (pattern[j] === "-") {
          j++;
          hi = readChar();
          if (hi < lo) throw new Error("syntax error in pattern");
        }
        cls += `${escapeRegExp(lo)}-${escapeRegExp(hi)}`;
      }
      re += `${cls}]`;
      i = j;
    } else re += escapeRegExp(ch);
  }
  return new RegExp(`${re}$`, "s").test(name);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/**
 * Whether `target` falls under `glob`: same port, same number of host labels, each label matching
 * its glob (`*.docker.io` matches `blah.docker.io`, not `docker.io` or `a.b.docker.io`), and the
 * glob's path a prefix of the target's path. No wildcards in ports or paths.
 * @throws Error when either does not parse ({@link parseSchemelessURL}) or a label glob is malformed.
 * @see pkg/credentialprovider/keyring.go (URLsMatchStr, URLsMatch) in kubernetes/kubernetes v1.23
 */
export function urlsMatch(glob: string, target: string): boolean {
  const g = parseSchemelessURL(glob);
  const t = parseSchemelessURL(target);
  const gp = splitHostPort(g.host);
  const tp = splitHostPort(t.host);
  if (gp.port !== tp.port) return false;
  if (gp.parts.length !== tp.parts.length) return false;
  if (!t.path.startsWith(g.path)) return false;
  return gp.parts.every((part, i) => globMatch(part, tp.parts[i] ?? ""));
}
