/**
 * A test device plugin: a small real gRPC server implementing `v1beta1.DevicePlugin` on a socket
 * in the agent's device-plugins directory, registering itself on `kubelet.sock`. No real hardware
 * exists here: its devices are names, and `Allocate` answers with an env var, a mount and an
 * annotation naming the devices.
 */
import * as grpc from "@grpc/grpc-js";
import { join } from "node:path";
import { loadDevicePluginAPI, type ContainerAllocateResponse, type Device, type DevicePluginOptions } from "../src/cm/devicemanager/index.js";

/** A running test plugin. */
export interface TestDevicePlugin {
  /** The `Allocate` requests received (device IDs per container). */
  readonly allocations: string[][];
  /** The `PreStartContainer` requests received. */
  readonly preStarts: string[][];
  /** Replaces the device list (sent on ListAndWatch). */
  setDevices(devices: Device[]): void;
  /** Calls `Register` on the agent's socket; rejects with the agent's refusal. */
  register(over?: { version?: string; resourceName?: string; endpoint?: string }): Promise<void>;
  /** Ends ListAndWatch and stops the server. */
  stop(): Promise<void>;
}

/** Starts a test plugin serving `resourceName` with `devices` at `<dir>/<endpoint>`. */
export async function startTestDevicePlugin(o: {
  dir: string;
  endpoint: string;
  resourceName: string;
  devices: Device[];
  options?: DevicePluginOptions;
  /** The `Allocate` answer per container. @defaultValue env FOO_DEVICES, a read-only mount of /tmp at /dev-foo, annotation example.com/foo-devices */
  allocate?: (deviceIds: string[]) => ContainerAllocateResponse;
  /** `Allocate` fails with gRPC Unknown and these details. */
  failAllocate?: string;
}): Promise<TestDevicePlugin> {
  const api = loadDevicePluginAPI();
  const server = new grpc.Server();
  let devices = o.devices;
  const streams = new Set<grpc.ServerWritableStream<object, object>>();
  const allocations: string[][] = [];
  const preStarts: string[][] = [];
  server.addService(api.DevicePlugin.service, {
    GetDevicePluginOptions: (_c: unknown, cb: grpc.sendUnaryData<object>) => cb(null, o.options ?? {}),
    ListAndWatch: (call: grpc.ServerWritableStream<object, object>) => {
      streams.add(call);
      call.write({ devices });
      call.on("cancelled", () => streams.delete(call));
    },
    GetPreferredAllocation: (_c: unknown, cb: grpc.sendUnaryData<object>) => cb(null, { containerResponses: [] }),
    Allocate: (call: grpc.ServerUnaryCall<{ containerRequests: { devicesIDs: string[] }[] }, object>, cb: grpc.sendUnaryData<object>) => {
      if (o.failAllocate !== undefined) {
        cb({ code: grpc.status.UNKNOWN, details: o.failAllocate }, null);
        return;
      }
      const containerResponses = call.request.containerRequests.map((r) => {
        allocations.push([...r.devicesIDs]);
        if (o.allocate) return o.allocate([...r.devicesIDs]);
        return {
          envs: { FOO_DEVICES: r.devicesIDs.join(",") },
          mounts: [{ containerPath: "/dev-foo", hostPath: "/tmp", readOnly: true }],
          devices: [],
          annotations: { "example.com/foo-devices": r.devicesIDs.join(",") },
        };
      });
      cb(null, { containerResponses });
    },
    PreStartContainer: (call: grpc.ServerUnaryCall<{ devicesIDs: string[] }, object>, cb: grpc.sendUnaryData<object>) => {
      preStarts.push([...call.request.devicesIDs]);
      cb(null, {});
    },
  });
  await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${join(o.dir, o.endpoint)}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  return {
    allocations,
    preStarts,
    setDevices(d) {
      devices = d;
      for (const s of streams) s.write({ devices });
    },
    register: (over = {}) =>
      new Promise<void>((resolve, reject) => {
        const client = new api.Registration(`unix://${join(o.dir, "kubelet.sock")}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & { Register(req: object, cb: (err: grpc.ServiceError | null) => void): void };
        client.Register({ version: over.version ?? "v1beta1", endpoint: over.endpoint ?? o.endpoint, resourceName: over.resourceName ?? o.resourceName, options: o.options ?? {} }, (err) => {
          client.close();
          if (err) reject(err);
          else resolve();
        });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of streams) s.end();
        streams.clear();
        server.tryShutdown(() => resolve());
        setTimeout(() => server.forceShutdown(), 1000).unref();
      }),
  };
}
