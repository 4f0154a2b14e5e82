#!/usr/bin/env node
// Entry point of the nodeagent binary: runs the agent and exits with its code (explicitly, so
// that runtime channels left open by a failed start cannot keep the process alive; stdout and
// stderr writes are synchronous for files and pipes on Linux).
import { runNodeAgent } from "./app.js";

process.exit(await runNodeAgent(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }));
