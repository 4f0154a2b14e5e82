/**
 * What a simulated container does: its command read as a tiny shell, without running anything.
 */

/** The outcome of a simulated container: how long it runs, its exit code, what it prints. */
export interface SimulatedRun {
  /** Milliseconds between start and exit; `Infinity` runs until stopped. */
  readonly durationMs: number;
  readonly exitCode: number;
  /** Lines written to stdout, in order. */
  readonly stdout: readonly string[];
}

const shells = new Set(["sh", "bash", "ash", "dash"]);
// The default commands of the images the simulation knows (busybox runs `sh`, which exits at once
// without a terminal; pause sleeps forever).
const pauseImage = /(^|\/)pause(:|@|$)/;

function expand(word: string, env: ReadonlyMap<string, string>): string {
  let out = "";
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < word.length; i++) {
    const ch = word[i] ?? "";
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else out += ch;
    } else if (ch === "'" && quote === undefined) quote = "'";
    else if (ch === '"') quote = quote === '"' ? undefined : '"';
    else if (ch === "\\" && i + 1 < word.length) out += word[++i] ?? "";
    else if (ch === "$") {
      const m = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/.exec(word.slice(i));
      if (m) {
        out += env.get(m[1] ?? m[2] ?? "") ?? "";
        i += m[0].length - 1;
      } else out += ch;
    } else out += ch;
  }
  return out;
}

// Splits a script into words and the operators between commands (`;`, newline, `&&`, `||`),
// keeping quotes inside words (expanded later).
function tokenize(script: string): string[] {
  const tokens: string[] = [];
  let word = "";
  let quote: "'" | '"' | undefined;
  const flush = () => {
    if (word !== "") tokens.push(word);
    word = "";
  };
  for (let i = 0; i < script.length; i++) {
    const ch = script[i] ?? "";
    if (quote !== undefined) {
      word += ch;
      if (ch === quote) quote = undefined;
      else if (ch === "\\" && quote === '"' && i + 1 < script.length) word += script[++i] ?? "";
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      word += ch;
    } else if (ch === "\\" && i + 1 < script.length) word += ch + (script[++i] ?? "");
    else if (ch === " " || ch === "\t") flush();
    else if (ch === ";" || ch === "\n") {
      flush();
      tokens.push(";");
    } else if ((ch === "&" || ch === "|") && script[i + 1] === ch) {
      flush();
      tokens.push(ch + ch);
      i++;
    } else word += ch;
  }
  flush();
  return tokens;
}

/** A `sleep` operand in milliseconds (`5`, `0.5`, `2m`, `infinity`); undefined when it does not parse. */
function sleepMs(arg: string): number | undefined {
  if (arg === "inf" || arg === "infinity") return Infinity;
  const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(arg);
  if (!m) return undefined;
  const unit = { "": 1_000, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? ""] ?? 1_000;
  return Number(m[1]) * unit;
}

function runScript(script: string, env: ReadonlyMap<string, string>): SimulatedRun {
  let durationMs = 0;
  let status = 0;
  const stdout: string[] = [];
  const tokens = tokenize(script);
  let skip = false;
  let i = 0;
  while (i < tokens.length) {
    const words: string[] = [];
    while (i < tokens.length && ![";", "&&", "||"].includes(tokens[i] ?? "")) words.push(tokens[i++] ?? "");
    const op = tokens[i++];
    if (!skip && words.length > 0) {
      const [cmd = "", ...args] = words.map((w) => expand(w, env));
      if (cmd === "exit") return { durationMs, exitCode: args[0] !== undefined ? Number.parseInt(args[0], 10) & 255 || 0 : status, stdout };
      if (cmd === "sleep") {
        const each = args.map(sleepMs);
        if (each.length === 0 || each.some((ms) => ms === undefined)) status = 1;
        else {
          for (const ms of each) durationMs += ms ?? 0;
          status = 0;
        }
      } else if (cmd === "false") status = 1;
      else if (cmd === "echo") {
        const noNewline = args[0] === "-n";
        stdout.push((noNewline ? args.slice(1) : args).join(" "));
        status = 0;
      } else status = 0; // true, :, and anything else: succeeds at once
    }
    skip = (op === "&&" && status !== 0) || (op === "||" && status === 0);
    if (durationMs === Infinity) break;
  }
  return { durationMs, exitCode: status, stdout };
}

/**
 * Reads a container's argv (command + args, or the image's default) as a tiny shell and says
 * what the container would do, without running it: `sleep N` (seconds; `s`/`m`/`h`/`d` suffixes,
 * `infinity`) adds N to its run time; `exit N` ends it with N; `false` fails (1); `echo` prints
 * (with `$VAR`/`${VAR}` from `env`); `;`, newlines, `&&` and `||` sequence commands; anything else
 * succeeds at once. `sh -c "<script>"` runs the script; a bare command (`sleep 5`, `false`) is a
 * one-command script. An empty argv is the image's default: the pause image runs until stopped,
 * anything else (busybox's `sh` without a terminal) exits 0 at once. Pure; never throws.
 * @example simulateCommand(["sh", "-c", "sleep 2; exit 3"], "busybox", new Map()) // { durationMs: 2000, exitCode: 3, stdout: [] }
 */
export function simulateCommand(argv: readonly string[], image: string, env: ReadonlyMap<string, string>): SimulatedRun {
  if (argv.length === 0) return pauseImage.test(image) ? { durationMs: Infinity, exitCode: 0, stdout: [] } : { durationMs: 0, exitCode: 0, stdout: [] };
  const [file = "", ...rest] = argv;
  const base = file.slice(file.lastIndexOf("/") + 1);
  if (shells.has(base)) {
    const c = rest.indexOf("-c");
    if (c === -1) return { durationMs: 0, exitCode: 0, stdout: [] };
    return runScript(rest[c + 1] ?? "", env);
  }
  const quoted = argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  return runScript(quoted, env);
}
