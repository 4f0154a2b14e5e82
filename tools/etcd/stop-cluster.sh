#!/usr/bin/env bash
# Stops every member of a cluster started by start-cluster.sh (SIGTERM, SIGKILL after 10 s).
# Usage: tools/etcd/stop-cluster.sh [DIR] [--purge]
#   --purge  also deletes DIR (data included)
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"

DIR="${1:-.skiff/etcd-cluster}"
[ -f "$DIR/cluster.env" ] || { echo "no cluster in $DIR"; exit 0; }
load_cluster "$DIR"
for n in $NAMES; do stop_member "$n"; done
if [ "${2:-}" = "--purge" ]; then rm -rf "$DIR"; fi
