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

/** The parts of long.js's `Long` class that {@link withDecimalFastPath} uses. */
interface LongClass {
  new (low: number, high: number, unsigned?: boolean): { low: number; high: number; unsigned: boolean; toString(radix?: number): string };
  isLong(value: unknown): boolean;
  prototype: { toString(radix?: number): string };
}

const twoPow32 = 4294967296;

/**
 * The decimal text of a 64-bit integer given as long.js's halves (`low`, `high` as signed 32-bit
 * values; `unsigned` reads `high` as unsigned): exact for every value, through a double when the
 * magnitude is below 2^53 and a BigInt otherwise. long.js's own `toString(10)` divides in steps of
 * 10^6 with a new Long per step; a relist of 100 containers converted hundreds of nanosecond
 * timestamps a second that way, and that was a tenth of the node agent's garbage at idle.
 * @example int64Decimal(0, 1, false) // "4294967296"; int64Decimal(-1, -1, false) // "-1"
 */
export function int64Decimal(low: number, high: number, unsigned: boolean): string {
  const lo = low >>> 0;
  if (unsigned) {
    const hi = high >>> 0;
    return hi < 0x200000 ? String(hi * twoPow32 + lo) : ((BigInt(hi) << 32n) | BigInt(lo)).toString();
  }
  const hi = high | 0;
  return hi >= -0x200000 && hi < 0x200000 ? String(hi * twoPow32 + lo) : ((BigInt(hi) << 32n) + BigInt(lo)).toString();
}

/**
 * A subclass of long.js's `Long` whose `toString()` (radix 10) is {@link int64Decimal}; other
 * radixes are long.js's. Handed to protobufjs as `util.Long` (its documented way to supply the
 * Long implementation), so the values it decodes and its `longs: String` conversion use it; other
 * users of long.js are not affected.
 */
function withDecimalFastPath(Long: LongClass): LongClass {
  class DecimalLong extends Long {
    override toString(radix?: number): string {
      if (radix !== undefined && radix !== 10) return super.toString(radix);
      return int64Decimal(this.low, this.high, this.unsigned);
    }
  }
  return DecimalLong;
}

// protobufjs (under proto-loader) finds long.js with require("long"). In a process started with
// `--conditions import` (vitest passes its resolve conditions to node) that require returns the ESM
// namespace, protobufjs concludes there is no Long, and int64 values (nanosecond timestamps) lose
// precision to float64 silently. Hand it the class in that case. Either way protobufjs gets the
// class with the fast decimal conversion (withDecimalFastPath).
function ensureLongSupport(): void {
  try {
    const fromLoader = createRequire(createRequire(import.meta.url).resolve("@grpc/proto-loader"));
    const protobuf = fromLoader("protobufjs") as { util: { Long?: unknown }; configure?: () => void };
    let Long = protobuf.util.Long as LongClass | undefined;
    if (!Long) {
      const loaded = createRequire(fromLoader.resolve("protobufjs"))("long") as { isLong?: unknown; default?: { isLong?: unknown } } | undefined;
      const found = typeof loaded?.isLong === "function" ? loaded : loaded?.default;
      if (typeof found?.isLong !== "function") return;
      Long = found as unknown as LongClass;
    }
    if ((Long as unknown as { decimalFastPath?: boolean }).decimalFastPath) return;
    const Fast = withDecimalFastPath(Long);
    Object.defineProperty(Fast, "decimalFastPath", { value: true });
    protobuf.util.Long = Fast;
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
