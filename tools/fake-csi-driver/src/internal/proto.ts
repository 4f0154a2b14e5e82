import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";

const loaderOptions = { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true } as const;
const csiProto = join("csi", "v1", "csi.proto");
const registrationProto = join("pluginregistration", "v1", "api.proto");

function findProtoDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, "proto");
    if (existsSync(join(candidate, csiProto))) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`@skiff/fake-csi-driver: proto/${csiProto} not found above ${fileURLToPath(import.meta.url)}`);
}

export interface ServiceDefinitions {
  readonly Identity: grpc.ServiceDefinition;
  readonly Node: grpc.ServiceDefinition;
  readonly Registration: grpc.ServiceDefinition;
}

let cached: ServiceDefinitions | undefined;

export function loadServiceDefinitions(): ServiceDefinitions {
  if (cached) return cached;
  const includeDirs = [findProtoDir()];
  type Ctor = { service: grpc.ServiceDefinition };
  const csi = grpc.loadPackageDefinition(loadSync(csiProto, { ...loaderOptions, includeDirs })) as unknown as { csi: { v1: { Identity: Ctor; Node: Ctor } } };
  const reg = grpc.loadPackageDefinition(loadSync(registrationProto, { ...loaderOptions, includeDirs })) as unknown as { pluginregistration: { Registration: Ctor } };
  cached = { Identity: csi.csi.v1.Identity.service, Node: csi.csi.v1.Node.service, Registration: reg.pluginregistration.Registration.service };
  return cached;
}
