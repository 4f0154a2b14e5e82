#!/usr/bin/env bash
# Checks what npm users get: each public package is packed with `pnpm pack`, linted with publint
# and attw, and the tarballs are installed into a scratch project outside the workspace, where a
# small program imports them, type-checks and runs (tools/scripts/scratch-consumer/).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

public=()
for dir in "$root"/packages/*/; do
  if node -e 'process.exit(require(process.argv[1]).private ? 1 : 0)' "$dir/package.json"; then
    public+=("$dir")
  fi
done

for dir in "${public[@]}"; do
  (cd "$dir" && pnpm pack --pack-destination "$out" >/dev/null)
done
for tgz in "$out"/*.tgz; do
  name=$(basename "$tgz")
  pnpm exec publint run "$tgz" --strict --level warning >/dev/null 2>&1 || pnpm exec publint run "$tgz" --strict --level warning
  pnpm exec attw "$tgz" --profile esm-only --format ascii >/dev/null 2>&1 || { pnpm exec attw "$tgz" --profile esm-only; exit 1; }
  echo "ok $name"
done

node "$root/tools/scripts/scratch-consumer/run.mjs" "$out"
