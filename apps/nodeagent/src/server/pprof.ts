/**
 * The profiling handler (`enableProfilingHandler`, on by default with the debugging handlers):
 * `/debug/pprof/` as the kubelet mounts Go's `net/http/pprof`, serving this process's runtime
 * profiles in V8's formats instead of Go's: `profile` is a V8 CPU profile (`.cpuprofile` JSON,
 * opened by Chrome DevTools or `speedscope`), `heap` a V8 heap snapshot (`.heapsnapshot`),
 * `cmdline` the command line. Go-only profiles (goroutine, block, mutex, threadcreate, trace)
 * answer 404 `Unknown profile`, as Go's handler does for a name it does not know.
 *
 * @see pkg/kubelet/server/server.go (InstallProfilingHandler) in kubernetes/kubernetes v1.23
 * @see src/net/http/pprof/pprof.go (Index, Cmdline, Profile, Handler.ServeHTTP) in Go 1.17
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { Session } from "node:inspector";
import { getHeapSnapshot } from "node:v8";

/** Profiles served, with Go's index descriptions adapted to V8. */
const profiles: readonly { readonly name: string; readonly description: string }[] = [
  { name: "cmdline", description: "The command line invocation of the current program" },
  { name: "heap", description: "A V8 heap snapshot of the live objects (.heapsnapshot; open it in Chrome DevTools)." },
  { name: "profile", description: "V8 CPU profile (.cpuprofile). You can specify the duration in the seconds GET parameter. After you get the profile file, open it in Chrome DevTools or speedscope." },
];

/** Go's default CPU profile duration, in seconds. */
const defaultProfileSeconds = 30;

/** Options of {@link installProfilingHandler}. */
export interface ProfilingHandlerOptions {
  /** The process's command line (`process.argv`). */
  readonly argv?: readonly string[];
  /** The server's write timeout in seconds: longer CPU profiles are refused, as Go's handler. @defaultValue 4 hours (the kubelet's streaming limit) */
  readonly writeTimeoutSeconds?: number;
}

function goError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).header("Content-Type", "text/plain; charset=utf-8").header("X-Content-Type-Options", "nosniff").header("X-Go-Pprof", "1").send(`${message}\n`);
}

function attachment(reply: FastifyReply, name: string): FastifyReply {
  return reply.code(200).header("Content-Type", "application/octet-stream").header("Content-Disposition", `attachment; filename="${name}"`).header("X-Content-Type-Options", "nosniff");
}

function indexPage(): string {
  const rows = profiles.map((p) => `<tr><td><a href='${p.name}?debug=1'>${p.name}</a></td></tr>`).join("\n");
  const descriptions = profiles.map((p) => `<li><div class=profile-name>${p.name}: </div> ${p.description}</li>`).join("\n");
  return `<html>
<head>
<title>/debug/pprof/</title>
</head>
<body>
/debug/pprof/<br>
<br>
Types of profiles available:
<table>
<thead><td>Count</td><td>Profile</td></thead>
${rows}
</table>
<a href="profile">CPU profile</a>
<br>
<p>
Profile Descriptions:
<ul>
${descriptions}
</ul>
</p>
</body>
</html>
`;
}

let cpuProfiling = false;

/**
 * Records a V8 CPU profile of this process for `seconds` (or until `signal` aborts) and returns
 * it as `.cpuprofile` JSON. Throws Error `cpu profiling already in use` while another runs
 * (Go's message), or the inspector's error.
 */
async function recordCPUProfile(seconds: number, signal: AbortSignal): Promise<string> {
  if (cpuProfiling) throw new Error("cpu profiling already in use");
  cpuProfiling = true;
  const session = new Session();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result))));
  try {
    session.connect();
    await post("Profiler.enable");
    await post("Profiler.start");
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, seconds * 1000);
      signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
    });
    const result = (await post("Profiler.stop")) as { profile: unknown };
    return JSON.stringify(result.profile);
  } finally {
    session.disconnect();
    cpuProfiling = false;
  }
}

/**
 * Installs `/debug/pprof/` (index; `/debug/pprof` redirects there), `/debug/pprof/cmdline`, `/debug/pprof/profile?seconds=N`
 * (N ≤ 0 or not an integer: 30, as Go; longer than the write timeout: 400) and
 * `/debug/pprof/heap`; any other profile name answers 404 `Unknown profile`.
 */
export function installProfilingHandler(app: FastifyInstance, options: ProfilingHandlerOptions = {}): void {
  const argv = options.argv ?? process.argv;
  const writeTimeoutSeconds = options.writeTimeoutSeconds ?? 4 * 60 * 60;
  app.get("/debug/pprof", async (_req, reply) => reply.code(301).header("Location", "/debug/pprof/").send());
  app.get("/debug/pprof/", async (_req, reply) => reply.code(200).header("Content-Type", "text/html; charset=utf-8").header("X-Content-Type-Options", "nosniff").send(indexPage()));
  app.all("/debug/pprof/*", async (req, reply) => {
    const url = new URL(req.url, "http://localhost");
    const name = url.pathname.slice("/debug/pprof/".length);
    switch (name) {
      case "cmdline":
        return reply.code(200).header("Content-Type", "text/plain; charset=utf-8").header("X-Content-Type-Options", "nosniff").send(argv.join("\x00"));
      case "profile": {
        const raw = url.searchParams.get("seconds") ?? "";
        let seconds = /^[+-]?\d+$/.test(raw) ? Number(raw) : 0;
        if (!(seconds > 0)) seconds = defaultProfileSeconds;
        if (seconds > writeTimeoutSeconds) return goError(reply, 400, "profile duration exceeds server's WriteTimeout");
        const aborted = new AbortController();
        req.raw.once("close", () => aborted.abort());
        let profile: string;
        try {
          profile = await recordCPUProfile(seconds, aborted.signal);
        } catch (err) {
          return goError(reply, 500, `Could not enable CPU profiling: ${err instanceof Error ? err.message : String(err)}`);
        }
        return attachment(reply, "profile").send(profile);
      }
      case "heap":
        return attachment(reply, name).send(getHeapSnapshot());
      default:
        return goError(reply, 404, "Unknown profile");
    }
  });
}
