import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPackageDefinition as toGrpcObject } from "@grpc/grpc-js";
import { loadSync, type Options, type PackageDefinition } from "@grpc/proto-loader";
import type { ProtoGrpcType } from "../generated/api.js";

// The same conversions scripts/generate.mjs gives proto-loader-gen-types, so the generated types
// describe the objects grpc-js hands out at run time.
export const loaderOptions: Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

const protoFile = join("runtime", "v1", "api.proto");

// This module runs from src/internal/ in tests and from the bundled dist/index.js when packed;
// walk up to the package root, the directory that holds proto/.
function findProtoDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, "proto");
    if (existsSync(join(candidate, protoFile))) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`@skiff/cri-api: proto/${protoFile} not found above ${fileURLToPath(import.meta.url)}`);
}

// protobufjs (under proto-loader) finds long.js with require("long"). In a process started with
// `--conditions import` (vitest passes its resolve conditions to node) that require returns the ESM
// namespace, protobufjs concludes there is no Long, and int64 values (nanosecond timestamps) lose
// precision to float64 silently. Hand it the class in that case.
function ensureLongSupport(): void {
  try {
    const fromLoader = createRequire(createRequire(import.meta.url).resolve("@grpc/proto-loader"));
    const protobuf = fromLoader("protobufjs") as { util: { Long?: unknown }; configure?: () => void };
    if (protobuf.util.Long) return;
    const loaded = createRequire(fromLoader.resolve("protobufjs"))("long") as { isLong?: unknown; default?: { isLong?: unknown } } | undefined;
    const Long = typeof loaded?.isLong === "function" ? loaded : loaded?.default;
    if (typeof Long?.isLong !== "function") return;
    protobuf.util.Long = Long;
    protobuf.configure?.();
  } catch {
    // Leave protobufjs as it is; int64 values then round-trip through float64.
  }
}

let cached: PackageDefinition | undefined;

export function loadPackageDefinition(): PackageDefinition {
  if (!cached) ensureLongSupport();
  cached ??= loadSync(protoFile, { ...loaderOptions, includeDirs: [findProtoDir()] });
  return cached;
}

// The loaded package as grpc-js client constructors and service definitions.
export function loadGrpcObject(): ProtoGrpcType {
  return toGrpcObject(loadPackageDefinition()) as unknown as ProtoGrpcType;
}
