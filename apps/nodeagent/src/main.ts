#!/usr/bin/env node
// Entry point of the nodeagent binary: runs the agent and exits with its code (explicitly, so
// that runtime channels left open by a failed start cannot keep the process alive; stdout and
// stderr writes are synchronous for files and pipes on Linux).
//
// The V8 flags (v8-flags.ts) must be set before the agent's modules and their dependencies load,
// so the agent comes in through a dynamic import of the package's index (dist/index.js once built:
// a specifier the bundler leaves alone, as static imports would be evaluated first).
import "./v8-flags.js";
import type * as agent from "./index.js";

const agentModule: string = "./index.js";
const { runNodeAgent } = (await import(agentModule)) as typeof agent;
process.exit(await runNodeAgent(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }));
