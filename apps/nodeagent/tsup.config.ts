import { defineConfig } from "tsup";
import { tsupConfig } from "../../tsup.base.ts";

// src/main.ts carries its own `#!/usr/bin/env node` line, which tsup keeps; src/index.ts is what
// tools import (tools/local-cluster).
export default defineConfig(tsupConfig({ entry: ["src/main.ts", "src/index.ts"] }));
