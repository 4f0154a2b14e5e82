#!/usr/bin/env bash
# The whole test suite, as README.md promises: typecheck, lint, build, generated-file check,
# unit + integration tests, dead-export check, and the packed-package checks.
# Prints one closing line `tests: N passed, N failed, N skipped` for CI.
set -euo pipefail
cd "$(dirname "$0")/../.."

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "typecheck (tsc -b, tests project)"
pnpm run -s typecheck

step "lint (eslint, manypkg)"
pnpm run -s lint

step "build (tsup)"
pnpm run -s build

step "generated files are up to date"
pnpm run -s generate
if ! git diff --exit-code --stat -- 'packages/*/src/generated' 'packages/*/openapi.json'; then
  echo "Generated files differ from the committed ones: run 'pnpm generate' and commit." >&2
  exit 1
fi

step "vitest (unit + integration)"
mkdir -p .tmp
status=0
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json=.tmp/vitest-report.json || status=$?

step "knip (unused files, exports, dependencies)"
pnpm run -s knip || status=$?

step "packed packages (publint, attw, install into a scratch project)"
pnpm run -s test:build || status=$?

node -e '
const r = require("./.tmp/vitest-report.json");
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`\ntests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
'
exit $status
