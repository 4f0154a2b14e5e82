import { defineConfig } from "tsup";
import { appTsupConfig } from "../../tsup.base.ts";

// src/main.ts carries its own `#!/usr/bin/env node` line, which tsup keeps (bin/ imports it);
// src/index.ts is what tools import in the workspace. The CRI and CSI protos go to dist/proto/.
export default defineConfig(
  appTsupConfig({ entry: ["src/main.ts", "src/index.ts"], protoDirs: ["../../packages/cri-api/proto", "../../packages/csi-api/proto"] }),
);
