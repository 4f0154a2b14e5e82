import { defineConfig } from "tsup";
import { tsupConfig } from "../../tsup.base.ts";

export default defineConfig(tsupConfig());
