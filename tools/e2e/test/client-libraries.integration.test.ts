// Official Kubernetes client libraries other than kubectl and client-node, from Debian
// (python3-kubernetes 22.6, ruby-kubeclient 4.9; tools/scripts/install-system-deps.sh installs
// them), against the REAL skiff-apiserver: the scripts in tools/e2e/clients/ run CRUD, list
// paging, every patch type the client has, server-side apply, watch with resume and bookmarks,
// and 404/409/422 Status parsing on every served kind, and report each check as JSON. What they
// found (query booleans sent as `True`, discovery with trailing slashes, bookmarks before a short
// timeoutSeconds, a new Job's empty status) is fixed in the server, never in the scripts.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, startAPIServer } from "@skiff/test-support";
import type { RunningAPIServer } from "@skiff/test-support";

const clientsDir = join(dirname(fileURLToPath(import.meta.url)), "../clients");
// Debian's interpreter: `python3` on PATH may be another one (pyenv) without the Debian module.
const python = "/usr/bin/python3";
const ruby = "/usr/bin/ruby";

const served = ["Job", "CSIDriver", "CSINode", "PodTemplate", "Pod", "Node", "Namespace", "Event", "Lease", "PriorityClass"];

function installed(interpreter: string, args: readonly string[]): boolean {
  return existsSync(interpreter) && spawnSync(interpreter, args, { stdio: "ignore" }).status === 0;
}
const havePython = installed(python, ["-c", "import kubernetes"]);
const haveRuby = installed(ruby, ["-e", "require 'kubeclient'"]);
// With CI=true the suites must run (install-system-deps.sh installs both packages).
const mustRun = process.env["CI"] === "true";

interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly error?: string;
}

function runSuite(server: RunningAPIServer, interpreter: string, script: string): Check[] {
  const r = spawnSync(interpreter, [join(clientsDir, script)], {
    env: { ...process.env, SKIFF_SERVER: `https://127.0.0.1:${String(server.port)}`, SKIFF_TOKEN: adminToken, SKIFF_CA_FILE: join(server.dir, "pki", "ca.crt") },
    encoding: "utf8",
    timeout: 240_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`${script} exited with ${String(r.status)}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { results: Check[] }).results;
}

function failures(checks: readonly Check[]): string[] {
  return checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.error ?? ""}`);
}

let server: RunningAPIServer;
beforeAll(async () => {
  server = await startAPIServer({ tempPrefix: "skiff-client-libraries-" });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe.runIf(havePython || mustRun)("python3-kubernetes (Debian)", () => {
  it("passes every check on every served kind, dynamic and typed clients", { timeout: 240_000 }, () => {
    const checks = runSuite(server, python, "python_client_suite.py");
    expect(failures(checks)).toEqual([]);
    for (const kind of served) {
      for (const what of ["create/get/replace", "list paging", "patch json/merge/strategic/apply", "watch with resume", "errors 404/409/422", "delete"]) {
        expect(checks.map((c) => c.name)).toContainEqual(expect.stringMatching(new RegExp(`^${kind} ${what.replace(/\//g, "\\/")}`)));
      }
    }
    expect(checks.map((c) => c.name)).toContain("PodTemplate typed watch allowWatchBookmarks=True timeoutSeconds=4");
  });
});

describe.runIf(haveRuby || mustRun)("ruby-kubeclient (Debian)", () => {
  it("passes every check on every served kind", { timeout: 240_000 }, () => {
    const checks = runSuite(server, ruby, "ruby_client_suite.rb");
    expect(failures(checks)).toEqual([]);
    for (const kind of served) {
      for (const what of ["create/get/update", "list paging", "patch strategic/merge/json/apply", "watch with resume", "errors 404/409/422", "delete"]) {
        expect(checks.map((c) => c.name)).toContainEqual(expect.stringMatching(new RegExp(`^${kind} ${what.replace(/\//g, "\\/")}`)));
      }
    }
  });
});

describe.skipIf(havePython || haveRuby || mustRun)("client libraries", () => {
  it.skip("skipped: neither python3-kubernetes nor ruby-kubeclient is installed (run tools/scripts/install-system-deps.sh)", () => {});
});
