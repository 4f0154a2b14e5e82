// The data directory of `skiff up`: a version marker (skiff-version.json) written on first use,
// checked on every start, so that one Skiff version never starts on another's data.
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The marker file's name inside the data directory. */
export const versionMarkerFile = "skiff-version.json";

/** Why a data directory cannot be used: a stable `code` and a message for the user. */
export interface DataDirProblem {
  code: "NotADirectory" | "NotSkiffData" | "OtherVersion" | "BadMarker";
  message: string;
}

/**
 * Checks, without writing anything, that `dir` can hold this Skiff's data: it does not exist, is
 * empty, or holds a `skiff-version.json` naming `version` (`{"skiff":"<version>"}`).
 *
 * @returns undefined when usable, else the problem.
 */
export function checkDataDir(dir: string, version: string): DataDirProblem | undefined {
  if (!existsSync(dir)) return undefined;
  if (!statSync(dir).isDirectory()) return { code: "NotADirectory", message: `${dir} is not a directory` };
  const marker = join(dir, versionMarkerFile);
  if (!existsSync(marker)) {
    if (readdirSync(dir).length === 0) return undefined;
    return { code: "NotSkiffData", message: `${dir} is not empty and has no ${versionMarkerFile}: it was not written by skiff up (or by a Skiff older than 0.1.0). Choose another --data-dir, or an empty one.` };
  }
  let found: unknown;
  try {
    found = (JSON.parse(readFileSync(marker, "utf8")) as { skiff?: unknown }).skiff;
  } catch {
    return { code: "BadMarker", message: `${marker} is not valid JSON; it should be {"skiff":"<version>"}` };
  }
  if (typeof found !== "string") return { code: "BadMarker", message: `${marker} has no "skiff" version string` };
  if (found !== version) {
    return {
      code: "OtherVersion",
      message: `${dir} holds data of Skiff ${found}; this is Skiff ${version}, which does not start on another version's data. Run Skiff ${found} (npx @skiff/cli@${found} up --data-dir ${dir}), or choose another --data-dir.`,
    };
  }
  return undefined;
}

/**
 * Creates `dir` (and parents) when missing and writes its version marker. Call after
 * {@link checkDataDir} said the directory is usable.
 *
 * @throws the `node:fs` error when the directory cannot be created or written.
 */
export function markDataDir(dir: string, version: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, versionMarkerFile), `${JSON.stringify({ skiff: version })}\n`);
}
