/**
 * `--token-auth-file`: static bearer tokens in kube-apiserver's CSV format
 * `token,user,uid[,"group1,group2"]` (extra columns ignored; blank lines skipped).
 *
 * @see staging/src/k8s.io/apiserver/plugin/pkg/authenticator/token/tokenfile/tokenfile.go
 * The bearer-token authentication itself is `bearerTokenAuthenticator` of @skiff/apiserver-core,
 * wired in `chain.ts`.
 */
import { readFile } from "node:fs/promises";
import type { UserInfo } from "@skiff/apiserver-core";

/** The token file is malformed. `reason`: `TokenFileInvalid`; the message names the line. */
export class TokenFileError extends Error {
  readonly reason = "TokenFileInvalid";
  constructor(message: string) {
    super(message);
    this.name = "TokenFileError";
  }
}

/**
 * Parse the CSV text into token → user. A later duplicate token wins (as upstream, which warns).
 * Groups are the fourth column split on `,` and trimmed.
 *
 * @throws {@link TokenFileError} for a line with fewer than 3 columns or an unterminated quote.
 * @example
 * ```ts
 * parseTokenFile('abc,alice,1,"dev,ops"\n').get("abc"); // { username: "alice", uid: "1", groups: ["dev","ops"] }
 * ```
 */
export function parseTokenFile(text: string, fileName = "token file"): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    if (raw.trim() === "") return;
    const lineNo = i + 1;
    const cols = parseCSVLine(raw);
    if (cols === undefined) throw new TokenFileError(`${fileName}: line ${String(lineNo)}: unterminated quoted field`);
    if (cols.length < 3) {
      throw new TokenFileError(`${fileName}: line ${String(lineNo)}: token file '${fileName}' must have at least 3 columns (token, user name, user uid), found ${String(cols.length)}`);
    }
    const [token = "", username = "", uid = ""] = cols;
    if (token === "") throw new TokenFileError(`${fileName}: line ${String(lineNo)}: empty token`);
    const groups =
      cols[3] !== undefined && cols[3].trim() !== ""
        ? cols[3]
            .split(",")
            .map((g) => g.trim())
            .filter((g) => g !== "")
        : [];
    tokens.set(token, { username, uid, groups });
  });
  return tokens;
}

/** Read and parse a token file. @throws {@link TokenFileError} also when the file cannot be read. */
export async function loadTokenFile(path: string): Promise<Map<string, UserInfo>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    throw new TokenFileError(`--token-auth-file: cannot read "${path}": ${(e as Error).message}`);
  }
  return parseTokenFile(text, path);
}

/** One CSV record (RFC 4180 quoting); `undefined` on an unterminated quote. */
function parseCSVLine(line: string): string[] | undefined {
  const out: string[] = [];
  let cur = "";
  let i = 0;
  let quoted = false;
  while (i < line.length) {
    const c = line[i];
    if (quoted) {
      if (c === '"') {
        if (line[i + 1] === '"') {
          cur += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else cur += c;
    } else if (c === '"' && cur === "") quoted = true;
    else if (c === ",") {
      out.push(cur);
      cur = "";
    } else cur += c;
    i++;
  }
  if (quoted) return undefined;
  out.push(cur);
  return out;
}
