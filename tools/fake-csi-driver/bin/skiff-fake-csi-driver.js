#!/usr/bin/env node
// The skiff-fake-csi-driver command: runs the built program (dist/main.js, written by `pnpm build`).
// It is a committed file of its own so that `pnpm install` links the command before anything
// is built, without a warning, and says what to do when the build is missing.
import { existsSync } from "node:fs";

const main = new URL("../dist/main.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write("skiff-fake-csi-driver: dist/main.js is missing: build it first (pnpm build, or pnpm --filter @skiff/fake-csi-driver build).\n");
  process.exit(1);
}
await import(main.href);
