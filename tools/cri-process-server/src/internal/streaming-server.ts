/**
 * The process runtime's streaming server, what CRI `Exec` and `PortForward` answer a URL of
 * (`http://127.0.0.1:<port>/exec/<token>`, `/portforward/<token>`; a token is single-use and
 * expires after a minute, as containerd's). It speaks SPDY/3.1 with the `v4.channel.k8s.io`
 * (exec) and `portforward.k8s.io` protocols, and, for exec and attach, WebSocket with the channel
 * protocols (`v5.channel.k8s.io`, `v4.channel.k8s.io`, their base64 forms and the unversioned
 * ones: websocket-channels.ts). A WebSocket port-forward is refused with 403, on which kubectl
 * falls back to SPDY.
 *
 * Exec runs the command with the container's working directory and environment (no namespaces:
 * the process runtime has none to enter), stdin/stdout/stderr on their streams; with a tty it
 * runs under `script` (util-linux) for a pseudo-terminal, stderr merged into stdout; each terminal
 * size on the resize stream is set on that terminal (`stty -F`, so the command gets SIGWINCH). The exit is reported on the error stream as a Status
 * (`NonZeroExitCode`, cause `ExitCode`), which kubectl prints as `command terminated with exit
 * code N`. Port-forward dials the port through the runtime's `connectPort` (`127.0.0.1:<port>` on
 * the host, or inside the pod's network namespace) for each data/error stream pair.
 * @see pkg/kubelet/cri/streaming/server.go in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/cri/streaming/remotecommand/httpstream.go, exec.go in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/cri/streaming/portforward/httpstream.go in kubernetes/kubernetes v1.23
 */
import { execFile, spawn } from "node:child_process";
import { open, readFile, readlink } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { parseCRILogLine } from "@skiff/cri-api";
import { WebSocketServer } from "ws";
import { SpdyServerConnection, spdyRstStatus } from "./spdy.js";
import type { SpdyStream } from "./spdy.js";
import { WebSocketChannelConnection, execChannel, execWebSocketProtocols, pickWebSocketProtocol } from "./websocket-channels.js";

/** What exec and attach need of a connection, SPDY or WebSocket. */
interface StreamConnection {
  onClose(fn: () => void): void;
  shutdown(): Promise<void>;
}

/** A prepared exec: what CRI `Exec` asked for. */
export interface ExecSession {
  readonly kind: "exec";
  readonly containerId: string;
  readonly cmd: readonly string[];
  readonly tty: boolean;
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
}

/** A prepared attach: what CRI `Attach` asked for. */
export interface AttachSession {
  readonly kind: "attach";
  readonly containerId: string;
  readonly tty: boolean;
  /** Attach the container's stdin (ignored when the container was created without `stdin`). */
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
}

/** A prepared port-forward: what CRI `PortForward` asked for. */
export interface PortForwardSession {
  readonly kind: "portforward";
  readonly podSandboxId: string;
  readonly ports: readonly number[];
}

/** A container to exec in: its working directory, environment and exec-pid tracker. */
export interface ExecTarget {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** The container's CRI log file (what attach follows). */
  readonly logPath: string;
  /** The main process's stdin when the container was created with `stdin` (`once`: CRI `stdin_once`). */
  readonly stdin?: { readonly writable: NodeJS.WritableStream; readonly once: boolean } | undefined;
  /**
   * How to spawn `cmd` in the container: inside its namespaces (`nsenter`) when the runtime isolates
   * containers, with its user and groups; else on the host with its env and directory.
   */
  spawnSpec(cmd: string[]): { file: string; args: string[]; cwd: string; env: Readonly<Record<string, string>> };
  isRunning(): boolean;
  track(pid: number): () => void;
}

/** What the streaming server asks the runtime. */
export interface StreamingRuntime {
  /** @throws when the container is unknown or not running. */
  execTarget(containerId: string): ExecTarget;
  /** @throws when the sandbox is unknown. */
  checkSandbox(podSandboxId: string): void;
  /**
   * Connects to `port` of the sandbox (inside its network namespace when it has one).
   * @throws Error (rejects) with the dial's message.
   */
  connectPort(podSandboxId: string, port: number): Promise<Duplex>;
}

/** A running streaming server. */
export interface StreamingServer {
  /** Registers a session; returns its single-use URL (valid for `tokenTTLMs`). */
  register(session: ExecSession | AttachSession | PortForwardSession): string;
  close(): Promise<void>;
}

/** The Status kubectl reads on the error stream when the command exits `code` (0: Success). Pure. */
export function exitStatus(code: number, cmd: readonly string[]): Record<string, unknown> {
  if (code === 0) return { metadata: {}, status: "Success" };
  return {
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: error executing command [${cmd.join(" ")}], exit code ${code}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(code) }] },
  };
}

/** The first protocol of the client's `X-Stream-Protocol-Version` list the server supports, or undefined. Pure. */
export function negotiateProtocol(clientHeader: string | string[] | undefined, supported: readonly string[]): string | undefined {
  const client = (Array.isArray(clientHeader) ? clientHeader : [clientHeader ?? ""]).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "");
  return client.find((p) => supported.includes(p));
}

/** `cmd` as one POSIX shell word list (for `script -c`). Pure. */
export function shellQuote(cmd: readonly string[]): string {
  return cmd.map((a) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(" ");
}

const execProtocols = ["v4.channel.k8s.io"];
const execWebSocketProtocolsText = execWebSocketProtocols.join(" ");
const portForwardProtocols = ["portforward.k8s.io"];
// 1.23's WebSocket port-forward: binary or base64 channels; kubectl's SPDY tunnelling is not one.
const portForwardWebSocketProtocols = ["v4.channel.k8s.io", "v4.base64.channel.k8s.io"];
const streamCreationTimeoutMs = 30_000;

function answer(socket: Duplex, status: string, body: string, extra: Record<string, string> = {}): void {
  const headers = { "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(Buffer.byteLength(body)), Connection: "close", ...extra };
  socket.end(`HTTP/1.1 ${status}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\n\r\n${body}`);
}

/**
 * Starts the streaming server on 127.0.0.1 (an ephemeral port).
 * @throws Error when it cannot listen.
 */
export async function startStreamingServer(runtime: StreamingRuntime, log: (message: string) => void, tokenTTLMs = 60_000): Promise<StreamingServer> {
  const sessions = new Map<string, { session: ExecSession | AttachSession | PortForwardSession; timer: NodeJS.Timeout }>();
  const connections = new Set<SpdyServerConnection>();
  const wsConnections = new Set<WebSocketChannelConnection>();
  // Subprotocol negotiation is done before the upgrade (a refusal is a 403, as 1.23's wsstream).
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 << 20, handleProtocols: (offered) => pickWebSocketProtocol(offered) || false });
  const server: Server = createServer((_req, res) => {
    res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8" }).end("Upgrade request required\n");
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const m = /^\/(exec|attach|portforward)\/([A-Za-z0-9_-]+)$/.exec((req.url ?? "").split("?")[0] ?? "");
    const entry = m ? sessions.get(m[2] ?? "") : undefined;
    if (!m || !entry || entry.session.kind !== m[1]) return answer(socket, "404 Not Found", "404 page not found\n");
    sessions.delete(m[2] ?? "");
    clearTimeout(entry.timer);
    const upgrade = (req.headers.upgrade ?? "").toLowerCase();
    if (upgrade === "websocket") {
      const session = entry.session;
      const offered = String(req.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim()).filter((p) => p !== "");
      if (session.kind === "portforward") {
        const pfProtocol = pickWebSocketProtocol(offered, portForwardWebSocketProtocols);
        if (pfProtocol === undefined) return answer(socket, "403 Forbidden", `requested protocol(s) are not supported: [${offered.join(" ")}]; supports [${portForwardWebSocketProtocols.join(" ")}]\n`);
        if (session.ports.length === 0) return answer(socket, "400 Bad Request", "query parameter \"port\" is required\n");
        wss.handleUpgrade(req, socket, head, (ws) => {
          const conn = new WebSocketChannelConnection(ws, pfProtocol, session.ports.flatMap((_, i) => [2 * i, 2 * i + 1]));
          wsConnections.add(conn);
          conn.onClose(() => wsConnections.delete(conn));
          serveWebSocketPortForward(conn, session, runtime, log);
        });
        return;
      }
      const protocol = pickWebSocketProtocol(offered);
      if (protocol === undefined) return answer(socket, "403 Forbidden", `requested protocol(s) are not supported: [${offered.join(" ")}]; supports [${execWebSocketProtocolsText}]\n`);
      wss.handleUpgrade(req, socket, head, (ws) => {
        const open = [...(session.stdin ? [execChannel.stdin] : []), ...(session.stdout ? [execChannel.stdout] : []), ...(session.stderr && !session.tty ? [execChannel.stderr] : []), execChannel.error, ...(session.tty ? [execChannel.resize] : [])];
        const conn = new WebSocketChannelConnection(ws, protocol, open);
        wsConnections.add(conn);
        conn.onClose(() => wsConnections.delete(conn));
        // The empty message on the lowest channel the server writes: the streams are ready.
        const first = session.stdout ? execChannel.stdout : session.stderr ? execChannel.stderr : execChannel.error;
        void conn.send(first, Buffer.alloc(0));
        const streams = new Map<string, Duplex>();
        for (const [name, n] of Object.entries(execChannel)) if (open.includes(n)) streams.set(name, conn.channel(n));
        runExec(conn, session, streams, runtime);
      });
      return;
    }
    if (upgrade !== "spdy/3.1") return answer(socket, "400 Bad Request", `unsupported upgrade ${JSON.stringify(req.headers.upgrade ?? "")}: want SPDY/3.1\n`);
    const supported = entry.session.kind === "portforward" ? portForwardProtocols : execProtocols;
    const protocol = negotiateProtocol(req.headers["x-stream-protocol-version"], supported);
    if (protocol === undefined) {
      const client = String(req.headers["x-stream-protocol-version"] ?? "");
      return answer(socket, "403 Forbidden", `unable to upgrade: unable to negotiate protocol: client supports [${client}], server supports [${supported.join(" ")}]\n`, { "X-Accepted-Stream-Protocol-Versions": supported.join(", ") });
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
    if (head.length > 0) socket.unshift(head);
    const session = entry.session;
    let onStream: (s: SpdyStream) => void = () => undefined;
    const conn = new SpdyServerConnection(socket, (s) => onStream(s), log);
    connections.add(conn);
    conn.onClose(() => connections.delete(conn));
    onStream = session.kind === "exec" ? serveExec(conn, session, runtime, log) : session.kind === "attach" ? serveExec(conn, session, runtime, log) : servePortForward(conn, session, runtime, log);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    register(session) {
      if (session.kind !== "portforward") runtime.execTarget(session.containerId);
      else runtime.checkSandbox(session.podSandboxId);
      const token = randomBytes(6).toString("base64url");
      const timer = setTimeout(() => sessions.delete(token), tokenTTLMs);
      timer.unref();
      sessions.set(token, { session, timer });
      return `http://127.0.0.1:${port}/${session.kind}/${token}`;
    },
    async close() {
      for (const { timer } of sessions.values()) clearTimeout(timer);
      sessions.clear();
      for (const c of connections) c.close();
      for (const c of wsConnections) c.close();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function serveExec(conn: SpdyServerConnection, session: ExecSession | AttachSession, runtime: StreamingRuntime, log: (message: string) => void): (s: SpdyStream) => void {
  const want = new Set(["error", ...(session.stdin ? ["stdin"] : []), ...(session.stdout ? ["stdout"] : []), ...(session.stderr && !session.tty ? ["stderr"] : []), ...(session.tty ? ["resize"] : [])]);
  const streams = new Map<string, SpdyStream>();
  const timer = setTimeout(() => {
    log(`exec in ${session.containerId}: timed out waiting for the client's streams (have ${[...streams.keys()].join(", ")})`);
    conn.close();
  }, streamCreationTimeoutMs);
  conn.onClose(() => clearTimeout(timer));
  let started = false;
  return (s) => {
    const type = s.header("streamtype");
    if (!want.has(type) || streams.has(type) || started) {
      void conn.reset(s.id, spdyRstStatus.refusedStream);
      return;
    }
    streams.set(type, s);
    if (streams.size === want.size) {
      started = true;
      clearTimeout(timer);
      runExec(conn, session, streams, runtime);
    }
  };
}

function runExec(conn: StreamConnection, session: ExecSession | AttachSession, streams: ReadonlyMap<string, Duplex>, runtime: StreamingRuntime): void {
  if (session.kind !== "exec") return runAttach(conn, session, streams, runtime);
  const errorStream = streams.get("error");
  const stdout = streams.get("stdout");
  const finish = async (status: Record<string, unknown>) => {
    await Promise.all(
      [stdout, streams.get("stderr")].map(
        (s) =>
          new Promise<void>((r) => {
            if (!s || s.writableEnded) return r();
            s.end(() => r());
          }),
      ),
    );
    await new Promise<void>((r) => (errorStream ? errorStream.end(JSON.stringify(status), () => r()) : r()));
    await conn.shutdown();
  };
  let target: ExecTarget;
  try {
    target = runtime.execTarget(session.containerId);
  } catch (err) {
    void finish({ metadata: {}, status: "Failure", message: err instanceof Error ? err.message : String(err), reason: "InternalError", code: 500 });
    return;
  }
  const resize = streams.get("resize");
  const sizes = session.tty && resize ? new TerminalSizes(resize) : undefined;
  if (!sizes) return spawnExec(conn, session, streams, target, finish, undefined, undefined);
  // The client sends its terminal's size as soon as the streams are up: the command starts with it
  // set, so a shell's first `stty size` never sees 0x0 (a size set after the start raced the
  // command on a loaded node: CI, kubectl 1.27 `exec -it` + `stty size`).
  void sizes.first(firstTerminalSizeWaitMs).then((size) => spawnExec(conn, session, streams, target, finish, sizes, size));
}

/** How long an exec with a terminal waits for the client's first terminal size before it starts without one (ms). */
const firstTerminalSizeWaitMs = 1_000;

function spawnExec(
  conn: StreamConnection,
  session: ExecSession,
  streams: ReadonlyMap<string, Duplex>,
  target: ExecTarget,
  finish: (status: Record<string, unknown>) => Promise<void>,
  sizes: TerminalSizes | undefined,
  size: TerminalSize | undefined,
): void {
  const stdin = streams.get("stdin");
  const stdout = streams.get("stdout");
  const stderr = streams.get("stderr") ?? (session.tty ? stdout : undefined);
  let spec: ReturnType<ExecTarget["spawnSpec"]>;
  try {
    // A terminal: `script` makes the pseudo-terminal where the command runs (inside the container's
    // namespaces when isolated, where /dev has its own ptmx), its size set first when known.
    spec = target.spawnSpec(session.tty ? ["script", "-qfec", terminalCommand(session.cmd, size), "/dev/null"] : [...session.cmd]);
  } catch (err) {
    void finish({ metadata: {}, status: "Failure", message: err instanceof Error ? err.message : String(err), reason: "InternalError", code: 500 });
    return;
  }
  const argv = [spec.file, ...spec.args];
  const env = session.tty ? { TERM: "xterm", ...spec.env } : { ...spec.env };
  const child = spawn(argv[0] ?? "", argv.slice(1), { cwd: spec.cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  let untrack: () => void = () => undefined;
  child.once("spawn", () => {
    if (child.pid !== undefined) untrack = target.track(child.pid);
  });
  child.stdin.on("error", () => undefined);
  if (stdin) stdin.pipe(child.stdin);
  else child.stdin.end();
  if (stdout) child.stdout.pipe(stdout, { end: false });
  else child.stdout.resume();
  if (stderr) child.stderr.pipe(stderr, { end: false });
  else child.stderr.resume();
  let exited = false;
  child.once("exit", () => (exited = true));
  if (sizes && child.pid !== undefined) {
    // Each later size in turn; a newer one supersedes one still waiting for the terminal.
    const pid = child.pid;
    let latest = 0;
    let chain = Promise.resolve();
    sizes.follow((later) => {
      const seq = ++latest;
      chain = chain.then(() => applyTerminalSize(pid, later, () => !exited && seq === latest));
    });
  }
  // A client that goes away ends the command's stdin; the command then finishes on its own.
  conn.onClose(() => child.stdin.end());
  child.once("error", (err: NodeJS.ErrnoException) => {
    untrack();
    // As runc reports an exec it cannot start: the reason on the output, exit code 126.
    const why = err.code === "ENOENT" ? `exec: ${JSON.stringify(session.cmd[0] ?? "")}: executable file not found in $PATH` : err.message;
    const out = stderr ?? stdout;
    if (out && !out.writableEnded) out.write(`exec failed: unable to start container process: ${why}: unknown\r\n`);
    void finish(exitStatus(126, session.cmd));
  });
  child.once("close", (code, signal) => {
    untrack();
    void finish(exitStatus(code ?? (signal ? 128 + (signalNumbers[signal] ?? 0) : 1), session.cmd));
  });
}

/**
 * Splits the resize stream's concatenated JSON objects (`{"Width":80,"Height":24}`) into sizes.
 * Returns the sizes complete so far and the rest. Pure; an object that is not a size is skipped.
 */
export function parseTerminalSizes(text: string): { sizes: Array<{ width: number; height: number }>; rest: string } {
  const sizes: Array<{ width: number; height: number }> = [];
  let rest = text;
  for (;;) {
    const start = rest.indexOf("{");
    const end = rest.indexOf("}", start);
    if (start < 0 || end < 0) break;
    try {
      const v = JSON.parse(rest.slice(start, end + 1)) as { Width?: unknown; Height?: unknown };
      if (typeof v.Width === "number" && typeof v.Height === "number" && v.Width >= 0 && v.Height >= 0 && v.Width < 65536 && v.Height < 65536) sizes.push({ width: v.Width, height: v.Height });
    } catch {
      // Not a size: skipped.
    }
    rest = rest.slice(end + 1);
  }
  return { sizes, rest: rest.length > 4096 ? "" : rest };
}

// The terminal of the command `script` runs: its child's stdin, a /dev/pts device.
async function terminalOf(rootPid: number): Promise<string | undefined> {
  // The first process below `rootPid` (script's child, under nsenter and setpriv when isolated)
  // whose stdin is a pseudo-terminal; /proc/<pid>/fd/0 opens that terminal from any mount namespace.
  let level = [String(rootPid)];
  for (let depth = 0; depth < 6 && level.length > 0; depth++) {
    const next: string[] = [];
    for (const pid of level) {
      const children = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "");
      for (const child of children.trim().split(/\s+/).filter((c) => c !== "")) {
        const tty = await readlink(`/proc/${child}/fd/0`).catch(() => "");
        if (tty.startsWith("/dev/pts/")) return `/proc/${child}/fd/0`;
        next.push(child);
      }
    }
    level = next;
  }
  return undefined;
}

/** A terminal size from the resize stream, in character cells. */
interface TerminalSize {
  readonly width: number;
  readonly height: number;
}

/**
 * The sizes the client sends on the resize stream, read from the moment the streams are up: the
 * first one (for the command's start) and each later one (for {@link applyTerminalSize}).
 */
class TerminalSizes {
  private readonly seen: TerminalSize[] = [];
  private listener: ((size: TerminalSize) => void) | undefined;
  private waiter: (() => void) | undefined;

  constructor(resize: Duplex) {
    let buffered = "";
    resize.setEncoding("utf8");
    resize.on("data", (chunk: string) => {
      const { sizes, rest } = parseTerminalSizes(buffered + chunk);
      buffered = rest;
      for (const size of sizes) {
        if (this.listener) this.listener(size);
        else this.seen.push(size);
      }
      if (this.seen.length > 0) this.waiter?.();
    });
  }

  /** The newest size received within `timeoutMs` of the call (resolving as soon as one is), or undefined. */
  first(timeoutMs: number): Promise<TerminalSize | undefined> {
    if (this.seen.length > 0) return Promise.resolve(this.seen.at(-1));
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiter = undefined;
        resolve(this.seen.at(-1));
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiter = done;
    });
  }

  /** Calls `apply` with each size received from now on (those before were {@link first}'s to use). */
  follow(apply: (size: TerminalSize) => void): void {
    this.seen.length = 0;
    this.listener = apply;
  }
}

/** The command `script -c` runs: `cmd`, after setting the terminal to `size` when known (stty's error, if any, hidden). Pure. */
export function terminalCommand(cmd: readonly string[], size: TerminalSize | undefined): string {
  return size ? `stty rows ${String(size.height)} cols ${String(size.width)} 2>/dev/null; ${shellQuote(cmd)}` : shellQuote(cmd);
}

/**
 * Sets `size` on the terminal of the command `script` (pid `scriptPid`) runs. The terminal appears
 * only once script has started its child (under nsenter and setpriv when isolated, which can take
 * seconds on a loaded node), so the size waits for it while `wanted()` (the command runs and no
 * newer size came).
 */
async function applyTerminalSize(scriptPid: number, size: TerminalSize, wanted: () => boolean): Promise<void> {
  for (let delayMs = 20; wanted(); delayMs = Math.min(delayMs * 2, 250)) {
    const tty = await terminalOf(scriptPid);
    if (tty) {
      await new Promise<void>((r) => execFile("stty", ["-F", tty, "rows", String(size.height), "cols", String(size.width)], () => r()));
      return;
    }
    await new Promise((r) => setTimeout(r, delayMs));
  }
}

/**
 * Attach, output only: follows the container's CRI log file from its current end and writes each
 * line's content to the stdout or stderr stream (both to stdout with a tty), until the container
 * stops (then Success) or the client goes away.
 */
function runAttach(conn: StreamConnection, session: AttachSession, streams: ReadonlyMap<string, Duplex>, runtime: StreamingRuntime): void {
  const errorStream = streams.get("error");
  const stdout = streams.get("stdout");
  const stderr = streams.get("stderr") ?? (session.tty ? stdout : undefined);
  streams.get("resize")?.resume();
  let target: ExecTarget;
  try {
    target = runtime.execTarget(session.containerId);
  } catch (err) {
    errorStream?.end(JSON.stringify({ metadata: {}, status: "Failure", message: err instanceof Error ? err.message : String(err), reason: "InternalError", code: 500 }));
    void conn.shutdown();
    return;
  }
  let offset = -1;
  let partial = "";
  let stopped = false;
  conn.onClose(() => (stopped = true));
  // stdin: the client's bytes go to the main process's stdin, which stays open for the next
  // attach unless the container is `stdin_once` (then the first attach's end closes it, as CRI says).
  const stdin = streams.get("stdin");
  if (stdin) {
    const target_ = target.stdin;
    if (!target_) stdin.resume();
    else {
      stdin.on("data", (chunk: Buffer) => target_.writable.write(chunk));
      const detach = () => {
        if (target_.once) target_.writable.end();
      };
      stdin.once("end", detach);
      conn.onClose(detach);
    }
  }
  const poll = async (): Promise<void> => {
    while (!stopped) {
      const running = target.isRunning();
      const data = await readFrom(target.logPath, offset);
      if (offset < 0 || data.size < offset) {
        offset = data.size;
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      const text = partial + data.bytes.toString("utf8");
      offset += data.bytes.length;
      const lines = text.split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        const parsed = parseCRILogLine(line);
        if (!parsed.ok) continue;
        const out = parsed.value.stream === "stderr" ? stderr : stdout;
        if (out && !out.writableEnded) out.write(parsed.value.partial ? parsed.value.content : `${parsed.value.content}\n`);
      }
      if (!running) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const s of [stdout, streams.get("stderr")]) if (s && !s.writableEnded) s.end();
    errorStream?.end(JSON.stringify({ metadata: {}, status: "Success" }));
    await conn.shutdown();
  };
  void poll();
}

// The bytes of a file from `offset` (up to 1 MiB) and its size; empty when it cannot be read.
async function readFrom(path: string, offset: number): Promise<{ size: number; bytes: Buffer }> {
  const fh = await open(path, "r").catch(() => undefined);
  if (!fh) return { size: 0, bytes: Buffer.alloc(0) };
  try {
    const { size } = await fh.stat();
    if (offset < 0 || size <= offset) return { size, bytes: Buffer.alloc(0) };
    const bytes = Buffer.alloc(Math.min(size - offset, 1 << 20));
    const { bytesRead } = await fh.read(bytes, 0, bytes.length, offset);
    return { size, bytes: bytes.subarray(0, bytesRead) };
  } finally {
    await fh.close();
  }
}

const signalNumbers: Readonly<Record<string, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15, SIGPIPE: 13 };

function servePortForward(conn: SpdyServerConnection, session: PortForwardSession, runtime: StreamingRuntime, log: (message: string) => void): (s: SpdyStream) => void {
  const pairs = new Map<string, { error?: SpdyStream; data?: SpdyStream }>();
  return (s) => {
    const type = s.header("streamtype");
    const requestID = s.header("requestid") || String(type === "data" ? s.id - 2 : s.id);
    if (type !== "error" && type !== "data") {
      void conn.reset(s.id, spdyRstStatus.refusedStream);
      return;
    }
    const pair = pairs.get(requestID) ?? {};
    if (pair[type]) {
      void conn.reset(s.id, spdyRstStatus.protocolError);
      return;
    }
    pair[type] = s;
    pairs.set(requestID, pair);
    if (type === "error") s.resume();
    const { error, data } = pair;
    if (!error || !data) return;
    pairs.delete(requestID);
    const portText = data.header("port");
    const port = /^\d+$/.test(portText) ? Number(portText) : NaN;
    const fail = (message: string) => {
      error.end(message);
      data.end();
    };
    if (!(port >= 1 && port <= 65535)) return fail(`invalid port ${JSON.stringify(portText)}`);
    let closed = false;
    let tcp: Duplex | undefined;
    conn.onClose(() => {
      closed = true;
      tcp?.destroy();
    });
    runtime.connectPort(session.podSandboxId, port).then(
      (socket) => {
        tcp = socket;
        if (closed) return void socket.destroy();
        socket.on("error", (err) => {
          log(`port-forward ${session.podSandboxId}:${port}: ${err.message}`);
          socket.destroy();
        });
        data.pipe(socket);
        socket.pipe(data);
        socket.once("close", () => {
          if (!error.writableEnded) error.end();
        });
      },
      (err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        log(`port-forward ${session.podSandboxId}:${port}: ${message}`);
        fail(`error forwarding port ${port} to pod ${session.podSandboxId}, uid : ${message}`);
      },
    );
  };
}

/**
 * Port-forward over WebSocket (1.23, what the official Python client uses): for the i-th port of
 * the session, channel 2i carries the data and 2i+1 the errors; each starts with the port number
 * (2 bytes, little-endian). One TCP connection per port; the WebSocket closes once every port's
 * connection has ended.
 *
 * @see pkg/kubelet/cri/streaming/portforward/websocket.go in kubernetes/kubernetes v1.23
 */
function serveWebSocketPortForward(conn: WebSocketChannelConnection, session: PortForwardSession, runtime: StreamingRuntime, log: (message: string) => void): void {
  let open = session.ports.length;
  const done = () => {
    open -= 1;
    if (open === 0) void conn.shutdown();
  };
  session.ports.forEach((port, i) => {
    const data = conn.channel(2 * i);
    const error = conn.channel(2 * i + 1);
    const portBytes = Buffer.alloc(2);
    portBytes.writeUInt16LE(port & 0xffff);
    void conn.send(2 * i, portBytes).then(() => conn.send(2 * i + 1, portBytes));
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      done();
    };
    let closed = false;
    let tcp: Duplex | undefined;
    conn.onClose(() => {
      closed = true;
      tcp?.destroy();
    });
    runtime.connectPort(session.podSandboxId, port).then(
      (socket) => {
        tcp = socket;
        if (closed) return void socket.destroy();
        socket.on("error", (err) => {
          log(`port-forward ${session.podSandboxId}:${port}: ${err.message}`);
          socket.destroy();
        });
        data.pipe(socket);
        socket.on("data", (chunk: Buffer) => data.write(chunk));
        socket.once("close", finish);
      },
      (err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        log(`port-forward ${session.podSandboxId}:${port}: ${message}`);
        error.write(`error forwarding port ${port} to pod ${session.podSandboxId}, uid : ${message}`);
        finish();
      },
    );
  });
}

