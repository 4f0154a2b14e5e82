#!/usr/bin/env node
// The `skiff-apiserver` command: the bundled dist/main.js (built by `pnpm build`; a committed file, so that
// installing the workspace links this bin before anything is built).
import "../dist/main.js";
