import { defineConfig } from "tsup";
import { appTsupConfig } from "../../tsup.base.ts";

// src/main.ts carries its own `#!/usr/bin/env node` line (bin/skiff.js imports it); src/index.ts is
// what tools/local-cluster imports in the workspace.
export default defineConfig(appTsupConfig({ entry: ["src/main.ts", "src/index.ts"] }));
