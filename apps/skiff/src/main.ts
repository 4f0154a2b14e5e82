#!/usr/bin/env node
// skiff: a local cluster from the installed packages (`skiff up`, `down`, `status`, `kubeconfig`).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { formatHelp, parseSkiffArgs } from "./args.js";
import { down, kubeconfig, status, up, upForeground } from "./commands.js";

const version = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
const io = { stdout: process.stdout, stderr: process.stderr };

async function main(argv: readonly string[]): Promise<number> {
  const r = parseSkiffArgs(argv);
  if (!r.ok) {
    for (const e of r.errors) process.stderr.write(`skiff: ${e}\n`);
    return 2;
  }
  const c = r.value;
  switch (c.command) {
    case "help":
      process.stdout.write(formatHelp(c.topic));
      return 0;
    case "version":
      process.stdout.write(`skiff ${version}\n`);
      return 0;
    case "up":
      return c.foreground ? upForeground(c, version, io) : up(c, version, fileURLToPath(import.meta.url), io);
    case "down":
      return down(c.dataDir, io);
    case "status":
      return status(c.dataDir, io);
    case "kubeconfig":
      return kubeconfig(c.dataDir, c.output, io);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`skiff: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
