import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { int64Decimal, loadPackageDefinition } from "./package-definition.js";

// The reference: the 64-bit two's complement value of the halves, by BigInt.
function reference(low: number, high: number, unsigned: boolean): string {
  const bits = (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0);
  return (unsigned ? BigInt.asUintN(64, bits) : BigInt.asIntN(64, bits)).toString();
}

describe("int64Decimal", () => {
  it("matches the exact value at the edges of the double and 64-bit ranges", () => {
    const edges = [0, 1, -1, 0x1fffff, 0x200000, -0x200000, -0x200001, 0x7fffffff, -0x80000000, 0x80000000 | 0, 0xffffffff | 0];
    for (const high of edges) for (const low of edges) for (const unsigned of [false, true]) expect(int64Decimal(low, high, unsigned), `${low} ${high} ${unsigned}`).toBe(reference(low, high, unsigned));
  });

  it("matches the exact value for random halves (fuzz)", () => {
    let seed = 12345;
    const rand32 = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) | 0;
      return seed ^ (Math.imul(seed >>> 16, 0x45d9f3b) | 0);
    };
    for (let i = 0; i < 20_000; i++) {
      const low = rand32();
      // Half the cases near the 2^53 boundary, where the double and BigInt paths meet.
      const high = i % 2 === 0 ? rand32() : (rand32() % 0x400000) | 0;
      const unsigned = i % 3 === 0;
      expect(int64Decimal(low, high, unsigned)).toBe(reference(low, high, unsigned));
    }
  });

  it("is what protobufjs's Long gives after the package loads, for every radix", () => {
    loadPackageDefinition();
    const fromLoader = createRequire(createRequire(import.meta.url).resolve("@grpc/proto-loader"));
    const protobuf = fromLoader("protobufjs") as { util: { Long: new (l: number, h: number, u?: boolean) => { toString(r?: number): string } } };
    // require("long") answers the ESM namespace under vitest's conditions, the class elsewhere.
    type LongCtor = new (l: number, h: number, u?: boolean) => { toString(r?: number): string };
    const loaded = createRequire(fromLoader.resolve("protobufjs"))("long") as LongCtor & { isLong?: unknown; default?: LongCtor };
    const Plain = typeof loaded.isLong === "function" ? loaded : (loaded.default as LongCtor);
    for (const [low, high, unsigned] of [[0, 0, false], [-1, -1, false], [1234567, 396_000_000, false], [-5, 0x7fffffff, true]] as const) {
      const fast = new protobuf.util.Long(low, high, unsigned);
      const plain = new Plain(low, high, unsigned);
      for (const radix of [undefined, 10, 16, 36]) expect(fast.toString(radix)).toBe(plain.toString(radix));
    }
    expect((protobuf.util.Long as unknown as { decimalFastPath?: boolean }).decimalFastPath).toBe(true);
  });
});
