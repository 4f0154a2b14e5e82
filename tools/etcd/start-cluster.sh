#!/usr/bin/env bash
# Starts a local three-member etcd cluster on loopback, for tests and for trying Skiff's
# apiservers on etcd. Uses Debian's etcd-server package (/usr/bin/etcd) unless ETCD_BIN is set.
#
# Usage: tools/etcd/start-cluster.sh [DIR] [BASE_PORT]
#   DIR        cluster folder (data, logs, pids, endpoints); default .skiff/etcd-cluster
#   BASE_PORT  member i listens on client BASE_PORT+10*i and peer BASE_PORT+10*i+1;
#              default 2379 (clients 2379, 2389, 2399)
# Env: ETCD_BIN (etcd binary), ETCD_EXTRA_ARGS (extra etcd flags for every member).
# Prints the client URLs (also in DIR/endpoints) for --etcd-servers.
# Running it again on an existing DIR restarts stopped members on their existing data.
# Stop with tools/etcd/stop-cluster.sh DIR; one member with tools/etcd/member.sh stop|start DIR NAME.
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"

DIR="${1:-.skiff/etcd-cluster}"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
if [ -f "$DIR/cluster.env" ]; then
  load_cluster "$DIR"
  state=existing
else
  BASE_PORT="${2:-2379}"
  ETCD_BIN="${ETCD_BIN:-/usr/bin/etcd}"
  NAMES="m0 m1 m2"
  [ -x "$ETCD_BIN" ] || die "etcd binary $ETCD_BIN not found (apt-get install etcd-server, or set ETCD_BIN)"
  printf 'BASE_PORT=%s\nETCD_BIN=%s\nNAMES="%s"\n' "$BASE_PORT" "$ETCD_BIN" "$NAMES" >"$DIR/cluster.env"
  state=new
fi
command -v curl >/dev/null || die "curl is needed for health checks"

endpoints=""
i=0
for n in $NAMES; do
  start_member "$n" "$state"
  endpoints="${endpoints:+$endpoints,}$(client_url "$i")"
  i=$((i + 1))
done
for n in $NAMES; do wait_healthy "$n"; done
echo "$endpoints" >"$DIR/endpoints"
echo "$endpoints"
