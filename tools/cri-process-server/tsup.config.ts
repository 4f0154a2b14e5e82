import { defineConfig } from "tsup";
import { appTsupConfig } from "../../tsup.base.ts";

// bin/ imports dist/main.js; the CRI proto goes to dist/proto/.
export default defineConfig(appTsupConfig({ entry: ["src/index.ts", "src/main.ts"], protoDirs: ["../../packages/cri-api/proto"] }));
