import { defineConfig } from "vitest/config";

// Tests run on TypeScript sources: the "@skiff/source" export condition points every
// workspace package at its src/index.ts, so no build is needed before `vitest run`.
const conditions = ["@skiff/source", "node", "import", "module", "default"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@skiff/source"] } },
  test: {
    restoreMocks: true,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts", "tools/*/src/**/*.test.ts"],
          // A hang guard, not a speed target: CI runs the unit and integration projects side by
          // side on 2 cores (load 15-30), where tests that start an agent in-process (app-setup-node)
          // took 5.1-5.8 s against vitest's 5 s default.
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "tools/*/test/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
