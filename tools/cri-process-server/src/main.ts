#!/usr/bin/env node
// skiff-cri-process-server: serves CRI runtime.v1 on a unix socket and runs containers as plain
// host processes (see startProcessRuntime). Logs to stderr; SIGTERM or SIGINT stop it cleanly,
// killing every container it started.
import { parseArgs } from "node:util";
import { startProcessRuntime } from "./process-runtime.js";

const usage = `usage: skiff-cri-process-server --listen <socket> --state-dir <dir>

  --listen <socket>    unix socket to serve CRI on (a path, or unix:///path)
  --state-dir <dir>    directory for sandbox scratch directories
  -h, --help           show this help
`;

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} skiff-cri-process-server: ${message}\n`);
}

async function main(): Promise<void> {
  let values: { listen?: string | undefined; "state-dir"?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      options: { listen: { type: "string" }, "state-dir": { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${usage}`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(usage);
    return;
  }
  const listen = values.listen;
  const stateDir = values["state-dir"];
  if (!listen || !stateDir) {
    process.stderr.write(`--listen and --state-dir are required\n${usage}`);
    process.exit(2);
  }
  const socketPath = listen.startsWith("unix://") ? listen.slice("unix://".length) : listen;
  const runtime = await startProcessRuntime({ socketPath, stateDir, log });
  let signalled = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (signalled) return;
    signalled = true;
    log(`received ${signal}, stopping`);
    runtime.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log(`stop failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

main().catch((err: unknown) => {
  log(`fatal: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
