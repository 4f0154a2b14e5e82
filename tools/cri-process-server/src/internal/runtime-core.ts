import { randomBytes } from "node:crypto";
import type { Writable } from "node:stream";
import { constants } from "node:fs";
import { access, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { hostname as hostHostname } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { connectWithLargeReads } from "@skiff/apimachinery/proxy";
import { CRIError } from "@skiff/cri-api";
import { cgroupParentExists, cgroupsAvailable, containerCgroupDirs, createContainerCgroups, removeContainerCgroups, wrapJoiningCgroups, type CgroupDir } from "./cgroups.js";
import type {
  Container as CRIContainer,
  ContainerConfig__Output,
  ContainerState__Output,
  ContainerStatusRequest__Output,
  ContainerStatusResponse,
  CreateContainerRequest__Output,
  CreateContainerResponse,
  ExecSyncRequest__Output,
  ExecSyncResponse,
  LinuxContainerResources__Output,
  ListContainersRequest__Output,
  ListContainersResponse,
  ListPodSandboxRequest__Output,
  ListPodSandboxResponse,
  NamespaceOption,
  PodSandbox,
  PodSandboxConfig__Output,
  PodSandboxMetadata__Output,
  PodSandboxState__Output,
  PodSandboxStatusRequest__Output,
  PodSandboxStatusResponse,
  RunPodSandboxRequest__Output,
  RunPodSandboxResponse,
  StatusRequest__Output,
  StatusResponse,
  UpdateRuntimeConfigRequest__Output,
  VersionRequest__Output,
  VersionResponse,
} from "@skiff/cri-api";
import { nowNs } from "./clock.js";
import { checkpointVersion, processAlive, processStartTime, readRecord, RecordWriter } from "./checkpoint.js";
import { AdoptedProcess, ContainerProcess, execCommand, killGroup, type ContainerRunner, type EnterPIDNamespace, type ProcessExit } from "./container-process.js";
import { bwrapArgs, defaultCapabilities, type BindMount } from "./bwrap.js";
import { alreadyExists, failedPrecondition, invalidArgument, notFound, unknownError } from "./errors.js";
import { identityOf, sandboxNotApplied, wrapWithIdentity, type ProcessIdentity } from "./identity.js";
import { resolveArgv } from "./image-names.js";
import type { ImageStore, StoredImage } from "./image-store.js";
import { sandboxMounts, writeSandboxFiles, type SandboxFiles } from "./sandbox-files.js";
import type { Duplex } from "node:stream";
import { dialInNamespace } from "./netns-dial.js";
import { bridgesOf, deleteBridges, unmountNetns, type PodNetwork, type PortMapping, type SandboxNetwork } from "./pod-network.js";

interface Sandbox {
  id: string;
  nameKey: string;
  config: PodSandboxConfig__Output;
  metadata: PodSandboxMetadata__Output;
  state: PodSandboxState__Output;
  createdAtNs: bigint;
  runtimeHandler: string;
  /** Per-sandbox scratch directory under the state dir; the default working directory. */
  dir: string;
  hostNetwork: boolean;
  /** hostname, hosts, resolv.conf and shm of the sandbox (isolated runtimes only). */
  files?: SandboxFiles;
  /** Its network namespace and CNI result (pod networks only; kept after teardown for the IP). */
  network?: SandboxNetwork;
  /** Whether the network namespace is still set up. */
  networkUp?: boolean;
  /** Writes its record (`<dir>/sandbox.json`). */
  writer: RecordWriter;
  /** Removed (RemovePodSandbox): its record is not written any more. */
  removed?: boolean;
}

interface Container {
  id: string;
  sandbox: Sandbox;
  config: ContainerConfig__Output;
  image: StoredImage;
  /** The image as ContainerStatus reports it: its first name, else what the config said. */
  imageName: string;
  argv: string[];
  /** run_as_user/group, supplemental groups, no_new_privs, applied through setpriv. */
  identity: ProcessIdentity;
  cwd: string;
  env: Record<string, string>;
  logPath: string;
  state: ContainerState__Output;
  createdAtNs: bigint;
  startedAtNs: bigint;
  finishedAtNs: bigint;
  exitCode: number;
  reason: string;
  message: string;
  starting: boolean;
  removed: boolean;
  process?: ContainerRunner;
  /** Its main process as found again after a restart: PID, start time, group leader (recorded when started). */
  processIdentity?: { pid: number; startTime: string; groupPid: number; isolated: boolean };
  /** Writes its record (`<stateDir>/containers/<id>.json`). */
  writer: RecordWriter;
  execPids: Set<number>;
  /** The container's cgroups (`<cgroup_parent>/<id>`) when it is placed in them (root, a sandbox cgroup_parent). */
  cgroups?: CgroupDir[];
}

/** A container as the stats handlers see it; `pid` (its process group) only while it runs. */
export interface StatsTarget {
  id: string;
  metadata: ContainerConfig__Output["metadata"];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  pid?: number;
}

/**
 * How containers are run: `none` → plain host processes (the host's filesystem, hostname and PIDs);
 * `namespaces` → inside bubblewrap (`bwrapPath`): own mount, UTS and PID namespaces, the host's
 * root read-only, the CRI mounts and the sandbox's /etc files bound in. With `nsenterPath` (root),
 * ExecSync enters the container's namespaces; without, it runs on the host.
 */
export type Isolation = { mode: "none" } | { mode: "namespaces"; bwrapPath: string; nsenterPath: string | null };

export interface RuntimeCoreOptions {
  stateDir: string;
  images: ImageStore;
  log: (message: string) => void;
  isolation: Isolation;
  /**
   * Pod network namespaces (CNI), with the nsenter that joins them; undefined → every sandbox
   * shares the host's network (IP 127.0.0.1).
   */
  podNetwork?: { network: PodNetwork; nsenterPath: string };
  /** The cgroup mount root where containers are placed (root only). @defaultValue `/sys/fs/cgroup` */
  cgroupRoot?: string;
  /** The parent of containers whose sandbox has no `cgroup_parent`. @defaultValue {@link DEFAULT_CGROUP_PARENT} */
  defaultCgroupParent?: string;
}

/**
 * The path of `command` as `execvp` would run it (a name with a slash as is, relative to `cwd`;
 * otherwise the first executable match in the colon-separated `path`).
 * @throws Error in runc's words: `exec: "x": executable file not found in $PATH`, or
 *   `exec: "/x": stat /x: no such file or directory` / `permission denied`.
 */
export async function findExecutable(command: string, path: string, cwd: string): Promise<string> {
  const executable = async (f: string): Promise<NodeJS.ErrnoException | undefined> => {
    try {
      if (!(await stat(f)).isFile()) return Object.assign(new Error("is a directory"), { code: "EISDIR" });
      await access(f, constants.X_OK);
      return undefined;
    } catch (err) {
      return err as NodeJS.ErrnoException;
    }
  };
  if (command.includes("/")) {
    const f = resolve(cwd, command);
    const err = await executable(f);
    if (err === undefined) return f;
    const why = err.code === "ENOENT" ? "no such file or directory" : err.code === "EACCES" ? "permission denied" : err.code === "EISDIR" ? "is a directory" : err.message;
    throw new Error(`exec: ${JSON.stringify(command)}: stat ${command}: ${why}`);
  }
  if (command !== "") {
    for (const dir of path.split(":")) {
      const f = resolve(cwd, dir === "" ? "." : dir, command);
      if ((await executable(f)) === undefined) return f;
    }
  }
  throw new Error(`exec: ${JSON.stringify(command)}: executable file not found in $PATH`);
}

/**
 * Where a container whose sandbox has no `cgroup_parent` is placed (`/skiff-cri/<id>`), as
 * containerd's CRI places such containers under `/k8s.io/<id>` (its namespace) and runc still
 * applies their limits.
 */
export const DEFAULT_CGROUP_PARENT = "/skiff-cri";

/** How to spawn a command inside a running container (ExecSync; the seam for streaming Exec). */
export interface ExecSpawnSpec {
  file: string;
  args: string[];
  /** Host working directory of the spawned process (nsenter sets the container's itself). */
  cwd: string;
  env: Record<string, string>;
}

const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

function bigintOf(v: unknown): bigint {
  try {
    return BigInt(typeof v === "string" || typeof v === "number" ? v : 0);
  } catch {
    return 0n;
  }
}

// The mount points of this mount namespace (`/proc/self/mountinfo` field 5, octal escapes decoded).
async function mountPoints(): Promise<Set<string>> {
  const text = await readFile("/proc/self/mountinfo", "utf8").catch(() => "");
  const out = new Set<string>();
  for (const line of text.split("\n")) {
    const field = line.split(" ")[4];
    if (field) out.add(field.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(Number.parseInt(o, 8))));
  }
  return out;
}

const sandboxStates = new Set(["SANDBOX_READY", "SANDBOX_NOTREADY"]);

// A sandbox from its record; undefined when the record is not usable.
function sandboxFromRecord(id: string, dir: string, r: Record<string, unknown>, writer: RecordWriter): Sandbox | undefined {
  const config = r.config as PodSandboxConfig__Output | undefined;
  if (r.id !== id || !config?.metadata || typeof r.nameKey !== "string" || typeof r.state !== "string" || !sandboxStates.has(r.state)) return undefined;
  const network = r.network as SandboxNetwork | null | undefined;
  const files = r.files as SandboxFiles | null | undefined;
  return {
    id,
    nameKey: r.nameKey,
    config,
    metadata: config.metadata,
    state: r.state as PodSandboxState__Output,
    createdAtNs: bigintOf(r.createdAtNs),
    runtimeHandler: String(r.runtimeHandler ?? ""),
    dir,
    hostNetwork: r.hostNetwork === true,
    ...(files ? { files } : {}),
    ...(network?.netnsPath ? { network, networkUp: r.networkUp === true } : {}),
    writer,
  };
}

function newId(): string {
  return randomBytes(32).toString("hex");
}

function matchesLabels(labels: Record<string, string>, selector: Record<string, string> | undefined): boolean {
  if (!selector) return true;
  for (const [key, value] of Object.entries(selector)) {
    if (labels[key] !== value) return false;
  }
  return true;
}

function seconds(value: string | number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

function capabilityName(name: string): string {
  const upper = name.toUpperCase();
  return upper.startsWith("CAP_") || upper === "ALL" ? upper : `CAP_${upper}`;
}

// The default container capabilities with the CRI's additions and drops (`ALL` in either).
function containerCapabilities(caps: { addCapabilities: string[]; dropCapabilities: string[] } | null | undefined): string[] | undefined {
  const add = (caps?.addCapabilities ?? []).map(capabilityName);
  const drop = (caps?.dropCapabilities ?? []).map(capabilityName);
  if (add.includes("ALL")) return undefined;
  const kept = new Set(drop.includes("ALL") ? [] : defaultCapabilities.filter((c) => !drop.includes(c)));
  for (const c of add) kept.add(c);
  return [...kept];
}

function namespaceOptions(config: PodSandboxConfig__Output): NamespaceOption {
  const ns = config.linux?.securityContext?.namespaceOptions;
  return { network: ns?.network ?? "POD", pid: ns?.pid ?? "POD", ipc: ns?.ipc ?? "POD", targetId: ns?.targetId ?? "" };
}

/**
 * The state and behaviour of the process runtime behind the gRPC handlers: sandboxes are records
 * with a scratch directory, containers are host processes in their own process groups.
 */
export class RuntimeCore {
  private readonly sandboxes = new Map<string, Sandbox>();
  private readonly containers = new Map<string, Container>();
  private podCidr = "";
  /** Bridges of pod networks recovered by a run without pod networks: deleted on shutdown. */
  private readonly leftBridges = new Set<string>();

  constructor(private readonly options: RuntimeCoreOptions) {}

  // --- records (what a restart finds again) --------------------------------------------------

  private recordWriter(what: string): RecordWriter {
    return new RecordWriter((err) => this.options.log(`${what}: failed to write its record: ${err instanceof Error ? err.message : String(err)}`));
  }

  private containerRecordPath(id: string): string {
    return join(this.options.stateDir, "containers", `${id}.json`);
  }

  private saveSandbox(s: Sandbox): Promise<void> {
    return s.writer.write(join(s.dir, "sandbox.json"), () =>
      s.removed
        ? undefined
        : {
            version: checkpointVersion,
            id: s.id,
            nameKey: s.nameKey,
            config: s.config,
            state: s.state,
            createdAtNs: s.createdAtNs,
            runtimeHandler: s.runtimeHandler,
            hostNetwork: s.hostNetwork,
            files: s.files ?? null,
            network: s.network ?? null,
            networkUp: s.networkUp ?? false,
          },
    );
  }

  private saveContainer(c: Container): Promise<void> {
    return c.writer.write(this.containerRecordPath(c.id), () =>
      c.removed
        ? undefined
        : {
            version: checkpointVersion,
            id: c.id,
            sandboxId: c.sandbox.id,
            config: c.config,
            imageId: c.image.id,
            imageName: c.imageName,
            argv: c.argv,
            identity: c.identity,
            cwd: c.cwd,
            env: c.env,
            logPath: c.logPath,
            state: c.state,
            createdAtNs: c.createdAtNs,
            startedAtNs: c.startedAtNs,
            finishedAtNs: c.finishedAtNs,
            exitCode: c.exitCode,
            reason: c.reason,
            message: c.message,
            cgroups: c.cgroups ?? null,
            process: c.processIdentity ?? null,
          },
    );
  }

  /**
   * Finds the sandboxes and containers a previous run of the runtime on this state dir left (after
   * a clean stop or a kill), as containerd's CRI plugin recovers its store on start-up:
   * - a sandbox keeps its recorded state; a READY one whose network namespace is no longer mounted
   *   becomes NOTREADY;
   * - a RUNNING container whose main process (PID and start time) is still alive is re-adopted and
   *   stays RUNNING (its exit is then seen by polling, with exit code 255, reason `Unknown`, as its
   *   status is not observable: it is no child of this server); one whose process is gone is
   *   EXITED with exit code 255, reason `Unknown` (containerd's status for a task that went away
   *   while it was down); CREATED and EXITED containers stay as recorded;
   * - records that cannot be read, containers of unknown sandboxes and sandbox directories without
   *   a record (a kill in the middle of RunPodSandbox) are logged and removed.
   * Returns the ids of the sandboxes whose network namespace is still in use (the others under
   * `<stateDir>/netns` are torn down by the caller). Never throws.
   * @see containerd pkg/cri/server/restart.go (recover, loadContainer, loadSandbox), containerd v1.6
   */
  async recover(): Promise<Set<string>> {
    const log = this.options.log;
    const keepNetns = new Set<string>();
    const sandboxesDir = join(this.options.stateDir, "sandboxes");
    const mounted = await mountPoints();
    for (const id of await readdir(sandboxesDir).catch(() => [] as string[])) {
      const dir = join(sandboxesDir, id);
      const record = await readRecord(join(dir, "sandbox.json"));
      const sandbox = record === undefined || record instanceof Error ? undefined : sandboxFromRecord(id, dir, record, this.recordWriter(`sandbox ${id}`));
      if (!sandbox) {
        log(`recover: sandbox ${id}: ${record instanceof Error ? `unusable record (${record.message})` : "no record (the runtime stopped while creating it)"}; removing its directory`);
        await rm(dir, { recursive: true, force: true });
        continue;
      }
      if (sandbox.network && sandbox.networkUp) {
        if (mounted.has(sandbox.network.netnsPath)) keepNetns.add(id);
        else {
          sandbox.networkUp = false;
          sandbox.state = "SANDBOX_NOTREADY";
          log(`recover: sandbox ${id}: its network namespace ${sandbox.network.netnsPath} is gone; the sandbox is NOTREADY`);
        }
        if (this.options.podNetwork) this.options.podNetwork.network.noteInUse(sandbox.network);
        else for (const b of bridgesOf(sandbox.network.teardown.conflist)) this.leftBridges.add(b);
      }
      this.sandboxes.set(id, sandbox);
      await this.saveSandbox(sandbox);
    }
    const containersDir = join(this.options.stateDir, "containers");
    let adopted = 0;
    let lost = 0;
    for (const name of await readdir(containersDir).catch(() => [] as string[])) {
      if (!name.endsWith(".json")) {
        // A temporary file of a write the kill interrupted.
        if (name.endsWith(".tmp")) await rm(join(containersDir, name), { force: true });
        continue;
      }
      const id = name.slice(0, -".json".length);
      const record = await readRecord(join(containersDir, name));
      const sandbox = record !== undefined && !(record instanceof Error) ? this.sandboxes.get(String(record.sandboxId)) : undefined;
      const c = sandbox && record !== undefined && !(record instanceof Error) ? this.containerFromRecord(id, sandbox, record) : undefined;
      if (!c) {
        const why = record instanceof Error ? `unusable record (${record.message})` : !sandbox ? "its sandbox is gone" : "unusable record";
        log(`recover: container ${id}: ${why}; removing it`);
        const cgroups = record !== undefined && !(record instanceof Error) && Array.isArray(record.cgroups) ? (record.cgroups as CgroupDir[]) : undefined;
        if (cgroups) await removeContainerCgroups(cgroups).catch(() => undefined);
        await rm(join(containersDir, name), { force: true });
        continue;
      }
      if (c.state === "CONTAINER_RUNNING") {
        const identity = c.processIdentity;
        if (identity && (await processAlive(identity))) {
          c.process = new AdoptedProcess(identity, processAlive);
          void c.process.exited.then((exit) => this.onExit(c, exit));
          adopted++;
        } else {
          Object.assign(c, { state: "CONTAINER_EXITED", finishedAtNs: nowNs(), exitCode: 255, reason: "Unknown", message: "" });
          lost++;
        }
      }
      this.containers.set(id, c);
      await this.saveContainer(c);
    }
    if (this.sandboxes.size > 0 || this.containers.size > 0) {
      log(`recovered ${this.sandboxes.size} sandbox(es) and ${this.containers.size} container(s): ${adopted} running container(s) re-adopted (their output no longer reaches their logs), ${lost} found exited while the runtime was down (exit code 255, reason Unknown)`);
    }
    return keepNetns;
  }

  private containerFromRecord(id: string, sandbox: Sandbox, r: Record<string, unknown>): Container | undefined {
    const config = r.config as ContainerConfig__Output | undefined;
    const states = ["CONTAINER_CREATED", "CONTAINER_RUNNING", "CONTAINER_EXITED", "CONTAINER_UNKNOWN"];
    if (!config?.metadata || typeof r.state !== "string" || !states.includes(r.state) || !Array.isArray(r.argv)) return undefined;
    const imageId = String(r.imageId ?? "");
    const image = this.options.images.resolve(imageId) ?? { id: imageId, repoTags: [], repoDigests: [], repository: "" };
    const proc = r.process as Container["processIdentity"] | null | undefined;
    return {
      id,
      sandbox,
      config,
      image,
      imageName: String(r.imageName ?? imageId),
      argv: (r.argv as unknown[]).map(String),
      identity: r.identity as ProcessIdentity,
      cwd: String(r.cwd ?? "/"),
      env: (r.env ?? {}) as Record<string, string>,
      logPath: String(r.logPath ?? ""),
      state: r.state as ContainerState__Output,
      createdAtNs: bigintOf(r.createdAtNs),
      startedAtNs: bigintOf(r.startedAtNs),
      finishedAtNs: bigintOf(r.finishedAtNs),
      exitCode: Number(r.exitCode ?? 0),
      reason: String(r.reason ?? ""),
      message: String(r.message ?? ""),
      starting: false,
      removed: false,
      execPids: new Set(),
      ...(Array.isArray(r.cgroups) ? { cgroups: r.cgroups as CgroupDir[] } : {}),
      ...(proc && typeof proc.pid === "number" && typeof proc.startTime === "string" ? { processIdentity: { pid: proc.pid, startTime: proc.startTime, groupPid: Number(proc.groupPid ?? proc.pid), isolated: proc.isolated === true } } : {}),
      writer: this.recordWriter(`container ${id}`),
    };
  }

  version(_req: VersionRequest__Output): VersionResponse {
    return { version: "0.1.0", runtimeName: "skiff-process", runtimeVersion: "0.1.0", runtimeApiVersion: "v1" };
  }

  status(req: StatusRequest__Output): StatusResponse {
    return {
      status: {
        conditions: [
          { type: "RuntimeReady", status: true, reason: "", message: "" },
          { type: "NetworkReady", status: true, reason: "", message: "" },
        ],
      },
      info: req.verbose ? { config: JSON.stringify({ stateDir: this.options.stateDir, podCidr: this.podCidr }) } : {},
    };
  }

  updateRuntimeConfig(req: UpdateRuntimeConfigRequest__Output): void {
    this.podCidr = req.runtimeConfig?.networkConfig?.podCidr ?? "";
    this.options.podNetwork?.network.setPodCidr(this.podCidr);
  }

  // --- sandboxes ------------------------------------------------------------------------------

  async runPodSandbox(req: RunPodSandboxRequest__Output): Promise<RunPodSandboxResponse> {
    const method = "RunPodSandbox";
    const config = req.config;
    if (!config) throw invalidArgument(method, "config is required");
    const metadata = config.metadata;
    if (!metadata || !metadata.name || !metadata.namespace || !metadata.uid) {
      throw invalidArgument(method, "config.metadata with name, namespace and uid is required");
    }
    const sandboxNotApplicable = sandboxNotApplied(config.linux);
    if (sandboxNotApplicable.length > 0) this.options.log(`sandbox ${metadata.namespace}/${metadata.name}: not applied by the process runtime (no isolation): ${sandboxNotApplicable.join(", ")}`);
    if (req.runtimeHandler !== "") {
      throw invalidArgument(method, `unknown runtime handler ${JSON.stringify(req.runtimeHandler)}: only the default handler "" exists`);
    }
    const nameKey = `${metadata.name}_${metadata.namespace}_${metadata.uid}_${metadata.attempt}`;
    for (const other of this.sandboxes.values()) {
      if (other.nameKey === nameKey) throw alreadyExists(method, `sandbox name ${JSON.stringify(nameKey)} is reserved for ${other.id}`);
    }
    const id = newId();
    const dir = join(this.options.stateDir, "sandboxes", id);
    await mkdir(dir, { recursive: true });
    let files: SandboxFiles | undefined;
    if (this.options.isolation.mode === "namespaces") {
      try {
        files = await writeSandboxFiles(dir, config);
      } catch (err) {
        await rm(dir, { recursive: true, force: true });
        throw unknownError(method, `failed to set up sandbox files: ${err instanceof Error ? err.message : String(err)}`, err);
      }
    }
    const hostNetwork = namespaceOptions(config).network === "NODE";
    let network: SandboxNetwork | undefined;
    if (!hostNetwork && this.options.podNetwork) {
      const portMappings: PortMapping[] = config.portMappings
        .filter((m) => m.hostPort > 0)
        .map((m) => ({ hostPort: m.hostPort, containerPort: m.containerPort, protocol: m.protocol === "UDP" ? "udp" : m.protocol === "SCTP" ? "sctp" : "tcp", hostIP: m.hostIp }));
      try {
        network = await this.options.podNetwork.network.setUp({ containerId: id, podNamespace: metadata.namespace, podName: metadata.name, podUid: metadata.uid }, portMappings);
      } catch (err) {
        await rm(dir, { recursive: true, force: true });
        throw unknownError(method, `failed to setup network for sandbox ${JSON.stringify(id)}: ${err instanceof Error ? err.message : String(err)}`, err);
      }
    }
    const sandbox: Sandbox = {
      id,
      nameKey,
      config,
      metadata,
      state: "SANDBOX_READY",
      createdAtNs: nowNs(),
      runtimeHandler: req.runtimeHandler,
      dir,
      hostNetwork,
      ...(files ? { files } : {}),
      ...(network ? { network, networkUp: true } : {}),
      writer: this.recordWriter(`sandbox ${id}`),
    };
    this.sandboxes.set(id, sandbox);
    await this.saveSandbox(sandbox);
    return { podSandboxId: id };
  }

  private getSandbox(method: string, id: string): Sandbox {
    if (!id) throw invalidArgument(method, "pod_sandbox_id is required");
    const sandbox = this.sandboxes.get(id);
    if (!sandbox) throw notFound(method, `pod sandbox ${JSON.stringify(id)} not found`);
    return sandbox;
  }

  async stopPodSandbox(id: string): Promise<void> {
    const sandbox = this.getSandbox("StopPodSandbox", id);
    await Promise.all([...this.containersOf(sandbox)].map((c) => this.kill(c)));
    sandbox.state = "SANDBOX_NOTREADY";
    await this.saveSandbox(sandbox);
    await this.tearDownNetwork(sandbox, "StopPodSandbox");
  }

  // As containerd's StopPodSandbox: the namespace goes with the sandbox's processes (the IP stays
  // in the sandbox's status).
  private async tearDownNetwork(sandbox: Sandbox, method: string): Promise<void> {
    if (!sandbox.network || !sandbox.networkUp) return;
    sandbox.networkUp = false;
    try {
      if (this.options.podNetwork) await this.options.podNetwork.network.tearDown(sandbox.network);
      else {
        // Recovered by a server without pod networks (started with another --network, or without
        // the plugins): no CNI DEL is possible, but the namespace mount must not stay.
        this.options.log(`sandbox ${sandbox.id}: pod networks are off in this run, so CNI DEL cannot run for its namespace; unmounting it only`);
        await unmountNetns(sandbox.network.netnsPath);
      }
      await this.saveSandbox(sandbox);
    } catch (err) {
      sandbox.networkUp = true;
      throw unknownError(method, `failed to destroy network for sandbox ${JSON.stringify(sandbox.id)}: ${err instanceof Error ? err.message : String(err)}`, err);
    }
  }

  async removePodSandbox(id: string): Promise<void> {
    if (!id) throw invalidArgument("RemovePodSandbox", "pod_sandbox_id is required");
    const sandbox = this.sandboxes.get(id);
    if (!sandbox) return;
    await Promise.all([...this.containersOf(sandbox)].map((c) => this.removeContainer(c.id)));
    sandbox.state = "SANDBOX_NOTREADY";
    await this.tearDownNetwork(sandbox, "RemovePodSandbox");
    this.sandboxes.delete(id);
    sandbox.removed = true;
    await sandbox.writer.settled();
    await rm(sandbox.dir, { recursive: true, force: true });
  }

  podSandboxStatus(req: PodSandboxStatusRequest__Output): PodSandboxStatusResponse {
    const sandbox = this.getSandbox("PodSandboxStatus", req.podSandboxId);
    return {
      status: {
        id: sandbox.id,
        metadata: sandbox.metadata,
        state: sandbox.state,
        createdAt: sandbox.createdAtNs.toString(),
        network: sandbox.network
          ? { ip: sandbox.network.ip, additionalIps: sandbox.network.additionalIps.map((ip) => ({ ip })) }
          : { ip: sandbox.hostNetwork ? "" : "127.0.0.1", additionalIps: [] },
        linux: { namespaces: { options: namespaceOptions(sandbox.config) } },
        labels: sandbox.config.labels,
        annotations: sandbox.config.annotations,
        runtimeHandler: sandbox.runtimeHandler,
      },
      info: req.verbose ? { info: JSON.stringify({ dir: sandbox.dir, config: sandbox.config }) } : {},
    };
  }

  listPodSandbox(req: ListPodSandboxRequest__Output): ListPodSandboxResponse {
    const filter = req.filter;
    const items: PodSandbox[] = [];
    for (const s of this.sandboxes.values()) {
      if (filter) {
        if (filter.id && !s.id.startsWith(filter.id)) continue;
        if (filter.state && filter.state.state !== s.state) continue;
        if (!matchesLabels(s.config.labels, filter.labelSelector)) continue;
      }
      items.push({
        id: s.id,
        metadata: s.metadata,
        state: s.state,
        createdAt: s.createdAtNs.toString(),
        labels: s.config.labels,
        annotations: s.config.annotations,
        runtimeHandler: s.runtimeHandler,
      });
    }
    return { items };
  }

  private *containersOf(sandbox: Sandbox): Iterable<Container> {
    for (const c of this.containers.values()) if (c.sandbox === sandbox) yield c;
  }

  // --- containers -----------------------------------------------------------------------------

  async createContainer(req: CreateContainerRequest__Output): Promise<CreateContainerResponse> {
    const method = "CreateContainer";
    const config = req.config;
    if (!config) throw invalidArgument(method, "config is required");
    if (!config.metadata?.name) throw invalidArgument(method, "config.metadata.name is required");
    if (!config.image?.image) throw invalidArgument(method, "config.image.image is required");
    const sandbox = this.getSandbox(method, req.podSandboxId);
    if (sandbox.state !== "SANDBOX_READY") throw failedPrecondition(method, `pod sandbox ${sandbox.id} is not ready`);
    const image = this.options.images.resolve(config.image.image);
    if (!image) throw notFound(method, `image ${JSON.stringify(config.image.image)} not found: pull it first`);
    const argv = resolveArgv(config.command, config.args, this.options.images.defaults(image));
    if (argv.length === 0) {
      throw invalidArgument(method, `no command specified: image ${JSON.stringify(config.image.image)} has no default command here, set command or args`);
    }
    const ident = identityOf(config.linux?.securityContext, { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 });
    if (ident.error !== undefined) throw (config.linux?.securityContext?.runAsUsername ? invalidArgument : failedPrecondition)(method, ident.error);
    // With namespaces, capabilities, privileged and the read-only root are applied by bubblewrap.
    const appliedByIsolation = new Set(this.options.isolation.mode === "namespaces" ? ["capabilities", "privileged", "readonly_rootfs"] : []);
    const notApplied = ident.notApplied.filter((n) => !appliedByIsolation.has(n));
    if (notApplied.length > 0) {
      const how = this.options.isolation.mode === "namespaces" ? "with namespaces" : "no isolation";
      this.options.log(`container ${config.metadata.name} in sandbox ${sandbox.id}: not applied by the process runtime (${how}): ${notApplied.join(", ")}`);
    }
    // Resources through cgroups, as runc: only as root, under the sandbox's cgroup_parent or else
    // under the default parent (containerd's /k8s.io).
    const cgroupRoot = this.options.cgroupRoot ?? "/sys/fs/cgroup";
    const sandboxParent = sandbox.config.linux?.cgroupParent ?? "";
    const cgroupParent = this.cgroupParentOf(sandbox);
    const wantsResources = config.linux?.resources !== null && config.linux?.resources !== undefined;
    let cgroups: CgroupDir[] | undefined;
    let why = "";
    if (process.getuid?.() !== 0) why = "placing a process in cgroups needs the process runtime to run as root";
    else if (!cgroupsAvailable(cgroupRoot)) why = `no cgroup filesystem at ${cgroupRoot}`;
    else if (sandboxParent !== "" && !cgroupParentExists(cgroupRoot, sandboxParent)) why = `its cgroup_parent ${sandboxParent} does not exist under ${cgroupRoot} (the node agent creates it)`;
    else cgroups = containerCgroupDirs(cgroupRoot, cgroupParent, "", config.linux?.resources);
    if (!cgroups && wantsResources) this.options.log(`container ${config.metadata.name} in sandbox ${sandbox.id}: not applied by the process runtime (${why}): resources, cgroup_parent ${cgroupParent}`);
    const { name, attempt } = config.metadata;
    for (const other of this.containersOf(sandbox)) {
      if (other.config.metadata?.name === name && other.config.metadata.attempt === attempt) {
        throw alreadyExists(method, `container ${name} attempt ${attempt} already exists in sandbox ${sandbox.id} as ${other.id}`);
      }
    }
    let logPath = "";
    if (config.logPath) {
      const logDirectory = sandbox.config.logDirectory;
      if (!isAbsolute(config.logPath) && !logDirectory) {
        throw invalidArgument(method, `log_path ${JSON.stringify(config.logPath)} is relative but the sandbox has no log_directory`);
      }
      logPath = isAbsolute(config.logPath) ? config.logPath : join(logDirectory, config.logPath);
    }
    const isolated = this.options.isolation.mode === "namespaces";
    if (!isolated && config.devices.length > 0) {
      this.options.log(`container ${config.metadata.name} in sandbox ${sandbox.id}: not applied by the process runtime (no isolation): devices ${config.devices.map((d) => d.hostPath).join(", ")}`);
    }
    if (isolated) {
      const relativeDevice = config.devices.find((d) => !isAbsolute(d.hostPath) || (d.containerPath !== "" && !isAbsolute(d.containerPath)));
      if (relativeDevice) throw invalidArgument(method, `device ${JSON.stringify(relativeDevice.hostPath)} at ${JSON.stringify(relativeDevice.containerPath)}: paths must be absolute`);
      const bidirectional = config.mounts.find((m) => m.propagation === "PROPAGATION_BIDIRECTIONAL");
      if (bidirectional) {
        throw invalidArgument(method, `mount ${JSON.stringify(bidirectional.containerPath)}: Bidirectional mount propagation is not supported by the process runtime`);
      }
      const relative = config.mounts.find((m) => !isAbsolute(m.containerPath) || !isAbsolute(m.hostPath));
      if (relative) throw invalidArgument(method, `mount ${JSON.stringify(relative.containerPath)} of ${JSON.stringify(relative.hostPath)}: paths must be absolute`);
    }
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? defaultPath,
      HOSTNAME: sandbox.config.hostname || hostHostname(),
    };
    for (const { key, value } of config.envs) if (key) env[key] = value;
    const id = newId();
    if (cgroups) cgroups = containerCgroupDirs(cgroupRoot, cgroupParent, id, config.linux?.resources);
    const container: Container = {
      id,
      sandbox,
      config,
      image,
      imageName: image.repoTags[0] ?? image.repoDigests[0] ?? config.image.image,
      argv,
      identity: ident.identity,
      cwd: config.workingDir || (isolated ? "/" : sandbox.dir),
      env,
      logPath,
      state: "CONTAINER_CREATED",
      createdAtNs: nowNs(),
      startedAtNs: 0n,
      finishedAtNs: 0n,
      exitCode: 0,
      reason: "",
      message: "",
      starting: false,
      removed: false,
      execPids: new Set(),
      ...(cgroups ? { cgroups } : {}),
      writer: this.recordWriter(`container ${id}`),
    };
    this.containers.set(id, container);
    await this.saveContainer(container);
    return { containerId: id };
  }

  /** The cgroup a sandbox's containers go under: its `cgroup_parent`, else the default parent. */
  private cgroupParentOf(sandbox: Sandbox): string {
    const own = sandbox.config.linux?.cgroupParent ?? "";
    return own !== "" ? own : (this.options.defaultCgroupParent ?? DEFAULT_CGROUP_PARENT);
  }

  private getContainer(method: string, id: string): Container {
    if (!id) throw invalidArgument(method, "container_id is required");
    const container = this.containers.get(id);
    if (!container) throw notFound(method, `container ${JSON.stringify(id)} not found`);
    return container;
  }

  async startContainer(id: string): Promise<void> {
    const method = "StartContainer";
    const c = this.getContainer(method, id);
    if (c.state !== "CONTAINER_CREATED" || c.starting) {
      throw failedPrecondition(method, `container ${id} is in ${c.starting ? "starting" : c.state} state, want CONTAINER_CREATED`);
    }
    if (c.sandbox.state !== "SANDBOX_READY") throw failedPrecondition(method, `pod sandbox ${c.sandbox.id} is not ready`);
    c.starting = true;
    const startedAtNs = nowNs();
    let proc: ContainerProcess;
    try {
      const isolation = this.options.isolation;
      const procs = c.cgroups ? await createContainerCgroups(this.options.cgroupRoot ?? "/sys/fs/cgroup", c.cgroups) : [];
      if (isolation.mode === "namespaces") {
        const enterPIDNamespace = this.pidTarget(c, isolation.nsenterPath);
        const args = await this.isolatedArgs(c, enterPIDNamespace !== undefined);
        const net = c.sandbox.network && this.options.podNetwork ? { netns: { nsenterPath: this.options.podNetwork.nsenterPath, path: c.sandbox.network.netnsPath } } : {};
        // bubblewrap is started by the server: it and the container's process join the cgroups
        // (the hierarchies side by side, bubblewrap first in each) before the command is exec'd,
        // so nothing it forks is left outside them; a failed write fails the start, as runc's.
        const place = async ({ groupPid, pid }: { readonly groupPid: number; readonly pid: number }) => {
          await Promise.all(procs.map(async (f) => {
            for (const p of new Set([groupPid, pid])) {
              await writeFile(f, String(p)).catch((err: unknown) => {
                throw new Error(`failed to join cgroup ${f}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
              });
            }
          }));
        };
        const bwrap = { bwrapPath: isolation.bwrapPath, args, ...net, ...(enterPIDNamespace ? { enterPIDNamespace } : {}), ...(procs.length > 0 ? { place } : {}) };
        proc = await ContainerProcess.start({ argv: wrapWithIdentity(c.argv, c.identity), cwd: "/", env: c.env, logPath: c.logPath, isolation: bwrap, stdin: c.config.stdin });
      } else {
        const info = await stat(c.cwd).catch(() => undefined);
        if (!info?.isDirectory()) throw new Error(`working directory ${JSON.stringify(c.cwd)} does not exist or is not a directory`);
        // The command runs behind wrappers (joining cgroups, setpriv) that would exit 127 for a
        // missing one: it is looked up first, as runc's init does before it starts the container.
        await findExecutable(c.argv[0] ?? "", c.env["PATH"] ?? "", c.cwd);
        proc = await ContainerProcess.start({ argv: wrapJoiningCgroups(wrapWithIdentity(c.argv, c.identity), procs), cwd: c.cwd, env: c.env, logPath: c.logPath, stdin: c.config.stdin, readyOnFd3Close: procs.length > 0 });
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      Object.assign(c, { starting: false, state: "CONTAINER_EXITED", startedAtNs, finishedAtNs: nowNs(), exitCode: 128, reason: "StartError", message });
      await this.saveContainer(c);
      throw unknownError(method, `failed to start container ${id}: ${message}`, err);
    }
    c.starting = false;
    c.process = proc;
    c.startedAtNs = startedAtNs;
    c.state = "CONTAINER_RUNNING";
    const startTime = await processStartTime(proc.pid);
    if (startTime !== undefined) c.processIdentity = { pid: proc.pid, startTime, groupPid: proc.groupPid, isolated: proc.pid !== proc.groupPid };
    void proc.exited.then((exit) => this.onExit(c, exit));
    await this.saveContainer(c);
    if (c.removed) {
      proc.signal("SIGKILL");
      throw notFound(method, `container ${id} was removed while starting`);
    }
  }

  // The bubblewrap arguments of a container: the CRI mounts (sources must exist, as runc
  // requires), then the sandbox's /etc files and /dev/shm where the CRI config has none.
  // CRI PID namespace TARGET (kubectl debug --target): the running target's main process, whose PID
  // namespace the container joins through bubblewrap's --pidns (root only); otherwise the container gets its own
  // and the server logs that the target was not applied.
  private pidTarget(c: Container, nsenterPath: string | null): EnterPIDNamespace | undefined {
    const ns = c.config.linux?.securityContext?.namespaceOptions;
    if (ns?.pid !== "TARGET") return undefined;
    const target = this.containers.get(ns.targetId);
    if (nsenterPath !== null && target?.sandbox === c.sandbox && target.state === "CONTAINER_RUNNING" && target.process) {
      return { pid: target.process.pid };
    }
    const why = nsenterPath === null ? "joining it needs root" : `container ${JSON.stringify(ns.targetId)} is not running in the sandbox`;
    this.options.log(`container ${c.config.metadata?.name ?? c.id} in sandbox ${c.sandbox.id}: not applied by the process runtime: PID namespace TARGET ${ns.targetId} (${why}); the container gets its own PID namespace`);
    return undefined;
  }

  private async isolatedArgs(c: Container, inTargetPIDNamespace: boolean): Promise<string[]> {
    const security = c.config.linux?.securityContext;
    const privileged = security?.privileged === true;
    const mounts: BindMount[] = [];
    for (const m of c.config.mounts) {
      if (!(await stat(m.hostPath).catch(() => undefined))) {
        throw new Error(`error mounting ${JSON.stringify(m.hostPath)} to rootfs at ${JSON.stringify(m.containerPath)}: stat ${m.hostPath}: no such file or directory`);
      }
      mounts.push({ containerPath: m.containerPath, hostPath: m.hostPath, readonly: m.readonly });
    }
    if (c.sandbox.files) mounts.push(...sandboxMounts(c.sandbox.files, c.config.mounts, security?.readonlyRootfs === true));
    // CRI devices (device plugins): the host's device node at the container path, as runc adds it
    // (its error when the node is missing). Permissions are not enforced: no device cgroup here.
    for (const d of c.config.devices) {
      if (!(await stat(d.hostPath).catch(() => undefined))) {
        throw new Error(`error gathering device information while adding custom device ${JSON.stringify(d.hostPath)}: no such file or directory`);
      }
      mounts.push({ containerPath: d.containerPath || d.hostPath, hostPath: d.hostPath, readonly: false, device: true });
    }
    // In the target's PID namespace (entered by nsenter) bubblewrap must not unshare another one.
    const hostPID = security?.namespaceOptions?.pid === "NODE" || inTargetPIDNamespace;
    const capabilities = privileged ? undefined : containerCapabilities(security?.capabilities);
    return bwrapArgs({
      argv: c.argv,
      cwd: c.cwd,
      ...(c.sandbox.hostNetwork ? {} : { hostname: c.sandbox.config.hostname || hostHostname() }),
      mounts,
      rootReadonly: !privileged,
      ...(capabilities !== undefined ? { capabilities } : {}),
      hostPID,
      infoFd: 3,
    });
  }

  /**
   * How to spawn `cmd` in the running container `id`: with namespaces and nsenter, entering its
   * mount, UTS and PID namespaces in its working directory; otherwise on the host with its
   * environment and working directory. The seam for Exec/Attach streaming.
   * @throws CRIError NotFound for an unknown container, FailedPrecondition when it is not running.
   */
  execSpawnSpec(id: string, cmd: string[], method = "Exec"): ExecSpawnSpec {
    const c = this.getContainer(method, id);
    if (c.state !== "CONTAINER_RUNNING" || !c.process) throw failedPrecondition(method, `container ${c.id} is in ${c.state} state, want CONTAINER_RUNNING`);
    if (cmd.length === 0) throw invalidArgument(method, "cmd is required");
    const [file = "", ...args] = wrapWithIdentity(cmd, c.identity);
    const isolation = this.options.isolation;
    if (isolation.mode === "namespaces" && isolation.nsenterPath !== null) {
      const net = c.sandbox.network ? ["--net"] : [];
      return { file: isolation.nsenterPath, args: ["--target", String(c.process.pid), "--mount", "--uts", "--pid", ...net, `--wdns=${c.cwd}`, "--", file, ...args], cwd: "/", env: c.env };
    }
    return { file, args, cwd: isolation.mode === "namespaces" ? c.sandbox.dir : c.cwd, env: c.env };
  }

  private onExit(c: Container, exit: ProcessExit): void {
    for (const pid of c.execPids) killGroup(pid, "SIGKILL");
    c.execPids.clear();
    c.state = "CONTAINER_EXITED";
    c.finishedAtNs = exit.finishedAtNs;
    c.exitCode = exit.exitCode;
    // As containerd for a task lost while it was down: exit code 255, reason "Unknown".
    c.reason = exit.unknown ? "Unknown" : exit.exitCode === 0 ? "Completed" : "Error";
    c.message = exit.signal ? `killed by ${exit.signal}` : "";
    void this.saveContainer(c);
  }

  async stopContainer(id: string, timeout: string | number): Promise<void> {
    const c = this.getContainer("StopContainer", id);
    const proc = c.process;
    if (!proc || !proc.running) {
      if (proc) await proc.exited;
      return;
    }
    const graceMs = seconds(timeout) * 1000;
    if (graceMs > 0) {
      proc.signal("SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      const expired = await Promise.race([
        proc.exited.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), graceMs);
        }),
      ]);
      clearTimeout(timer);
      if (!expired) return;
    }
    proc.signal("SIGKILL");
    await proc.exited;
  }

  private async kill(c: Container): Promise<void> {
    if (!c.process) return;
    c.process.signal("SIGKILL");
    await c.process.exited;
  }

  async removeContainer(id: string): Promise<void> {
    if (!id) throw invalidArgument("RemoveContainer", "container_id is required");
    const c = this.containers.get(id);
    if (!c) return;
    c.removed = true;
    this.containers.delete(id);
    await this.kill(c);
    if (c.cgroups) await removeContainerCgroups(c.cgroups);
    await c.writer.remove(this.containerRecordPath(id));
  }

  /**
   * UpdateContainerResources: writes the new limits (CPU sets of the CPU manager, shares, quota,
   * memory) to the cgroups of a container placed in them.
   * @throws CRIError `Unimplemented` for a container that is not in cgroups (the server is not
   *   root, or the host has no cgroup filesystem), saying so; `NotFound` for an unknown id.
   */
  async updateContainerResources(id: string, resources: LinuxContainerResources__Output | null | undefined): Promise<void> {
    const method = "UpdateContainerResources";
    const c = this.getContainer(method, id);
    if (!c.cgroups) {
      throw new CRIError({ code: "Unimplemented", method, details: `container ${id} is not in cgroups (the process runtime places containers in cgroups only as root, on a host with a cgroup filesystem), so its resources cannot be updated` });
    }
    const parent = this.cgroupParentOf(c.sandbox);
    const root = this.options.cgroupRoot ?? "/sys/fs/cgroup";
    const dirs = containerCgroupDirs(root, parent, id, resources).map((d) => ({ ...d, files: d.files.filter(([, v]) => v !== "") }));
    try {
      await createContainerCgroups(root, dirs);
    } catch (err) {
      throw unknownError(method, `failed to update container ${id}: ${(err as Error).message}`, err);
    }
  }

  private toContainer(c: Container): CRIContainer {
    return {
      id: c.id,
      podSandboxId: c.sandbox.id,
      metadata: c.config.metadata,
      image: { image: c.imageName, annotations: c.config.image?.annotations ?? {} },
      imageRef: c.image.id,
      state: c.state,
      createdAt: c.createdAtNs.toString(),
      labels: c.config.labels,
      annotations: c.config.annotations,
    };
  }

  /**
   * The containers ContainerStats/ListContainerStats report on: one by id (any state; `NotFound`
   * when unknown), or every running one matching the filter (id and sandbox id as prefixes, labels).
   */
  statsTargets(filter: { id?: string; podSandboxId?: string; labelSelector?: Record<string, string> } | undefined, one?: string): StatsTarget[] {
    const view = (c: Container): StatsTarget => ({ id: c.id, metadata: c.config.metadata, labels: c.config.labels, annotations: c.config.annotations, ...(c.process?.running ? { pid: c.process.pid } : {}) });
    if (one !== undefined) return [view(this.getContainer("ContainerStats", one))];
    const out: StatsTarget[] = [];
    for (const c of this.containers.values()) {
      if (c.state !== "CONTAINER_RUNNING") continue;
      if (filter?.id && !c.id.startsWith(filter.id)) continue;
      if (filter?.podSandboxId && !c.sandbox.id.startsWith(filter.podSandboxId)) continue;
      if (!matchesLabels(c.config.labels, filter?.labelSelector)) continue;
      out.push(view(c));
    }
    return out;
  }

  listContainers(req: ListContainersRequest__Output): ListContainersResponse {
    const filter = req.filter;
    const containers: CRIContainer[] = [];
    for (const c of this.containers.values()) {
      if (filter) {
        if (filter.id && !c.id.startsWith(filter.id)) continue;
        if (filter.podSandboxId && !c.sandbox.id.startsWith(filter.podSandboxId)) continue;
        if (filter.state && filter.state.state !== c.state) continue;
        if (!matchesLabels(c.config.labels, filter.labelSelector)) continue;
      }
      containers.push(this.toContainer(c));
    }
    return { containers };
  }

  containerStatus(req: ContainerStatusRequest__Output): ContainerStatusResponse {
    const c = this.getContainer("ContainerStatus", req.containerId);
    return {
      status: {
        id: c.id,
        metadata: c.config.metadata,
        state: c.state,
        createdAt: c.createdAtNs.toString(),
        startedAt: c.startedAtNs.toString(),
        finishedAt: c.finishedAtNs.toString(),
        exitCode: c.exitCode,
        image: { image: c.imageName, annotations: c.config.image?.annotations ?? {} },
        imageRef: c.image.id,
        reason: c.reason,
        message: c.message,
        labels: c.config.labels,
        annotations: c.config.annotations,
        mounts: c.config.mounts,
        logPath: c.logPath,
      },
      info: req.verbose ? { info: JSON.stringify({ pid: c.process?.pid ?? 0, argv: c.argv, cwd: c.cwd, sandboxId: c.sandbox.id }) } : {},
    };
  }

  async reopenContainerLog(id: string): Promise<void> {
    const method = "ReopenContainerLog";
    const c = this.getContainer(method, id);
    if (c.state !== "CONTAINER_RUNNING" || !c.process?.running) throw failedPrecondition(method, `container ${id} is not running`);
    await c.process.reopenLog();
  }

  /**
   * What a streaming exec or attach (streaming-server.ts) needs of a running container: its working
   * directory, environment and log file, whether it still runs, and `track(pid)` so the exec dies
   * with the container.
   * @throws CRIError NotFound for an unknown container, FailedPrecondition when it is not running.
   */
  execTarget(
    method: string,
    id: string,
  ): { cwd: string; env: Record<string, string>; logPath: string; stdin: { writable: Writable; once: boolean } | undefined; spawnSpec(cmd: string[]): ExecSpawnSpec; isRunning(): boolean; track(pid: number): () => void } {
    const c = this.getContainer(method, id);
    if (c.state !== "CONTAINER_RUNNING") throw failedPrecondition(method, `container ${c.id} is in ${c.state} state, want CONTAINER_RUNNING`);
    return {
      cwd: c.cwd,
      env: c.env,
      spawnSpec: (cmd) => this.execSpawnSpec(c.id, cmd, method),
      logPath: c.logPath,
      stdin: c.process?.stdin ? { writable: c.process.stdin, once: c.config.stdinOnce } : undefined,
      isRunning: () => c.state === "CONTAINER_RUNNING",
      track: (pid) => {
        c.execPids.add(pid);
        return () => c.execPids.delete(pid);
      },
    };
  }

  async execSync(req: ExecSyncRequest__Output): Promise<ExecSyncResponse> {
    const method = "ExecSync";
    const c = this.getContainer(method, req.containerId);
    if (req.cmd.length === 0) throw invalidArgument(method, "cmd is required");
    if (c.state !== "CONTAINER_RUNNING") throw failedPrecondition(method, `container ${c.id} is in ${c.state} state, want CONTAINER_RUNNING`);
    const timeoutSeconds = seconds(req.timeout);
    const spec = this.execSpawnSpec(c.id, req.cmd, method);
    let pid: number | undefined;
    try {
      const result = await execCommand([spec.file, ...spec.args], {
        cwd: spec.cwd,
        env: spec.env,
        timeoutMs: timeoutSeconds * 1000,
        onSpawn: (p) => {
          pid = p;
          c.execPids.add(p);
        },
      });
      if (result.timedOut) {
        throw new CRIError({ code: "DeadlineExceeded", method, details: `command ${JSON.stringify(req.cmd)} timed out after ${timeoutSeconds}s` });
      }
      return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode };
    } catch (err) {
      if (err instanceof CRIError) throw err;
      throw unknownError(method, `failed to exec in container ${c.id}: ${err instanceof Error ? err.message : String(err)}`, err);
    } finally {
      if (pid !== undefined) c.execPids.delete(pid);
    }
  }

  /**
   * Connects to `port` of the sandbox `id` for port-forward: `127.0.0.1:<port>` on the host for a
   * sandbox without a network namespace; inside its namespace otherwise (netns-dial.ts).
   * @throws CRIError NotFound for an unknown sandbox; Error with the dial's message when it fails.
   */
  async connectPort(id: string, port: number): Promise<Duplex> {
    const sandbox = this.getSandbox("PortForward", id);
    const net = sandbox.network;
    if (net && this.options.podNetwork) {
      if (!sandbox.networkUp) throw new Error(`network namespace of sandbox ${id} is gone (the sandbox is stopped)`);
      const running = [...this.containersOf(sandbox)].find((c) => c.process?.running);
      return dialInNamespace(this.options.podNetwork.nsenterPath, net.netnsPath, net.ip, running?.process?.pid, port);
    }
    return new Promise((resolve, reject) => {
      // Large reads: a port-forward download is relayed in up to 1 MiB frames, not 64 KiB ones.
      const tcp = connectWithLargeReads({ host: "127.0.0.1", port, noDelay: true });
      tcp.once("connect", () => resolve(tcp));
      tcp.once("error", reject);
    });
  }

  /**
   * Kills every container (and exec) process and waits for them, then tears the pod networks and
   * the runtime's bridge down; used on shutdown. The records stay: a later start on this state dir
   * finds the containers EXITED (with their exit codes) and the sandboxes NOTREADY.
   */
  async killAll(): Promise<void> {
    await Promise.all([...this.containers.values()].map((c) => this.kill(c)));
    for (const s of this.sandboxes.values()) {
      s.state = "SANDBOX_NOTREADY";
      void this.saveSandbox(s);
    }
    // In parallel: a supervisor's grace period (SIGTERM, then SIGKILL) must not run out here.
    await Promise.all(
      [...this.sandboxes.values()].map((s) => this.tearDownNetwork(s, "Shutdown").catch((err: unknown) => this.options.log(`sandbox ${s.id}: ${err instanceof Error ? err.message : String(err)}`))),
    );
    await this.options.podNetwork?.network.removeBridges();
    await deleteBridges(this.leftBridges);
    await Promise.all([...[...this.containers.values()].map((c) => c.writer.settled()), ...[...this.sandboxes.values()].map((s) => s.writer.settled())]);
  }

  get containerCount(): number {
    return this.containers.size;
  }
}
