import type { Options } from "tsup";

/**
 * The one tsup configuration every package and app extends: ESM only, Node 20 target,
 * no declaration output (`tsc -b` writes the `.d.ts` files into the same `dist/`).
 */
export function tsupConfig(overrides: Options = {}): Options {
  return {
    entry: ["src/index.ts"],
    format: ["esm"],
    target: "node20",
    platform: "node",
    sourcemap: true,
    clean: false,
    dts: false,
    splitting: false,
    treeshake: true,
    ...overrides,
  };
}
