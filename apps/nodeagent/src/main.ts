#!/usr/bin/env node
// Entry point of the nodeagent binary: runs the agent and exits with its code (explicitly, so
// that runtime channels left open by a failed start cannot keep the process alive; stdout and
// stderr writes are synchronous for files and pipes on Linux).
import { setFlagsFromString } from "node:v8";
import { runNodeAgent } from "./app.js";

// V8's young generation otherwise grows to 2 × 16 MiB under the bursts of a pod start wave and
// keeps that memory: measured with 101 pods, RSS 167-180 MiB of which 32 MiB was the new space
// and the live heap 34 MiB. Kept at its initial size (1 MiB semi-spaces) the agent holds ~35 MiB
// less for a few more scavenges. (Set at run time: V8 clamps the factor to 2 on the command line.)
setFlagsFromString("--semi-space-growth-factor=1");

process.exit(await runNodeAgent(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }));
