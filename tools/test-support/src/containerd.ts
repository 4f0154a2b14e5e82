import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const toolsDir = join(dirname(fileURLToPath(import.meta.url)), "../../containerd");

/** The outcome of {@link setUpContainerd}: exactly one of `endpoint` and `error` is set. */
export interface ContainerdSetup {
  /** The temporary directory holding containerd's state, config and socket. */
  readonly dir: string;
  /** `unix://…` CRI endpoint of the running containerd. */
  readonly endpoint?: string;
  /** Why containerd is not available. */
  readonly error?: string;
}

/** Options of {@link setUpContainerd}. */
export interface SetUpContainerdOptions {
  /** Prefix of the temporary directory; short, as the socket path must fit a unix socket address. */
  readonly prefix: string;
  /** Names the suite in the skip warning (`<suite> skipped: <reason>`). */
  readonly suite: string;
  /**
   * Size in bytes of a tmpfs mounted on containerd's root (`<dir>/root`: content store,
   * snapshots, metadata, so the CRI image filesystem) before containerd starts, for tests that
   * need a small image fs; unmounted by {@link tearDownContainerd}. Omitted: no mount.
   */
  readonly rootTmpfsBytes?: number;
}

/**
 * The gate of every containerd suite: runs tools/containerd/setup.sh in a new temporary directory
 * (synchronously, at module load). Without root, or when setup fails, the result carries `error`:
 * with `CI=true` a test asserting the setup is registered (so CI fails), elsewhere a warning is
 * printed and callers skip with `describe.skipIf(setup.endpoint === undefined)`.
 * Pair with {@link tearDownContainerd} in `afterAll`.
 *
 * @example
 * ```ts
 * const setup = setUpContainerd({ prefix: "skiff-ctd-", suite: "containerd suite" });
 * afterAll(() => tearDownContainerd(setup));
 * describe.skipIf(setup.endpoint === undefined)("on containerd", () => { … });
 * ```
 */
export function setUpContainerd(options: SetUpContainerdOptions): ContainerdSetup {
  const setup = runSetup(options.prefix, options.rootTmpfsBytes);
  const ci = process.env.CI === "true";
  if (setup.error !== undefined && !ci) console.warn(`${options.suite} skipped: ${setup.error}`);
  if (setup.error !== undefined && ci) {
    describe("containerd setup (CI)", () => {
      it("sets up containerd", () => {
        expect(setup.error).toBeUndefined();
      });
    });
  }
  return setup;
}

function runSetup(prefix: string, rootTmpfsBytes: number | undefined): ContainerdSetup {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (process.getuid?.() !== 0) return { dir, error: "not running as root (containerd and runc need it)" };
  if (rootTmpfsBytes !== undefined) {
    mkdirSync(join(dir, "root"));
    const mount = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${rootTmpfsBytes}`, "tmpfs", join(dir, "root")], { encoding: "utf8", timeout: 30_000 });
    if (mount.status !== 0) return { dir, error: `mounting a tmpfs on ${join(dir, "root")} failed: ${mount.stderr.trim()}` };
  }
  const result = spawnSync("bash", [join(toolsDir, "setup.sh"), "--dir", dir], { encoding: "utf8", timeout: 600_000 });
  if (result.status !== 0) {
    return { dir, error: `setup.sh exited ${result.status ?? result.signal}: ${result.stderr.trim().split("\n").slice(-15).join("\n")}` };
  }
  const endpoint = result.stdout.trim().split("\n").at(-1) ?? "";
  if (!endpoint.startsWith("unix://")) return { dir, error: `setup.sh printed no endpoint: ${result.stdout}` };
  return { dir, endpoint };
}

/**
 * Stops what {@link setUpContainerd} started (tools/containerd/stop.sh --purge, which also
 * unmounts the root tmpfs) and removes its directory.
 */
export function tearDownContainerd(setup: ContainerdSetup): void {
  spawnSync("bash", [join(toolsDir, "stop.sh"), "--dir", setup.dir, "--purge"], { stdio: "inherit", timeout: 120_000 });
  // stop.sh unmounts lazily; a mount it missed (containerd never started) goes here.
  spawnSync("umount", [join(setup.dir, "root")], { stdio: "ignore", timeout: 30_000 });
  rmSync(setup.dir, { recursive: true, force: true });
}
