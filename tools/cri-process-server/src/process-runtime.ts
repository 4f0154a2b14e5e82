import { Server, ServerCredentials } from "@grpc/grpc-js";
import { connect } from "node:net";
import { mkdir, rm, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { loadRuntimeProto } from "@skiff/cri-api";
import { imageHandlers, runtimeHandlers } from "./internal/grpc-handlers.js";
import { ImageStore } from "./internal/image-store.js";
import { checkNamespaceIsolation } from "./internal/isolation-check.js";
import { PodNetwork, podNetworkUnavailable } from "./internal/pod-network.js";
import { RuntimeCore, type Isolation } from "./internal/runtime-core.js";
import { startStreamingServer } from "./internal/streaming-server.js";

/** Options of {@link startProcessRuntime}. */
export interface ProcessRuntimeOptions {
  /** Unix socket to listen on; created (with its directory), a stale file replaced. */
  socketPath: string;
  /**
   * Directory for per-sandbox scratch directories (the default working directory of containers)
   * and the records of sandboxes, containers and images: a server started again on the same
   * directory (after a stop or a kill) lists them again (see `RuntimeCore.recover`).
   */
  stateDir: string;
  /**
   * Serve the ImageService on this second socket only (the RuntimeService stays on `socketPath`),
   * sharing one image store: a runtime and an image service on separate endpoints, as
   * `--image-service-endpoint` expects. @defaultValue both services on `socketPath`
   */
  imageSocketPath?: string;
  /**
   * Receives one line per notable event (start, stop, internal errors).
   * @defaultValue discards everything
   */
  log?: (message: string) => void;
  /**
   * `namespaces`: each container runs inside bubblewrap in its own mount, UTS and PID namespaces
   * (the host's root read-only, a private /tmp, the CRI mounts, the sandbox's /etc/hosts,
   * /etc/resolv.conf, /etc/hostname and /dev/shm); needs `bwrap` (Debian package `bubblewrap`) and
   * root or unprivileged user namespaces. `none`: plain host processes, mounts recorded only (tests
   * that look at the host's files, simulated fleets). The network is the host's either way.
   * @defaultValue "none"
   */
  isolation?: "namespaces" | "none";
  /** The bubblewrap binary. @defaultValue `bwrap` on PATH */
  bwrapPath?: string;
  /**
   * The pod network, with `isolation: "namespaces"`. `pod`: each sandbox that is not host-network
   * gets its own network namespace set up with the CNI plugins (`cniBinDir`; a conflist under
   * `stateDir/cni/net.d`: bridge, host-local IPAM over the pod CIDR of
   * `UpdateRuntimeConfig`, portmap for host ports, `lo` up; one IP masquerade chain for the runtime's subnets), its
   * IP reported as the sandbox's; needs root, the plugins and iptables, else the host's network is used and the reason logged once. `host`: every sandbox
   * shares the host's network (IP 127.0.0.1).
   * @defaultValue "pod" with namespaces, "host" otherwise
   */
  network?: "pod" | "host";
  /** Where the CNI plugins are. @defaultValue "/usr/lib/cni" (Debian's containernetworking-plugins) */
  cniBinDir?: string;
  /**
   * The cgroup a container goes under (`<this>/<container id>`, with its limits) when its sandbox
   * has no `cgroup_parent` (the node agent with `--cgroups-per-qos=false`), as containerd puts such
   * containers under `/k8s.io/<id>`. Root only; created when missing.
   * @defaultValue {@link DEFAULT_CGROUP_PARENT} (`/skiff-cri`)
   */
  defaultCgroupParent?: string;
  /**
   * Registry host (`registry.example:5000`, `docker.io`) → the only credentials PullImage accepts
   * for its images; a pull without them fails as a registry refusing authorization does.
   * @defaultValue every pull succeeds
   */
  registryCredentials?: Readonly<Record<string, { username: string; password: string }>>;
}

/** A running process runtime. */
export interface ProcessRuntime {
  /** `unix://` + the socket path: what a CRI client or `--container-runtime-endpoint` takes. */
  endpoint: string;
  /** `unix://` + `imageSocketPath` when the image service has its own socket. */
  imageEndpoint?: string;
  socketPath: string;
  /** Whether sandboxes get their own network namespaces (see {@link ProcessRuntimeOptions.network}). */
  podNetwork: boolean;
  /**
   * Every PullImage request received, in order, with the CRI `AuthConfig` it carried (`null`
   * without): test-visible, as nothing is downloaded and no registry sees the credentials.
   */
  readonly pullRequests: ReadonlyArray<{ readonly image: string; readonly auth: { readonly username: string; readonly password: string; readonly auth: string; readonly serverAddress: string; readonly identityToken: string; readonly registryToken: string } | null }>;
  /**
   * Stops serving, kills every container process group, tears the pod networks down and removes
   * the socket; the records stay (containers EXITED, sandboxes NOTREADY for a later start on the
   * same state dir). Idempotent.
   */
  stop(): Promise<void>;
}

// sockaddr_un.sun_path is 108 bytes including the terminating NUL.
const maxSocketPathBytes = 107;

function socketInUse(path: string): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once("error", () => resolvePromise(false));
  });
}

/**
 * Starts a CRI runtime.v1 server on a unix socket that runs containers as plain host processes,
 * for tests and simulated fleets (the same idea as the kubelet's fake remote runtime, but the
 * commands really run). Each container runs `command + args` (or its image's default, known for
 * busybox and pause) in its own process group, with the config's env and working directory, and
 * its output in the CRI log format at `<log_directory>/<log_path>`. Images are records: any name
 * pulls. With `isolation: "namespaces"` each container gets its own mount, UTS and PID namespaces
 * through bubblewrap, with its volumes and the sandbox's /etc files where the config says;
 * resources and most security settings are recorded, not applied.
 *
 * @throws Error when the socket path is too long or another server answers on it;
 *   IsolationUnavailableError when `namespaces` is asked for and bubblewrap is missing or cannot
 *   create namespaces (the message says what to install).
 * @see pkg/kubelet/cri/remote/fake/fake_runtime.go (the fake remote runtime it stands in for)
 * @example
 * ```ts
 * const runtime = await startProcessRuntime({ socketPath: "/tmp/skiff/cri.sock", stateDir: "/tmp/skiff/state", isolation: "namespaces" });
 * const rt = createRuntimeClient({ endpoint: runtime.endpoint, timeoutMs: 10_000 });
 * // ...
 * rt.close();
 * await runtime.stop();
 * ```
 */
export async function startProcessRuntime(options: ProcessRuntimeOptions): Promise<ProcessRuntime> {
  const socketPath = resolve(options.socketPath);
  const stateDir = resolve(options.stateDir);
  const log = options.log ?? (() => {});
  if (Buffer.byteLength(socketPath) > maxSocketPathBytes) {
    throw new Error(`socket path ${socketPath} is longer than ${maxSocketPathBytes} bytes`);
  }
  await mkdir(join(stateDir, "sandboxes"), { recursive: true });
  await mkdir(join(stateDir, "containers"), { recursive: true });
  await mkdir(join(stateDir, "images"), { recursive: true });
  await mkdir(dirname(socketPath), { recursive: true });
  if (await stat(socketPath).catch(() => undefined)) {
    if (await socketInUse(socketPath)) throw new Error(`another server is listening on ${socketPath}`);
    await rm(socketPath, { force: true });
  }

  const isolation: Isolation = options.isolation === "namespaces" ? await checkNamespaceIsolation(options.bwrapPath) : { mode: "none" };
  const images = new ImageStore(join(stateDir, "images"), options.registryCredentials, true, log);
  const imagesUnusable = await images.load();
  if (imagesUnusable !== undefined) log(`recover: the image list cannot be used, starting without images: ${imagesUnusable}`);
  let podNetwork: { network: PodNetwork; nsenterPath: string } | undefined;
  const wantPodNetwork = isolation.mode === "namespaces" && (options.network ?? "pod") === "pod";
  if (options.network === "pod" && isolation.mode !== "namespaces") throw new Error("network \"pod\" needs isolation \"namespaces\"");
  if (wantPodNetwork && isolation.mode === "namespaces") {
    const binDir = options.cniBinDir ?? "/usr/lib/cni";
    const why = (await podNetworkUnavailable(binDir)) ?? (isolation.nsenterPath === null ? "nsenter (util-linux) was not found" : undefined);
    if (why !== undefined || isolation.nsenterPath === null) log(`pods share the host's network (no pod network namespaces): ${why ?? ""}`);
    else {
      podNetwork = { network: new PodNetwork(stateDir, binDir), nsenterPath: isolation.nsenterPath };
    }
  }
  const core = new RuntimeCore({ stateDir, images, log, isolation, ...(podNetwork ? { podNetwork } : {}), ...(options.defaultCgroupParent !== undefined ? { defaultCgroupParent: options.defaultCgroupParent } : {}) });
  // What a previous run on this state dir left (a restart, even after a kill), as containerd's
  // CRI plugin recovers on start-up; network namespaces no recovered sandbox uses are torn down.
  const keepNetns = await core.recover();
  await podNetwork?.network.removeStale(keepNetns);
  // CRI Exec and PortForward answer URLs of this server (SPDY/3.1 streams).
  const streaming = await startStreamingServer(
    {
      execTarget: (id) => core.execTarget("Exec", id),
      checkSandbox: (id) => void core.podSandboxStatus({ podSandboxId: id, verbose: false }),
      connectPort: (id, port) => core.connectPort(id, port),
    },
    log,
  );
  const proto = loadRuntimeProto();
  const server = new Server();
  server.addService(proto.RuntimeService, runtimeHandlers(core, log, streaming));
  const imageSocketPath = options.imageSocketPath !== undefined ? resolve(options.imageSocketPath) : undefined;
  const imageServer = imageSocketPath !== undefined ? new Server() : undefined;
  (imageServer ?? server).addService(proto.ImageService, imageHandlers(images, log));
  const endpoint = `unix://${socketPath}`;
  const bind = (srv: Server, at: string) =>
    new Promise<void>((resolvePromise, reject) => {
      srv.bindAsync(at, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolvePromise()));
    });
  await bind(server, endpoint);
  if (imageServer && imageSocketPath !== undefined) {
    await mkdir(dirname(imageSocketPath), { recursive: true });
    await rm(imageSocketPath, { force: true });
    await bind(imageServer, `unix://${imageSocketPath}`);
    log(`image service listening on unix://${imageSocketPath}`);
  }
  log(`listening on ${endpoint}, state in ${stateDir}`);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await new Promise<void>((resolvePromise) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolvePromise();
        }, 2_000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolvePromise();
        });
      });
      imageServer?.forceShutdown();
      if (imageSocketPath !== undefined) await rm(imageSocketPath, { force: true });
      await streaming.close();
      await core.killAll();
      await rm(socketPath, { force: true });
      log("stopped");
    })();
    return stopping;
  };
  return { endpoint, socketPath, podNetwork: podNetwork !== undefined, stop, pullRequests: images.pullRequests, ...(imageSocketPath !== undefined ? { imageEndpoint: `unix://${imageSocketPath}` } : {}) };
}
