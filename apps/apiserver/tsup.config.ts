import { defineConfig } from "tsup";
import { tsupConfig } from "../../tsup.base.ts";

export default defineConfig(tsupConfig({ entry: ["src/main.ts"], banner: { js: "#!/usr/bin/env node" } }));
