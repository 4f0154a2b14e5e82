import { defineConfig } from "tsup";
import { appTsupConfig } from "../../tsup.base.ts";

// src/main.ts carries its own `#!/usr/bin/env node` line, which tsup keeps; bin/ imports it.
export default defineConfig(appTsupConfig({ entry: ["src/main.ts"] }));
