import { status, type handleUnaryCall, type sendUnaryData, type ServerUnaryCall } from "@grpc/grpc-js";
import { isCRIError, toCRIError, type ImageServiceHandlers, type RuntimeServiceHandlers } from "@skiff/cri-api";
import { containerStatsOf, oneContainerStats } from "./container-stats.js";
import type { ImageStore } from "./image-store.js";
import type { RuntimeCore, StatsTarget } from "./runtime-core.js";
import { prepareAttach, prepareExec, preparePortForward } from "./streaming.js";
import type { StreamingServer } from "./streaming-server.js";

type Log = (message: string) => void;

// Adapts an async function to a grpc-js unary handler: a thrown CRIError becomes its status, any
// other error is a bug in the runtime and becomes Internal (and is logged).
function unary<Req, Res>(method: string, log: Log, fn: (req: Req) => Res | Promise<Res>): handleUnaryCall<Req, Res> {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    Promise.resolve()
      .then(() => fn(call.request))
      .then(
        (res) => callback(null, res),
        (err: unknown) => {
          const known = isCRIError(err);
          const e = known ? err : toCRIError(err, method);
          if (!known) log(`${method}: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
          callback({ name: "CRIError", message: e.details, code: known ? e.grpcCode : status.INTERNAL, details: e.details }, null);
        },
      );
  };
}

export function runtimeHandlers(core: RuntimeCore, log: Log, streaming: StreamingServer): RuntimeServiceHandlers {
  return {
    Version: unary("Version", log, (req) => core.version(req)),
    Status: unary("Status", log, (req) => core.status(req)),
    UpdateRuntimeConfig: unary("UpdateRuntimeConfig", log, (req) => {
      core.updateRuntimeConfig(req);
      return {};
    }),
    RunPodSandbox: unary("RunPodSandbox", log, (req) => core.runPodSandbox(req)),
    StopPodSandbox: unary("StopPodSandbox", log, async (req) => {
      await core.stopPodSandbox(req.podSandboxId);
      return {};
    }),
    RemovePodSandbox: unary("RemovePodSandbox", log, async (req) => {
      await core.removePodSandbox(req.podSandboxId);
      return {};
    }),
    PodSandboxStatus: unary("PodSandboxStatus", log, (req) => core.podSandboxStatus(req)),
    ListPodSandbox: unary("ListPodSandbox", log, (req) => core.listPodSandbox(req)),
    CreateContainer: unary("CreateContainer", log, (req) => core.createContainer(req)),
    StartContainer: unary("StartContainer", log, async (req) => {
      await core.startContainer(req.containerId);
      return {};
    }),
    StopContainer: unary("StopContainer", log, async (req) => {
      await core.stopContainer(req.containerId, req.timeout);
      return {};
    }),
    RemoveContainer: unary("RemoveContainer", log, async (req) => {
      await core.removeContainer(req.containerId);
      return {};
    }),
    ListContainers: unary("ListContainers", log, (req) => core.listContainers(req)),
    ContainerStatus: unary("ContainerStatus", log, (req) => core.containerStatus(req)),
    ReopenContainerLog: unary("ReopenContainerLog", log, async (req) => {
      await core.reopenContainerLog(req.containerId);
      return {};
    }),
    UpdateContainerResources: unary("UpdateContainerResources", log, async (req) => {
      await core.updateContainerResources(req.containerId, req.linux);
      return {};
    }),
    ExecSync: unary("ExecSync", log, (req) => core.execSync(req)),
    ContainerStats: unary("ContainerStats", log, (req) => oneContainerStats(core.statsTargets(undefined, req.containerId)[0] as StatsTarget)),
    ListContainerStats: unary("ListContainerStats", log, (req) => containerStatsOf(core.statsTargets(req.filter ?? undefined))),
    Exec: unary("Exec", log, (req) => prepareExec(streaming, req)),
    Attach: unary("Attach", log, (req) => prepareAttach(streaming, req)),
    PortForward: unary("PortForward", log, (req) => preparePortForward(streaming, req)),
  };
}

export function imageHandlers(images: ImageStore, log: Log): ImageServiceHandlers {
  return {
    PullImage: unary("PullImage", log, async (req) => {
      const res = images.pull("PullImage", req.image, req.auth);
      await images.save();
      return res;
    }),
    ImageStatus: unary("ImageStatus", log, (req) => images.status(req.image, req.verbose)),
    ListImages: unary("ListImages", log, (req) => images.list(req.filter?.image ?? null)),
    RemoveImage: unary("RemoveImage", log, async (req) => {
      images.remove(req.image);
      await images.save();
      return {};
    }),
    ImageFsInfo: unary("ImageFsInfo", log, () => images.fsInfo()),
  };
}
