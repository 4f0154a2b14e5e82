import type { Options } from "tsup";

/**
 * Writes `node_modules/.cache/skiff-build-stamp` (the time of the last successful build; outside
 * `dist/`, so it is never packed), which `pnpm start` (tools/local-cluster/build.mjs) compares
 * with the sources to skip fresh packages.
 */
async function writeBuildStamp(): Promise<void> {
  const { mkdirSync, writeFileSync } = await import("node:fs");
  mkdirSync("node_modules/.cache", { recursive: true });
  writeFileSync("node_modules/.cache/skiff-build-stamp", `${new Date().toISOString()}\n`);
}

/**
 * The one tsup configuration every package and app extends: ESM only, Node 20 target,
 * no declaration output (`tsc -b` writes the `.d.ts` files into the same `dist/`); a build stamp
 * after each successful build.
 */
export function tsupConfig(overrides: Options = {}): Options {
  return {
    onSuccess: writeBuildStamp,
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

/**
 * The tsup configuration of an app (a package with `bin`s): {@link tsupConfig}, with every
 * `@skiff/*` workspace package bundled from its TypeScript sources (the `@skiff/source` export
 * condition), so that a global `npm install` of the app needs no workspace; third-party
 * dependencies (native ones such as better-sqlite3 included) stay `dependencies` of the app.
 * `protoDirs` (paths relative to the app) are copied into `dist/proto/`, where the bundled
 * `@skiff/cri-api` and `@skiff/csi-api` look for their `.proto` files (they walk up from the
 * bundle's directory).
 */
export function appTsupConfig(overrides: Options & { protoDirs?: string[] } = {}): Options {
  const { protoDirs = [], ...rest } = overrides;
  return tsupConfig({
    noExternal: [/^@skiff\//],
    esbuildOptions(options) {
      options.conditions = ["@skiff/source"];
    },
    async onSuccess() {
      const { cpSync } = await import("node:fs");
      for (const dir of protoDirs) cpSync(dir, "dist/proto", { recursive: true });
      await writeBuildStamp();
    },
    ...rest,
  });
}
