// Runs the CRI conformance suite against real containerd + runc, set up by
// tools/containerd/setup.sh in a temporary directory and stopped again afterwards.
// With CI=true the suite must run; elsewhere it is skipped (with the reason) when setup fails,
// e.g. without root or apt.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { defineRuntimeConformanceSuite } from "./runtime-suite.js";

const toolsDir = join(dirname(fileURLToPath(import.meta.url)), "../../containerd");
const ci = process.env.CI === "true";

interface Setup {
  dir: string;
  endpoint?: string;
  error?: string;
}

function setUpContainerd(): Setup {
  // Short: the socket path must fit a unix socket address.
  const dir = mkdtempSync(join(tmpdir(), "skiff-ctd-"));
  if (process.getuid?.() !== 0) return { dir, error: "not running as root (containerd and runc need it)" };
  const result = spawnSync("bash", [join(toolsDir, "setup.sh"), "--dir", dir], { encoding: "utf8", timeout: 600_000 });
  if (result.status !== 0) {
    return { dir, error: `setup.sh exited ${result.status ?? result.signal}: ${result.stderr.trim().split("\n").slice(-15).join("\n")}` };
  }
  const endpoint = result.stdout.trim().split("\n").at(-1) ?? "";
  if (!endpoint.startsWith("unix://")) return { dir, error: `setup.sh printed no endpoint: ${result.stdout}` };
  return { dir, endpoint };
}

const setup = setUpContainerd();
if (setup.error && !ci) {
  console.warn(`containerd suite skipped: ${setup.error}`);
}

afterAll(() => {
  spawnSync("bash", [join(toolsDir, "stop.sh"), "--dir", setup.dir, "--purge"], { stdio: "inherit", timeout: 120_000 });
  rmSync(setup.dir, { recursive: true, force: true });
});

if (ci && setup.error !== undefined) {
  describe("containerd setup (CI)", () => {
    it("sets up containerd", () => {
      expect(setup.error).toBeUndefined();
    });
  });
}

describe.skipIf(setup.endpoint === undefined)("containerd: CRI conformance", () => {
  defineRuntimeConformanceSuite(() => ({ endpoint: setup.endpoint ?? "" }), { timeoutMs: 60_000 });
});
