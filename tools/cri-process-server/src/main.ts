#!/usr/bin/env node
// skiff-cri-process-server: serves CRI runtime.v1 on a unix socket and runs containers as plain
// host processes (see startProcessRuntime). Logs to stderr; SIGTERM or SIGINT stop it cleanly,
// killing every container it started.
import { parseArgs } from "node:util";
import { startProcessRuntime } from "./process-runtime.js";

const usage = `usage: skiff-cri-process-server --listen <socket> --state-dir <dir> [--isolation namespaces|none]

  --listen <socket>      unix socket to serve CRI on (a path, or unix:///path)
  --state-dir <dir>      directory for sandbox scratch directories and the records of
                         sandboxes, containers and images (a restart on it recovers them)
  --isolation <mode>     namespaces (default): each container in its own mount, UTS and PID
                         namespaces via bubblewrap (bwrap), volumes and /etc files applied, the
                         host's root read-only; none: plain host processes, mounts not applied
  --bwrap <path>         the bubblewrap binary (default: bwrap on PATH)
  --network <mode>       pod (default with namespaces): each pod that is not host-network gets its
                         own network namespace, set up with the CNI plugins (bridge, host-local,
                         loopback, portmap; needs root, else the host's network is used and logged);
                         host: every pod shares the host's network
  --cni-bin-dir <dir>    where the CNI plugins are (default: /usr/lib/cni)
  -h, --help             show this help
`;

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} skiff-cri-process-server: ${message}\n`);
}

async function main(): Promise<void> {
  let values: { listen?: string | undefined; "state-dir"?: string | undefined; isolation?: string | undefined; bwrap?: string | undefined; network?: string | undefined; "cni-bin-dir"?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      options: { listen: { type: "string" }, "state-dir": { type: "string" }, isolation: { type: "string" }, bwrap: { type: "string" }, network: { type: "string" }, "cni-bin-dir": { type: "string" }, help: { type: "boolean", short: "h" } },
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
  const isolation = values.isolation ?? "namespaces";
  if (isolation !== "namespaces" && isolation !== "none") {
    process.stderr.write(`--isolation must be namespaces or none, not ${JSON.stringify(isolation)}\n${usage}`);
    process.exit(2);
  }
  const network = values.network ?? (isolation === "namespaces" ? "pod" : "host");
  if (network !== "pod" && network !== "host") {
    process.stderr.write(`--network must be pod or host, not ${JSON.stringify(network)}\n${usage}`);
    process.exit(2);
  }
  if (network === "pod" && isolation !== "namespaces") {
    process.stderr.write(`--network=pod needs --isolation=namespaces\n${usage}`);
    process.exit(2);
  }
  const socketPath = listen.startsWith("unix://") ? listen.slice("unix://".length) : listen;
  const runtime = await startProcessRuntime({ socketPath, stateDir, log, isolation, network, ...(values.bwrap !== undefined ? { bwrapPath: values.bwrap } : {}), ...(values["cni-bin-dir"] !== undefined ? { cniBinDir: values["cni-bin-dir"] } : {}) });
  log(
    isolation === "namespaces"
      ? `containers run in their own mount, UTS and PID namespaces (bubblewrap); ${runtime.podNetwork ? "each pod in its own network namespace (CNI)" : "the network is the host's"}`
      : "containers run as plain host processes (--isolation=none): volumes and /etc files are not applied",
  );
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
