import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImageClient, createRuntimeClient } from "./client.js";
import { isCRIError, type CRIErrorCode } from "./errors.js";
import { loadRuntimeProto } from "./proto.js";

// A scriptable CRI server: each test sets how the next calls are answered.
type Answer = (request: Record<string, unknown>) => { delayMs?: number; error?: { code: number; details: string }; response?: object };
let answer: Answer = () => ({ response: {} });
const seen: { method: string; request: Record<string, unknown> }[] = [];

function handlers(names: string[]): UntypedServiceImplementation {
  return Object.fromEntries(
    names.map((method) => [
      method,
      (call: ServerUnaryCall<Record<string, unknown>, object>, callback: sendUnaryData<object>) => {
        seen.push({ method, request: call.request });
        const { delayMs = 0, error, response = {} } = answer(call.request);
        setTimeout(() => (error ? callback({ ...error, name: "Error", message: error.details }, null) : callback(null, response)), delayMs);
      },
    ]),
  );
}

let dir: string;
let socket: string;
let server: Server;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "skiff-cri-client-"));
  socket = join(dir, "cri.sock");
  const proto = loadRuntimeProto();
  server = new Server();
  server.addService(proto.RuntimeService, handlers(Object.keys(proto.RuntimeService)));
  server.addService(proto.ImageService, handlers(Object.keys(proto.ImageService)));
  await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
});

afterAll(() => {
  server?.forceShutdown();
  rmSync(dir, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to fail");
}

describe("createRuntimeClient", () => {
  it("sends camelCase requests and returns responses with defaults filled in", async () => {
    answer = () => ({ response: { version: "0.1.0", runtimeName: "fake", runtimeVersion: "1", runtimeApiVersion: "v1" } });
    const rt = createRuntimeClient({ endpoint: `unix://${socket}`, timeoutMs: 5_000 });
    try {
      expect(await rt.version({ version: "0.1.0" })).toEqual({ version: "0.1.0", runtimeName: "fake", runtimeVersion: "1", runtimeApiVersion: "v1" });
      // int64 nanoseconds beyond 2^53 must survive both directions exactly, and absent ones read "0".
      answer = () => ({ response: { status: { id: "c1", state: "CONTAINER_EXITED", exitCode: 3, finishedAt: "1700000000000000001" } } });
      const { status: containerStatus } = await rt.containerStatus({ containerId: "c1" });
      expect(containerStatus).toMatchObject({ id: "c1", state: "CONTAINER_EXITED", exitCode: 3, finishedAt: "1700000000000000001", startedAt: "0", reason: "", labels: {} });
      expect(seen.at(-1)).toMatchObject({ method: "ContainerStatus", request: { containerId: "c1", verbose: false } });
    } finally {
      rt.close();
    }
  });

  it.each<[number, CRIErrorCode]>([
    [status.NOT_FOUND, "NotFound"],
    [status.INVALID_ARGUMENT, "InvalidArgument"],
    [status.ALREADY_EXISTS, "AlreadyExists"],
    [status.UNKNOWN, "Unknown"],
    [status.UNIMPLEMENTED, "Unimplemented"],
  ])("rejects with a CRIError carrying status %i as %s and the method", async (code, name) => {
    answer = () => ({ error: { code, details: "container \"x\" not found" } });
    const rt = createRuntimeClient({ endpoint: socket, timeoutMs: 5_000 });
    try {
      const err = await rejection(rt.startContainer({ containerId: "x" }));
      expect(isCRIError(err, name)).toBe(true);
      expect(err).toMatchObject({ method: "StartContainer", details: 'container "x" not found', grpcCode: code });
      expect(String(err)).toContain(`StartContainer: rpc error: code = ${name} desc = container "x" not found`);
    } finally {
      rt.close();
    }
  });

  it("turns an overrun deadline into DeadlineExceeded", async () => {
    answer = () => ({ delayMs: 1_000, response: {} });
    const rt = createRuntimeClient({ endpoint: socket, timeoutMs: 50 });
    try {
      expect(await rejection(rt.listPodSandbox())).toMatchObject({ name: "CRIError", code: "DeadlineExceeded", method: "ListPodSandbox" });
      expect(await rejection(rt.status({}, { timeoutMs: 20 }))).toMatchObject({ code: "DeadlineExceeded" });
    } finally {
      rt.close();
    }
  });

  it("extends StopContainer's deadline by the grace period and lifts ExecSync's when its timeout is 0", async () => {
    answer = () => ({ delayMs: 300, response: {} });
    const rt = createRuntimeClient({ endpoint: socket, timeoutMs: 50 });
    try {
      await rt.stopContainer({ containerId: "c", timeout: 10 });
      await rt.execSync({ containerId: "c", cmd: ["true"], timeout: 0 });
      await rt.execSync({ containerId: "c", cmd: ["true"], timeout: "10" });
      expect(await rejection(rt.stopContainer({ containerId: "c", timeout: 0 }))).toMatchObject({ code: "DeadlineExceeded" });
    } finally {
      rt.close();
    }
  });

  it("reports Unavailable when nothing listens", async () => {
    const rt = createRuntimeClient({ endpoint: join(dir, "nobody.sock"), timeoutMs: 2_000 });
    try {
      expect(await rejection(rt.version())).toMatchObject({ code: "Unavailable", method: "Version" });
    } finally {
      rt.close();
    }
  });

  it("rejects bad options with InvalidArgument from Dial", () => {
    expect(() => createRuntimeClient({ endpoint: "tcp://localhost:1", timeoutMs: 1 })).toThrow(/code = InvalidArgument/);
    expect(() => createRuntimeClient({ endpoint: socket, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createRuntimeClient({ endpoint: socket, timeoutMs: Number.NaN })).toThrow(/timeoutMs/);
    expect(() => createImageClient({ endpoint: socket, timeoutMs: 1, pullImageTimeoutMs: -1 })).toThrow(/pullImageTimeoutMs/);
    try {
      createRuntimeClient({ endpoint: "relative.sock", timeoutMs: 1 });
    } catch (err) {
      expect(err).toMatchObject({ code: "InvalidArgument", method: "Dial" });
    }
  });
});

describe("createImageClient", () => {
  it("gives PullImage its own deadline", async () => {
    answer = () => ({ delayMs: 300, response: { imageRef: "sha256:abc" } });
    const images = createImageClient({ endpoint: socket, timeoutMs: 50, pullImageTimeoutMs: 10_000 });
    try {
      expect(await images.pullImage({ image: { image: "busybox" } })).toEqual({ imageRef: "sha256:abc" });
      expect(await rejection(images.imageStatus({ image: { image: "busybox" } }))).toMatchObject({ code: "DeadlineExceeded", method: "ImageStatus" });
    } finally {
      images.close();
    }
  });

  it("returns a null image for ImageStatus of an absent image", async () => {
    answer = () => ({ response: {} });
    const images = createImageClient({ endpoint: socket, timeoutMs: 5_000 });
    try {
      expect(await images.imageStatus({ image: { image: "nope" } })).toEqual({ image: null, info: {} });
      expect(await images.imageFsInfo()).toEqual({ imageFilesystems: [] });
    } finally {
      images.close();
    }
  });
});
