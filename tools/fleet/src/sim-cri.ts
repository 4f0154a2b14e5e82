/**
 * A CRI runtime and image service in this process, one per hollow node: sandboxes and containers
 * are records, a container "runs" for the time its command asks (see {@link simulateCommand}),
 * nothing is spawned. The node agent talks to it through the same `RuntimeClient`/`ImageClient`
 * interfaces as to containerd.
 *
 * @see pkg/kubelet/cri/remote/fake/fake_runtime.go, pkg/kubemark/hollow_kubelet.go (fake runtime) in kubernetes/kubernetes v1.23
 */
import { createHash, randomBytes } from "node:crypto";
import { appendFile, mkdir } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import type {
  Container__Output,
  ContainerConfig,
  ContainerState__Output,
  ContainerStatus__Output,
  ImageClient,
  Image__Output,
  PodSandbox__Output,
  PodSandboxConfig,
  PodSandboxState__Output,
  RuntimeClient,
} from "@skiff/cri-api";
import { CRIError, formatCRILogLine } from "@skiff/cri-api";
import { simulateCommand } from "./sim-command.js";

interface SimSandbox {
  readonly id: string;
  readonly config: PodSandboxConfig;
  readonly nameKey: string;
  readonly createdAtNs: bigint;
  readonly ip: string;
  state: PodSandboxState__Output;
  /** The listed form, frozen, for `listed.state` (the relist lists every sandbox each second). */
  listed?: PodSandbox__Output;
}

interface SimContainer {
  readonly id: string;
  readonly sandbox: SimSandbox;
  readonly config: ContainerConfig;
  readonly image: Image__Output;
  readonly logPath: string;
  readonly createdAtNs: bigint;
  state: ContainerState__Output;
  startedAtNs: bigint;
  finishedAtNs: bigint;
  exitCode: number;
  reason: string;
  timer?: NodeJS.Timeout;
  /** The listed form, frozen, for `listed.state`. */
  listed?: Container__Output;
}

const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;
const newId = (): string => randomBytes(32).toString("hex");
const notFound = (method: string, details: string) => new CRIError({ code: "NotFound", method, details });
const unimplemented = (method: string) => new CRIError({ code: "Unimplemented", method, details: `${method} is not implemented by the simulated runtime (hollow node)` });

function matches(labels: Readonly<Record<string, string>>, selector: Readonly<Record<string, string>> | null | undefined): boolean {
  if (!selector) return true;
  for (const k in selector) if (labels[k] !== selector[k]) return false;
  return true;
}

function deepFreeze<T extends object>(o: T): T {
  for (const v of Object.values(o)) if (typeof v === "object" && v !== null && !Object.isFrozen(v)) deepFreeze(v as object);
  return Object.freeze(o);
}

/**
 * Image records shared by every hollow node of a fleet: an image's id, digest and size are
 * derived from its name once (nodes differ only in which images they have pulled).
 */
export class SimulatedImageCatalog {
  private readonly images = new Map<string, Image__Output>();

  /** The record of `name` (a tag, `name@sha256:...` or an image id). Pure per name. */
  lookup(name: string): Image__Output {
    let image = this.images.get(name);
    if (!image) {
      const hex = createHash("sha256").update(name).digest("hex");
      const repo = name.replace(/[:@].*$/, "");
      const tag = name.includes("@") || name.startsWith("sha256:") ? [] : [name.includes(":") ? name : `${name}:latest`];
      // A stable size between 1 and 5 MB: node.status.images sorts by it.
      const size = 1_000_000 + (Number.parseInt(hex.slice(0, 6), 16) % 4_000_000);
      image = { id: `sha256:${hex}`, repoTags: tag, repoDigests: [`${repo}@sha256:${hex}`], size: String(size), uid: null, username: "", spec: { image: name, annotations: {} } };
      this.images.set(name, image);
    }
    return image;
  }
}

/** Options of {@link SimulatedRuntime}. */
export interface SimulatedRuntimeOptions {
  /** The fleet's shared image records. */
  readonly catalog: SimulatedImageCatalog;
  /** The pod IP of the n-th sandbox of this node (n from 0). */
  readonly podIP: (n: number) => string;
  /** Called once per container that exits (tests, counters). */
  readonly onContainerExit?: (exitCode: number) => void;
}

/**
 * One hollow node's runtime state and its CRI clients ({@link runtimeClient}, {@link imageClient}).
 * Containers: `startContainer` → running; exit after the command's duration with its exit code
 * (reason `Completed` or `Error`); its `echo` output is written to the log file in the CRI format;
 * `stopContainer` ends it at once with 143 (SIGTERM), or 137 with a zero grace period. Images:
 * `pullImage` records the image as present; nothing is downloaded. Exec, attach, port-forward and
 * stats answer `Unimplemented`; `execSync` (exec probes) answers exit code 0 with no output.
 */
export class SimulatedRuntime {
  private readonly sandboxes = new Map<string, SimSandbox>();
  private readonly containers = new Map<string, SimContainer>();
  private readonly pulled = new Map<string, Image__Output>();
  private sandboxCount = 0;

  constructor(private readonly o: SimulatedRuntimeOptions) {}

  /** How many containers are running now. */
  get runningContainers(): number {
    let n = 0;
    for (const c of this.containers.values()) if (c.state === "CONTAINER_RUNNING") n++;
    return n;
  }

  /** Ends every running container's timer (the hollow node stops); records stay. */
  close(): void {
    for (const c of this.containers.values()) clearTimeout(c.timer);
  }

  private sandbox(method: string, id: string | undefined): SimSandbox {
    const s = this.sandboxes.get(id ?? "");
    if (!s) throw notFound(method, `pod sandbox ${JSON.stringify(id ?? "")} not found`);
    return s;
  }

  private container(method: string, id: string | undefined): SimContainer {
    const c = this.containers.get(id ?? "");
    if (!c) throw notFound(method, `container ${JSON.stringify(id ?? "")} not found`);
    return c;
  }

  private exit(c: SimContainer, exitCode: number, reason: string): void {
    if (c.state !== "CONTAINER_RUNNING") return;
    clearTimeout(c.timer);
    c.state = "CONTAINER_EXITED";
    c.finishedAtNs = nowNs();
    c.exitCode = exitCode;
    c.reason = reason;
    this.o.onContainerExit?.(exitCode);
  }

  private start(c: SimContainer): void {
    const env = new Map((c.config.envs ?? []).map((e) => [e.key ?? "", e.value ?? ""]));
    const run = simulateCommand([...(c.config.command ?? []), ...(c.config.args ?? [])], c.config.image?.image ?? "", env);
    c.state = "CONTAINER_RUNNING";
    c.startedAtNs = nowNs();
    if (run.stdout.length > 0 && c.logPath !== "") {
      const text = Buffer.concat(run.stdout.flatMap((line) => line.split("\n")).map((content) => formatCRILogLine({ timeNs: c.startedAtNs, stream: "stdout", partial: false, content })));
      const logPath = c.logPath;
      // The runtime creates the container's log directory, as containerd does.
      void mkdir(dirname(logPath), { recursive: true })
        .then(() => appendFile(logPath, text))
        .catch(() => undefined);
    }
    const done = () => this.exit(c, run.exitCode, run.exitCode === 0 ? "Completed" : "Error");
    // Timers beyond 2^31-1 ms overflow: `sleep infinity` (and the pause image) never exit.
    if (run.durationMs <= 2_147_483_647) c.timer = setTimeout(done, run.durationMs);
  }

  private stop(c: SimContainer, graceSeconds: number): void {
    this.exit(c, graceSeconds > 0 ? 143 : 137, "Error");
  }

  // The listed form is built once per state and shared by every list (frozen: a caller that changed
  // it would throw, not change the next list).
  private toContainer(c: SimContainer): Container__Output {
    if (c.listed?.state === c.state) return c.listed;
    c.listed = deepFreeze({
      id: c.id,
      podSandboxId: c.sandbox.id,
      metadata: { name: c.config.metadata?.name ?? "", attempt: c.config.metadata?.attempt ?? 0 },
      image: { image: c.image.repoTags[0] ?? c.image.id, annotations: {} },
      imageRef: c.image.id,
      state: c.state,
      createdAt: String(c.createdAtNs),
      labels: { ...c.config.labels },
      annotations: { ...c.config.annotations },
    });
    return c.listed;
  }

  private toSandbox(s: SimSandbox): PodSandbox__Output {
    if (s.listed?.state === s.state) return s.listed;
    const m = s.config.metadata;
    s.listed = deepFreeze({
      id: s.id,
      metadata: { name: m?.name ?? "", uid: m?.uid ?? "", namespace: m?.namespace ?? "", attempt: m?.attempt ?? 0 },
      state: s.state,
      createdAt: String(s.createdAtNs),
      labels: { ...s.config.labels },
      annotations: { ...s.config.annotations },
      runtimeHandler: "",
    });
    return s.listed;
  }

  private containerStatusOf(c: SimContainer): ContainerStatus__Output {
    return {
      ...this.toContainer(c),
      startedAt: String(c.startedAtNs),
      finishedAt: String(c.finishedAtNs),
      exitCode: c.exitCode,
      reason: c.reason,
      message: "",
      mounts: (c.config.mounts ?? []).map((m) => ({ containerPath: m.containerPath ?? "", hostPath: m.hostPath ?? "", readonly: m.readonly ?? false, selinuxRelabel: m.selinuxRelabel ?? false, propagation: "PROPAGATION_PRIVATE" })),
      logPath: c.logPath,
    };
  }

  /** The node's `RuntimeService` client. */
  runtimeClient(): RuntimeClient {
    const version = { version: "0.1.0", runtimeName: "skiff-simulated", runtimeVersion: "0.1.0", runtimeApiVersion: "v1" };
    return {
      version: async () => version,
      status: async () => ({
        status: {
          conditions: [
            { type: "RuntimeReady", status: true, reason: "", message: "" },
            { type: "NetworkReady", status: true, reason: "", message: "" },
          ],
        },
        info: {},
      }),
      runPodSandbox: async (req) => {
        const config = req.config ?? {};
        const m = config.metadata;
        if (!m?.name || !m.namespace || !m.uid) throw new CRIError({ code: "InvalidArgument", method: "RunPodSandbox", details: "config.metadata with name, namespace and uid is required" });
        const nameKey = `${m.name}_${m.namespace}_${m.uid}_${m.attempt ?? 0}`;
        for (const s of this.sandboxes.values()) if (s.nameKey === nameKey) throw new CRIError({ code: "AlreadyExists", method: "RunPodSandbox", details: `sandbox name ${JSON.stringify(nameKey)} is reserved for ${s.id}` });
        const hostNetwork = config.linux?.securityContext?.namespaceOptions?.network === "NODE";
        const s: SimSandbox = { id: newId(), config, nameKey, createdAtNs: nowNs(), ip: hostNetwork ? "" : this.o.podIP(this.sandboxCount++), state: "SANDBOX_READY" };
        this.sandboxes.set(s.id, s);
        return { podSandboxId: s.id };
      },
      stopPodSandbox: async (req) => {
        const s = this.sandboxes.get(req.podSandboxId ?? "");
        if (s) {
          for (const c of this.containers.values()) if (c.sandbox === s) this.stop(c, 0);
          s.state = "SANDBOX_NOTREADY";
        }
        return {};
      },
      removePodSandbox: async (req) => {
        const s = this.sandboxes.get(req.podSandboxId ?? "");
        if (s) {
          for (const c of [...this.containers.values()]) {
            if (c.sandbox !== s) continue;
            this.stop(c, 0);
            this.containers.delete(c.id);
          }
          this.sandboxes.delete(s.id);
        }
        return {};
      },
      podSandboxStatus: async (req) => {
        const s = this.sandbox("PodSandboxStatus", req.podSandboxId);
        return {
          status: { ...this.toSandbox(s), network: { ip: s.ip, additionalIps: [] }, linux: null },
          info: {},
        };
      },
      listPodSandbox: async (req) => {
        const f = req?.filter;
        const items: PodSandbox__Output[] = [];
        for (const s of this.sandboxes.values()) {
          if (f?.id && !s.id.startsWith(f.id)) continue;
          if (f?.state && f.state.state !== s.state) continue;
          if (!matches(s.config.labels ?? {}, f?.labelSelector)) continue;
          items.push(this.toSandbox(s));
        }
        return { items };
      },
      createContainer: async (req) => {
        const method = "CreateContainer";
        const config = req.config ?? {};
        if (!config.metadata?.name) throw new CRIError({ code: "InvalidArgument", method, details: "config.metadata.name is required" });
        const s = this.sandbox(method, req.podSandboxId);
        if (s.state !== "SANDBOX_READY") throw new CRIError({ code: "FailedPrecondition", method, details: `pod sandbox ${s.id} is not ready` });
        const imageName = config.image?.image ?? "";
        const image = this.pulled.get(imageKey(imageName)) ?? [...this.pulled.values()].find((i) => i.id === imageName);
        if (!image) throw notFound(method, `image ${JSON.stringify(imageName)} not found: pull it first`);
        const logDir = s.config.logDirectory ?? "";
        const rel = config.logPath ?? "";
        const logPath = rel === "" ? "" : isAbsolute(rel) ? rel : join(logDir, rel);
        const c: SimContainer = { id: newId(), sandbox: s, config, image, logPath, createdAtNs: nowNs(), state: "CONTAINER_CREATED", startedAtNs: 0n, finishedAtNs: 0n, exitCode: 0, reason: "" };
        this.containers.set(c.id, c);
        return { containerId: c.id };
      },
      startContainer: async (req) => {
        const c = this.container("StartContainer", req.containerId);
        if (c.state !== "CONTAINER_CREATED") throw new CRIError({ code: "FailedPrecondition", method: "StartContainer", details: `container ${c.id} is in ${c.state} state, want CONTAINER_CREATED` });
        this.start(c);
        return {};
      },
      // Resources (the CPU manager's cpusets) have nothing to act on in a simulated container.
      updateContainerResources: async (req) => {
        if (!this.containers.has(req.containerId ?? "")) throw new CRIError({ code: "NotFound", method: "UpdateContainerResources", details: `container ${JSON.stringify(req.containerId ?? "")} not found` });
        return {};
      },
      stopContainer: async (req) => {
        const c = this.containers.get(req.containerId ?? "");
        if (c) this.stop(c, Number(req.timeout ?? 0));
        return {};
      },
      removeContainer: async (req) => {
        const c = this.containers.get(req.containerId ?? "");
        if (c) {
          this.stop(c, 0);
          this.containers.delete(c.id);
        }
        return {};
      },
      listContainers: async (req) => {
        const f = req?.filter;
        const containers: Container__Output[] = [];
        for (const c of this.containers.values()) {
          if (f?.id && !c.id.startsWith(f.id)) continue;
          if (f?.podSandboxId && !c.sandbox.id.startsWith(f.podSandboxId)) continue;
          if (f?.state && f.state.state !== c.state) continue;
          if (!matches(c.config.labels ?? {}, f?.labelSelector)) continue;
          containers.push(this.toContainer(c));
        }
        return { containers };
      },
      containerStatus: async (req) => ({ status: this.containerStatusOf(this.container("ContainerStatus", req.containerId)), info: {} }),
      reopenContainerLog: async (req) => {
        this.container("ReopenContainerLog", req.containerId);
        return {};
      },
      execSync: async (req) => {
        const c = this.container("ExecSync", req.containerId);
        if (c.state !== "CONTAINER_RUNNING") throw new CRIError({ code: "FailedPrecondition", method: "ExecSync", details: `container ${c.id} is not running` });
        return { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 0 };
      },
      containerStats: async () => Promise.reject(unimplemented("ContainerStats")),
      listContainerStats: async () => Promise.reject(unimplemented("ListContainerStats")),
      exec: async () => Promise.reject(unimplemented("Exec")),
      attach: async () => Promise.reject(unimplemented("Attach")),
      portForward: async () => Promise.reject(unimplemented("PortForward")),
      updateRuntimeConfig: async () => ({}),
      close: () => {},
    };
  }

  /** The node's `ImageService` client. */
  imageClient(): ImageClient {
    return {
      listImages: async () => ({ images: [...new Set(this.pulled.values())] }),
      imageStatus: async (req) => ({ image: this.pulled.get(imageKey(req.image?.image ?? "")) ?? null, info: {} }),
      pullImage: async (req) => {
        const name = req.image?.image ?? "";
        if (name === "") throw new CRIError({ code: "InvalidArgument", method: "PullImage", details: "image is required" });
        const image = this.o.catalog.lookup(name);
        this.pulled.set(imageKey(name), image);
        this.pulled.set(image.id, image);
        return { imageRef: image.id };
      },
      removeImage: async (req) => {
        const image = this.pulled.get(imageKey(req.image?.image ?? ""));
        if (image) for (const [k, v] of this.pulled) if (v === image) this.pulled.delete(k);
        return {};
      },
      imageFsInfo: async () => ({ imageFilesystems: [] }),
      close: () => {},
    };
  }
}

/**
 * The name a pulled image is kept under, as a real runtime resolves references: `busybox`,
 * `busybox:latest` and `docker.io/library/busybox:latest` are one image (the node agent pulls with
 * 1.23's default tag and creates containers with the pod's own spelling). Ids pass unchanged.
 */
function imageKey(name: string): string {
  if (name === "" || name.startsWith("sha256:")) return name;
  const tail = name.slice(name.lastIndexOf("/") + 1);
  let n = tail.includes(":") || name.includes("@") ? name : `${name}:latest`;
  if (n.startsWith("docker.io/library/")) n = n.slice("docker.io/library/".length);
  else if (n.startsWith("docker.io/")) n = n.slice("docker.io/".length);
  return n;
}

