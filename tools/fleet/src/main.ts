#!/usr/bin/env node
// skiff-fleet: runs N hollow nodes in this process (see runFleetCli). Run from source:
// node --max-semi-space-size=64 --conditions=@skiff/source --import tsx tools/fleet/src/main.ts --nodes 100 --kubeconfig <file>
import { runFleetCli } from "./cli.js";

// Exit once stopped: every hollow node is stopped and the log flushed by then, and a stray
// keep-alive socket or retry timer must not hold the process.
process.exit(await runFleetCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }));
