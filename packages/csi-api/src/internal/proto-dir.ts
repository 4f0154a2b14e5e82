import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const csiProtoFile = join("csi", "v1", "csi.proto");
export const registrationProtoFile = join("pluginregistration", "v1", "api.proto");

// This module runs from src/internal/ in tests and from the bundled dist/index.js when packed;
// walk up to the package root, the directory that holds proto/.
export function findProtoDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, "proto");
    if (existsSync(join(candidate, csiProtoFile))) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`@skiff/csi-api: proto/${csiProtoFile} not found above ${fileURLToPath(import.meta.url)}`);
}
