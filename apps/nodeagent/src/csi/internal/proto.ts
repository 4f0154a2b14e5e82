import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { loadSync, type PackageDefinition } from "@grpc/proto-loader";

// camelCase fields, enums as names, int64 as JS numbers (max_volumes_per_node is small), defaults
// filled in, oneofs reported by name.
const loaderOptions = { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true } as const;

const csiProto = join("csi", "v1", "csi.proto");
const registrationProto = join("pluginregistration", "v1", "api.proto");

// src/csi/internal/ in tests, dist/ when bundled: walk up to the directory holding proto/.
function findProtoDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, "proto");
    if (existsSync(join(candidate, csiProto))) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`nodeagent: proto/${csiProto} not found above ${fileURLToPath(import.meta.url)}`);
}

type ServiceCtor = grpc.ServiceClientConstructor;

export interface LoadedProtos {
  readonly Identity: ServiceCtor;
  readonly Node: ServiceCtor;
  readonly Registration: ServiceCtor;
}

let cached: LoadedProtos | undefined;

export function loadProtos(): LoadedProtos {
  if (cached) return cached;
  const includeDirs = [findProtoDir()];
  const csi: PackageDefinition = loadSync(csiProto, { ...loaderOptions, includeDirs });
  const reg: PackageDefinition = loadSync(registrationProto, { ...loaderOptions, includeDirs });
  const csiObj = grpc.loadPackageDefinition(csi) as unknown as { csi: { v1: { Identity: ServiceCtor; Node: ServiceCtor } } };
  const regObj = grpc.loadPackageDefinition(reg) as unknown as { pluginregistration: { Registration: ServiceCtor } };
  cached = { Identity: csiObj.csi.v1.Identity, Node: csiObj.csi.v1.Node, Registration: regObj.pluginregistration.Registration };
  return cached;
}

/** `unix:///path`, `unix:path` or a bare path → a grpc-js target. */
export function grpcTarget(endpoint: string): string {
  if (endpoint.startsWith("unix://")) return `unix://${endpoint.slice("unix://".length)}`;
  if (endpoint.startsWith("unix:")) return `unix:${endpoint.slice("unix:".length)}`;
  return `unix://${endpoint}`;
}

type Callback<R> = (err: grpc.ServiceError | null, res: R) => void;
type UnaryMethod = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback<unknown>) => void;

/** Calls a unary method with a deadline; rejects with the grpc ServiceError. */
export function callUnary<R>(client: grpc.Client, method: string, req: unknown, timeoutMs: number): Promise<R> {
  return new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, UnaryMethod | undefined>)[method];
    if (typeof fn !== "function") {
      reject(new Error(`no gRPC method ${method}`));
      return;
    }
    fn.call(client, req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res as R)));
  });
}

export function newClient(ctor: ServiceCtor, endpoint: string): grpc.Client {
  return new ctor(grpcTarget(endpoint), grpc.credentials.createInsecure());
}
