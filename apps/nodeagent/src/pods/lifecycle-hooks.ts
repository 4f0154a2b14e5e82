import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Container, ContainerPort, LifecycleHandler, Pod } from "@skiff/api-types";
import { goQuote } from "@skiff/apimachinery";
import { isCRIError, type RuntimeClient } from "@skiff/cri-api";
import { describeDialError, hostPort, ProbeError, resolveProbePort } from "./prober.js";
import { formatPodForMessage } from "./security-context.js";

/** What running one lifecycle hook needs besides the handler. */
export interface LifecycleHookContext {
  readonly pod: Pod;
  /** The container's name and `ports` (named httpGet ports resolve against them). */
  readonly container: Pick<Container, "name" | "ports">;
  /** The container's runtime ID (without the `<runtime>://` prefix): exec hooks run in it. */
  readonly containerId: string;
  /** The pod's IP: the default host of an httpGet hook; `""` when the pod has none. */
  readonly podIP: string;
  /** The CRI runtime service (exec hooks run through ExecSync, without a deadline). */
  readonly runtime: Pick<RuntimeClient, "execSync">;
}

/** `User-Agent` of httpGet hooks unless the hook sets one (`kube-lifecycle/<major>.<minor>`, as the kubelet's consistent HTTP handlers). */
export const lifecycleUserAgent = "kube-lifecycle/1.23";

const maxRedirects = 10;
const maxResponseBodyBytes = 10 * 1024;

/**
 * Runs one lifecycle hook (`postStart` or `preStop`) of a container to its end, as 1.23's handler
 * runner: an `exec` hook runs the command in the container through CRI ExecSync without a timeout
 * (a non-zero exit status fails it); an `httpGet` hook sends one GET (to the pod IP unless `host`
 * is set; `port` a number or a container-port name, `""` meaning 80) and fails only when no
 * response comes back: any status code is a success, redirects are followed (at most 10). Anything
 * else (`tcpSocket`, which 1.23 accepts but cannot run) fails with `Cannot run handler: ...`.
 *
 * Departure, on purpose: 1.23 sends the httpGet hook as plain HTTP to `/<path>` and ignores
 * `scheme` and `httpHeaders`; Skiff honours both, strips one leading `/` of the path and sends
 * {@link lifecycleUserAgent}, as later Kubernetes releases do (ConsistentHTTPGetHandlers), since an
 * accepted field must have its effect.
 *
 * Returns `undefined` on success, else the failure message 1.23 puts in the `FailedPostStartHook`
 * / `FailedPreStopHook` event (`Exec lifecycle hook ([sh -c exit 3]) for Container "c" in Pod
 * "p_default(uid)" failed - error: command 'sh -c exit 3' exited with 3: , message: ""`). Never throws.
 * @see pkg/kubelet/lifecycle/handlers.go (Run, runHTTPHandler), pkg/kubelet/kuberuntime/kuberuntime_container.go (RunInContainer) in kubernetes/kubernetes v1.23
 */
export async function runLifecycleHook(handler: LifecycleHandler, ctx: LifecycleHookContext): Promise<string | undefined> {
  const where = `for Container ${goQuote(ctx.container.name)} in Pod ${goQuote(formatPodForMessage(ctx.pod))}`;
  if (handler.exec) {
    const command = handler.exec.command ?? [];
    const r = await runExecHook(command, ctx);
    if (r === undefined) return undefined;
    return `Exec lifecycle hook ([${command.join(" ")}]) ${where} failed - error: ${r.error}, message: ${goQuote(r.output)}`;
  }
  if (handler.httpGet) {
    const error = await runHttpHook(handler.httpGet, ctx);
    if (error === undefined) return undefined;
    return `HTTP lifecycle hook (${handler.httpGet.path ?? ""}) ${where} failed - error: ${error}, message: ""`;
  }
  return `Cannot run handler: invalid handler: ${formatHandler(handler)}`;
}

async function runExecHook(command: readonly string[], ctx: LifecycleHookContext): Promise<{ error: string; output: string } | undefined> {
  try {
    const r = await ctx.runtime.execSync({ containerId: ctx.containerId, cmd: [...command], timeout: 0 });
    if (r.exitCode === 0) return undefined;
    const stdout = Buffer.from(r.stdout).toString("utf8");
    const stderr = Buffer.from(r.stderr).toString("utf8");
    // The CRI client's CodeExitError, then RunInContainer's stdout followed by stderr.
    return { error: `command '${command.join(" ")}' exited with ${r.exitCode}: ${stderr}`, output: stdout + stderr };
  } catch (err) {
    const error = isCRIError(err) ? `rpc error: code = ${err.code} desc = ${err.details}` : err instanceof Error ? err.message : String(err);
    return { error, output: "" };
  }
}

function runHttpHook(action: NonNullable<LifecycleHandler["httpGet"]>, ctx: LifecycleHookContext): Promise<string | undefined> {
  const host = action.host || ctx.podIP;
  if (host === "") return Promise.resolve("failed to find networking container");
  let port: number;
  try {
    port = action.port === "" ? 80 : resolveProbePort(action.port, { name: ctx.container.name, ports: ctx.container.ports ?? ([] as ContainerPort[]) });
  } catch (err) {
    return Promise.resolve(err instanceof ProbeError ? err.message : String(err));
  }
  const scheme = (action.scheme ?? "HTTP").toLowerCase() === "https" ? "https" : "http";
  let path = action.path ?? "";
  if (path.startsWith("/")) path = path.slice(1);
  let url: URL;
  try {
    url = new URL(`${scheme}://${hostPort(host, port)}/${path}`);
  } catch {
    return Promise.resolve(`parse ${goQuote(`${scheme}://${hostPort(host, port)}/${path}`)}: invalid URL`);
  }
  const headers: Record<string, string | string[]> = {};
  for (const h of action.httpHeaders ?? []) {
    const name = h.name.toLowerCase();
    const prev = headers[name];
    headers[name] = prev === undefined ? h.value : [...(Array.isArray(prev) ? prev : [prev]), h.value];
  }
  if (headers["user-agent"] === undefined) headers["user-agent"] = lifecycleUserAgent;
  if (headers.accept === undefined) headers.accept = "*/*";
  return getFollowingRedirects(url, headers, 0);
}

// One GET; a response of any status is a success (the body is read, up to 10 KiB, and dropped).
function getFollowingRedirects(url: URL, headers: Record<string, string | string[]>, redirects: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const requestFn = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = requestFn(url, { method: "GET", headers, rejectUnauthorized: false, agent: false });
    req.on("error", (err: NodeJS.ErrnoException) => resolve(`Get ${goQuote(url.toString())}: ${describeDialError(err, url)}`));
    req.on("response", (res: IncomingMessage) => {
      const code = res.statusCode ?? 0;
      const location = res.headers.location;
      if (code >= 300 && code < 400 && code !== 304 && location !== undefined) {
        res.resume();
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          resolve(`Get ${goQuote(url.toString())}: failed to parse Location header ${goQuote(location)}`);
          return;
        }
        if (redirects + 1 > maxRedirects) {
          resolve(`Get ${goQuote(next.toString())}: stopped after 10 redirects`);
          return;
        }
        void getFollowingRedirects(next, headers, redirects + 1).then(resolve);
        return;
      }
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > maxResponseBodyBytes) res.destroy();
      });
      res.on("close", () => resolve(undefined));
      res.on("error", () => resolve(undefined));
    });
    req.end();
  });
}

// Go's %v of a *v1.LifecycleHandler (its generated String()): the only handlers that reach it
// have neither exec nor httpGet.
function formatHandler(h: LifecycleHandler): string {
  const tcp = h.tcpSocket;
  let tcpText = "nil";
  if (tcp) {
    const port = typeof tcp.port === "number" ? `{0 ${tcp.port} }` : `{1 0 ${tcp.port}}`;
    tcpText = `&TCPSocketAction{Port:${port},Host:${tcp.host ?? ""},}`;
  }
  return `&LifecycleHandler{Exec:nil,HTTPGet:nil,TCPSocket:${tcpText},}`;
}
