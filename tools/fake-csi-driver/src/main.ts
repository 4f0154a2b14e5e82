#!/usr/bin/env node
// skiff-fake-csi-driver: serves the fake CSI driver (see startFakeCsiDriver) until SIGINT/SIGTERM.
import { parseArgs } from "node:util";
import { startFakeCsiDriver } from "./fake-driver.js";

const usage = `usage: skiff-fake-csi-driver --csi-socket <path> [--plugins-registry <dir>] [options]

  --csi-socket <path>          unix socket for the CSI Identity and Node services
  --plugins-registry <dir>     the node agent's <root-dir>/plugins_registry (registration socket goes there)
  --name <name>                driver name (default fake.csi.example.io)
  --node-id <id>               NodeGetInfo node_id (default fake-node)
  --topology <k=v,...>         NodeGetInfo accessible_topology segments
  --max-volumes <n>            NodeGetInfo max_volumes_per_node (default 0: unlimited)
  --record-file <path>         append one JSON line per NodePublishVolume (volume id, target, volume context)
  -h, --help                   show this help
`;

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} skiff-fake-csi-driver: ${message}\n`);
}

function parseTopology(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(",")) {
    if (part.trim() === "") continue;
    const eq = part.indexOf("=");
    if (eq <= 0) throw new Error(`--topology: expected key=value, got "${part}"`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

async function main(): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        "csi-socket": { type: "string" },
        "plugins-registry": { type: "string" },
        name: { type: "string" },
        "node-id": { type: "string" },
        topology: { type: "string" },
        "max-volumes": { type: "string" },
        "record-file": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${usage}`);
    process.exit(2);
  }
  if (values.help === true) {
    process.stdout.write(usage);
    return;
  }
  const csiSocket = values["csi-socket"];
  if (typeof csiSocket !== "string" || csiSocket === "") {
    process.stderr.write(`--csi-socket is required\n${usage}`);
    process.exit(2);
  }
  const maxVolumes = Number(values["max-volumes"] ?? "0");
  if (!Number.isInteger(maxVolumes) || maxVolumes < 0) {
    process.stderr.write(`--max-volumes must be a non-negative integer\n`);
    process.exit(2);
  }
  let topology: Record<string, string>;
  try {
    topology = parseTopology(typeof values.topology === "string" ? values.topology : "");
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  const registry = values["plugins-registry"];
  const recordFile = values["record-file"];
  if (recordFile === "") {
    process.stderr.write(`--record-file must not be empty\n`);
    process.exit(2);
  }
  const driver = await startFakeCsiDriver({
    csiSocketPath: csiSocket,
    ...(typeof registry === "string" ? { pluginsRegistryDir: registry } : {}),
    ...(typeof values.name === "string" ? { name: values.name } : {}),
    ...(typeof values["node-id"] === "string" ? { nodeId: values["node-id"] } : {}),
    topology,
    maxVolumesPerNode: maxVolumes,
    ...(typeof recordFile === "string" ? { recordFile } : {}),
    log,
  });
  log(`serving ${driver.name} on ${driver.csiSocketPath}${driver.registrationSocketPath ? `, registration on ${driver.registrationSocketPath}` : ""}`);
  const shutdown = (signal: string): void => {
    log(`received ${signal}, stopping`);
    driver.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((err: unknown) => {
  log(`failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
